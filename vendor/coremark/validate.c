/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * validate.c - checks an implementation of runner_coremark.h against the
 * published CoreMark 1.0 reference CRCs (algorithm and CRCs by EEMBC).
 *
 * Build (with the runner-bench implementation):
 *   cc -O2 -std=c99 validate.c runner_coremark.c rcm_*.c -o validate
 * Prints one line per check and a final "N passed, M failed" line; exits
 * non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runner_coremark.h"

static int passed, failed;

static rcm_ctx *new_ctx(uint32_t total, int16_t s1, int16_t s2, int16_t s3)
{
    size_t n = rcm_ctx_size(total);
    rcm_ctx *ctx = (rcm_ctx *)malloc(n);

    if (ctx == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (rcm_init(ctx, total, s1, s2, s3) != 0) {
        free(ctx);
        return NULL;
    }
    return ctx;
}

static void report(int ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

/* Per-algorithm known CRCs after one iteration. */
static void check_vector(const char *name, uint32_t total, int16_t s1,
                         int16_t s2, int16_t s3, uint16_t seedcrc,
                         uint16_t crclist, uint16_t crcmatrix,
                         uint16_t crcstate)
{
    char line[256];
    rcm_ctx *ctx = new_ctx(total, s1, s2, s3);
    rcm_crcs r;
    int ok;

    if (ctx == NULL) {
        snprintf(line, sizeof line, "%s: rcm_init refused %u bytes", name,
                 (unsigned)total);
        report(0, line);
        return;
    }
    rcm_run(ctx, 1);
    r = rcm_result(ctx);
    ok = r.seedcrc == seedcrc && r.crclist == crclist
        && r.crcmatrix == crcmatrix && r.crcstate == crcstate;
    snprintf(line, sizeof line,
             "%-16s seeds 0x%x 0x%x 0x%x, %4u B/alg: seedcrc 0x%04x "
             "crclist 0x%04x crcmatrix 0x%04x crcstate 0x%04x "
             "(expected 0x%04x 0x%04x 0x%04x 0x%04x)",
             name, (unsigned)(uint16_t)s1, (unsigned)(uint16_t)s2,
             (unsigned)(uint16_t)s3, (unsigned)(total / 3u), r.seedcrc,
             r.crclist, r.crcmatrix, r.crcstate, seedcrc, crclist, crcmatrix,
             crcstate);
    report(ok, line);
    free(ctx);
}

/* crcfinal after a number of iterations. */
static void check_final(uint32_t total, int16_t s1, int16_t s2, int16_t s3,
                        uint32_t iterations, uint16_t expected)
{
    char line[256];
    rcm_ctx *ctx = new_ctx(total, s1, s2, s3);
    rcm_crcs r;

    if (ctx == NULL) {
        report(0, "crcfinal: rcm_init refused the size");
        return;
    }
    rcm_run(ctx, iterations);
    r = rcm_result(ctx);
    snprintf(line, sizeof line,
             "crcfinal         seeds 0x%x 0x%x 0x%x, %4u B total, %4u "
             "iterations: 0x%04x (expected 0x%04x)",
             (unsigned)(uint16_t)s1, (unsigned)(uint16_t)s2,
             (unsigned)(uint16_t)s3, (unsigned)total, (unsigned)iterations,
             r.crcfinal, expected);
    report(r.crcfinal == expected, line);
    free(ctx);
}

/* Running in two calls must equal running in one. */
static void check_split(uint32_t total, int16_t s1, int16_t s2, int16_t s3,
                        uint32_t first, uint32_t second)
{
    char line[256];
    rcm_ctx *whole = new_ctx(total, s1, s2, s3);
    rcm_ctx *split = new_ctx(total, s1, s2, s3);
    rcm_crcs a, b;
    int ok;

    if (whole == NULL || split == NULL) {
        report(0, "split run: rcm_init refused the size");
        free(whole);
        free(split);
        return;
    }
    rcm_run(whole, first + second);
    rcm_run(split, first);
    rcm_run(split, second);
    a = rcm_result(whole);
    b = rcm_result(split);
    ok = a.seedcrc == b.seedcrc && a.crclist == b.crclist
        && a.crcmatrix == b.crcmatrix && a.crcstate == b.crcstate
        && a.crcfinal == b.crcfinal;
    snprintf(line, sizeof line,
             "split run        seeds 0x%x 0x%x 0x%x: %u+%u -> crcfinal 0x%04x, "
             "%u in one call -> 0x%04x",
             (unsigned)(uint16_t)s1, (unsigned)(uint16_t)s2,
             (unsigned)(uint16_t)s3, (unsigned)first, (unsigned)second,
             b.crcfinal, (unsigned)(first + second), a.crcfinal);
    report(ok, line);
    free(whole);
    free(split);
}

int main(void)
{
    char line[160];

    printf("implementation: %s\n", rcm_implementation());

    check_vector("2K performance", 2000, 0x0, 0x0, 0x66,
                 0xe9f5, 0xe714, 0x1fd7, 0x8e3a);
    check_vector("2K validation", 2000, 0x3415, 0x3415, 0x66,
                 0x18f2, 0xe3c1, 0x0747, 0x8d84);
    check_vector("6K performance", 6000, 0x0, 0x0, 0x66,
                 0x8a02, 0xd4b0, 0xbe52, 0x5e47);
    check_vector("6K validation", 6000, 0x3415, 0x3415, 0x66,
                 0x7b05, 0x3340, 0x1199, 0x39bf);
    check_vector("profile", 1200, 0x8, 0x8, 0x8,
                 0x4eaf, 0x6a79, 0x5608, 0xe5a4);

    check_final(2000, 0x0, 0x0, 0x66, 1, 0xe714);
    check_final(2000, 0x0, 0x0, 0x66, 10, 0xfcaf);
    check_final(2000, 0x0, 0x0, 0x66, 1000, 0xd340);
    check_final(2000, 0x3415, 0x3415, 0x66, 1, 0xe3c1);
    check_final(2000, 0x3415, 0x3415, 0x66, 10, 0xc64e);
    check_final(2000, 0x3415, 0x3415, 0x66, 1000, 0x26c2);
    check_final(1200, 0x8, 0x8, 0x8, 1000, 0x95ea);

    check_split(2000, 0x0, 0x0, 0x66, 600, 400);
    check_split(2000, 0x3415, 0x3415, 0x66, 600, 400);

    {
        rcm_ctx *ctx = (rcm_ctx *)malloc(rcm_ctx_size(10));
        int refused = ctx != NULL && rcm_init(ctx, 10, 0, 0, 0x66) == -1;

        snprintf(line, sizeof line, "unsupported size 10 refused by rcm_init");
        report(refused, line);
        free(ctx);
    }

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
