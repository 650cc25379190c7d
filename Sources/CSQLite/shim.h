// CSQLite: the only place the C API of SQLite (Debian's libsqlite3-dev, 3.40.x) enters the package.
//
// Exactly one Swift module, `SQLite`, imports this (`internal import CSQLite`); no C type escapes
// into a public Swift signature.
//
// Almost all of <sqlite3.h> is callable from Swift as it is. What follows adds only what Swift cannot
// use directly:
//
// - `SQLITE_TRANSIENT`, the destructor value that tells a bind call to copy the bytes before it
//   returns. <sqlite3.h> defines it as a cast of -1 to a function pointer, a macro Swift does not
//   import, so it is returned from an inline function instead.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT`: SQLite copies bound text or blob bytes before the bind call returns, so the
/// Swift buffer they came from may be released straight after it.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
