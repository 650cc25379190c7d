/*
 * `make bench-transport`, part (1): the limit. DEALER/ROUTER round trips on raw libzmq over tcp
 * loopback, in one process: a ROUTER echo server on its own thread (blocking receive, send back),
 * a DEALER client on the main thread. Not a SwiftPM target; the Makefile builds it with
 * `cc -O2 raw_roundtrip.c -lzmq -lpthread`.
 *
 * The Swift benchmark (part 2) repeats exactly this method through the `ZeroMQ` wrapper:
 *   - the ROUTER binds tcp://127.0.0.1:* (the OS picks the port, read back from ZMQ_LAST_ENDPOINT);
 *     router-mandatory on, linger 0 on every socket;
 *   - a request is one frame of PAYLOAD_SIZE bytes whose first 4 bytes are the slot (0 ..< in flight);
 *   - the client keeps `in flight` requests outstanding: it sends one per slot, then for every reply
 *     takes the slot's send time, records the latency (CLOCK_MONOTONIC, send to reply) and sends the
 *     next request on that slot until the round-trip count or the time budget is used up;
 *   - a warm-up of WARMUP round trips (also bounded in time) precedes every measured run;
 *   - p50 and p99 come from all the latencies of the run, sorted.
 *
 * Usage: raw_roundtrip [count-for-1-in-flight [count-for-64-in-flight [seconds]]]
 * Prints one line per run:
 *   RESULT impl=raw-c server=blocking inflight=N roundtrips=R seconds=S rate=X p50_us=A p99_us=B cpu_us=C
 * where C is the process's CPU time (user + system, every thread: client, server and libzmq's I/O
 * thread) during the run, per round trip, in microseconds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zmq.h>

#define PAYLOAD_SIZE 32
#define WARMUP 2000
#define MAX_IN_FLIGHT 64

static void die(const char *what) {
    fprintf(stderr, "raw_roundtrip: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void set_int(void *socket, int option, int value, const char *what) {
    if (zmq_setsockopt(socket, option, &value, sizeof value) != 0) die(what);
}

/* The echo server: receive [routing id, payload], send it back, until the context is shut down. */
static void *serve(void *router) {
    zmq_msg_t id, payload;
    zmq_msg_init(&id);
    zmq_msg_init(&payload);
    for (;;) {
        if (zmq_msg_recv(&id, router, 0) < 0) {
            if (zmq_errno() == EINTR) continue;
            break; /* ETERM */
        }
        if (zmq_msg_recv(&payload, router, 0) < 0) break;
        if (zmq_msg_send(&id, router, ZMQ_SNDMORE) < 0) break;
        if (zmq_msg_send(&payload, router, 0) < 0) break;
    }
    zmq_msg_close(&id);
    zmq_msg_close(&payload);
    zmq_close(router);
    return NULL;
}

/* CPU time (user + system) of the whole process so far, all threads, in nanoseconds. */
static uint64_t cpu_ns(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return ((uint64_t)usage.ru_utime.tv_sec + (uint64_t)usage.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)usage.ru_utime.tv_usec + (uint64_t)usage.ru_stime.tv_usec) * 1000u;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void send_request(void *dealer, uint32_t slot) {
    unsigned char request[PAYLOAD_SIZE];
    memset(request, 'x', sizeof request);
    memcpy(request, &slot, sizeof slot);
    while (zmq_send(dealer, request, sizeof request, 0) < 0) {
        if (zmq_errno() != EINTR) die("zmq_send");
    }
}

/* Runs `count` round trips (or until `seconds` pass) with `in_flight` outstanding; when
 * `latencies` is not NULL records each one. Returns the number of round trips completed. */
