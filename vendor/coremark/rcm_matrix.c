/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * rcm_matrix.c - the integer matrix kernel of the CoreMark workload.
 *
 * Part of an independent implementation of the CoreMark 1.0 workload
 * (algorithm by EEMBC).
 *
 * Its third of the data area holds three N x N matrices, N being the largest
 * dimension with 8*N*N below the block size: A (16-bit, small values), B
 * (16-bit, medium values) and C (32-bit results).  One pass adds a constant
 * to A, then computes into C, in turn, A times the constant, A times the
 * first column of B (only the first N entries of C change), A times B, and
 * A times B with bit fields extracted from each product, scoring C after each
 * step; finally A gets its original values back.  Products and sums are done
 * in 32-bit two's-complement arithmetic (unsigned types are used where the
 * result may wrap, so that wrapping is well defined).
 */
#include "rcm_internal.h"

/* Round a pointer up to a multiple of 4 bytes. */
static void *align4(void *p)
{
    uintptr_t u = (uintptr_t)p;

    return (void *)((u + 3u) & ~(uintptr_t)3u);
}

void rcm_matrix_setup(uint32_t block_bytes, void *block, int32_t seed,
                      rcm_matrix *m)
{
    uint32_t n = 0, i, j;
    int32_t order = 1;
    int16_t *a, *b;

    if (seed == 0)
        seed = 1;
    while (8u * (n + 1u) * (n + 1u) < block_bytes)
        n++;

    a = (int16_t *)align4(block);
    b = a + n * n;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            int16_t v;

            seed = rcm_as_s32((uint32_t)order * (uint32_t)seed) % 65536;
            v = rcm_as_s16((uint16_t)((uint32_t)seed + (uint32_t)order));
            b[i * n + j] = v;
            a[i * n + j] =
                (int16_t)(((uint32_t)(int32_t)v + (uint32_t)order) & 0xffu);
            order++;
        }
    }
    m->n = n;
    m->a = a;
    m->b = b;
    m->c = (int32_t *)align4(b + n * n);
}

void rcm_mat_add(uint32_t n, int16_t *a, int16_t v)
{
    uint32_t i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            a[i * n + j] = (int16_t)(a[i * n + j] + v);
}

void rcm_mat_scale(uint32_t n, int32_t *c, const int16_t *a, int16_t v)
{
    uint32_t i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            c[i * n + j] = (int32_t)a[i * n + j] * (int32_t)v;
}

void rcm_mat_vec(uint32_t n, int32_t *c, const int16_t *a,
                    const int16_t *b)
{
    uint32_t i, j;

    for (i = 0; i < n; i++) {
        uint32_t s = 0;

        for (j = 0; j < n; j++)
            s += (uint32_t)((int32_t)a[i * n + j] * (int32_t)b[j]);
        c[i] = rcm_as_s32(s);
    }
}

void rcm_mat_mul(uint32_t n, int32_t *c, const int16_t *a,
                    const int16_t *b)
{
    uint32_t i, j, k;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            uint32_t s = 0;

            for (k = 0; k < n; k++)
                s += (uint32_t)((int32_t)a[i * n + k] * (int32_t)b[k * n + j]);
            c[i * n + j] = rcm_as_s32(s);
        }
    }
}

/* As rcm_mat_mul, but each product p contributes bits 2..5 of p times bits
 * 5..11 of p. */
void rcm_mat_mul_bits(uint32_t n, int32_t *c, const int16_t *a,
                         const int16_t *b)
{
    uint32_t i, j, k;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            uint32_t s = 0;

            for (k = 0; k < n; k++) {
                uint32_t p = (uint32_t)((int32_t)a[i * n + k]
                                        * (int32_t)b[k * n + j]);
                s += ((p >> 2) & 0xfu) * ((p >> 5) & 0x7fu);
            }
            c[i * n + j] = rcm_as_s32(s);
        }
    }
}

/* Score of C: walk it in row order keeping a running sum; when the sum
 * exceeds `limit` it scores 10 and restarts from zero, otherwise an element
 * greater than its predecessor scores 1. */
uint16_t rcm_mat_score(uint32_t n, const int32_t *c, int16_t limit)
{
    uint32_t run = 0;
    int32_t prev = 0;
    uint16_t score = 0;
    uint32_t i, j;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            int32_t cur = c[i * n + j];

            run += (uint32_t)cur;
            if (rcm_as_s32(run) > limit) {
                score = (uint16_t)(score + 10u);
                run = 0;
            } else {
                score = (uint16_t)(score + (cur > prev ? 1u : 0u));
            }
            prev = cur;
        }
    }
    return score;
}

/* One matrix pass with parameter `param` (0..255); returns `crc` updated
 * with the CRC of the four scores. */
uint16_t rcm_matrix_pass(const rcm_matrix *m, int16_t param, uint16_t crc)
{
    uint32_t n = m->n;
    int16_t *a = m->a;
    const int16_t *b = m->b;
    int32_t *c = m->c;
    int16_t limit = rcm_as_s16((uint16_t)(0xf000u | (uint16_t)param));
    uint16_t local = 0;

    rcm_mat_add(n, a, param);
    rcm_mat_scale(n, c, a, param);
    local = rcm_crc_u16(rcm_mat_score(n, c, limit), local);
    rcm_mat_vec(n, c, a, b);
    local = rcm_crc_u16(rcm_mat_score(n, c, limit), local);
    rcm_mat_mul(n, c, a, b);
    local = rcm_crc_u16(rcm_mat_score(n, c, limit), local);
    rcm_mat_mul_bits(n, c, a, b);
    local = rcm_crc_u16(rcm_mat_score(n, c, limit), local);
    rcm_mat_add(n, a, (int16_t)-param);

    return rcm_crc_u16(local, crc);
}
