/* SPDX-License-Identifier: MIT */
/*
 * conc_loops.h - the blocked filter's concurrent batch add, written once and included by each
 * ISA file (conc_scalar.c, conc_avx2.c, conc_avx512.c, conc_avx512gfni.c) after it defines
 *     static inline bool CONC_SET(uint8_t *block, uint32_t lo, unsigned k);
 * which sets the key's k probe bits in its block, reading the block with plain loads and
 * writing it with stores that readers' relaxed 64-bit loads may run beside (relaxed atomic
 * byte stores: conc_scalar.c, or one SIMD store: conc_or512.h), and returns true if some
 * bit was clear; and CONC_NAME (a token) and CONC_ISA (a bb_isa). The caller holds the
 * block's stripe lock, so no other writer touches the block meanwhile (internal.h,
 * "Concurrent adds under stripe locks"; concurrent.c has the design and its measurements).
 *
 * A batch goes in chunks of BB_CONC_CHUNK keys. When the batch is the only writer it takes
 * every stripe for the chunk and sets its keys in order (the fast path, _take_all).
 * With one other writer, each chunk is split once into the keys of the lower and of the upper
 * half of the stripes (_halves), and each half is taken whole, the other writer most likely
 * working in the other half meanwhile. With more writers each chunk is grouped by stripe
 * with a counting sort (_grouped). Both are stable, so the keys of one block are set in batch
 * order and each key's "new" answer is the one a single-thread loop would give. Halves and
 * stripes are taken with try-locks, starting at a different place per chunk (so threads adding
 * different keys start apart); one another thread holds is left for later in the pass, and a
 * pass that takes none pauses (and after many such passes yields the CPU: the holder may have
 * lost its vCPU).
 * Lines of filters beyond L2 are prefetched for writing, a rolling BB_PREFETCH_AHEAD keys
 * ahead (prefetch.h's threshold). A single key (the single-key calls) takes its stripe's lock
 * directly: through the grouping a loop of bb_add_hash_concurrent calls cost 50-67 ns/key on
 * Zen 4 (10^4-10^6 keys), directly 13-23, against 20-48 for the per-bit fetch-or before.
 */
