/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * allcore_main.c - the all-core CPU stage's workload as a program of its
 * own (`coremark-allcore`): CoreMark's parallel execution as EEMBC's
 * `-DMULTITHREAD=N -DUSE_PTHREAD` build defines it, one context per thread,
 * every context running the same number of iterations, the figure
 * contexts x iterations / the wall time until the last thread is joined.
 * build.rs links it from the same CoreMark objects and flags as the
 * one-thread program, in one compiler call, so that where the workload's
 * code and data lie does not depend on the collector's Rust code
 * (README.md, "The workload as its own executable").
 *
 * Usage: coremark-allcore CONTEXTS ITERATIONS SECONDS DEADLINE_S P1 P2 P3 V1 V2 V3
 *   CONTEXTS    threads, one context each (1 to MAX_CONTEXTS)
 *   ITERATIONS  iterations per context; 0: calibrated (below) so that the
 *               run lasts about SECONDS
 *   SECONDS     the run's length when calibrated (decimal seconds)
 *   DEADLINE_S  time from the program's start after which it gives up
 *   P1 P2 P3    the performance seeds, V1 V2 V3 the validation seeds, as
 *               the one-thread program takes them
 *
 * One iteration with the validation seeds on a fresh context; then, with
 * ITERATIONS 0, parallel runs of 1, 2, 4 ... iterations per context on
 * throwaway contexts until one lasts CALIBRATION_NS (EEMBC calibrates on
 * context 0 alone, so that where contexts share a core its run lasts
 * longer than asked; here every context runs, so a run lasts about SECONDS
 * on any machine, which also warms the caches and the CPUs' clocks up).
 * The contexts measured are allocated and initialised before the clock
 * starts, as EEMBC's main() does; the clock runs from before the first
 * thread is created to after the last one is joined. Threads are placed by
 * the OS, as EEMBC's pthread port leaves them; on Windows, context k runs
 * in the processor group of the k-th logical CPU (free to run on any CPU of
 * that group), since a thread starts in one group only. Each thread runs
 * its count in batches and stops between two of them once DEADLINE_S has
 * passed.
 *
 * Output, on success (exit status 0): one line per context, then one line
 * for the run, on stdout:
 *   context=K iterations=N seconds=E cpu_seconds=C first_cpu=G:P last_cpu=G:P crcs=0xSEED,...,0xFINAL
 *   contexts=N iterations=I seconds=S validation_crcs=0x....,...
 * E is the time from the clock's start to the end of context K; C its
 * thread's CPU time; G:P the processor group and the CPU within it where
 * the thread was when it started and when it finished (`-` where the OS
 * does not say, as for C). The collector parses it strictly and checks
 * every context's CRCs. DEADLINE_S reached first: `deadline iterations=T`
 * (T all contexts' iterations together) and exit status 3. Bad arguments,
 * a context that cannot be initialised or a thread that cannot be started:
 * a line on stderr, exit status 2.
 */
#if defined(_WIN32)
#define _WIN32_WINNT 0x0601 /* processor groups: Windows 7 */
#elif defined(__APPLE__)
#define _DARWIN_C_SOURCE
#else
#define _GNU_SOURCE /* sched_getcpu */
#endif

#define WORKLOAD_ALL_CORE
#include "workload_common.h"

#include <string.h>

#if defined(_WIN32)
#include <process.h>
#else
#include <pthread.h>
#if defined(__linux__)
#include <sched.h>
#endif
#endif

#define MAX_CONTEXTS 4096u
#define CALIBRATION_NS 250000000LL /* 250 ms: thread start-up a small part of it */
#define FIXED_BATCH 64u            /* batch when ITERATIONS is given */

/* Where a thread is: processor group and CPU within it; cpu -1 where the
 * OS does not say. */
typedef struct {
    int group, cpu;
} seen_cpu;

typedef struct {
    rcm_ctx *ctx;
    int index;
    uint64_t iterations, done;
    uint32_t batch;
    int64_t start_ns, deadline_ns, end_ns, cpu_ns;
    seen_cpu first, last;
    int group_error;
} context_run;

static seen_cpu current_cpu(void)
{
    seen_cpu seen = {0, -1};
#if defined(_WIN32)
    PROCESSOR_NUMBER n;
    GetCurrentProcessorNumberEx(&n);
    seen.group = n.Group;
    seen.cpu = n.Number;
#elif defined(__linux__)
    seen.cpu = sched_getcpu();
#endif
    return seen;
}

/* Windows: moves the calling thread into the processor group of the k-th
 * logical CPU, all of that group's CPUs allowed. 0, or -1 on failure. */
static int join_group_of(int k)
{
#if defined(_WIN32)
    WORD groups = GetActiveProcessorGroupCount(), g;
    DWORD first = 0;
    if (groups <= 1)
        return 0;
    for (g = 0; g < groups; g++) {
        DWORD n = GetActiveProcessorCount(g);
        if ((DWORD)k < first + n) {
            GROUP_AFFINITY wanted;
            memset(&wanted, 0, sizeof wanted);
            wanted.Group = g;
            wanted.Mask = n >= sizeof(KAFFINITY) * 8 ? ~(KAFFINITY)0 : (((KAFFINITY)1 << n) - 1);
            return SetThreadGroupAffinity(GetCurrentThread(), &wanted, NULL) ? 0 : -1;
        }
        first += n;
    }
    return 0;
#else
    (void)k;
    return 0;
#endif
}

static void run_context(context_run *c)
{
    int64_t cpu_before;
    if (join_group_of(c->index) != 0) {
        c->group_error = 1;
        return;
    }
    c->first = current_cpu();
    cpu_before = cpu_ns();
    while (c->done < c->iterations) {
        uint64_t left = c->iterations - c->done;
        uint32_t n = left < c->batch ? (uint32_t)left : c->batch;
        rcm_run(c->ctx, n);
        c->done += n;
        if (wall_ns() >= c->deadline_ns)
            break;
    }
    c->end_ns = wall_ns() - c->start_ns;
    c->cpu_ns = cpu_before >= 0 ? cpu_ns() - cpu_before : -1;
    c->last = current_cpu();
}

#if defined(_WIN32)
typedef HANDLE thread_t;
static unsigned __stdcall thread_main(void *arg)
{
    run_context((context_run *)arg);
    return 0;
}
static int start_thread(thread_t *t, context_run *c)
{
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, c, 0, NULL);
    *t = (HANDLE)h;
    return h == 0 ? -1 : 0;
}
static void join_thread(thread_t t)
{
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
#else
typedef pthread_t thread_t;
static void *thread_main(void *arg)
{
    run_context((context_run *)arg);
    return NULL;
}
static int start_thread(thread_t *t, context_run *c)
{
    return pthread_create(t, NULL, thread_main, c) == 0 ? 0 : -1;
}
static void join_thread(thread_t t)
{
    pthread_join(t, NULL);
}
#endif

/* Runs `iterations` on each of `n` fresh contexts with `seeds`, one thread
 * each, timed from before the first thread starts to after the last join.
 * Fills runs[0..n); returns the elapsed nanoseconds, or -1 (a message on
 * stderr) when a context or a thread cannot be had. */
static int64_t run_parallel(context_run *runs, thread_t *threads, int n, const int16_t seeds[3],
                            uint64_t iterations, uint32_t batch, int64_t deadline)
{
    int k, started = 0, failed = 0;
    int64_t start;
    for (k = 0; k < n; k++) {
        memset(&runs[k], 0, sizeof runs[k]);
        runs[k].ctx = new_ctx(seeds);
        if (runs[k].ctx == NULL) {
            fprintf(stderr, "coremark-allcore: CoreMark could not be initialised\n");
            failed = 1;
            n = k;
            break;
        }
        runs[k].index = k;
        runs[k].iterations = iterations;
        runs[k].batch = batch;
        runs[k].deadline_ns = deadline;
    }
    start = wall_ns();
    for (k = 0; k < n && !failed; k++) {
        runs[k].start_ns = start;
        if (start_thread(&threads[k], &runs[k]) != 0) {
            fprintf(stderr, "coremark-allcore: cannot start the thread of context %d\n", k);
            failed = 1;
            break;
        }
        started++;
    }
    for (k = 0; k < started; k++)
        join_thread(threads[k]);
    start = wall_ns() - start;
    for (k = 0; k < started && !failed; k++) {
        if (runs[k].group_error) {
            fprintf(stderr, "coremark-allcore: context %d cannot join the processor group of its CPU\n", k);
            failed = 1;
        }
    }
    return failed ? -1 : start;
}

static void free_contexts(context_run *runs, int n)
{
    int k;
    for (k = 0; k < n; k++) {
        free(runs[k].ctx);
        runs[k].ctx = NULL;
    }
}

static void print_cpu(const char *name, seen_cpu seen)
{
    if (seen.cpu < 0)
        printf(" %s=-", name);
    else
        printf(" %s=%d:%d", name, seen.group, seen.cpu);
}

static uint64_t all_done(const context_run *runs, int n)
{
    uint64_t total = 0;
    int k;
    for (k = 0; k < n; k++)
        total += runs[k].done;
    return total;
}

int main(int argc, char **argv)
{
    int16_t perf[3], valid[3];
    double seconds, deadline_s;
    int64_t started = wall_ns(), deadline, elapsed;
    char *end;
    unsigned long contexts_arg;
    unsigned long long iterations_arg;
    uint64_t iterations;
    uint32_t batch = FIXED_BATCH;
    int contexts, k, i;
    rcm_ctx *check;
    rcm_crcs validation;
    context_run *runs;
    thread_t *threads;

    if (argc != 11 || parse_seconds(argv[3], &seconds) != 0 || parse_seconds(argv[4], &deadline_s) != 0) {
        fprintf(stderr, "usage: coremark-allcore CONTEXTS ITERATIONS SECONDS DEADLINE_S P1 P2 P3 V1 V2 V3\n");
        return 2;
    }
    errno = 0;
    contexts_arg = strtoul(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || contexts_arg < 1 || contexts_arg > MAX_CONTEXTS) {
        fprintf(stderr, "coremark-allcore: CONTEXTS is not a whole number from 1 to %u\n", MAX_CONTEXTS);
        return 2;
    }
    errno = 0;
    iterations_arg = strtoull(argv[2], &end, 10);
    if (errno != 0 || end == argv[2] || *end != '\0' || argv[2][0] == '-') {
        fprintf(stderr, "coremark-allcore: ITERATIONS is not a whole number\n");
        return 2;
    }
    for (i = 0; i < 3; i++) {
        if (parse_seed(argv[5 + i], &perf[i]) != 0 || parse_seed(argv[8 + i], &valid[i]) != 0) {
            fprintf(stderr, "coremark-allcore: a seed is not a 16-bit number\n");
            return 2;
        }
    }
    contexts = (int)contexts_arg;
    iterations = (uint64_t)iterations_arg;
    deadline = started + (int64_t)(deadline_s * 1e9);

    check = new_ctx(valid);
    runs = (context_run *)calloc((size_t)contexts, sizeof *runs);
    threads = (thread_t *)calloc((size_t)contexts, sizeof *threads);
    if (check == NULL || runs == NULL || threads == NULL) {
        fprintf(stderr, "coremark-allcore: CoreMark could not be initialised\n");
        return 2;
    }
    rcm_run(check, 1);
    validation = rcm_result(check);

    if (iterations == 0) {
        uint64_t k_iterations = 1;
        for (;;) {
            if (wall_ns() >= deadline) {
                printf("deadline iterations=0\n");
                return 3;
            }
            elapsed = run_parallel(runs, threads, contexts, perf, k_iterations, (uint32_t)k_iterations, deadline);
            free_contexts(runs, contexts);
            if (elapsed < 0)
                return 2;
            if (elapsed >= CALIBRATION_NS || k_iterations >= MAX_BATCH) {
                double per_s = (double)k_iterations / ((double)(elapsed > 0 ? elapsed : 1) / 1e9);
                double batch_f = per_s * (double)BATCH_TARGET_NS / 1e9;
                iterations = (uint64_t)(per_s * seconds + 0.999999);
                if (iterations < 1)
                    iterations = 1;
                batch = batch_f < 1.0 ? 1u : batch_f > (double)MAX_BATCH ? MAX_BATCH : (uint32_t)(batch_f + 0.999999);
                break;
            }
            k_iterations *= 2;
        }
    }

    elapsed = run_parallel(runs, threads, contexts, perf, iterations, batch, deadline);
    if (elapsed < 0)
        return 2;
    /* The deadline first: a run past it is a timeout even when every
     * context also ran its count, as the collector judges a sample. */
    if (wall_ns() >= deadline || all_done(runs, contexts) < iterations * (uint64_t)contexts) {
        printf("deadline iterations=%llu\n", (unsigned long long)all_done(runs, contexts));
        return 3;
    }
    for (k = 0; k < contexts; k++) {
        printf("context=%d iterations=%llu seconds=%.9f", k, (unsigned long long)runs[k].done,
               (double)runs[k].end_ns / 1e9);
        if (runs[k].cpu_ns >= 0)
            printf(" cpu_seconds=%.9f", (double)runs[k].cpu_ns / 1e9);
        else
            printf(" cpu_seconds=-");
        print_cpu("first_cpu", runs[k].first);
        print_cpu("last_cpu", runs[k].last);
        print_crcs("crcs", rcm_result(runs[k].ctx));
        printf("\n");
    }
    printf("contexts=%d iterations=%llu seconds=%.9f", contexts, (unsigned long long)iterations, (double)elapsed / 1e9);
    print_crcs("validation_crcs", validation);
    printf("\n");
    return fflush(stdout) == 0 ? 0 : 2;
}
