/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * runner_coremark.h - C API of the CoreMark 1.0 workload used by runner-bench.
 *
 * This is an independent implementation of the CoreMark workload; the
 * algorithm (and its validation CRCs) are by EEMBC.  The same API is also
 * provided by official_shim.c on top of the official EEMBC sources.
 */
#ifndef RUNNER_COREMARK_H
#define RUNNER_COREMARK_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque state of one CoreMark instance: the memory block, list, matrix and state input. */
typedef struct rcm_ctx rcm_ctx;
typedef struct { uint16_t seedcrc, crclist, crcmatrix, crcstate, crcfinal; } rcm_crcs;
/* Size in bytes of an rcm_ctx for the given total data size (e.g. 2000); the caller allocates it (8-byte aligned). */
size_t rcm_ctx_size(uint32_t total_data_bytes);
/* Initialises ctx with the three seeds and total data size (split in three as in CoreMark). Returns 0, or -1 if the size is unsupported. */
int rcm_init(rcm_ctx *ctx, uint32_t total_data_bytes, int16_t seed1, int16_t seed2, int16_t seed3);
/* Runs `iterations` more iterations, continuing the running CRC and list state, so that
   rcm_run(c,600); rcm_run(c,400) gives the same crcfinal as rcm_run(c,1000). */
void rcm_run(rcm_ctx *ctx, uint32_t iterations);
/* The CRCs so far (crclist/crcmatrix/crcstate are those of the first iteration, crcfinal the running CRC; seedcrc as CoreMark computes it). */
rcm_crcs rcm_result(const rcm_ctx *ctx);
/* Identity string of the implementation, e.g. "runner-bench CoreMark 1.0 workload". */
const char *rcm_implementation(void);

#ifdef __cplusplus
}
#endif

#endif /* RUNNER_COREMARK_H */
