/* SPDX-License-Identifier: MIT */
/*
 * fill.c - what bb_get_info derives from a payload's fill: set bits, and from them the FPR
 * estimate and the cardinality estimate, summed block by block (a classic filter is one block
 * of all its bits). With X of the b positions of a block set, an absent key probing it k
 * times is a false positive with probability (X/b)^k (the positions are uniform), and the
 * block holds about n* = -(b/k) ln(1 - X/b) keys (Swamidass and Baldi 2007), infinite when
 * saturated. The filter's FPR estimate is the mean over blocks (keys pick blocks uniformly)
 * and its cardinality the sum.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

uint64_t bb_popcount_bytes(const uint8_t *p, uint64_t n) {
    uint64_t c = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        c += (uint64_t)__builtin_popcountll(w);
    }
    for (; i < n; i++) c += (uint64_t)__builtin_popcount(p[i]);
    return c;
}

double bb_cardinality(double m, double x, unsigned k) {
    if (x >= m) return INFINITY;
    return -(m / k) * log1p(-x / m);
}

void bb_fill_block(bb_fill *acc, uint64_t x, uint64_t block_bits, unsigned k) {
    acc->bits_set += x;
    acc->blocks++;
    acc->fpr_sum += pow((double)x / (double)block_bits, k);
    acc->cardinality += bb_cardinality((double)block_bits, (double)x, k);
}

void bb_fill_store(const bb_fill *acc, uint64_t bits, bb_info *out) {
    out->bits_set = acc->bits_set;
    out->saturated_counters = acc->saturated;
    out->fill_ratio = (double)acc->bits_set / (double)bits;
    out->fpr_estimate = acc->fpr_sum / (double)acc->blocks;
    out->cardinality_estimate = acc->cardinality;
}
