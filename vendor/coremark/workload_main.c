/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * workload_main.c - the one-thread CPU stage's workload as a program of its
 * own (`coremark-workload`), built by build.rs from the same objects as the
 * library (the project's kernels, or EEMBC's sources through
 * official_shim.c) with the same flags, compiled and linked in one compiler
 * call as EEMBC's Makefile builds coremark.exe. The collector embeds it,
 * writes it to a private temporary file and runs it for each run of a
 * sample. Its code layout therefore depends only on the C sources, the
 * flags and the compiler, never on the Rust code of the collector
 * (README.md, "The workload as its own executable"). A Linux build from
 * EEMBC's sources runs EEMBC's own core_main.c instead, built as its
 * Makefile builds coremark.exe; this program takes the same arguments and
 * prints the lines of core_main.c's report that the collector reads, so
 * that the collector runs either the same way.
 *
 * Usage, as coremark.exe: coremark-workload SEED1 SEED2 SEED3 ITERATIONS [EXECS [...]]
 *   SEED1 SEED2 SEED3  the seeds: 0 0 0x66 for the performance run,
 *                      0x3415 0x3415 0x66 for the validation run; run-time
 *                      arguments, so that the compiler cannot precompute
 *                      the work
 *   ITERATIONS         the iterations to run, at least 1 (coremark.exe's 0,
 *                      which has it find a count lasting 10 s, is refused:
 *                      the collector finds its own)
 *   EXECS              7 (all three algorithms) or 0, as coremark.exe
 *                      takes it; further arguments are ignored, as there
 *
 * It initialises one context of 2000 bytes with the seeds, then runs the
 * iterations, timing only them, as core_main.c times its iterate(), but
 * with the monotonic clock in nanoseconds (clock_gettime(CLOCK_MONOTONIC),
 * QueryPerformanceCounter on Windows) where EEMBC's POSIX port reads
 * CLOCK_REALTIME in milliseconds. Output on stdout, exit status 0:
 *   2K performance run parameters for coremark.   (or: 2K validation run)
 *   CoreMark Size    : 666
 *   Total time (secs): 1.234567
 *   Iterations/Sec   : 33412.345678
 *   Iterations       : 41248
 *   seedcrc          : 0xe9f5
 *   [0]crclist       : 0xe714
 *   [0]crcmatrix     : 0x1fd7
 *   [0]crcstate      : 0x8e3a
 *   [0]crcfinal      : 0x....
 * The collector reads Total time, Iterations and the CRCs, checks the CRCs
 * itself, and takes CPU time from the OS when the program exits. Bad
 * arguments or a context that cannot be initialised: a line on stderr,
 * exit status 2.
 */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#elif !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif

#include "workload_common.h"

#include <string.h>

int main(int argc, char **argv)
{
    int16_t seeds[3];
    unsigned long long iterations;
    int64_t start, elapsed;
    double seconds;
    rcm_ctx *ctx;
    rcm_crcs crcs;
    char *end;
    int i;

    if (argc < 5) {
        fprintf(stderr, "usage: coremark-workload SEED1 SEED2 SEED3 ITERATIONS [EXECS [...]]\n");
        return 2;
    }
    for (i = 0; i < 3; i++) {
        if (parse_seed(argv[1 + i], &seeds[i]) != 0) {
            fprintf(stderr, "coremark-workload: a seed is not a 16-bit number\n");
            return 2;
        }
    }
    errno = 0;
    iterations = strtoull(argv[4], &end, 10);
    if (errno != 0 || end == argv[4] || *end != '\0' || argv[4][0] == '-' || iterations == 0 ||
        iterations > 0xffffffffULL) {
        fprintf(stderr, "coremark-workload: ITERATIONS is not a whole number from 1 to 4294967295\n");
        return 2;
    }
    if (argc > 5 && strcmp(argv[5], "7") != 0 && strcmp(argv[5], "0") != 0) {
        fprintf(stderr, "coremark-workload: EXECS is not 7 (all three algorithms)\n");
        return 2;
    }

    ctx = new_ctx(seeds);
    if (ctx == NULL) {
        fprintf(stderr, "coremark-workload: CoreMark could not be initialised\n");
        return 2;
    }
    start = wall_ns();
    rcm_run(ctx, (uint32_t)iterations);
    elapsed = wall_ns() - start;
    crcs = rcm_result(ctx);
    seconds = (double)elapsed / 1e9;

    if (crcs.seedcrc == 0xe9f5)
        printf("2K performance run parameters for coremark.\n");
    else if (crcs.seedcrc == 0x18f2)
        printf("2K validation run parameters for coremark.\n");
    printf("CoreMark Size    : %u\n", TOTAL_DATA_BYTES / 3);
    printf("Total time (secs): %f\n", seconds);
    if (seconds > 0)
        printf("Iterations/Sec   : %f\n", (double)iterations / seconds);
    printf("Iterations       : %llu\n", iterations);
    printf("seedcrc          : 0x%04x\n", (unsigned)crcs.seedcrc);
    printf("[0]crclist       : 0x%04x\n", (unsigned)crcs.crclist);
    printf("[0]crcmatrix     : 0x%04x\n", (unsigned)crcs.crcmatrix);
    printf("[0]crcstate      : 0x%04x\n", (unsigned)crcs.crcstate);
    printf("[0]crcfinal      : 0x%04x\n", (unsigned)crcs.crcfinal);
    return fflush(stdout) == 0 ? 0 : 2;
}
