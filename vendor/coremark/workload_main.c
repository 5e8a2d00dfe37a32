/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * workload_main.c - the one-thread CPU stage's workload as a program of its
 * own (`coremark-workload`), built by build.rs from the same objects as the
 * library (the project's kernels, or EEMBC's sources through
 * official_shim.c) with the same flags, compiled and linked in one compiler
 * call as EEMBC's Makefile builds coremark.exe. The collector embeds it,
 * writes it to a private temporary file and runs it once per sample. Its
 * code layout therefore depends only on the C sources, the flags and the
 * compiler, never on the Rust code of the collector (README.md, "The
 * workload as its own executable").
 *
 * Usage: coremark-workload SECONDS DEADLINE_S P1 P2 P3 V1 V2 V3
 *   SECONDS     the least time the timed loop runs (decimal seconds)
 *   DEADLINE_S  time from the program's start after which it gives up
 *   P1 P2 P3    the performance seeds (0 0 0x66), V1 V2 V3 the validation
 *               seeds (0x3415 0x3415 0x66): run-time arguments, so that the
 *               compiler cannot precompute the work
 *
 * As the collector's in-process sample did: one iteration with the
 * validation seeds on a fresh context; a batch size calibrated on a
 * throwaway context (doubled until a batch takes BATCH_TARGET_NS, which also
 * warms the caches and the CPU's clock up); then batches on a fresh context
 * with the performance seeds until SECONDS have passed. Only that loop is
 * timed, with the monotonic clock, as EEMBC's core_main.c times its
 * iterations; the thread's CPU clock is read around it too.
 *
 * Output, on success (exit status 0), one line on stdout:
 *   iterations=N seconds=S cpu_seconds=C crcs=0xSEED,0xLIST,0xMATRIX,0xSTATE,0xFINAL validation_crcs=0x....,...
 * (cpu_seconds=- where the CPU clock cannot be read). The collector parses
 * it strictly and checks the CRCs against the published values.
 * DEADLINE_S reached first: `deadline iterations=N` and exit status 3, so
 * that the program never outlives its sample by more than one batch even if
 * the collector's thread that waits for it is stopped.
 * Bad arguments or a context that cannot be initialised: a line on stderr,
 * exit status 2.
 */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#elif !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif

#include "workload_common.h"

int main(int argc, char **argv)
{
    int16_t perf[3], valid[3];
    double seconds, deadline_s;
    int64_t started = wall_ns(), deadline, target, start, now, elapsed, cpu_before, cpu_after;
    uint64_t iterations = 0;
    uint32_t batch = 1;
    rcm_ctx *check, *warm, *ctx;
    rcm_crcs validation;
    int i;

    if (argc != 9 || parse_seconds(argv[1], &seconds) != 0 || parse_seconds(argv[2], &deadline_s) != 0) {
        fprintf(stderr, "usage: coremark-workload SECONDS DEADLINE_S P1 P2 P3 V1 V2 V3\n");
        return 2;
    }
    for (i = 0; i < 3; i++) {
        if (parse_seed(argv[3 + i], &perf[i]) != 0 || parse_seed(argv[6 + i], &valid[i]) != 0) {
            fprintf(stderr, "coremark-workload: a seed is not a 16-bit number\n");
            return 2;
        }
    }
    deadline = started + (int64_t)(deadline_s * 1e9);
    target = (int64_t)(seconds * 1e9);

    check = new_ctx(valid);
    warm = new_ctx(perf);
    ctx = new_ctx(perf);
    if (check == NULL || warm == NULL || ctx == NULL) {
        fprintf(stderr, "coremark-workload: CoreMark could not be initialised\n");
        return 2;
    }
    rcm_run(check, 1);
    validation = rcm_result(check);

    for (;;) {
        int64_t t = wall_ns();
        if (t >= deadline) {
            printf("deadline iterations=0\n");
            return 3;
        }
        rcm_run(warm, batch);
        if (wall_ns() - t >= BATCH_TARGET_NS || batch >= MAX_BATCH)
            break;
        batch *= 2;
    }

    cpu_before = cpu_ns();
    start = wall_ns();
    for (;;) {
        rcm_run(ctx, batch);
        iterations += batch;
        now = wall_ns();
        /* The deadline first: a run past it is a timeout even when it also
         * ran its seconds, as the collector judges a sample. */
        if (now >= deadline) {
            printf("deadline iterations=%llu\n", (unsigned long long)iterations);
            return 3;
        }
        elapsed = now - start;
        if (elapsed >= target)
            break;
    }
    cpu_after = cpu_ns();

    printf("iterations=%llu seconds=%.9f", (unsigned long long)iterations, (double)elapsed / 1e9);
    if (cpu_before >= 0 && cpu_after >= cpu_before)
        printf(" cpu_seconds=%.9f", (double)(cpu_after - cpu_before) / 1e9);
    else
        printf(" cpu_seconds=-");
    print_crcs("crcs", rcm_result(ctx));
    print_crcs("validation_crcs", validation);
    printf("\n");
    return fflush(stdout) == 0 ? 0 : 2;
}
