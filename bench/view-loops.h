/* SPDX-License-Identifier: MIT */
/*
 * view-loops.h - the benchmark's loops over the public header's inline lookups, included by
 * view-scalar.c, view-avx2.c and view-avx512.c, each compiled with its ISA's flags, so that
 * bb_view_contains_hash compiles to the in-block test a caller's loop built with those
 * flags gets (bench.h, "Inline lookups"). VIEW_FN names the function.
 */
#include "bench.h"

/* The chain's next key: the one after the current, or the one after that if the current one
 * was (possibly) present, so no lookup can start before the previous answer is known; the
 * line floor's chain takes the same step (floors.c). */
static inline size_t chain_next(size_t i, bool answer, size_t n) {
    i += 1 + (size_t)answer;
    return i >= n ? i - n : i;
}

size_t VIEW_FN(const bb_view *v, const uint64_t *h, size_t n, bool chain) {
    size_t hits = 0;
    if (chain) {
        for (size_t step = 0, i = 0; step < n; step++) {
            bool r = bb_view_contains_hash(v, h[i]);
            hits += r;
            i = chain_next(i, r, n);
        }
        return hits;
    }
    for (size_t i = 0; i < n; i++) hits += bb_view_contains_hash(v, h[i]);
    return hits;
}
