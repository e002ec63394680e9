/*
 * sizing.c - how many bits and probes a filter needs, and the FPR models behind that.
 *
 * Classic Bloom filter (Bloom 1970). With m bits, k probes and n keys, a given bit is still 0
 * with probability (1 - 1/m)^{kn} ~ e^{-kn/m}, so a key never inserted finds all k probes set
 * with probability  f = (1 - e^{-kn/m})^k.  Minimising over k gives k = (m/n) ln 2 and then
 * f = 2^{-k}, so for a target p:  m = -n ln p / (ln 2)^2,  k = (m/n) ln 2.
 * Example: n = 1,000,000 and p = 1% give m = 9,585,059 bits (ceil) and k = 7; filled to 2n
 * the same filter drifts to (1 - e^{-14/9.585})^7 ~ 15.7%.
 * Probe positions: enhanced double hashing, g_i = h1 + i h2 + (i^3 - i)/6 (Kirsch and
 * Mitzenmacher 2006, "Less hashing, same performance"; Dillinger and Manolios 2004), see
 * classic.c.
 *
 * Blocked Bloom filter (Putze, Sanders, Singler 2007). The m bits form B = m / 512 blocks of
 * 512 bits; a key picks one block and sets its k probes inside it. The number of keys that land
 * in one block is Binomial(n, 1/B) ~ Poisson(lambda = n / B), and a block that holds i keys is a
 * small classic filter of 512 bits with ik probes, so
 *     f_blocked = sum_{i>=0} e^{-lambda} lambda^i / i! * (1 - (1 - 1/512)^{ik})^k.
 * The sum is convex in the load, so uneven loads make f_blocked > f_classic at equal m: the
 * block penalty. That is why blocked sizing searches this model for the smallest B (and the k
 * for it) instead of using m = -n ln p / (ln 2)^2; at high bits per key the best k is also
 * well below (m/n) ln 2 because crowded blocks punish large k. Measured against this model
 * (tests/test_fpr.c) the filter stays inside a binomial 99.9% interval.
 *
 * Block choice: b = floor(h B / 2^64) (Lemire 2016, "fastrange"), see internal.h.
 */
#include "internal.h"

#include <math.h>

/* Poisson terms beyond lambda +- (12 sqrt(lambda) + 24) weigh < 1e-30: ignored. */
double bb_blocked_fpr_model(double n_keys, uint64_t blocks, unsigned k) {
    double lambda = n_keys / (double)blocks;
    if (lambda <= 0) return 0.0;
    double spread = 12.0 * sqrt(lambda) + 24.0;
    double lo = floor(lambda - spread), hi = ceil(lambda + spread);
    if (lo < 0) lo = 0;
    double log_keep = log1p(-1.0 / BB_BLOCK_BITS); /* ln(1 - 1/512) */
    double log_lambda = log(lambda), sum = 0.0;
    for (double i = lo; i <= hi; i += 1.0) {
        double w = exp(-lambda + i * log_lambda - lgamma(i + 1.0));
        double fill = -expm1(i * k * log_keep); /* 1 - (1 - 1/512)^{ik} */
        sum += w * pow(fill, k);
    }
    return sum > 1.0 ? 1.0 : sum;
}

static double classic_fpr(double n, double m, unsigned k) {
    return pow(-expm1(-(double)k * n / m), k);
}

bb_status bb_fpr_model(bb_kind kind, uint64_t n_keys, uint64_t bits, unsigned k,
                       double *fpr_out) {
    if (!fpr_out || bits == 0 || k == 0 || k > BB_MAX_K) return BB_E_INVAL;
    switch (kind) {
    case BB_CLASSIC: *fpr_out = classic_fpr((double)n_keys, (double)bits, k); return BB_OK;
    case BB_BLOCKED:
    case BB_COUNTING: /* the same positions, so the same FPR */
        if (bits % BB_BLOCK_BITS) return BB_E_INVAL;
        *fpr_out = bb_blocked_fpr_model((double)n_keys, bits / BB_BLOCK_BITS, k);
        return BB_OK;
    case BB_SCALABLE: break; /* no single geometry: see scalable.c */
    }
    return BB_E_INVAL;
}

