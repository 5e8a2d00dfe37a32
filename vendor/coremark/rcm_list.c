/*
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the runner-bench contributors
 *
 * rcm_list.c - the linked-list kernel of the CoreMark workload, which also
 * drives the two other kernels.
 *
 * Part of an independent implementation of the CoreMark 1.0 workload
 * (algorithm by EEMBC).
 *
 * The list lives in its third of the data area: an array of cells (two
 * pointers each) followed by an array of records.  One pass searches the list
 * seed3 times (reversing it after every search and moving the successor of
 * each hit to the front), merge-sorts it by record value (computing those
 * values runs the matrix and state-machine kernels, whose CRCs are folded into
 * the running CRC), unlinks and relinks one cell, and sorts it back by key.
 * All of it happens in place.  The order of comparisons decides the order in
 * which the other kernels run, and hence every CRC, so the merge sort below is
 * the exact bottom-up algorithm the workload prescribes.
 */
#include "rcm_internal.h"

typedef int32_t (*rcm_order_fn)(rcm_rec *x, rcm_rec *y, rcm_ctx *ctx);

/* The 7-bit value of a record.  A cached value (bit 7 set) is returned as is;
 * otherwise bits 0-2 select the work (0: state machine, 1: matrix, other:
 * the record itself), bits 3-6 give its 8-bit parameter (nibble repeated),
 * the outcome is folded into the running CRC and cached in the low byte. */
static int16_t rec_value(int16_t *slot, rcm_ctx *ctx)
{
    uint16_t raw = (uint16_t)*slot;
    uint16_t result;
    int16_t param;

    if (raw & 0x80u)
        return (int16_t)(raw & 0x7fu);

    param = (int16_t)((raw >> 3) & 0xfu);
    param = (int16_t)(param | (param << 4));
    switch (raw & 0x7u) {
    case 0:
        if (param < 0x22) /* shortest corruption stride */
            param = 0x22;
        result = rcm_text_pass(ctx->block_bytes, ctx->text, ctx->seed1,
                               ctx->seed2, param, ctx->crc);
        if (ctx->crcstate == 0)
            ctx->crcstate = result;
        break;
    case 1:
        result = rcm_matrix_pass(&ctx->mat, param, ctx->crc);
        if (ctx->crcmatrix == 0)
            ctx->crcmatrix = result;
        break;
    default:
        result = raw;
        break;
    }
    ctx->crc = rcm_crc_u16(result, ctx->crc);
    result &= 0x7fu;
    *slot = rcm_as_s16((uint16_t)((raw & 0xff00u) | 0x80u | result));
    return (int16_t)result;
}

/* Order by computed value (left operand evaluated first). */
static int32_t by_value(rcm_rec *x, rcm_rec *y, rcm_ctx *ctx)
{
    int16_t vx = rec_value(&x->val, ctx);
    int16_t vy = rec_value(&y->val, ctx);
    return (int32_t)vx - (int32_t)vy;
}

/* Order by key; on the way, drop the cached value of both records (low byte
 * restored from the pristine high byte). */
static int32_t by_key(rcm_rec *x, rcm_rec *y, rcm_ctx *ctx)
{
    uint16_t vx = (uint16_t)x->val;
    uint16_t vy = (uint16_t)y->val;

    (void)ctx;
    x->val = rcm_as_s16((uint16_t)((vx & 0xff00u) | (vx >> 8)));
    y->val = rcm_as_s16((uint16_t)((vy & 0xff00u) | (vy >> 8)));
    return (int32_t)x->key - (int32_t)y->key;
}

/* First cell from `c` on whose key equals `key` when key >= 0, or else whose
 * value's low byte equals `val`; NULL if none. */
static rcm_cell *list_seek(rcm_cell *c, int16_t key, int16_t val)
{
    if (key >= 0) {
        while (c != NULL && c->rec->key != key)
            c = c->next;
    } else {
        while (c != NULL && (c->rec->val & 0xff) != val)
            c = c->next;
    }
    return c;
}

static rcm_cell *list_flip(rcm_cell *c)
{
    rcm_cell *done = NULL;

    while (c != NULL) {
        rcm_cell *rest = c->next;
        c->next = done;
        done = c;
        c = rest;
    }
    return done;
}

/* Unlink the successor of `at` by swapping records with it, so that `at`
 * keeps its place but carries the successor's record.  Returns the detached
 * cell (holding at's former record). */
static rcm_cell *list_unlink_next(rcm_cell *at)
{
    rcm_cell *gone = at->next;
    rcm_rec *r = at->rec;

    at->rec = gone->rec;
    gone->rec = r;
    at->next = gone->next;
    gone->next = NULL;
    return gone;
}

/* Inverse of list_unlink_next. */
static void list_relink(rcm_cell *gone, rcm_cell *at)
{
    rcm_rec *r = gone->rec;

    gone->rec = at->rec;
    at->rec = r;
    gone->next = at->next;
    at->next = gone;
}

/* Bottom-up, iterative, stable merge sort of a singly linked list: runs of
 * `width` cells are merged pairwise, the width doubling every sweep until a
 * sweep does a single merge.  Ties take the left run first. */
