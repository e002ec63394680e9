/* SPDX-License-Identifier: MIT */
/*
 * prefetch.h - how far ahead the blocked filter's batch loops (blocked_loops.h) prefetch, and
 * when they do not, and when batch.c prefetches a whole chunk while hashing it; a header of
 * its own so that other batch loops over blocks can follow the same rules. Values measured with
 * bench/blockbloom-bench (docs/PERFORMANCE.md, "Kernel notes"):
 *  - BB_PREFETCH_AHEAD = 64 keys. A lookup costs ~2 ns of work once its line is there, and an
 *    LLC line arrives ~40-60 ns after the prefetch, so 16 keys ahead left the core waiting
 *    (Zen 4, EPYC family 25 model 17, 12 MiB filter: 5.1 ns/key at 16, 2.4 at 64); DRAM-sized
 *    filters read the same from 16 to 128 ahead, so the distance is set for the LLC case.
 *  - Filters of at most BB_PREFETCH_MIN_BYTES (256 KiB, within any current core's L2) are not
 *    prefetched at all: their lines are at most an L2 hit away, which the out-of-order core
 *    hides, and the prefetch's address arithmetic and instruction then only cost time (Zen 4,
 *    batch add of a 12 KiB filter: 6.6 ns/key with prefetch, 4.9 without).
 */
#ifndef BB_PREFETCH_H
#define BB_PREFETCH_H

#include "../internal.h"

#ifndef BB_PREFETCH_AHEAD
#define BB_PREFETCH_AHEAD 64
#endif
#define BB_PREFETCH_MIN_BYTES (256u * 1024u)
/* batch.c's cross-chunk pipelining only pays when lines come from beyond L2 (1-2 MiB on
 * current cores); on a filter that mostly sits in L2 it only adds instructions. */
#define BB_PIPELINE_MIN_BYTES (2u * 1024u * 1024u)

/** Whether batch loops over a filter of `blocks` 64-byte blocks should prefetch. */
static inline bool bb_prefetch_worth(uint64_t blocks) {
    return blocks > BB_PREFETCH_MIN_BYTES / BB_BLOCK_BYTES;
}

/** Whether batch.c should prefetch a chunk's blocks while hashing it (see batch.c). */
static inline bool bb_pipeline_worth(uint64_t blocks) {
    return blocks > BB_PIPELINE_MIN_BYTES / BB_BLOCK_BYTES;
}

/** Whether batch.c prefetches the lines of each chunk of keys into a filter of this row and
 *  payload size, and so hands the chunk to the row's *_warm entries where it has them
 *  (dispatch.c reports their kernels from the same test). */
static inline bool bb_pipelined(const bb_kind_ops *row, uint64_t payload_bytes) {
    return row->line_of && bb_pipeline_worth(payload_bytes / BB_BLOCK_BYTES);
}

/** X(1) X(2) ... X(16): one case per k in 1 .. BB_MAX_K, for the batch loops that keep one
 *  copy of their loop per k so the probe loop is unrolled with k known (blocked_loops.h,
 *  conc_loops.h). */
#define BB_EACH_K(X)                                                                           \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
_Static_assert(BB_MAX_K == 16, "BB_EACH_K lists 1 .. BB_MAX_K");

#endif /* BB_PREFETCH_H */
