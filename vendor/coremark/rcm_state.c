/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * rcm_state.c - the state-machine kernel of the CoreMark workload.
 *
 * Part of an independent implementation of the CoreMark 1.0 workload
 * (algorithm by EEMBC).
 *
 * Its third of the data area holds a zero-terminated, comma-separated text of
 * number-like tokens (integers, decimals, scientific notation and malformed
 * ones) picked by the seed.  One pass classifies every token with a small
 * Moore machine, corrupts every step-th byte (XOR with seed1), classifies
 * again, undoes the corruption (XOR with seed2: exact when the seeds are
 * equal), and folds the per-state counts of final states and of transitions
 * into the CRC.
 */
#include "rcm_internal.h"

/* Machine states; the numbering fixes the order in which counts are CRC'd. */
enum {
    LX_START = 0,   /* nothing read yet */
    LX_INVALID,     /* not a number */
    LX_SIGN,        /* leading '+' or '-' */
    LX_EXP_MARK,    /* 'e' or 'E' after a decimal */
    LX_INT,         /* digits */
    LX_FRACTION,    /* digits with a '.' */
    LX_EXP_SIGN,    /* sign after the exponent mark */
    LX_SCIENTIFIC,  /* exponent digits */
    LX_STATES
};

/* Token vocabulary: 4 integers (4 bytes), then 4 decimals, 4 scientific and
 * 4 malformed tokens (8 bytes each). */
static const char *const rcm_tokens[4][4] = {
    { "5012", "1234", "-874", "+122" },
    { "35.54400", ".1234500", "-110.700", "+0.64400" },
    { "5.500e+3", "-.123e-2", "-87e+832", "+0.6e-12" },
    { "T0.3e-1F", "-T.T++Tq", "1T3.4e4z", "34.0e-T^" },
};

/* Token class for the low three bits of the seed counter. */
static const unsigned char rcm_token_class[8] = { 0, 0, 0, 1, 1, 2, 2, 3 };

/* Fill text[0..block_bytes) with tokens separated by commas, as many as fit
 * leaving at least one byte, and zeros after them. */
void rcm_text_setup(uint32_t block_bytes, int16_t seed, uint8_t *text)
{
    uint32_t limit = block_bytes - 1u;
    uint32_t used = 0, len = 0, k;
    const char *tok = NULL;
    uint16_t s = (uint16_t)seed;

    while (used + len + 1u < limit) {
        if (len > 0) {
            for (k = 0; k < len; k++)
                text[used + k] = (uint8_t)tok[k];
            text[used + len] = ',';
            used += len + 1u;
        }
        s++;
        {
            unsigned cls = rcm_token_class[s & 0x7u];

            tok = rcm_tokens[cls][(s >> 3) & 0x3u];
            len = cls == 0 ? 4u : 8u;
        }
    }
    while (used < block_bytes)
        text[used++] = 0;
}

/* A 0/1 byte, and below every branch counting its own step: written as the
 * workload's definition writes them, because GCC compiles a shared count
 * after an if-chain, or a conditional expression, to different branches;
 * with those the whole workload ran 1.7 % slower than the official one
 * (scripts/bench-cpu-ab.sh), and the state machine now executes exactly as
 * many instructions as the official one (callgrind: 135,488,000 for 2000
 * iterations). */
static uint8_t is_digit(uint8_t ch)
{
    return ((ch >= '0') & (ch <= '9')) ? 1 : 0;
}

/* Classify the token at *cursor, stopping after its comma, at the end of the
 * text, or right after the character that made it invalid; counts the
 * transitions taken in `steps`, moves *cursor past what was read and returns
 * the final state. */
static int lex_token(uint8_t **cursor, uint32_t *steps)
{
    uint8_t *p = *cursor;
    int st = LX_START;

    for (; *p != 0 && st != LX_INVALID; p++) {
        uint8_t ch = *p;

        if (ch == ',') {
            p++;
            break;
        }
        switch (st) {
        case LX_START:
            if (is_digit(ch)) {
                st = LX_INT;
            } else if (ch == '+' || ch == '-') {
                st = LX_SIGN;
            } else if (ch == '.') {
                st = LX_FRACTION;
            } else {
                st = LX_INVALID;
                steps[LX_INVALID]++;
            }
            steps[LX_START]++;
            break;
        case LX_SIGN:
            if (is_digit(ch)) {
                st = LX_INT;
                steps[LX_SIGN]++;
            } else if (ch == '.') {
                st = LX_FRACTION;
                steps[LX_SIGN]++;
            } else {
                st = LX_INVALID;
                steps[LX_SIGN]++;
            }
            break;
        case LX_INT:
            if (ch == '.') {
                st = LX_FRACTION;
                steps[LX_INT]++;
            } else if (!is_digit(ch)) {
                st = LX_INVALID;
                steps[LX_INT]++;
            }
            break;
        case LX_FRACTION:
            if (ch == 'E' || ch == 'e') {
                st = LX_EXP_MARK;
                steps[LX_FRACTION]++;
            } else if (!is_digit(ch)) {
                st = LX_INVALID;
                steps[LX_FRACTION]++;
            }
            break;
        case LX_EXP_MARK:
            if (ch == '+' || ch == '-') {
                st = LX_EXP_SIGN;
                steps[LX_EXP_MARK]++;
            } else {
                st = LX_INVALID;
                steps[LX_EXP_MARK]++;
            }
            break;
        case LX_EXP_SIGN:
            if (is_digit(ch)) {
                st = LX_SCIENTIFIC;
                steps[LX_EXP_SIGN]++;
            } else {
                st = LX_INVALID;
                steps[LX_EXP_SIGN]++;
            }
            break;
        case LX_SCIENTIFIC:
            if (!is_digit(ch)) {
                st = LX_INVALID;
                steps[LX_INVALID]++; /* (counted as INVALID, by definition) */
            }
            break;
        default:
            break;
        }
    }
    *cursor = p;
    return st;
}

/* XOR every step-th byte that is not a comma with `mask`. */
static void text_flip(uint8_t *text, uint32_t block_bytes, uint32_t step,
                      uint8_t mask)
{
    uint32_t off;

    for (off = 0; off < block_bytes; off += step)
        if (text[off] != ',')
            text[off] ^= mask;
}

uint16_t rcm_text_pass(uint32_t block_bytes, uint8_t *text, int16_t seed1,
                       int16_t seed2, int16_t step, uint16_t crc)
{
    uint32_t finals[LX_STATES], steps[LX_STATES];
    uint8_t *p;
    int s;

    for (s = 0; s < LX_STATES; s++)
        finals[s] = steps[s] = 0;

    p = text;
    while (*p != 0)
        finals[lex_token(&p, steps)]++;

    text_flip(text, block_bytes, (uint32_t)step, (uint8_t)seed1);

    p = text;
    while (*p != 0)
        finals[lex_token(&p, steps)]++;

    text_flip(text, block_bytes, (uint32_t)step, (uint8_t)seed2);

    for (s = 0; s < LX_STATES; s++) {
        crc = rcm_crc_u32(finals[s], crc);
        crc = rcm_crc_u32(steps[s], crc);
    }
    return crc;
}
