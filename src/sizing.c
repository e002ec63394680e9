/* SPDX-License-Identifier: MIT */
/*
 * sizing.c - how many bits and probes a filter needs, and the FPR models behind that.
 *
 * Classic Bloom filter (Bloom 1970). With m bits, k probes and n keys, a given bit is still 0
 * with probability (1 - 1/m)^{kn} ~ e^{-kn/m}, so a key never inserted finds all k probes set
 * with probability  f = (1 - e^{-kn/m})^k.  Minimising over k gives k = (m/n) ln 2 and then
 * f = 2^{-k}, so for a target p:  m = -n ln p / (ln 2)^2,  k = (m/n) ln 2.
 * Example: n = 1,000,000 and p = 1% give m = 9,585,059 bits (ceil) and k = 7; filled to 2n
 * the same filter drifts to (1 - e^{-14/9.585})^7 ~ 15.7%. The classic kind is the textbook
 * baseline and keeps these formulas with k = max(1, round((m/n) ln 2)), so its model can sit a
 * little above p (1.0039% for the example; the price table is at bb_classic_size). Only where
 * k is clamped (to 1 for p > 0.5, to BB_MAX_K below ~1.1e-5) does it solve f = p for m at the
 * clamped k, since there the textbook m misses p badly (0.99 at p = 0.9).
 * Probe positions: enhanced double hashing, g_i = h1 + i h2 + (i^3 - i)/6 (Kirsch and
 * Mitzenmacher 2006, "Less hashing, same performance"; Dillinger and Manolios 2004), see
 * classic.c.
 *
 * Blocked Bloom filter (Putze, Sanders, Singler 2007). The m bits form B = m / 512 blocks of
 * 512 bits; a key picks one block and sets its k probes inside it. The number of keys that land
 * in one block is Binomial(n, 1/B) ~ Poisson(lambda = n / B), and an absent key's block holds i
 * keys with that weight, so
 *     f_blocked = sum_{i>=0} e^{-lambda} lambda^i / i! * q_k(i),
 * where q_k(i) is the chance that k probes of the absent key all hit set bits in a block into
 * which ik independent uniform probes were thrown. Putze et al. write q_k(i) as
 * (1 - (1 - 1/512)^{ik})^k, the expected fill to the k-th power; but the fill X/512 of one
 * block varies a lot (512 bits is small), and E[(X/512)^k] > (E[X]/512)^k (Jensen), so that
 * form is 0.6-3% optimistic at 8-16 bits per key (seen with 60M probes against this filter and
 * against truly independent probes; tests/test_sizing.c checks the gap). We use the
 * exact value instead: the occupancy distribution of X after j throws into 512 bins,
 *     P_{j+1}(x) = P_j(x) x/512 + P_j(x-1) (513-x)/512,   q_k(i) = sum_x P_{ik}(x) (x/512)^k,
 * computed once per k into a table (the probes of one key may repeat a position, exactly as
 * independent throws do). The sum over loads is convex, so uneven loads make
 * f_blocked > f_classic at equal m: the block penalty. That is why blocked sizing searches this
 * model for the smallest B (and the k for it) instead of using m = -n ln p / (ln 2)^2; at high
 * bits per key the best k is also below (m/n) ln 2 because crowded blocks punish large k.
 * Measured FPR stays inside a binomial 99.9% interval of this model (tests/test_fpr.c).
 *
 * Block choice: b = floor(h B / 2^64) (Lemire 2016, "fastrange"), see internal.h.
 *
 * Split-block Bloom filter (Apache Parquet BloomFilter.md; Putze et al.'s blocks with the
 * "split" layout of Broder and Mitzenmacher 2004, section 2.1, inside them). z blocks of 8
 * words of 32 bits; a key picks one block and sets exactly one bit in each word. With i keys
 * in the block, a given bit of a word is still 0 with probability (1 - 1/32)^i, independently
 * per word (each word has its own salt), and an absent key needs its bit set in all 8 words:
 *     f_split = sum_{i>=0} Poisson(i; n / z) (1 - (1 - 1/32)^i)^8,
 * exact for this layout: unlike the blocked layout's in-block term there is no spread of the
 * fill to account for, because the 8 probes never share a word. Sizing takes the smallest z
 * with f_split <= p (k is 8 by the format). Parquet's own sizing, c = -8 / ln(1 - p^{1/8})
 * bits per key, is the i = n / z term alone (every block at the mean load) and so misses p:
 * 1.46% for p = 1%, 0.21% for 0.1% by the sum above. Measured FPR stays inside a binomial
 * 99.9% interval of this model (tests/test_fpr.c); docs/DESIGN.md "Split-block filters" has numbers.
 */
#include "internal.h"

#include <math.h>
#include <pthread.h>

