// The C side of the terminal client: ncursesw (the wide-character ncurses) and the few wrappers
// Swift needs because ncurses exposes them as macros, varargs or globals that may be macros.
//
// Only the TerminalUI module imports this (`internal import CNcursesw`); no ncurses type appears in
// a public Swift signature.
#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H

// The wide-character API (get_wch, wcwidth-aware painting) is only declared when these are set
// before the first include of <curses.h>.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <locale.h>
#include <stdio.h>
#include <langinfo.h>
#include <strings.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Starts curses on the process's terminal (stdin/stdout, $TERM). Unlike initscr, which exits the
// process when $TERM is unusable, this returns NULL so the caller can report it.
static inline SCREEN *cncurses_newterm(void) {
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (screen != NULL) set_term(screen);
    return screen;
}

// `stdscr` is a macro in reentrant builds of ncurses; a function works in both.
static inline WINDOW *cncurses_stdscr(void) { return stdscr; }

// Screen size: `getmaxy`/`getmaxx` may be macros.
static inline int cncurses_rows(void) { return getmaxy(stdscr); }
static inline int cncurses_columns(void) { return getmaxx(stdscr); }

// `get_wch` is a macro over `wget_wch(stdscr, …)`. Returns OK (a character in *out), KEY_CODE_YES
// (a function key code in *out) or ERR (the timeout passed without a key).
static inline int cncurses_get_wch(wint_t *out) { return wget_wch(stdscr, out); }

// Attribute bits are built with the NCURSES_BITS macro, which Swift cannot import.
static inline attr_t cncurses_a_normal(void) { return A_NORMAL; }
static inline attr_t cncurses_a_bold(void) { return A_BOLD; }
static inline attr_t cncurses_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cncurses_a_reverse(void) { return A_REVERSE; }
static inline attr_t cncurses_a_dim(void) { return A_DIM; }
static inline attr_t cncurses_color_pair(short pair) { return (attr_t)COLOR_PAIR(pair); }

// Sets the attributes (and colour pair) for what `cncurses_put` writes next.
static inline void cncurses_set_attributes(attr_t attributes) { attrset((int)attributes); }

// Writes a UTF-8 string at (row, column); ncursesw decodes it with the current locale.
static inline void cncurses_put(int row, int column, const char *text) { mvaddstr(row, column, text); }

// Clears from the cursor to the end of the line / moves the cursor.
static inline void cncurses_clear_to_eol(void) { clrtoeol(); }
static inline void cncurses_move(int row, int column) { move(row, column); }

// Writes `sequence` to the terminal at once, after what curses has buffered (bracketed paste on and
// off: `\033[?2004h`, `\033[?2004l`; curses has no capability for it in every terminfo entry).
static inline void cncurses_write_raw(const char *sequence) {
    fflush(stdout);
    fputs(sequence, stdout);
    fflush(stdout);
}

// Key reads time out after `milliseconds` so the UI thread can drain its output queue.
static inline void cncurses_timeout(int milliseconds) { timeout(milliseconds); }

// The columns a character takes under the current LC_CTYPE (2 for CJK, 0 for combining marks, -1
// for non-printables). Declared here because <wchar.h> hides it unless _XOPEN_SOURCE is set.
extern int wcwidth(wchar_t character);
static inline int cncurses_wcwidth(unsigned int character) { return wcwidth((wchar_t)character); }

// Whether LC_CTYPE's character set is UTF-8 (after setlocale).
static inline int cncurses_codeset_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL) return 0;
    return strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "UTF8") == 0;
}

#endif
