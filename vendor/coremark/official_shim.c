/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * official_shim.c - runner_coremark.h implemented on top of the official
 * EEMBC CoreMark 1.0 sources (Apache-2.0, not part of this repository).
 *
 * Built only when RUNNER_BENCH_COREMARK_SRC points at an eembc/coremark
 * checkout, together with its core_list_join.c, core_matrix.c, core_state.c
 * and core_util.c and with official_port/ (core_portme.h, core_portme.c)
 * first on the include path.  Instead of our own kernels (rcm_*.c,
 * runner_coremark.c) this calls the official ones exactly as the official
 * core_main.c does:
 *   - main(): the data block is split in three (size / 3 each) for list,
 *     matrix and state; core_list_init(size, memblock[1], seed1),
 *     core_init_matrix(size, memblock[2], seed1 | seed2 << 16, &mat),
 *     core_init_state(size, seed1, memblock[3]); seedcrc is crc16 of seed1,
 *     seed2, seed3 and the per-algorithm size;
 *   - iterate(): each iteration runs core_bench_list(res, 1) and
 *     core_bench_list(res, -1), folding each result into res->crc with
 *     crcu16, and records crclist after the first iteration.
 * Unlike iterate(), rcm_run does not reset the CRCs on entry, so runs can be
 * split (600 + 400 iterations == 1000).
 */
#include <string.h>

#include "coremark.h"
#include "runner_coremark.h"

#define SHIM_MIN_TOTAL_BYTES 360u
#define SHIM_MAX_TOTAL_BYTES (1u << 20)
#define SHIM_ALIGN 64u
#define SHIM_SLACK (2u * SHIM_ALIGN)
#define SHIM_MAGIC 0x45434d31u /* "ECM1" */

struct rcm_ctx {
    core_results res;     /* the official per-context state */
    ee_u16 seedcrc;
    ee_u32 first_done;
    ee_u32 magic;
    unsigned char arena[]; /* the CoreMark data block (64-byte aligned) */
};

static int shim_size_supported(uint32_t total)
{
    return total >= SHIM_MIN_TOTAL_BYTES && total <= SHIM_MAX_TOTAL_BYTES;
}

size_t rcm_ctx_size(uint32_t total_data_bytes)
{
    if (!shim_size_supported(total_data_bytes))
        return sizeof(rcm_ctx);
    return offsetof(rcm_ctx, arena) + (size_t)total_data_bytes + SHIM_SLACK;
}

int rcm_init(rcm_ctx *ctx, uint32_t total_data_bytes, int16_t seed1,
             int16_t seed2, int16_t seed3)
{
    core_results *res;
    uintptr_t at;
    ee_u32 mseed, i;

    if (ctx == NULL || !shim_size_supported(total_data_bytes))
        return -1;
    if (check_data_types() != 0)
        return -1;

    memset(ctx, 0, rcm_ctx_size(total_data_bytes));
    res = &ctx->res;
    res->seed1 = seed1;
    res->seed2 = seed2;
    res->seed3 = seed3;
    res->iterations = 0;
    res->execs = ALL_ALGORITHMS_MASK;
    res->err = 0;

    at = (uintptr_t)ctx->arena;
    at = (at + (SHIM_ALIGN - 1u)) & ~(uintptr_t)(SHIM_ALIGN - 1u);
    res->memblock[0] = ctx->arena + (at - (uintptr_t)ctx->arena);

    /* as core_main.c: the size per algorithm, and one block each */
    res->size = total_data_bytes / NUM_ALGORITHMS;
    for (i = 0; i < NUM_ALGORITHMS; i++)
        res->memblock[i + 1] = (char *)res->memblock[0] + res->size * i;

    res->list = core_list_init(res->size, (list_head *)res->memblock[1],
                               res->seed1);
    /* core_main.c: (ee_s32)seed1 | (((ee_s32)seed2) << 16), computed here
     * without shifting a negative value */
    mseed = (ee_u32)(ee_s32)res->seed1 | ((ee_u32)(ee_u16)res->seed2 << 16);
    core_init_matrix(res->size, res->memblock[2], (ee_s32)mseed, &res->mat);
    core_init_state(res->size, res->seed1, (ee_u8 *)res->memblock[3]);

    ctx->seedcrc = crc16(res->seed1, 0);
    ctx->seedcrc = crc16(res->seed2, ctx->seedcrc);
    ctx->seedcrc = crc16(res->seed3, ctx->seedcrc);
    ctx->seedcrc = crc16((ee_s16)(ee_u16)res->size, ctx->seedcrc);

    res->crc = 0;
    res->crclist = 0;
    res->crcmatrix = 0;
    res->crcstate = 0;
    ctx->first_done = 0;
    ctx->magic = SHIM_MAGIC;
    return 0;
}

void rcm_run(rcm_ctx *ctx, uint32_t iterations)
{
    core_results *res;
    uint32_t i;
    ee_u16 crc;

    if (ctx == NULL || ctx->magic != SHIM_MAGIC)
        return;
    res = &ctx->res;
    for (i = 0; i < iterations; i++) { /* the body of iterate() */
        crc = core_bench_list(res, 1);
        res->crc = crcu16(crc, res->crc);
        crc = core_bench_list(res, -1);
        res->crc = crcu16(crc, res->crc);
        if (!ctx->first_done) {
            res->crclist = res->crc;
            ctx->first_done = 1;
        }
    }
}

rcm_crcs rcm_result(const rcm_ctx *ctx)
{
    rcm_crcs r;

    memset(&r, 0, sizeof r);
    if (ctx == NULL || ctx->magic != SHIM_MAGIC)
        return r;
    r.seedcrc = ctx->seedcrc;
    r.crclist = ctx->res.crclist;
    r.crcmatrix = ctx->res.crcmatrix;
    r.crcstate = ctx->res.crcstate;
    r.crcfinal = ctx->res.crc;
    return r;
}

const char *rcm_implementation(void)
{
    return "EEMBC CoreMark 1.0 official sources (runner-bench shim)";
}
