/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * rcm_crc.c - the 16-bit CRC that every CoreMark result is folded into.
 *
 * Part of an independent implementation of the CoreMark 1.0 workload
 * (algorithm by EEMBC).  The CRC is the reflected CRC-16 with polynomial
 * 0xA001, processed one bit at a time: a table-driven version would give the
 * same values but would no longer be the same workload.
 */
#include "rcm_internal.h"

uint16_t rcm_crc_byte(uint8_t byte, uint16_t crc)
{
    unsigned bit;

    for (bit = 0; bit < 8; bit++) {
        unsigned feedback = (unsigned)(byte ^ crc) & 1u;

        byte = (uint8_t)(byte >> 1);
        crc = (uint16_t)(crc >> 1);
        if (feedback)
            crc ^= 0xA001u;
    }
    return crc;
}

uint16_t rcm_crc_u16(uint16_t value, uint16_t crc)
{
    crc = rcm_crc_byte((uint8_t)(value & 0xffu), crc);
    return rcm_crc_byte((uint8_t)(value >> 8), crc);
}

uint16_t rcm_crc_u32(uint32_t value, uint16_t crc)
{
    crc = rcm_crc_u16((uint16_t)(value & 0xffffu), crc);
    return rcm_crc_u16((uint16_t)(value >> 16), crc);
}