static bool valid_p(double p) { return p > 0.0 && p < 1.0; } /* false for NaN */

static unsigned classic_k(double bits_per_key) {
    double k = round(bits_per_key * M_LN2);
    if (k < 1) return 1;
    if (k > BB_MAX_K) return BB_MAX_K;
    return (unsigned)k;
}

static unsigned blocked_best_k(double n, uint64_t blocks, double *fpr_out) {
    unsigned best = 1;
    double best_f = 2.0;
    for (unsigned k = 1; k <= BB_MAX_K; k++) {
        double f = bb_blocked_fpr_model(n, blocks, k);
        if (f < best_f) { best_f = f; best = k; }
    }
    if (fpr_out) *fpr_out = best_f;
    return best;
}

/* Smallest block count with model FPR <= p for this k, or 0 if none <= max_blocks. The model
 * falls as blocks grow, so: bracket upwards from `start` (the classic estimate, which the
 * blocked filter never beats by much), then bisect. */
static uint64_t blocked_min_blocks(double n, double p, unsigned k, uint64_t start,
                                   uint64_t max_blocks) {
    uint64_t lo = 0, hi = start < 1 ? 1 : start;
    if (hi > max_blocks) hi = max_blocks;
    while (bb_blocked_fpr_model(n, hi, k) > p) {
        if (hi >= max_blocks) return 0;
        lo = hi;
        hi = hi > max_blocks / 2 ? max_blocks : hi * 2;
    }
    while (hi - lo > 1) { /* model(lo) > p (or lo == 0), model(hi) <= p */
        uint64_t mid = lo + (hi - lo) / 2;
        if (bb_blocked_fpr_model(n, mid, k) <= p) hi = mid; else lo = mid;
    }
    return hi;
}

bb_status bb_size(bb_kind kind, uint64_t capacity, double fpr, uint64_t *bits_out,
                  unsigned *k_out) {
    if (!bits_out || !k_out || capacity == 0 || !valid_p(fpr)) return BB_E_INVAL;
    double n = (double)capacity;
    if (kind == BB_CLASSIC) {
        double m = ceil(-n * log(fpr) / (M_LN2 * M_LN2));
        if (!(m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
        *bits_out = (uint64_t)m;
        *k_out = classic_k(m / n);
        return BB_OK;
    }
    if (kind != BB_BLOCKED && kind != BB_COUNTING) return BB_E_INVAL;
    /* Any k at the classic size is already a little above p: start the search there. */
    double classic_m = -n * log(fpr) / (M_LN2 * M_LN2);
    if (!(classic_m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
    uint64_t max_blocks = BB_MAX_BITS / BB_BLOCK_BITS;
    uint64_t start = (uint64_t)(classic_m / BB_BLOCK_BITS);
    uint64_t best_blocks = 0;
    unsigned best_k = 0;
    for (unsigned k = 1; k <= BB_MAX_K; k++) {
        uint64_t b = blocked_min_blocks(n, fpr, k, start, best_blocks ? best_blocks : max_blocks);
        if (b && (!best_blocks || b < best_blocks)) { best_blocks = b; best_k = k; }
    }
    if (!best_blocks) return BB_E_TOO_LARGE;
    *bits_out = best_blocks * BB_BLOCK_BITS;
    *k_out = best_k;
    return BB_OK;
}

bb_status bb_best_k(bb_kind kind, uint64_t capacity, uint64_t bits, unsigned *k_out) {
    if (!k_out || capacity == 0 || bits == 0) return BB_E_INVAL;
    if (kind == BB_CLASSIC) { *k_out = classic_k((double)bits / (double)capacity); return BB_OK; }
    if (kind != BB_BLOCKED && kind != BB_COUNTING) return BB_E_INVAL;
    uint64_t blocks = (bits + BB_BLOCK_BITS - 1) / BB_BLOCK_BITS;
    *k_out = blocked_best_k((double)capacity, blocks, NULL);
    return BB_OK;
}
