/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * coremark_ab.c - the project's CoreMark implementation and EEMBC's (through
 * vendor/coremark/official_shim.c) in one process, alternating every few
 * milliseconds, timed by the thread's CPU clock. Noise on a shared machine
 * moves over seconds, so two neighbouring slices see the same machine, and
 * each slice pair gives a ratio. scripts/bench-cpu-ab.sh builds and runs it;
 * the project's API symbols are renamed with a p_ prefix (objcopy) so that
 * both implementations link together.
 *
 * Usage: coremark_ab ROUNDS ITERATIONS   (prints one line)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runner_coremark.h"

size_t p_rcm_ctx_size(uint32_t total_data_bytes);
int p_rcm_init(rcm_ctx *ctx, uint32_t total_data_bytes, int16_t seed1, int16_t seed2, int16_t seed3);
void p_rcm_run(rcm_ctx *ctx, uint32_t iterations);
rcm_crcs p_rcm_result(const rcm_ctx *ctx);

static double cpu_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    unsigned iterations = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
    /* 8-byte aligned, as the API asks; malloc gives at least that. */
    rcm_ctx *p = malloc(p_rcm_ctx_size(2000));
    rcm_ctx *e = malloc(rcm_ctx_size(2000));
    double *ratio = malloc(sizeof(double) * (size_t)(rounds > 0 ? rounds : 1));
    double project_s = 0, eembc_s = 0;
    int k;

    if (!p || !e || !ratio || rounds < 4 || p_rcm_init(p, 2000, 0, 0, 0x66) || rcm_init(e, 2000, 0, 0, 0x66))
        return 2;
    p_rcm_run(p, iterations); /* warm both up */
    rcm_run(e, iterations);
    for (k = 0; k < rounds; k++) {
        double t0, t1, t2, first, second;

        t0 = cpu_now();
        if (k & 1)
            rcm_run(e, iterations);
        else
            p_rcm_run(p, iterations);
        t1 = cpu_now();
        if (k & 1)
            p_rcm_run(p, iterations);
        else
            rcm_run(e, iterations);
        t2 = cpu_now();
        first = t1 - t0;
        second = t2 - t1;
        /* EEMBC's seconds over the project's: the project's speed over EEMBC's. */
        if (k & 1) {
            eembc_s += first, project_s += second;
            ratio[k] = first / second;
        } else {
            project_s += first, eembc_s += second;
            ratio[k] = second / first;
        }
    }
    if (p_rcm_result(p).crcfinal != rcm_result(e).crcfinal) {
        fprintf(stderr, "the two implementations disagree: crcfinal %04x and %04x\n", p_rcm_result(p).crcfinal,
                rcm_result(e).crcfinal);
        return 1;
    }
    qsort(ratio, (size_t)rounds, sizeof ratio[0], by_value);
    printf("%.4f %.4f %.4f %.4f %.3f %.3f\n", ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4],
           eembc_s / project_s, project_s, eembc_s);
    return 0;
}
