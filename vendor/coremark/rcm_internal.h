/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * rcm_internal.h - private declarations shared by the runner-bench CoreMark
 * sources (rcm_*.c, runner_coremark.c).
 *
 * This is an independent implementation of the CoreMark 1.0 workload; the
 * algorithm is by EEMBC.  Everything observable (the CRCs) must match the
 * official build bit for bit, so the data layouts, integer widths and the
 * order of operations below follow the workload's definition exactly, even
 * where they look odd.
 */
#ifndef RCM_INTERNAL_H
#define RCM_INTERNAL_H

#include <stdint.h>
#include <stddef.h>

#include "runner_coremark.h"

/* Default total data size of a CoreMark run (documentation only: the size
 * actually used is the run-time argument of rcm_init). */
#ifndef TOTAL_DATA_SIZE
#define TOTAL_DATA_SIZE 2000
#endif

/* Accepted range for the total data size given to rcm_init.  Below the
 * minimum the list kernel would have no real element to work on; the maximum
 * only keeps index and product arithmetic far from overflow. */
#define RCM_MIN_TOTAL_BYTES 360u
#define RCM_MAX_TOTAL_BYTES (1u << 20)

/* The data area inside a context is realigned at run time to this many bytes,
 * so that its cache-line placement does not depend on the caller's
 * allocator. */
#define RCM_ARENA_ALIGN 64u
/* Extra zeroed bytes after the three blocks (alignment slack plus a zero
 * guard behind the state-machine input). */
#define RCM_ARENA_SLACK (2u * RCM_ARENA_ALIGN)

/* --------------------------------------------------------- conversions */

/* Two's-complement reinterpretation of a 16/32-bit pattern, written without
 * implementation-defined conversions (compilers turn these into no-ops). */
static inline int16_t rcm_as_s16(uint16_t u)
{
    return (int16_t)(u <= 0x7fffu ? (int32_t)u : (int32_t)u - 0x10000);
}

static inline int32_t rcm_as_s32(uint32_t u)
{
    return u <= 0x7fffffffu ? (int32_t)u
                            : (int32_t)(u - 0x80000000u) - 0x7fffffff - 1;
}

/* ------------------------------------------------------------------ CRC */

/* CoreMark's CRC-16: reflected, polynomial 0xA001, bit by bit. */
uint16_t rcm_crc_byte(uint8_t byte, uint16_t crc);
/* Low byte first, then high byte. */
uint16_t rcm_crc_u16(uint16_t value, uint16_t crc);
/* Low half first, then high half. */
uint16_t rcm_crc_u32(uint32_t value, uint16_t crc);

/* ----------------------------------------------------------------- list */

/* A record carried by a list cell.  `val` holds, in its high byte, the
 * pristine value and, in its low byte, either that same value or (bit 7 set)
 * a cached 7-bit result; `key` is the position used to restore the list. */
typedef struct rcm_rec {
    int16_t val;
    int16_t key;
} rcm_rec;

/* A list cell: link first, record pointer second (two pointers, as in the
 * workload definition; records live in a separate array). */
typedef struct rcm_cell {
    struct rcm_cell *next;
    rcm_rec *rec;
} rcm_cell;

/* Bytes of the list block accounted per element (a cell of two 8-byte
 * pointers plus a record), fixed so that every platform builds the same
 * number of elements. */
#define RCM_LIST_BYTES_PER_ELEMENT (16u + (uint32_t)sizeof(rcm_rec))

/* ---------------------------------------------------------------- matrix */

typedef struct rcm_matrix {
    uint32_t n;   /* dimension */
    int16_t *a;   /* n*n input, small values */
    int16_t *b;   /* n*n operand, medium values */
    int32_t *c;   /* n*n results */
} rcm_matrix;

/* ----------------------------------------------------------------- ctx */

struct rcm_ctx {
    int16_t seed1, seed2, seed3;
    uint16_t seedcrc;
    uint32_t total_bytes;
    uint32_t block_bytes;       /* bytes per algorithm: total_bytes / 3 */

    rcm_cell *list;             /* list anchor, as built at init */
    rcm_matrix mat;
    uint8_t *text;              /* state-machine input (block_bytes bytes) */

    /* running results */
    uint16_t crc;               /* crcfinal */
    uint16_t crclist;
    uint16_t crcmatrix;
    uint16_t crcstate;
    uint32_t first_done;        /* set once the first iteration completed */
    uint32_t magic;             /* RCM_MAGIC once initialised */

    /* the data area: three blocks of block_bytes, at an aligned offset */
    unsigned char arena[];
};

#define RCM_MAGIC 0x52434d31u /* "RCM1" */

/* list kernel (rcm_list.c) */
rcm_cell *rcm_list_build(uint32_t block_bytes, void *block, int16_t seed);
uint16_t rcm_list_pass(rcm_ctx *ctx, int16_t finder);

/* matrix kernel (rcm_matrix.c) */
void rcm_matrix_setup(uint32_t block_bytes, void *block, int32_t seed, rcm_matrix *m);
uint16_t rcm_matrix_pass(const rcm_matrix *m, int16_t param, uint16_t crc);
/* The pass's steps.  They have external linkage, as the official kernels'
 * do: GCC always inlines a static function called once but weighs an
 * external one by its size, so with `static` all five were inlined into the
 * pass where the official build calls the two products, and the two builds
 * no longer ran the same code (callgrind). */
void rcm_mat_add(uint32_t n, int16_t *a, int16_t v);
void rcm_mat_scale(uint32_t n, int32_t *c, const int16_t *a, int16_t v);
void rcm_mat_vec(uint32_t n, int32_t *c, const int16_t *a, const int16_t *b);
void rcm_mat_mul(uint32_t n, int32_t *c, const int16_t *a, const int16_t *b);
void rcm_mat_mul_bits(uint32_t n, int32_t *c, const int16_t *a, const int16_t *b);
uint16_t rcm_mat_score(uint32_t n, const int32_t *c, int16_t limit);

/* state-machine kernel (rcm_state.c) */
void rcm_text_setup(uint32_t block_bytes, int16_t seed, uint8_t *text);
uint16_t rcm_text_pass(uint32_t block_bytes, uint8_t *text, int16_t seed1,
                       int16_t seed2, int16_t step, uint16_t crc);

#endif /* RCM_INTERNAL_H */
