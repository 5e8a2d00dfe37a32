/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * core_portme.h - minimal porting layer for building the official EEMBC
 * CoreMark kernels (core_list_join.c, core_matrix.c, core_state.c,
 * core_util.c from an eembc/coremark checkout) as a library behind
 * runner_coremark.h (see ../official_shim.c and ../README.md).
 *
 * Written for runner-bench, not taken from EEMBC: it supplies only what the
 * official coremark.h and those four files need.  The official core_main.c
 * and the per-platform core_portme.c files are NOT used: timing, seeds and
 * the iteration loop are the caller's business, and nothing here prints.
 */
#ifndef CORE_PORTME_H
#define CORE_PORTME_H

#include <stddef.h>
#include <stdint.h>

/* No stdio, no printf: ee_printf is a silent stub (core_portme.c). */
#ifndef HAS_FLOAT
#define HAS_FLOAT 1
#endif
#ifndef HAS_TIME_H
#define HAS_TIME_H 0
#endif
#ifndef USE_CLOCK
#define USE_CLOCK 0
#endif
#define HAS_STDIO 0
#define HAS_PRINTF 0
int ee_printf(const char *fmt, ...);

/* Only named in prototypes of coremark.h (start_time/get_time...). */
typedef uint32_t CORE_TICKS;

#ifndef COMPILER_VERSION
#ifdef __VERSION__
#define COMPILER_VERSION __VERSION__
#else
#define COMPILER_VERSION "unknown"
#endif
#endif
#ifndef COMPILER_FLAGS
#define COMPILER_FLAGS "(set by the runner-bench build script)"
#endif
#ifndef MEM_LOCATION
#define MEM_LOCATION "inside the caller-allocated rcm_ctx"
#endif

/* Data types, as in the official 64-bit POSIX port. */
typedef signed short ee_s16;
typedef unsigned short ee_u16;
typedef signed int ee_s32;
typedef double ee_f32;
typedef unsigned char ee_u8;
typedef unsigned int ee_u32;
typedef uintptr_t ee_ptr_int;
typedef size_t ee_size_t;

/* Round a pointer up to a 4-byte boundary (same rule as the official
 * ports). */
#define align_mem(x) (void *)(4 + (((ee_ptr_int)(x)-1) & ~3))

/* Older core_list_join.c revisions size list elements as
 * 2*POINTER_SPACE + 4 bytes; current ones use 16 + 4.  8 makes both agree
 * (and match the published CRCs on every platform). */
#ifndef POINTER_SPACE
#define POINTER_SPACE 8
#endif

/* Seeds reach the kernels through rcm_init's arguments.  SEED_ARG only makes
 * core_util.c compile its (unused, self-contained) argv parser, so no
 * seed*_volatile variables or portme_sys* functions are needed. */
#ifndef SEED_METHOD
#define SEED_METHOD SEED_ARG
#endif
/* The memory block is part of the rcm_ctx (no malloc). */
#ifndef MEM_METHOD
#define MEM_METHOD MEM_STATIC
#endif

#ifndef MULTITHREAD
#define MULTITHREAD 1
#endif
#if (MULTITHREAD > 1)
#error "runner-bench runs one context per thread itself: build with MULTITHREAD=1"
#endif
#ifndef MAIN_HAS_NOARGC
#define MAIN_HAS_NOARGC 0
#endif
#ifndef MAIN_HAS_NORETURN
#define MAIN_HAS_NORETURN 0
#endif

/* Member `port` of the official core_results. */
typedef struct CORE_PORTABLE_S {
    ee_u8 portable_id;
} core_portable;

#endif /* CORE_PORTME_H */
