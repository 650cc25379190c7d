// glibc's malloc statistics and trimming, which Swift's Glibc module does not import (<malloc.h>).
//
// Only ServiceKit imports this (`internal import CMalloc`, in HeapTrimming.swift); no C type
// appears in a public Swift signature.
#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

#include <stddef.h>

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>

// Bytes held in free chunks by every arena (mallinfo2's fordblks): memory malloc keeps for reuse,
// part of the resident set until it is trimmed.
static inline size_t cmalloc_free_bytes(void) { return mallinfo2().fordblks; }

// Returns the whole free pages of every arena to the system (malloc_trim(0)); 1 if any was
// released.
static inline int cmalloc_trim(void) { return malloc_trim(0); }

static inline int cmalloc_available(void) { return 1; }
#else
static inline size_t cmalloc_free_bytes(void) { return 0; }
static inline int cmalloc_trim(void) { return 0; }
static inline int cmalloc_available(void) { return 0; }
#endif

#endif