static size_t run(void *dealer, int in_flight, size_t count, double seconds, uint64_t *latencies) {
    uint64_t sent_at[MAX_IN_FLIGHT];
    uint64_t deadline = now_ns() + (uint64_t)(seconds * 1e9);
    size_t started = 0, done = 0;
    for (int slot = 0; slot < in_flight && started < count; slot++, started++) {
        sent_at[slot] = now_ns();
        send_request(dealer, (uint32_t)slot);
    }
    unsigned char reply[PAYLOAD_SIZE];
    int stop_sending = 0;
    while (done < started) {
        int size = zmq_recv(dealer, reply, sizeof reply, 0);
        if (size < 0) {
            if (zmq_errno() == EINTR) continue;
            die("zmq_recv");
        }
        uint64_t now = now_ns();
        uint32_t slot;
        memcpy(&slot, reply, sizeof slot);
        if (size != PAYLOAD_SIZE || slot >= (uint32_t)in_flight) {
            fprintf(stderr, "raw_roundtrip: bad reply\n");
            exit(1);
        }
        if (latencies) latencies[done] = now - sent_at[slot];
        done++;
        if (!stop_sending && (done & 63) == 0 && now >= deadline) stop_sending = 1;
        if (!stop_sending && started < count) {
            sent_at[slot] = now_ns();
            send_request(dealer, slot);
            started++;
        }
    }
    return done;
}

static void measure(void *dealer, int in_flight, size_t count, double seconds) {
    uint64_t *latencies = malloc(count * sizeof *latencies);
    if (!latencies) die("malloc");
    run(dealer, in_flight, WARMUP, seconds, NULL);
    uint64_t start = now_ns(), cpu_start = cpu_ns();
    size_t done = run(dealer, in_flight, count, seconds, latencies);
    double elapsed = (double)(now_ns() - start) / 1e9;
    double cpu_us = (double)(cpu_ns() - cpu_start) / 1e3 / (double)done;
    qsort(latencies, done, sizeof *latencies, compare_u64);
    double p50 = (double)latencies[(done - 1) * 50 / 100] / 1e3;
    double p99 = (double)latencies[(done - 1) * 99 / 100] / 1e3;
    printf("RESULT impl=raw-c server=blocking inflight=%d roundtrips=%zu seconds=%.3f rate=%.1f "
           "p50_us=%.1f p99_us=%.1f cpu_us=%.2f\n",
           in_flight, done, elapsed, (double)done / elapsed, p50, p99, cpu_us);
    fflush(stdout);
    free(latencies);
}

int main(int argc, char **argv) {
    size_t count1 = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    size_t count64 = argc > 2 ? strtoul(argv[2], NULL, 10) : 600000;
    double seconds = argc > 3 ? atof(argv[3]) : 5.0;
    if (count1 < 1 || count64 < 1 || seconds <= 0) {
        fprintf(stderr, "usage: raw_roundtrip [count-1 [count-64 [seconds]]]\n");
        return 2;
    }

    void *context = zmq_ctx_new();
    if (!context) die("zmq_ctx_new");
    void *router = zmq_socket(context, ZMQ_ROUTER);
    if (!router) die("zmq_socket");
    set_int(router, ZMQ_LINGER, 0, "ZMQ_LINGER");
    set_int(router, ZMQ_ROUTER_MANDATORY, 1, "ZMQ_ROUTER_MANDATORY");
    if (zmq_bind(router, "tcp://127.0.0.1:*") != 0) die("zmq_bind");
    char endpoint[256];
    size_t endpoint_size = sizeof endpoint;
    if (zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &endpoint_size) != 0) die("ZMQ_LAST_ENDPOINT");

    pthread_t server;
    if (pthread_create(&server, NULL, serve, router) != 0) die("pthread_create");

    void *dealer = zmq_socket(context, ZMQ_DEALER);
    if (!dealer) die("zmq_socket");
    set_int(dealer, ZMQ_LINGER, 0, "ZMQ_LINGER");
    if (zmq_connect(dealer, endpoint) != 0) die("zmq_connect");

    measure(dealer, 1, count1, seconds);
    measure(dealer, 64, count64, seconds);

    zmq_close(dealer);
    zmq_ctx_shutdown(context); /* the server's blocking receive fails with ETERM */
    pthread_join(server, NULL);
    zmq_ctx_term(context);
    return 0;
}