/* ---- q_k(i): exact in-block term, tabulated per k ------------------------------------------ */

/* After 23,552 throws P(some bit of 512 still 0) < 512 (1 - 1/512)^23552 < 1e-17: from there on
 * q_k(i) is 1 to double precision. */
#define BB_SATURATED_THROWS 23552u
#define BB_QTABLE_LEN (BB_SATURATED_THROWS + 1u) /* i = 0 .. throws/k, enough for k = 1 */

static double q_table[BB_MAX_K + 1][BB_QTABLE_LEN];
/* The second moment beside it, s_k(i) = E[(X/512)^{2k}]: the variance of one block's FPR, for
 * bb_blocked_fpr_sd; extended together with q_table. */
static double s_table[BB_MAX_K + 1][BB_QTABLE_LEN];
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;

/* The occupancy DP over throws into 512 bins, per k, kept between calls (under q_lock) and
 * extended only as far as a model evaluation needs (loads far beyond the mean are never asked
 * for: the Poisson window, below), since sizing evaluates many k: every k's
 * full table (up to 23,552 / k loads) costs ~610M instructions, 73% of a `blockbloom build`
 * of 500,000 keys (callgrind). Extending step by step does the same operations in the same
 * order, so q_k(i) is the same to the bit. Instruction counts per (n, p): docs/PERFORMANCE.md,
 * "Sizing's cost". */
typedef struct q_state {
    unsigned len;                      /* q_table[k][0 .. len) computed; 0 = not started */
    unsigned lo, hi;                   /* window of states with non-negligible mass */
    unsigned cur;                      /* p[cur]: P(x bits set) after len - 1 keys */
    double p[2][BB_BLOCK_BITS + 1];    /* the distribution and the next throw's, swapped */
    double pow_k[BB_BLOCK_BITS + 1];   /* (x / 512)^k */
} q_state;
static q_state q_states[BB_MAX_K + 1];

/* One throw: next = the distribution of p after one more uniform probe, over the window
 * [lo, hi] (returned grown by one at the top). The first and the last state of the window
 * have one source each; the loop between has no branch. The same products and sums as the
 * recurrence at the top of this file, so the same bits. */
static unsigned q_throw(const double *p, double *next, unsigned lo, unsigned hi) {
    unsigned nhi = hi < BB_BLOCK_BITS ? hi + 1 : hi;
    next[lo] = p[lo] * lo / BB_BLOCK_BITS;
    for (unsigned x = lo + 1; x <= hi; x++)
        next[x] = p[x] * x / BB_BLOCK_BITS + p[x - 1] * (BB_BLOCK_BITS + 1 - x) / BB_BLOCK_BITS;
    if (nhi > hi) next[nhi] = p[hi] * (BB_BLOCK_BITS + 1 - nhi) / BB_BLOCK_BITS;
    return nhi;
}

/* Extend q_table[k] to `upto` entries, keeping only the window [lo, hi] of states with
 * non-negligible mass (the distribution is narrow: its spread is a few bits). */
static void q_extend(unsigned k, unsigned upto) {
    q_state *st = &q_states[k];
    double *q = q_table[k], *sq = s_table[k];
    if (!st->len) {
        for (unsigned x = 0; x <= BB_BLOCK_BITS; x++) {
            st->p[0][x] = st->p[1][x] = 0.0;
            st->pow_k[x] = pow((double)x / BB_BLOCK_BITS, k);
        }
        st->p[0][0] = 1.0;
        st->lo = st->hi = st->cur = 0;
        q[0] = sq[0] = 0.0;
        st->len = 1;
    }
    unsigned lo = st->lo, hi = st->hi, cur = st->cur;
    for (unsigned i = st->len; i < upto; i++) {
        for (unsigned t = 0; t < k; t++) { /* one throw */
            double *next = st->p[cur ^ 1];
            unsigned nlo = lo;
            hi = q_throw(st->p[cur], next, lo, hi);
            while (nlo < hi && next[nlo] < 1e-300) next[nlo++] = 0.0;
            lo = nlo; /* entries below the window are never read again */
            cur ^= 1;
        }
        const double *p = st->p[cur];
        double s = 0.0, s2 = 0.0;
        for (unsigned x = lo; x <= hi; x++) {
            s += p[x] * st->pow_k[x];
            s2 += p[x] * st->pow_k[x] * st->pow_k[x];
        }
        q[i] = s;
        sq[i] = s2;
    }
    st->lo = lo, st->hi = hi, st->cur = cur;
    if (upto > st->len) st->len = upto;
}

/* q_k(i) for i < need (need <= the full length BB_SATURATED_THROWS / k + 1). Entries are
 * only ever appended, so reading the first `need` after the unlock is safe. */