#include "../kinds/atomic_bits.h"
#include "prefetch.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Keys per chunk. Each chunk pays its stripes' lock hand-offs and a restart of the prefetch
 * pipeline (the next chunk is not grouped yet): two writers into a 118 MiB filter took 5.5
 * ns/key of all keys in chunks of 1024 and 4.5 in chunks of 4096 (medians of 3, slowest
 * thread's CPU time; Intel Xeon family 6 model A7h, avx512). The grouping's arrays take 9
 * bytes of stack per key of a chunk. */
#ifndef BB_CONC_CHUNK
#define BB_CONC_CHUNK 4096u
#endif
/* Every batch of 2 or more keys tries the fast path: at 10^6 keys in calls of 4 keys it costs
 * 13.9 ns/key against 26.1 grouped (Zen 4, EPYC family 25 model 17, 1 thread). A chunk below
 * BB_CONC_GROUP_MIN keys that cannot take it locks key by key (~10-13 ns each, as the
 * single-key calls; the crossover with grouping is estimated, not measured). */
#define BB_CONC_FAST_MIN 2u
#define BB_CONC_GROUP_MIN 32u
/* A writer that found every stripe it needs taken for this many passes (each ~30-40 ns:
 * BB_STRIPES loads and a pause) yields the CPU on every further pass: a chunk holds a lock
 * for ~5 us, so by then the holder has most likely lost its vCPU to another process. */
#define BB_CONC_SPIN_PASSES 512u

#define BB_CCAT2(a, b) a##b
#define BB_CCAT(a, b) BB_CCAT2(a, b)
#define BB_CFN(suffix) BB_CCAT(BB_CCAT(bb_conc_, CONC_NAME), suffix)
#define BB_CONC_INLINE inline __attribute__((always_inline))

/* The keys h[0 .. n) of one stripe (or of the fast path's chunk), their locks held: one copy
 * per k (see BB_CONC_CASE) and per prefetch distance (dist: BB_PREFETCH_AHEAD or 0, so the
 * copy for filters within L2 has no prefetch code). With dist, the block of the key dist
 * places further on (up to `end`: in the fast path the next chunk's, in the grouped one
 * mostly the next stripes') is prefetched for writing and kept in a ring until its turn, so
 * each key's multiply-shift is done once, as the plain kernels' blocked_loops.h does; the
 * first dist of the run are computed again here (the previous run prefetched them). Against
 * the block computed twice per key and the prefetch stopping at each chunk's end: 10^6 keys
 * 1.24-1.30 -> 1.17-1.18 times the plain add (Zen 4, EPYC family 25 model 17, avx512gfni). */

/* How a run is set: prefetching ahead (filters beyond L2), and counting the keys that were
 * new (only when the caller asked: without, the compiler drops the kernels' "some bit was
 * clear" tests, ~1.7 ns/key for the scalar kernel). */
#define BB_CONC_AHEAD 1u
#define BB_CONC_COUNT 2u

static BB_CONC_INLINE size_t BB_CFN(_set_run)(uint8_t *data, uint64_t blocks, unsigned k,
                                              const uint64_t *h, size_t n,
                                              const uint64_t *end, size_t dist, bool count) {
    uint8_t *ring[BB_PREFETCH_AHEAD];
    size_t fresh = 0;
    for (size_t i = 0; i < dist && i < n; i++) ring[i] = bb_block_of(data, blocks, h[i]);
    for (size_t i = 0; i < n; i++) {
        uint8_t *block = dist ? ring[i % BB_PREFETCH_AHEAD] : bb_block_of(data, blocks, h[i]);
        if (dist && h + i + dist < end) {
            uint8_t *next = bb_block_of(data, blocks, h[i + dist]);
            __builtin_prefetch(next, 1);
            if (i + dist < n) ring[i % BB_PREFETCH_AHEAD] = next;
        }
        bool was_new = CONC_SET(block, (uint32_t)h[i], k);
        if (count) fresh += was_new;
    }
    return fresh;
}

#define BB_CONC_RUN(K, DIST, COUNT) BB_CFN(_set_run)(data, blocks, K, h, n, end, DIST, COUNT)
#define BB_CONC_CASE(K)                                                                        \
    case K:                                                                                    \
        switch (mode) {                                                                        \
        case BB_CONC_AHEAD | BB_CONC_COUNT: return BB_CONC_RUN(K, BB_PREFETCH_AHEAD, true);    \
        case BB_CONC_AHEAD: return BB_CONC_RUN(K, BB_PREFETCH_AHEAD, false);                   \
        case BB_CONC_COUNT: return BB_CONC_RUN(K, 0, true);                                    \
        default: return BB_CONC_RUN(K, 0, false);                                              \
        }
static size_t BB_CFN(_set_any)(uint8_t *data, uint64_t blocks, unsigned k, const uint64_t *h,
                               size_t n, const uint64_t *end, unsigned mode) {
    switch (k) {
    BB_EACH_K(BB_CONC_CASE)
    default: return BB_CONC_RUN(k, 0, true); /* k > BB_MAX_K is never stored */
    }
}
#undef BB_CONC_RUN
#undef BB_CONC_CASE

static inline bool BB_CFN(_try_lock)(bb_stripes *st, unsigned s) {
    _Atomic uint32_t *l = &st->lock[s].held;
    return !atomic_load_explicit(l, memory_order_relaxed) &&
           !atomic_exchange_explicit(l, 1, memory_order_acquire);
}

static inline void BB_CFN(_unlock)(bb_stripes *st, unsigned s) {
    atomic_store_explicit(&st->lock[s].held, 0, memory_order_release);
}

static inline void BB_CFN(_pause)(unsigned passes) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (passes >= BB_CONC_SPIN_PASSES) sched_yield();
}

