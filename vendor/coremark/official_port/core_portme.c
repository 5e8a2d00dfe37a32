/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * core_portme.c - the one symbol the official CoreMark kernels need from a
 * porting layer when built behind runner_coremark.h: ee_printf, referenced
 * by core_util.c (check_data_types) and by CORE_DEBUG traces.  The library
 * must not print, so it is a stub.  Written for runner-bench.
 */
#include "coremark.h"

int ee_printf(const char *fmt, ...)
{
    (void)fmt;
    return 0;
}