static const double *q_get(unsigned k, unsigned need) {
    pthread_mutex_lock(&q_lock);
    if (q_states[k].len < need) q_extend(k, need);
    pthread_mutex_unlock(&q_lock);
    return q_table[k];
}

/* ---- The Poisson-weighted sum over block loads, for every blocked layout ------------------
 * Poisson terms beyond lambda +- (12 sqrt(lambda) + 24) weigh < 1e-30: ignored. Loads of
 * len or more keys (q = 1, saturated blocks) are summed as their total weight, 1 minus the
 * weight below len, so the loop runs over at most len loads however large lambda is (a
 * crafted keys_added of 2^64 - 1 must not make info or add spin). */
static void poisson_window(double lambda, unsigned len, double *lo, double *hi, unsigned *last) {
    double spread = 12.0 * sqrt(lambda) + 24.0;
    *lo = floor(lambda - spread), *hi = ceil(lambda + spread);
    if (*lo < 0) *lo = 0;
    *last = *hi < len - 1 ? (unsigned)*hi : len - 1;
}

/* How many entries of q the sum for lambda reads (0 when it reads none). */
static unsigned poisson_needs(double lambda, unsigned len) {
    double lo, hi;
    unsigned last;
    if (lambda <= 0) return 0;
    poisson_window(lambda, len, &lo, &hi, &last);
    return lo >= len ? 0 : last + 1;
}

/* Putze et al.'s in-block term, (E[X]/512)^k with E[X] = 512 (1 - (1 - 1/512)^{ik}): by
 * Jensen's inequality never above q_k(i) (see the top of this file), and free of the table.
 * Only compared with a margin (k_ruled_out), so the k-th power by multiplications will do. */
static double q_floor(unsigned k, unsigned i) {
    return __builtin_powi(-expm1((double)i * k * log1p(-1.0 / BB_BLOCK_BITS)), (int)k);
}

/* ln(i!) = lgamma(i + 1) for i < BB_QTABLE_LEN (every load a Poisson sum reads), tabulated on
 * demand under q_lock like the q tables: one lgamma call per term of each sum is a third of a
 * repeated bb_create's instructions (callgrind). The same calls, so the same values. */
static double log_fact[BB_QTABLE_LEN];
static unsigned log_fact_len;

static const double *log_fact_get(unsigned need) {
    pthread_mutex_lock(&q_lock);
    for (; log_fact_len < need; log_fact_len++) log_fact[log_fact_len] = lgamma(log_fact_len + 1.0);
    pthread_mutex_unlock(&q_lock);
    return log_fact;
}

/* The Poisson sum of q[i] (the tables below), or with q NULL of q_floor(k, i). */
static double poisson_sum(double lambda, const double *q, unsigned k, unsigned len) {
    if (lambda <= 0) return 0.0;
    double lo, hi;
    unsigned last;
    poisson_window(lambda, len, &lo, &hi, &last);
    if (lo >= len) return 1.0;
    double log_lambda = log(lambda), sum = 0.0, below = 0.0;
    const double *lf = log_fact_get(last + 1);
    for (unsigned i = (unsigned)lo; i <= last; i++) {
        double w = exp(-lambda + i * log_lambda - lf[i]);
        sum += w * (q ? q[i] : q_floor(k, i));
        below += w;
    }
    if (hi >= len && below < 1.0) sum += 1.0 - below;
    return sum > 1.0 ? 1.0 : sum;
}

double bb_blocked_fpr_model(double n_keys, uint64_t blocks, unsigned k) {
    double lambda = n_keys / (double)blocks;
    unsigned len = BB_SATURATED_THROWS / k + 1; /* q_k(i) = 1 from i = len on */
    const double *q = q_get(k, poisson_needs(lambda, len));
    return poisson_sum(lambda, q, k, len);
}

/* A lower bound of bb_blocked_fpr_model (and so of the sure model) that needs no occupancy
 * table: sizing skips every k whose bound already rules it out, and so builds the tables
 * (each k's costs ~k times the last one's) only for the few k that can win. */
static double blocked_fpr_floor(double n_keys, uint64_t blocks, unsigned k) {
    return poisson_sum(n_keys / (double)blocks, NULL, k, BB_SATURATED_THROWS / k + 1);
}

/* Whether k's table already holds what its model needs for n keys in `blocks` blocks. */
static bool q_ready(double n_keys, uint64_t blocks, unsigned k) {
    unsigned need = poisson_needs(n_keys / (double)blocks, BB_SATURATED_THROWS / k + 1);
    pthread_mutex_lock(&q_lock);
    bool ready = q_states[k].len >= need;
    pthread_mutex_unlock(&q_lock);
    return ready;
}

/* Whether k's model is surely above `f` at `blocks` (the bound's margin covers its rounding
 * against the tables'); never when k's table is ready, since the model then costs what the
 * bound does and decides exactly. */