/* Smallest shift that maps every block index below `blocks` to a stripe below BB_STRIPES. */
static inline unsigned BB_CFN(_stripe_shift)(uint64_t blocks) {
    _Static_assert(BB_STRIPES == 16, "4 = log2(BB_STRIPES)");
    unsigned bits = blocks > 1 ? 64 - (unsigned)__builtin_clzll(blocks - 1) : 0;
    return bits > 4 ? bits - 4 : 0;
}

/* Stripes that hold blocks: 0 .. used - 1. */
static inline unsigned BB_CFN(_stripes_used)(uint64_t blocks, unsigned sh) {
    return (unsigned)((blocks - 1) >> sh) + 1;
}

/* Takes stripes s0 .. s1 - 1, all or none. */
static bool BB_CFN(_take_range)(bb_stripes *st, unsigned s0, unsigned s1) {
    for (unsigned s = s0; s < s1; s++) {
        if (BB_CFN(_try_lock)(st, s)) continue;
        while (s-- > s0) BB_CFN(_unlock)(st, s);
        return false;
    }
    return true;
}

/* The fast path: when this batch is the only writer (st->writers is 1), take every stripe
 * (used stripes 0 .. used) and set the chunk in its own order, with no grouping; false
 * (nothing held) if one was taken. */
static bool BB_CFN(_take_all)(bb_stripes *st, unsigned used) {
    return atomic_load_explicit(&st->writers, memory_order_relaxed) == 1 &&
           BB_CFN(_take_range)(st, 0, used);
}

/* What a writer does with one stripe while holding its lock: the grouped path sets its run of
 * sorted keys, the private path ORs its blocks in. */
typedef struct BB_CFN(_work) {
    uint8_t *data;
    uint64_t blocks;
    unsigned k, sh;
    unsigned mode;                /* BB_CONC_AHEAD, BB_CONC_COUNT */
    const uint64_t *sorted, *end; /* grouped: the chunk sorted by stripe */
    const uint32_t *start;        /* grouped: stripe s's keys are sorted[start[s] .. start[s+1]) */
    const uint8_t *mine;          /* private: this writer's own build of the filter */
} BB_CFN(_work);

static BB_CONC_INLINE size_t BB_CFN(_set_stripe)(const BB_CFN(_work) *w, unsigned s) {
    return BB_CFN(_set_any)(w->data, w->blocks, w->k, w->sorted + w->start[s],
                            w->start[s + 1] - w->start[s], w->end, w->mode);
}

#ifndef CONC_OR_BLOCK
/* block |= the 64 bytes at src, as 64-bit words: relaxed atomic stores, which readers'
 * relaxed loads may run beside (the stripe lock keeps writers out). The ISA files that
 * write a block with one SIMD store define their own (conc_or512.h, conc_avx2.c). */
static inline void BB_CFN(_or_words)(uint8_t *block, const uint8_t *src) {
    for (unsigned i = 0; i < BB_BLOCK_BYTES / 8; i++) {
        uint64_t add;
        memcpy(&add, src + 8 * i, sizeof add);
        _Atomic uint64_t *word = bb_word_at(block, i);
        atomic_store_explicit(word, atomic_load_explicit(word, memory_order_relaxed) | add,
                              memory_order_relaxed);
    }
}
#define CONC_OR_BLOCK BB_CFN(_or_words)
#endif

/* Stripe s of the filter |= stripe s of the private build. Its lines most likely sit in the
 * other writer's cache, so they are asked for, owned, BB_PREFETCH_AHEAD blocks before they
 * are needed (all of a small filter's stripe at once). Against prefetching the whole stripe
 * first, two library builds in one process, 2 threads, medians of 21 (Zen 4): 10^6 keys
 * (1220 blocks per stripe) 0.96, 10^4 (16 per stripe, the same code but a compare) 1.02. */
