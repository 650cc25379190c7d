// CLibpq: the only place the C API of libpq (Debian's libpq-dev, PostgreSQL 15) enters the package.
//
// Exactly one Swift module, `Postgres`, imports this (`internal import CLibpq`); no C type escapes
// into a public Swift signature. <libpq-fe.h> is callable from Swift as it is, pipeline mode
// included (libpq 14 and later), so nothing is added here.
//
// The header is found through pkg-config (`libpq.pc` puts /usr/include/postgresql on the include
// path).
#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