static bool k_ruled_out(double n_keys, uint64_t blocks, unsigned k, double f) {
    return !q_ready(n_keys, blocks, k) && blocked_fpr_floor(n_keys, blocks, k) > f * (1.0 + 1e-9);
}

/* One filter's FPR is the mean over its B blocks of f_b = (X_b/512)^k, the chance that an
 * absent key sent to block b finds its k bits set; the loads (and so the f_b) are
 * independent to the Poisson approximation, so the filter's FPR varies around the model with
 * variance (E[f_b^2] - E[f_b]^2) / B, E[f_b^2] = sum_i Poisson(i) s_k(i). A filter of a few
 * hundred blocks is a few per cent off its model either way (226 blocks at 0.5%: 5%). */
double bb_blocked_fpr_sd(double n_keys, uint64_t blocks, unsigned k) {
    double lambda = n_keys / (double)blocks;
    unsigned len = BB_SATURATED_THROWS / k + 1;
    const double *q = q_get(k, poisson_needs(lambda, len)), *s2 = s_table[k];
    double m = poisson_sum(lambda, q, k, len), var = poisson_sum(lambda, s2, k, len) - m * m;
    return var > 0 ? sqrt(var / (double)blocks) : 0.0;
}

/* ---- Split-block: q(i) = (1 - (1 - 1/32)^i)^8, exact -------------------------------------
 * A key sets one bit in each of the 8 words of its block, so after i keys each word's bit for
 * an absent key is set with probability 1 - (31/32)^i, independently per word (each word has
 * its own salt): no occupancy spread to account for, unlike the blocked layout. From i = 1400
 * on, 8 (31/32)^i < 1e-19 and q is 1 to double precision. */
#define SPLIT_QTABLE_LEN 1400u
static double split_q[SPLIT_QTABLE_LEN];
static pthread_once_t split_once = PTHREAD_ONCE_INIT;

static void split_q_fill(void) {
    for (unsigned i = 0; i < SPLIT_QTABLE_LEN; i++)
        split_q[i] = pow(-expm1(i * log1p(-1.0 / 32.0)), BB_SPLIT_K);
}

double bb_split_fpr_model(double n_keys, uint64_t blocks) {
    pthread_once(&split_once, split_q_fill);
    return poisson_sum(n_keys / (double)blocks, split_q, BB_SPLIT_K, SPLIT_QTABLE_LEN);
}

double bb_split_fpr(double n_keys, uint64_t bits, unsigned k) {
    (void)k; /* always 8, checked by the caller */
    return bb_split_fpr_model(n_keys, bits / BB_SPLIT_BLOCK_BITS);
}

/* ---- Classic ------------------------------------------------------------------------------ */

double bb_classic_fpr(double n_keys, uint64_t bits, unsigned k) {
    return pow(-expm1(-(double)k * n_keys / (double)bits), k);
}

static unsigned clamp_k(double k) { return k < 1 ? 1 : k > BB_MAX_K ? BB_MAX_K : (unsigned)k; }

static unsigned classic_k(double bits_per_key) { return clamp_k(round(bits_per_key * M_LN2)); }

unsigned bb_classic_best_k(uint64_t capacity, uint64_t bits) {
    return classic_k((double)bits / (double)capacity);
}

/* Fewest classic bits with exactly k probes: solve (1 - e^{-kn/m})^k = p for m. */
static double classic_bits_for_k(double n, double p, unsigned k) {
    return ceil(-(double)k * n / log1p(-pow(p, 1.0 / k)));
}

/* Single-probe filters above p = 0.5 are small (a few bits per key), and there the exact
 * chance that a bit stays 0, (1 - 1/m)^n, differs from the asymptotic e^{-n/m} (0.556 against
 * 0.487 for n = 2, m = 3): sizing uses the exact form wherever it exceeds p by more than
 * 10^-4 p at the asymptotic size. */
static double classic_k1_fpr(double n, double m, unsigned k) {
    (void)k;
    return -expm1(n * log1p(-1.0 / m));
}

/* Near p = 1 the mean over filters is not enough: at p = 0.9999 the 109 bits that model
 * 0.9999 for 1000 keys (k = 1) are all set in 99% of filters, which then answer yes to every
 * key. The count of zero bits is close to Poisson with mean mu = m (1 - 1/m)^{kn}, so a filter
 * is full with probability ~e^{-mu}; sizing also asks that to be at most BB_FULL_P (mu >= 6.9,
 * a few more bits where p is close to 1, nothing elsewhere). Split-block: every bit can be a
 * query's, mu = z 256 e^{-lambda/32} (Poisson loads); blocked likewise (blocked_full_p). */
#define BB_FULL_P 1e-3