static BB_CONC_INLINE size_t BB_CFN(_merge_stripe)(const BB_CFN(_work) *w, unsigned s) {
    uint64_t b0 = (uint64_t)s << w->sh, b1 = b0 + (UINT64_C(1) << w->sh);
    if (b1 > w->blocks) b1 = w->blocks;
    for (uint64_t b = b0; b < b1 && b < b0 + BB_PREFETCH_AHEAD; b++)
        __builtin_prefetch(w->data + b * BB_BLOCK_BYTES, 1);
    for (uint64_t b = b0; b < b1; b++) {
        if (b + BB_PREFETCH_AHEAD < b1)
            __builtin_prefetch(w->data + (b + BB_PREFETCH_AHEAD) * BB_BLOCK_BYTES, 1);
        CONC_OR_BLOCK(w->data + b * BB_BLOCK_BYTES, w->mine + b * BB_BLOCK_BYTES);
    }
    return 0;
}

/* Runs step on every stripe of `pending`, each under its lock, taken with a try-lock in the
 * order rot, rot + 1, ... and skipping held ones (see the top of this file). */
static BB_CONC_INLINE size_t BB_CFN(_each_stripe)(bb_stripes *st, unsigned pending, unsigned rot,
                                                   const BB_CFN(_work) *w,
                                                   size_t (*step)(const BB_CFN(_work) *, unsigned)) {
    size_t fresh = 0;
    bool waits = false;
    for (unsigned passes = 0; pending; passes++) {
        unsigned left = pending;
        for (unsigned j = 0; j < BB_STRIPES; j++) {
            unsigned s = (rot + j) % BB_STRIPES;
            if (!(pending >> s & 1) || !BB_CFN(_try_lock)(st, s)) continue;
            fresh += step(w, s);
            BB_CFN(_unlock)(st, s);
            pending &= ~(1u << s);
        }
        if (pending != left) continue;
        if (!waits) atomic_fetch_add_explicit(&st->writers, 1, memory_order_relaxed);
        waits = true;
        BB_CFN(_pause)(passes);
    }
    if (waits) atomic_fetch_sub_explicit(&st->writers, 1, memory_order_relaxed);
    return fresh;
}

/* The smallest hash whose block index is at least b, in *cut; false if there is none (b is
 * past the last block). The block index is monotonic in the hash, so a key's block is at b
 * or later exactly when its hash is at least *cut: one compare per key, no multiply. Found by
 * bisection on bb_block_index itself (64 steps per chunk), so it cannot disagree with it. */
static bool BB_CFN(_hash_from)(uint64_t b, uint64_t blocks, uint64_t *cut) {
    if (bb_block_index(UINT64_MAX, blocks) < b) return false;
    uint64_t lo = 0, hi = UINT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bb_block_index(mid, blocks) >= b) hi = mid;
        else lo = mid + 1;
    }
    *cut = lo;
    return true;
}

/* Keys per step of _halves' split: each step loads its keys before it stores any. A store
 * whose address depends on the key just loaded holds back the loads after it, so the split
 * took 10.6-11.3 TSC ticks per key one key at a time and 3.5-3.6 eight at a time (the chunk's
 * hashes coming from L3; Zen 3, EPYC family 25 model 1). */
#define BB_CONC_SPLIT_STEP 8u

/* One key of _halves' split: to the front of part[] if it is in the lower half, else to the
 * back. Branch-free, as half the keys go each way. */
static inline __attribute__((always_inline)) void
BB_CFN(_split_one)(uint64_t *part, size_t *lo, size_t *hi, uint64_t v, bool up) {
    part[up ? *hi - 1 : *lo] = v;
    *lo += !up;
    *hi -= up;
}

/* Two writers (see the top of this file): the chunk's keys of stripes 0 .. mid - 1 go to the
 * front of part[] in batch order, the others to its back in reverse order, which is then
 * turned around; each half is set under all its stripes' locks. Against grouping by stripe
 * (_grouped), whose counting sort took 12-16 TSC ticks per key, the split took 4.3-4.8, and
 * two writers into a 118 MiB filter ran 1.39-2.03 times as fast as one (median 1.66, seven
 * runs) against 1.02-1.63 (median 1.19, eight runs; blockbloom-bench -x2 rows, Zen 3, EPYC
 * family 25 model 1). */