static rcm_cell *list_sort(rcm_cell *list, rcm_order_fn order, rcm_ctx *ctx)
{
    int32_t width = 1;

    for (;;) {
        rcm_cell *left = list;
        rcm_cell *tail = NULL;
        int32_t merges = 0;

        list = NULL;
        while (left != NULL) {
            rcm_cell *right = left;
            int32_t nleft = 0, nright, k;

            merges++;
            for (k = 0; k < width; k++) {
                nleft++;
                right = right->next;
                if (right == NULL)
                    break;
            }
            nright = width;

            while (nleft > 0 || (nright > 0 && right != NULL)) {
                rcm_cell *pick;

                if (nleft == 0) {
                    pick = right;
                    right = right->next;
                    nright--;
                } else if (nright == 0 || right == NULL) {
                    pick = left;
                    left = left->next;
                    nleft--;
                } else if (order(left->rec, right->rec, ctx) <= 0) {
                    pick = left;
                    left = left->next;
                    nleft--;
                } else {
                    pick = right;
                    right = right->next;
                    nright--;
                }
                if (tail != NULL)
                    tail->next = pick;
                else
                    list = pick;
                tail = pick;
            }
            left = right;
        }
        tail->next = NULL;
        if (merges <= 1)
            return list;
        width *= 2;
    }
}

/* One list pass; `finder` is 1 (search by key, then sort by value) or -1
 * (search by value only).  Returns the pass's 16-bit result. */
uint16_t rcm_list_pass(rcm_ctx *ctx, int16_t finder)
{
    rcm_cell *head = ctx->list;
    rcm_cell *hit, *cell, *gone;
    uint16_t acc = 0, hits = 0, misses = 0;
    int16_t want_key = finder;
    int16_t want_val = 0;
    int32_t rounds = ctx->seed3;
    int32_t r;

    for (r = 0; r < rounds; r++) {
        want_val = (int16_t)(r & 0xff);
        hit = list_seek(head, want_key, want_val);
        head = list_flip(head);
        if (hit == NULL) {
            misses++;
            acc = (uint16_t)(acc + (((uint16_t)head->next->rec->val >> 8) & 1u));
        } else {
            hits++;
            if ((uint16_t)hit->rec->val & 1u)
                acc = (uint16_t)(acc + (((uint16_t)hit->rec->val >> 9) & 1u));
            /* move the hit's successor right behind the head */
            if (hit->next != NULL) {
                cell = hit->next;
                hit->next = cell->next;
                cell->next = head->next;
                head->next = cell;
            }
        }
        if (want_key >= 0)
            want_key = rcm_as_s16((uint16_t)(want_key + 1));
    }
    acc = (uint16_t)(acc + 4u * hits - misses);

    if (finder > 0)
        head = list_sort(head, by_value, ctx);

    gone = list_unlink_next(head->next);
    cell = list_seek(head, want_key, want_val);
    if (cell == NULL)
        cell = head->next;
    for (; cell != NULL; cell = cell->next) /* (CRCs the head's value) */
        acc = rcm_crc_u16((uint16_t)head->rec->val, acc);
    list_relink(gone, head->next);

    head = list_sort(head, by_key, NULL);
    for (cell = head->next; cell != NULL; cell = cell->next)
        acc = rcm_crc_u16((uint16_t)head->rec->val, acc);
    return acc;
}

/* Push a new cell holding (val, key) right after `anchor`, taking slot
 * *used of the cell and record arrays; refused when the slot after it would
 * be the end of the arrays. */
static int list_push(rcm_cell *anchor, int16_t val, int16_t key,
                     rcm_cell *cells, rcm_rec *recs, uint32_t *used,
                     uint32_t cap)
{
    rcm_cell *c;

    if (*used + 1u >= cap)
        return 0;
    c = &cells[*used];
    c->rec = &recs[*used];
    c->rec->val = val;
    c->rec->key = key;
    c->next = anchor->next;
    anchor->next = c;
    (*used)++;
    return 1;
}

/* Build the list in `block` (block_bytes long): an anchor record
 * (0x8080, key 0), a tail record (0xffff, key 0x7fff), and between them as
 * many seed-dependent records as fit, keyed 1, 2, ... for the first fifth and
 * pseudo-randomly for the rest; then sorted by key.  Returns the anchor. */
rcm_cell *rcm_list_build(uint32_t block_bytes, void *block, int16_t seed)
{
    uint32_t cap = block_bytes / RCM_LIST_BYTES_PER_ELEMENT - 2u;
    rcm_cell *cells = (rcm_cell *)block;
    rcm_rec *recs = (rcm_rec *)(void *)(cells + cap);
    rcm_cell *head = &cells[0];
    rcm_cell *c;
    uint32_t used = 1, i, k;
    uint16_t useed = (uint16_t)seed;

    head->next = NULL;
    head->rec = &recs[0];
    head->rec->val = rcm_as_s16(0x8080u);
    head->rec->key = 0;

    list_push(head, rcm_as_s16(0xffffu), 0x7fff, cells, recs, &used, cap);
    for (i = 0; i < cap; i++) {
        uint16_t pat = (uint16_t)((useed ^ i) & 0xfu);
        uint16_t v = (uint16_t)((pat << 3) | (i & 0x7u)); /* kernel + param */

        if (!list_push(head, (int16_t)((v << 8) | v), 0, cells, recs, &used,
                       cap))
            break;
    }

    k = 1;
    for (c = head->next; c->next != NULL; c = c->next) {
        if (k < cap / 5u) {
            c->rec->key = (int16_t)k++;
        } else {
            uint16_t pat = (uint16_t)(k++ ^ useed);
            c->rec->key = (int16_t)(0x3fffu & (((k & 0x7u) << 8) | pat));
        }
    }
    return list_sort(head, by_key, NULL);
}