static double classic_full_p(double n, double m, unsigned k) {
    return exp(-m * exp((double)k * n * log1p(-1.0 / m)));
}

typedef double (*classic_model)(double n, double m, unsigned k);

/* Fewest bits with model <= p at this k (the model falls as m grows), searched from `from`;
 * 0 if none below BB_MAX_BITS. */
static double classic_min_bits(classic_model model, double n, double p, unsigned k,
                               double from) {
    double lo = from, hi = from < 1 ? 1 : from;
    while (model(n, hi, k) > p) {
        if (hi > (double)BB_MAX_BITS) return 0;
        lo = hi, hi *= 2;
    }
    if (lo == hi) return hi;
    while (hi - lo > 1) { /* fpr(lo) > p, fpr(hi) <= p */
        double mid = floor(lo + (hi - lo) / 2);
        if (model(n, mid, k) <= p) hi = mid; else lo = mid;
    }
    return hi;
}

/* The textbook design, as RedisBloom and the literature give it: m = ceil(-n ln p / (ln 2)^2),
 * k = max(1, round((m / n) ln 2)). Its whole k costs a little: the model at that size exceeds p
 * by at most 0.75% (relative) for p <= 1%, 1.7% up to 10% and 4.7% up to 50% (n = 10^6, a
 * geometric grid of 10^5 p per range; 1.0039% at p = 1%). It breaks down only where k is
 * clamped, and there alone m is solved for p at the clamped k instead:
 *  - p > 0.5, where round(log2(1/p)) is 0 or a fractional k near 1 is forced to 1: the textbook
 *    m would model 0.989 at p = 0.9. Such filters are small, so the exact single-probe
 *    model (classic_k1_fpr) and the "not full" bound (classic_full_p) size them;
 *  - p < 2^-16.5 (~1.1e-5), where the format's BB_MAX_K caps k: the textbook m with k = 16
 *    would model 1.17e-6 at p = 1e-6. */
static bb_status classic_size_k1(double n, double fpr, double *m_out) {
    double m = classic_bits_for_k(n, fpr, 1);
    if (m <= (double)BB_MAX_BITS && classic_k1_fpr(n, m, 1) > (1.0 + 1e-4) * fpr) {
        double ms = classic_min_bits(classic_k1_fpr, n, fpr, 1, m);
        m = ms ? ms : INFINITY;
    }
    if (m <= (double)BB_MAX_BITS && classic_full_p(n, m, 1) > BB_FULL_P) {
        double mf = classic_min_bits(classic_full_p, n, BB_FULL_P, 1, m);
        m = mf ? mf : INFINITY;
    }
    *m_out = m;
    return m <= (double)BB_MAX_BITS ? BB_OK : BB_E_TOO_LARGE;
}