static size_t BB_CFN(_halves)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                              const uint64_t *h, size_t n, unsigned sh, unsigned mode) {
    uint64_t part[BB_CONC_CHUNK];
    unsigned used = BB_CFN(_stripes_used)(blocks, sh), mid = (used + 1) / 2;
    uint64_t cut = 0;
    bool any_up = BB_CFN(_hash_from)((uint64_t)mid << sh, blocks, &cut);
    size_t lo = 0, hi = n, i = 0;
    for (; i + BB_CONC_SPLIT_STEP <= n; i += BB_CONC_SPLIT_STEP) {
        uint64_t v[BB_CONC_SPLIT_STEP];
        for (unsigned t = 0; t < BB_CONC_SPLIT_STEP; t++) v[t] = h[i + t];
        for (unsigned t = 0; t < BB_CONC_SPLIT_STEP; t++)
            BB_CFN(_split_one)(part, &lo, &hi, v[t], any_up & (v[t] >= cut));
    }
    for (; i < n; i++) BB_CFN(_split_one)(part, &lo, &hi, h[i], any_up & (h[i] >= cut));
    for (size_t a = lo, b = n; a + 1 < b; a++, b--) {
        uint64_t t = part[a];
        part[a] = part[b - 1];
        part[b - 1] = t;
    }
    const struct {
        size_t off, len;
        unsigned s0, s1;
    } side[2] = {{0, lo, 0, mid}, {lo, n - lo, mid, used}};
    unsigned left = (lo ? 1u : 0u) | (n > lo ? 2u : 0u), first = (unsigned)(h[0] & 1);
    size_t fresh = 0;
    for (unsigned passes = 0; left; passes++) {
        unsigned before = left;
        for (unsigned t = 0; t < 2; t++) {
            unsigned x = t ^ first;
            if (!(left >> x & 1) || !BB_CFN(_take_range)(st, side[x].s0, side[x].s1)) continue;
            const uint64_t *run = part + side[x].off;
            size_t len = side[x].len;
            for (size_t j = 0; (mode & BB_CONC_AHEAD) && j < len && j < BB_PREFETCH_AHEAD; j++)
                __builtin_prefetch(bb_block_of(data, blocks, run[j]), 1);
            fresh += BB_CFN(_set_any)(data, blocks, k, run, len, run + len, mode);
            for (unsigned s = side[x].s0; s < side[x].s1; s++) BB_CFN(_unlock)(st, s);
            left &= ~(1u << x);
        }
        /* No count of waiters here: every caller of this path is a batch, which writers
         * already counts, and counting it twice would send the other writer to _grouped. */
        if (left == before) BB_CFN(_pause)(passes);
    }
    return fresh;
}

/* More than two writers: grouped by stripe, each stripe under its own lock (see the top of
 * this file). */
static size_t BB_CFN(_grouped)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                               const uint64_t *h, size_t n, unsigned sh, unsigned mode) {
    uint8_t sid[BB_CONC_CHUNK];
    uint32_t start[BB_STRIPES + 1] = {0}, pos[BB_STRIPES];
    uint64_t sorted[BB_CONC_CHUNK];
    /* Three separate passes: one loop that stores sid[i] and counts it was 3.5x slower on
     * Zen 4 (EPYC family 25 model 17; 6.95 against 1.95 ns/key for this grouping). */
    for (size_t i = 0; i < n; i++) sid[i] = (uint8_t)(bb_block_index(h[i], blocks) >> sh);
    for (size_t i = 0; i < n; i++) start[sid[i] + 1]++;
    unsigned pending = 0;
    for (unsigned s = 0; s < BB_STRIPES; s++) {
        if (start[s + 1]) pending |= 1u << s;
        start[s + 1] += start[s];
        pos[s] = start[s];
    }
    for (size_t i = 0; i < n; i++) sorted[pos[sid[i]]++] = h[i];
    for (size_t i = 0; (mode & BB_CONC_AHEAD) && i < n && i < BB_PREFETCH_AHEAD; i++)
        __builtin_prefetch(bb_block_of(data, blocks, sorted[i]), 1);
    BB_CFN(_work) w = {.data = data, .blocks = blocks, .k = k, .mode = mode,
                       .sorted = sorted, .end = sorted + n, .start = start};
    return BB_CFN(_each_stripe)(st, pending, sid[0], &w, BB_CFN(_set_stripe));
}

