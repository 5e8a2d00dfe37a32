/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * workload_common.h - what the two workload programs share: the clocks,
 * argument parsing, a fresh context and the CRC output. Static functions
 * in a header rather than a third source file, so that each program is
 * still its driver and the CoreMark objects, compiled and linked in one
 * compiler call (README.md, "The workload as its own executable").
 *
 * The including file defines the feature-test macros first (the all-core
 * program needs more of them: sched_getcpu, processor groups), and the
 * all-core program WORKLOAD_ALL_CORE for what only it uses (its thread CPU
 * clock, its seconds argument, its CRC fields).
 */
#ifndef RUNNER_WORKLOAD_COMMON_H
#define RUNNER_WORKLOAD_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runner_coremark.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <time.h>
#endif

#define TOTAL_DATA_BYTES 2000u
#define BATCH_TARGET_NS 20000000LL /* 20 ms, as the collector's BATCH_TARGET */
#define MAX_BATCH (1u << 24)

/* Nanoseconds of the monotonic clock. */
static int64_t wall_ns(void)
{
#if defined(_WIN32)
    LARGE_INTEGER freq, count;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&count);
    return (int64_t)(count.QuadPart / freq.QuadPart) * 1000000000LL +
           (int64_t)(count.QuadPart % freq.QuadPart) * 1000000000LL / (int64_t)freq.QuadPart;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + (int64_t)t.tv_nsec;
#endif
}

#ifdef WORKLOAD_ALL_CORE
/* Nanoseconds of this thread's CPU clock, or -1 where it cannot be read. */
static int64_t cpu_ns(void)
{
#if defined(_WIN32)
    FILETIME created, exited, kernel, user;
    ULARGE_INTEGER k, u;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return -1;
    k.LowPart = kernel.dwLowDateTime;
    k.HighPart = kernel.dwHighDateTime;
    u.LowPart = user.dwLowDateTime;
    u.HighPart = user.dwHighDateTime;
    return (int64_t)(k.QuadPart + u.QuadPart) * 100; /* 100 ns units */
#else
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return -1;
    return (int64_t)t.tv_sec * 1000000000LL + (int64_t)t.tv_nsec;
#endif
}
#endif

static int parse_seed(const char *text, int16_t *seed)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0' || v < -32768 || v > 65535)
        return -1;
    *seed = (int16_t)(uint16_t)(v & 0xffff);
    return 0;
}

#ifdef WORKLOAD_ALL_CORE
static int parse_seconds(const char *text, double *seconds)
{
    char *end;
    errno = 0;
    *seconds = strtod(text, &end);
    /* Finite and bounded (a year): the caller converts it to nanoseconds. */
    return (errno != 0 || end == text || *end != '\0' || !(*seconds >= 0.0 && *seconds <= 3.2e7)) ? -1 : 0;
}
#endif

static rcm_ctx *new_ctx(const int16_t seeds[3])
{
    rcm_ctx *ctx = (rcm_ctx *)malloc(rcm_ctx_size(TOTAL_DATA_BYTES));
    if (ctx != NULL && rcm_init(ctx, TOTAL_DATA_BYTES, seeds[0], seeds[1], seeds[2]) != 0) {
        free(ctx);
        ctx = NULL;
    }
    return ctx;
}

#ifdef WORKLOAD_ALL_CORE
static void print_crcs(const char *name, rcm_crcs c)
{
    printf(" %s=0x%04x,0x%04x,0x%04x,0x%04x,0x%04x", name, (unsigned)c.seedcrc, (unsigned)c.crclist,
           (unsigned)c.crcmatrix, (unsigned)c.crcstate, (unsigned)c.crcfinal);
}
#endif

#endif /* RUNNER_WORKLOAD_COMMON_H */