bb_status bb_classic_size(uint64_t capacity, double fpr, uint64_t *bits_out, unsigned *k_out) {
    double n = (double)capacity, m;
    unsigned k;
    if (fpr > 0.5) {
        k = 1;
        if (classic_size_k1(n, fpr, &m) != BB_OK) return BB_E_TOO_LARGE;
    } else {
        m = ceil(-n * log(fpr) / (M_LN2 * M_LN2));
        double k_real = round(m / n * M_LN2);
        k = clamp_k(k_real);
        if (k_real > BB_MAX_K) m = classic_bits_for_k(n, fpr, k);
    }
    if (!(m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
    *bits_out = (uint64_t)m;
    *k_out = k;
    return BB_OK;
}

bb_status bb_classic_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits_out) {
    double m = classic_bits_for_k((double)capacity, fpr, k);
    if (!(m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
    *bits_out = (uint64_t)m;
    return BB_OK;
}

/* ---- Blocked ------------------------------------------------------------------------------ */

double bb_blocked_fpr(double n_keys, uint64_t bits, unsigned k) {
    return bb_blocked_fpr_model(n_keys, bits / BB_BLOCK_BITS, k);
}

typedef double (*block_model)(double n_keys, uint64_t blocks, unsigned k);

/* The k in 1..BB_MAX_K with the lowest `model` (a blocked model: at or above
 * blocked_fpr_floor) for n keys in `blocks` blocks, the smallest such k on a tie. The k next
 * to log2(1/f) of classic sizing is tried first, and a k whose floor is above its model is
 * never the answer, so its model (and table) is skipped; the answer is the one the full scan
 * gives. */
static unsigned best_k_by(block_model model, double n, uint64_t blocks) {
    unsigned guess = classic_k((double)blocks * BB_BLOCK_BITS / n);
    double bound = model(n, blocks, guess);
    unsigned best = 1;
    double best_f = 2.0;
    for (unsigned k = 1; k <= BB_MAX_K; k++) {
        if (k != guess && k_ruled_out(n, blocks, k, bound)) continue;
        double f = k == guess ? bound : model(n, blocks, k);
        if (f < best_f) { best_f = f; best = k; }
    }
    return best;
}

unsigned bb_blocked_best_k(uint64_t capacity, uint64_t bits) {
    return best_k_by(bb_blocked_fpr_model, (double)capacity,
                     (bits + BB_BLOCK_BITS - 1) / BB_BLOCK_BITS);
}

/* Smallest block count with model FPR <= p for this k, or 0 if none <= max_blocks. The model
 * falls as blocks grow, so: bracket upwards from `start` (the classic estimate, which the
 * blocked filter never beats by much), then bisect. */
static uint64_t min_blocks(block_model model, double n, double p, unsigned k, uint64_t start,
                           uint64_t max_blocks) {
    uint64_t lo = 0, hi = start < 1 ? 1 : start;
    if (hi > max_blocks) hi = max_blocks;
    while (model(n, hi, k) > p) {
        if (hi >= max_blocks) return 0;
        lo = hi;
        hi = hi > max_blocks / 2 ? max_blocks : hi * 2;
    }
    while (hi - lo > 1) { /* model(lo) > p (or lo == 0), model(hi) <= p */
        uint64_t mid = lo + (hi - lo) / 2;
        if (model(n, mid, k) <= p) hi = mid; else lo = mid;
    }
    return hi;
}

/* Any k at the classic size is already a little above p: searches start there, in blocks of
 * block_bits. */
static bb_status classic_start(double n, double fpr, unsigned block_bits, uint64_t *start) {
    double classic_m = -n * log(fpr) / (M_LN2 * M_LN2);
    if (!(classic_m <= (double)BB_MAX_BITS)) return BB_E_TOO_LARGE;
    *start = (uint64_t)(classic_m / block_bits);
    return BB_OK;
}

/* The model plus BB_SURE_Z standard deviations of one filter's FPR around it. */
static double blocked_sure_model(double n_keys, uint64_t blocks, unsigned k) {
    return bb_blocked_fpr_model(n_keys, blocks, k) + BB_SURE_Z * bb_blocked_fpr_sd(n_keys, blocks, k);
}

/* The chance that every bit is set (see BB_FULL_P): a bit of a block with i keys is still 0
 * with probability (1 - 1/512)^{ik}, so under Poisson loads mu = B 512 e^{-lambda (1 - (1 -
 * 1/512)^k)} (without this bound, 100,000 keys at p = 0.9999 get 22 blocks, mu = 1.6). */
static double blocked_full_p(double n_keys, uint64_t blocks, unsigned k) {
    double per_key = -expm1((double)k * log1p(-1.0 / BB_BLOCK_BITS));
    return exp(-(double)blocks * BB_BLOCK_BITS * exp(-n_keys / (double)blocks * per_key));
}

/* Fewest blocks for which some k meets p under `model`, and the k with the lowest `model`
 * there: several k may fit (always so for tiny n, where one block holds everything), so take
 * the best one, not merely the first that fits. */
static bb_status blocked_size_by(block_model model, uint64_t capacity, double fpr,
                                 uint64_t *bits_out, unsigned *k_out) {
    double n = (double)capacity;
    uint64_t start, max_blocks = BB_MAX_BITS / BB_BLOCK_BITS, best_blocks = 0;
    bb_status s = classic_start(n, fpr, BB_BLOCK_BITS, &start);
    if (s != BB_OK) return s;
    /* The fewest blocks over all k, from the classic k first: a k whose floor is above p
     * with one block fewer than the best so far cannot give fewer, so it is skipped, and once
     * one block is enough no k can give fewer. */
    unsigned guess = clamp_k(round(-log(fpr) / M_LN2));
    best_blocks = min_blocks(model, n, fpr, guess, start, max_blocks);
    for (unsigned k = 1; k <= BB_MAX_K && best_blocks != 1; k++) {
        if (k == guess || (best_blocks > 1 && k_ruled_out(n, best_blocks - 1, k, fpr))) continue;
        uint64_t b = min_blocks(model, n, fpr, k, start, best_blocks ? best_blocks : max_blocks);
        if (b && (!best_blocks || b < best_blocks)) best_blocks = b;
    }
    if (!best_blocks) return BB_E_TOO_LARGE;
    unsigned k = best_k_by(model, n, best_blocks);
    if (blocked_full_p(n, best_blocks, k) > BB_FULL_P) /* more blocks, same k: model still <= p */
        best_blocks = min_blocks(blocked_full_p, n, BB_FULL_P, k, best_blocks, max_blocks);
    if (!best_blocks) return BB_E_TOO_LARGE;
    *bits_out = best_blocks * BB_BLOCK_BITS;
    *k_out = k;
    return BB_OK;
}

bb_status bb_blocked_size(uint64_t capacity, double fpr, uint64_t *bits_out, unsigned *k_out) {
    return blocked_size_by(bb_blocked_fpr_model, capacity, fpr, bits_out, k_out);
}

bb_status bb_blocked_size_sure(uint64_t capacity, double fpr, uint64_t *bits_out,
                               unsigned *k_out) {
    return blocked_size_by(blocked_sure_model, capacity, fpr, bits_out, k_out);
}

bb_status bb_blocked_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits_out) {
    double n = (double)capacity;
    uint64_t start;
    bb_status s = classic_start(n, fpr, BB_BLOCK_BITS, &start);
    if (s != BB_OK) return s;
    uint64_t b = min_blocks(bb_blocked_fpr_model, n, fpr, k, start, BB_MAX_BITS / BB_BLOCK_BITS);
    if (!b) return BB_E_TOO_LARGE;
    *bits_out = b * BB_BLOCK_BITS;
    return BB_OK;
}

/* ---- Split-block ---------------------------------------------------------------------------- */

static double split_model(double n_keys, uint64_t blocks, unsigned k) {
    (void)k;
    return bb_split_fpr_model(n_keys, blocks);
}

unsigned bb_split_best_k(uint64_t capacity, uint64_t bits) {
    (void)capacity, (void)bits;
    return BB_SPLIT_K;
}

/* The chance that every bit is set (see BB_FULL_P): e^{-mu}, mu = z 256 e^{-lambda/32}. */
static double split_full_p(double n_keys, uint64_t blocks, unsigned k) {
    (void)k;
    return exp(-(double)blocks * BB_SPLIT_BLOCK_BITS * exp(-n_keys / (double)blocks / 32.0));
}

bb_status bb_split_size(uint64_t capacity, double fpr, uint64_t *bits_out, unsigned *k_out) {
    uint64_t start, max_blocks = BB_SPLIT_MAX_BITS / BB_SPLIT_BLOCK_BITS;
    bb_status s = classic_start((double)capacity, fpr, BB_SPLIT_BLOCK_BITS, &start);
    if (s != BB_OK) return s;
    uint64_t b = min_blocks(split_model, (double)capacity, fpr, BB_SPLIT_K, start, max_blocks);
    if (b && split_full_p((double)capacity, b, BB_SPLIT_K) > BB_FULL_P)
        b = min_blocks(split_full_p, (double)capacity, BB_FULL_P, BB_SPLIT_K, b, max_blocks);
    if (!b) return BB_E_TOO_LARGE;
    *bits_out = b * BB_SPLIT_BLOCK_BITS;
    *k_out = BB_SPLIT_K;
    return BB_OK;
}

bb_status bb_split_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits_out) {
    unsigned k_split;
    if (k != BB_SPLIT_K) return BB_E_INVAL;
    return bb_split_size(capacity, fpr, bits_out, &k_split);
}

/* ---- Sectorized: q(i) from the fill of single 64-bit words, exact ----------------------------
 * The line's 8 words are cut into units of w = min(k, 8) words (k = 1, 2, 4: 8 / w units per
 * line, a key's run of words chosen by its own hash bits; k = 8, 16: the line), so each unit
 * holds Poisson(n w / 8B) keys, independently (Poisson splitting of the line's load). Each key
 * throws r = k / w probes into each word of its unit and an absent key needs its r probes set
 * in all w words, each word on its own salts, so with i keys in the unit
 *     q(i) = t_r(i)^w,  t_1(i) = 1 - a^i,  t_2(i) = E[(X/64)^2]
 *          = (64 (1 - a^{2i}) + 64 * 63 (1 - 2 a^{2i} + b^{2i})) / 4096,  a = 63/64, b = 62/64,
 * where X is the number of a word's 64 bits set by 2i uniform probes (its first two moments
 * are the occupancy sums: no table of the distribution is needed, unlike the blocked
 * layout's 512-bit one), and f = sum_i Poisson(i; n w / 8B) q(i). Bits per key this gives
 * (and the blocked model's, by its occupancy table): 1% 10.10 at k = 8 (blocked 9.92),
 * 0.1% 15.73 (15.55), 0.01% 22.88 at k = 16 (22.03), 10% 4.93 at k = 4 (4.84). */
#define SECT_QLEN 3000u /* from i = 3000 on, 1 - q < 8 (63/64)^3000 < 1e-19 for every k */
static const unsigned sect_ks[5] = {1, 2, 4, 8, 16};
static double sect_q[5][SECT_QLEN];
static pthread_once_t sect_once = PTHREAD_ONCE_INIT;

static unsigned sect_row(unsigned k) { return k == 1 ? 0 : k == 2 ? 1 : k == 4 ? 2 : k == 8 ? 3 : 4; }

static void sect_q_fill(void) {
    const double la = log1p(-1.0 / 64.0), lb = log1p(-2.0 / 64.0);
    for (unsigned r = 0; r < 5; r++) {
        unsigned k = sect_ks[r], w = bb_sect_width(k);
        for (unsigned i = 0; i < SECT_QLEN; i++) {
            double t = -expm1(i * la); /* 1 - a^i */
            if (k > w) {
                double a2 = exp(2.0 * i * la), b2 = exp(2.0 * i * lb);
                t = (64.0 * (1.0 - a2) + 64.0 * 63.0 * (1.0 - 2.0 * a2 + b2)) / 4096.0;
            }
            sect_q[r][i] = pow(t, w);
        }
    }
}

static double sect_model(double n_keys, uint64_t lines, unsigned k) {
    pthread_once(&sect_once, sect_q_fill);
    double units = (double)lines * (BB_SECT_WORDS / bb_sect_width(k));
    return poisson_sum(n_keys / units, sect_q[sect_row(k)], k, SECT_QLEN);
}

double bb_sect_fpr(double n_keys, uint64_t bits, unsigned k) {
    return sect_model(n_keys, bits / BB_BLOCK_BITS, k);
}

/* The chance that every bit is set (see BB_FULL_P): a bit of a unit holding i keys is still 0
 * with probability a^{ri}, so mu = B 512 e^{-lambda (1 - a^r)} with lambda the unit's mean. */
static double sect_full_p(double n_keys, uint64_t lines, unsigned k) {
    unsigned w = bb_sect_width(k);
    double lambda = n_keys / ((double)lines * (BB_SECT_WORDS / w));
    double per_key = -expm1((double)(k / w) * log1p(-1.0 / 64.0));
    return exp(-(double)lines * BB_BLOCK_BITS * exp(-lambda * per_key));
}

/* The k of the five with the lowest model at `lines`, the smallest on a tie. */
static unsigned sect_best_k_at(double n, uint64_t lines) {
    unsigned best = sect_ks[0];
    double best_f = 2.0;
    for (unsigned r = 0; r < 5; r++) {
        double f = sect_model(n, lines, sect_ks[r]);
        if (f < best_f) { best_f = f; best = sect_ks[r]; }
    }
    return best;
}

unsigned bb_sect_best_k(uint64_t capacity, uint64_t bits) {
    return sect_best_k_at((double)capacity, (bits + BB_BLOCK_BITS - 1) / BB_BLOCK_BITS);
}

/* Fewest lines meeting p with exactly k (then more lines until full_p is met), or 0. */
static uint64_t sect_lines_for_k(double n, double p, unsigned k, uint64_t start) {
    const uint64_t max_lines = BB_MAX_BITS / BB_BLOCK_BITS;
    uint64_t b = min_blocks(sect_model, n, p, k, start, max_lines);
    if (b && sect_full_p(n, b, k) > BB_FULL_P)
        b = min_blocks(sect_full_p, n, BB_FULL_P, k, b, max_lines);
    return b;
}

bb_status bb_sect_size(uint64_t capacity, double fpr, uint64_t *bits_out, unsigned *k_out) {
    double n = (double)capacity;
    uint64_t start, best = 0;
    bb_status s = classic_start(n, fpr, BB_BLOCK_BITS, &start);
    if (s != BB_OK) return s;
    for (unsigned r = 0; r < 5; r++) {
        uint64_t b = sect_lines_for_k(n, fpr, sect_ks[r], start);
        if (b && (!best || b < best)) best = b;
    }
    if (!best) return BB_E_TOO_LARGE;
    /* Of the k that fit in `best` lines, the lowest model that also meets full_p. */
    unsigned k = 0;
    double best_f = 2.0;
    for (unsigned r = 0; r < 5; r++) {
        double f = sect_model(n, best, sect_ks[r]);
        if (f <= fpr && sect_full_p(n, best, sect_ks[r]) <= BB_FULL_P && f < best_f) {
            best_f = f;
            k = sect_ks[r];
        }
    }
    if (!k) return BB_E_TOO_LARGE; /* not reached: the k that gave `best` fits */
    *bits_out = best * BB_BLOCK_BITS;
    *k_out = k;
    return BB_OK;
}

bb_status bb_sect_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits_out) {
    if (k > 16 || !(BB_SECT_KS >> k & 1)) return BB_E_INVAL;
    uint64_t start;
    bb_status s = classic_start((double)capacity, fpr, BB_BLOCK_BITS, &start);
    if (s != BB_OK) return s;
    uint64_t b = sect_lines_for_k((double)capacity, fpr, k, start);
    if (!b) return BB_E_TOO_LARGE;
    *bits_out = b * BB_BLOCK_BITS;
    return BB_OK;
}