/* The private path: a batch into a filter of at most BB_CONC_PRIVATE_MAX bytes that another
 * writer is adding to at the same time, and whose "new" count nobody asked for, sets its keys
 * in a zeroed private copy of the filter at the plain add's speed, then ORs that copy in
 * stripe by stripe. Sharing a small filter, the grouped path moves most lines between the
 * cores once per stripe visit and pays ~2 ns/key for the grouping; this moves each line
 * once per batch, and pays for the copy, so it needs at least BB_CONC_PRIVATE_PER_BLOCK keys
 * per block. Returns false (nothing done) if the copy cannot be allocated. The limit is 2 MiB:
 * from 2.4 MiB up the two paths went either way (private 0.75-1.27x the grouped); 1 key per
 * block is enough, below it the copy and the merge are most of the work: at 1 key per block
 * two threads ran 0.79x as fast as one on the private path, 0.47x grouped (10^6 keys; Zen 4,
 * EPYC family 25 model 17; docs/PERFORMANCE.md, "Kernel notes"). */
#define BB_CONC_PRIVATE_PER_BLOCK 1u
#define BB_CONC_PRIVATE_MAX (2u << 20)
static inline bool BB_CFN(_private_worth)(uint64_t blocks, size_t n, const bb_stripes *st) {
    return blocks <= BB_CONC_PRIVATE_MAX / BB_BLOCK_BYTES && n >= BB_CONC_PRIVATE_PER_BLOCK * blocks &&
           atomic_load_explicit(&st->writers, memory_order_relaxed) > 1;
}

static bool BB_CFN(_private)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                             const uint64_t *h, size_t n, unsigned sh) {
    /* Heap memory, not bb_mem_alloc's: at 2 MiB that would be a fresh mapping on every call,
     * every page of it faulted in. */
    uint8_t *mine = aligned_alloc(BB_BLOCK_BYTES, blocks * BB_BLOCK_BYTES);
    if (!mine) return false;
    memset(mine, 0, blocks * BB_BLOCK_BYTES);
    BB_CFN(_set_any)(mine, blocks, k, h, n, h + n, bb_prefetch_worth(blocks) ? BB_CONC_AHEAD : 0);
    unsigned used = BB_CFN(_stripes_used)(blocks, sh);
    BB_CFN(_work) w = {.data = data, .blocks = blocks, .sh = sh, .mine = mine};
    BB_CFN(_each_stripe)(st, (unsigned)((UINT64_C(1) << used) - 1), (unsigned)(h[0] % used), &w,
                         BB_CFN(_merge_stripe));
    free(mine);
    return true;
}

/* One key (the single-key calls): its stripe's lock, without the grouping's set-up. */
static size_t BB_CFN(_one)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                           uint64_t h, unsigned sh) {
    uint64_t b = bb_block_index(h, blocks);
    unsigned s = (unsigned)(b >> sh);
    bool waits = false;
    for (unsigned passes = 0; !BB_CFN(_try_lock)(st, s); passes++) {
        if (!waits) atomic_fetch_add_explicit(&st->writers, 1, memory_order_relaxed);
        waits = true;
        BB_CFN(_pause)(passes);
    }
    bool fresh = CONC_SET(data + b * BB_BLOCK_BYTES, (uint32_t)h, k);
    BB_CFN(_unlock)(st, s);
    if (waits) atomic_fetch_sub_explicit(&st->writers, 1, memory_order_relaxed);
    return fresh;
}

