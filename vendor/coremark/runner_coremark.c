/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * runner_coremark.c - the runner_coremark.h API over the runner-bench
 * CoreMark kernels (rcm_list.c, rcm_matrix.c, rcm_state.c, rcm_crc.c).
 *
 * This is an independent implementation of the CoreMark 1.0 workload; the
 * algorithm and its reference CRCs are by EEMBC.
 *
 * A context is self-contained (no global mutable state, no allocation), so
 * several contexts may run in parallel threads.  It holds pointers into its
 * own data area: it must not be copied or moved after rcm_init.
 */
#include <string.h>

#include "rcm_internal.h"

static int size_supported(uint32_t total_data_bytes)
{
    return total_data_bytes >= RCM_MIN_TOTAL_BYTES
        && total_data_bytes <= RCM_MAX_TOTAL_BYTES;
}

size_t rcm_ctx_size(uint32_t total_data_bytes)
{
    if (!size_supported(total_data_bytes))
        return sizeof(rcm_ctx); /* rcm_init will refuse this size */
    return offsetof(rcm_ctx, arena) + (size_t)total_data_bytes
        + RCM_ARENA_SLACK;
}

int rcm_init(rcm_ctx *ctx, uint32_t total_data_bytes, int16_t seed1,
             int16_t seed2, int16_t seed3)
{
    uint32_t block;
    uintptr_t at;
    unsigned char *base;
    uint32_t mseed;

    if (ctx == NULL || !size_supported(total_data_bytes))
        return -1;

    memset(ctx, 0, rcm_ctx_size(total_data_bytes));
    block = total_data_bytes / 3u; /* three algorithms share the data */
    ctx->seed1 = seed1;
    ctx->seed2 = seed2;
    ctx->seed3 = seed3;
    ctx->total_bytes = total_data_bytes;
    ctx->block_bytes = block;

    at = (uintptr_t)ctx->arena;
    at = (at + (RCM_ARENA_ALIGN - 1u)) & ~(uintptr_t)(RCM_ARENA_ALIGN - 1u);
    base = ctx->arena + (at - (uintptr_t)ctx->arena);

    /* blocks in the order list, matrix, state */
    ctx->list = rcm_list_build(block, base, seed1);
    /* matrix seed: seed1 sign-extended, OR seed2 in the upper half */
    mseed = (uint32_t)(int32_t)seed1 | ((uint32_t)(uint16_t)seed2 << 16);
    rcm_matrix_setup(block, base + block, rcm_as_s32(mseed), &ctx->mat);
    ctx->text = base + 2u * block;
    rcm_text_setup(block, seed1, ctx->text);

    /* identification of the run parameters, as CoreMark reports it */
    ctx->seedcrc = rcm_crc_u16((uint16_t)seed1, 0);
    ctx->seedcrc = rcm_crc_u16((uint16_t)seed2, ctx->seedcrc);
    ctx->seedcrc = rcm_crc_u16((uint16_t)seed3, ctx->seedcrc);
    ctx->seedcrc = rcm_crc_u16((uint16_t)block, ctx->seedcrc);

    ctx->magic = RCM_MAGIC;
    return 0;
}

void rcm_run(rcm_ctx *ctx, uint32_t iterations)
{
    uint32_t i;

    if (ctx == NULL || ctx->magic != RCM_MAGIC)
        return;
    for (i = 0; i < iterations; i++) {
        uint16_t r;

        /* One iteration: a pass searching by key (with the value sort that
         * runs the matrix and state kernels), then one searching by value.
         * Each pass also updates ctx->crc itself, so fold its result in only
         * after it returned. */
        r = rcm_list_pass(ctx, 1);
        ctx->crc = rcm_crc_u16(r, ctx->crc);
        r = rcm_list_pass(ctx, -1);
        ctx->crc = rcm_crc_u16(r, ctx->crc);
        if (!ctx->first_done) {
            ctx->crclist = ctx->crc;
            ctx->first_done = 1;
        }
    }
}

rcm_crcs rcm_result(const rcm_ctx *ctx)
{
    rcm_crcs r;

    memset(&r, 0, sizeof r);
    if (ctx == NULL || ctx->magic != RCM_MAGIC)
        return r;
    r.seedcrc = ctx->seedcrc;
    r.crclist = ctx->crclist;
    r.crcmatrix = ctx->crcmatrix;
    r.crcstate = ctx->crcstate;
    r.crcfinal = ctx->crc;
    return r;
}

const char *rcm_implementation(void)
{
    return "runner-bench CoreMark 1.0 workload";
}
