// Counts malloc calls in a process and prints the total when it exits: how docs/BENCHMARKS.md
// measures allocations per round trip (run the same benchmark with N and 2N round trips; the
// difference over N is the count per round trip, start-up excluded).
//
//   cc -O2 -shared -fPIC -o malloc_count.so Benchmarks/TransportBenchmarks/raw/malloc_count.c
//   LD_PRELOAD=$PWD/malloc_count.so TransportBenchmarks --raw ... 2>&1 | grep MALLOCS
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

extern void *__libc_malloc(size_t size);

static atomic_long calls;

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "MALLOCS %ld\n", atomic_load(&calls));
}