/* The chunk h[0 .. n) of a batch that ends at `end` (the fast path prefetches on into the
 * next chunk, so there is no gap in the lines in flight between chunks). */
static size_t BB_CFN(_chunk)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                             const uint64_t *h, size_t n, const uint64_t *end, unsigned sh,
                             unsigned mode, bool fast) {
    unsigned used = BB_CFN(_stripes_used)(blocks, sh);
    if (!fast || !BB_CFN(_take_all)(st, used)) {
        if (n >= BB_CONC_GROUP_MIN) {
            if (atomic_load_explicit(&st->writers, memory_order_relaxed) <= 2)
                return BB_CFN(_halves)(data, blocks, k, st, h, n, sh, mode);
            return BB_CFN(_grouped)(data, blocks, k, st, h, n, sh, mode);
        }
        size_t fresh = 0;
        for (size_t i = 0; i < n; i++) fresh += BB_CFN(_one)(data, blocks, k, st, h[i], sh);
        return fresh;
    }
    size_t fresh = BB_CFN(_set_any)(data, blocks, k, h, n, end, mode);
    for (unsigned s = 0; s < used; s++) BB_CFN(_unlock)(st, s);
    return fresh;
}

/* The batch in chunks of BB_CONC_CHUNK keys, each by the fast or the grouped path; with
 * may_private, the rest of the batch goes by the private path as soon as that is worth it,
 * checked before each chunk, so a batch that began alone switches when another writer comes
 * in. Measured as at BB_CONC_PRIVATE_PER_BLOCK above, 2 threads each adding half of 10^4 /
 * 10^6 keys in one call (one thread always starts first): speedup against one thread 1.77 /
 * 1.36, against 1.34 / 1.14 when the path was decided once, at the start of the call. */
static size_t BB_CFN(_chunks)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                              const uint64_t *hashes, size_t n, unsigned sh, unsigned mode,
                              bool fast, bool may_private) {
    size_t fresh = 0;
    for (size_t i = 0; (mode & BB_CONC_AHEAD) && i < n && i < BB_PREFETCH_AHEAD; i++)
        __builtin_prefetch(bb_block_of(data, blocks, hashes[i]), 1);
    for (size_t i = 0; i < n; i += BB_CONC_CHUNK) {
        if (may_private && BB_CFN(_private_worth)(blocks, n - i, st)) {
            if (BB_CFN(_private)(data, blocks, k, st, hashes + i, n - i, sh)) break;
            may_private = false; /* no memory for the copy: the locking path, to the end */
        }
        size_t c = n - i < BB_CONC_CHUNK ? n - i : BB_CONC_CHUNK;
        fresh += BB_CFN(_chunk)(data, blocks, k, st, hashes + i, c, hashes + n, sh, mode, fast);
    }
    return fresh;
}

static size_t BB_CFN(_add_hashes)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                                  const uint64_t *hashes, size_t n, bool count) {
    unsigned sh = BB_CFN(_stripe_shift)(blocks);
    if (n == 1) return BB_CFN(_one)(data, blocks, k, st, hashes[0], sh);
    bool fast = n >= BB_CONC_FAST_MIN;
    unsigned mode = (bb_prefetch_worth(blocks) ? BB_CONC_AHEAD : 0) | (count ? BB_CONC_COUNT : 0);
    if (fast) atomic_fetch_add_explicit(&st->writers, 1, memory_order_relaxed);
    size_t fresh = BB_CFN(_chunks)(data, blocks, k, st, hashes, n, sh, mode, fast, !count);
    if (fast) atomic_fetch_sub_explicit(&st->writers, 1, memory_order_relaxed);
    return fresh;
}

const bb_conc_kernel BB_CCAT(bb_conc_kernel_, CONC_NAME) = {
    .isa = CONC_ISA,
    .add_hashes = BB_CFN(_add_hashes),
};
