/*
 * internal.h - private structures shared by the library's source files: the filter object,
 * the per-kind operations table, the blocked filter's probe scheme (shared by every kernel)
 * and the SIMD kernel table. Nothing here is exported (the library is built with
 * -fvisibility=hidden; only BB_API functions in blockbloom.h are visible).
 *
 * Invariants of a bb_filter:
 *  - data is 64-byte aligned and holds payload_bytes bytes; for BB_BLOCKED payload_bytes =
 *    blocks * 64, for BB_CLASSIC payload_bytes = ceil(bits / 8) and the bits past `bits` in the
 *    last byte are zero, for BB_COUNTING payload_bytes = blocks * 256 (a 4-bit counter per
 *    position, see counting.c). BB_SCALABLE has no payload (data NULL): its sub-filters do.
 *  - Bit i of the payload is bit (i & 7) of byte (i >> 3): the layout is defined on bytes, so
 *    it is the same on little- and big-endian machines and equals the little-endian view of
 *    the block as 16 x uint32 (what the x86 and NEON kernels load).
 */
#ifndef BB_INTERNAL_H
#define BB_INTERNAL_H

#include "blockbloom.h"

#include <stdatomic.h>

/* ---- The blocked filter's probe scheme ---------------------------------------------------
 * A 64-bit hash h selects block  b = floor(h * blocks / 2^64)  (Lemire's multiply-shift
 * "fastrange", 2016: no division and no modulo bias, exact for any 64-bit block count). For
 * blocks <= 2^32 the low 32 bits of h move b by at most one, so b is decided by the high half.
 * The k in-block positions come from the low 32 bits lo:
 *     x_j = lo * C^j  (mod 2^32),  p_j = x_j >> 23  (a bit 0..511),  j = 1..k,
 * with C = 0x9E3779B9 (2^32 / golden ratio), the scheme of RocksDB's FastLocalBloom. Each
 * position is free over the whole 512-bit block, which gives the lowest FPR of the one-line
 * layouts (split-block/sectorized layouts fix one probe per word and pay for it in FPR), and
 * the powers C^j make all k positions one vector multiply in the SIMD kernels. */
#define BB_PROBE_MUL UINT32_C(0x9E3779B9)
#define BB_PROBE_SHIFT 23
#define BB_BLOCK_BYTES 64u

/** C^1 .. C^16 (mod 2^32); the scalar kernel multiplies step by step, SIMD kernels use these. */
extern const uint32_t bb_probe_powers[16];

static inline uint64_t bb_mulhi64(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    uint64_t cross = (lo_lo >> 32) + (uint32_t)hi_lo + lo_hi;
    return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/** Block of hash h in a filter of `blocks` blocks. */
static inline uint64_t bb_block_index(uint64_t h, uint64_t blocks) { return bb_mulhi64(h, blocks); }

/** One step of the probe sequence: advance the state *x (which starts at the low 32 bits of
 *  the hash) and return the next in-block position 0..511. The only place the sequence is
 *  written out for the byte-level code (blocked, counting, concurrent). */
static inline uint32_t bb_probe_next(uint32_t *x) {
    *x *= BB_PROBE_MUL;
    return *x >> BB_PROBE_SHIFT;
}

/** The distinct in-block positions of hash-low-half lo, in probe order: pos[0 .. return). Two
 *  probes of one key can land on one position; the counting filter must count that position
 *  once per key so that add and remove stay exact inverses (the blocked filter, which only
 *  ORs, is unaffected). k <= BB_MAX_K, so the quadratic search is at most 120 compares. */
static inline unsigned bb_block_positions(uint32_t lo, unsigned k, uint16_t pos[BB_MAX_K]) {
    uint32_t x = lo;
    unsigned n = 0;
    for (unsigned j = 0; j < k; j++) {
        uint16_t p = (uint16_t)bb_probe_next(&x);
        unsigned i = 0;
        while (i < n && pos[i] != p) i++;
        if (i == n) pos[n++] = p;
    }
    return n;
}

/** Reference: set the k probe bits of hash-low-half lo in one block. */
static inline void bb_block_set(uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo;
    for (unsigned j = 0; j < k; j++) {
        uint32_t p = bb_probe_next(&x);
        block[p >> 3] |= (uint8_t)(1u << (p & 7));
    }
}

/** a + b, stopping at UINT64_MAX: counters such as keys_added never wrap (a loaded file may
 *  hold any value). */
static inline uint64_t bb_sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* ---- SIMD kernel table (blocked filter) ------------------------------------------------- */
typedef struct bb_kernel {
    bb_isa isa;
    const char *name;
    /** true if all k probe bits of lo are set in the 64-byte block. */
    bool (*block_test)(const uint8_t *block, uint32_t lo, unsigned k);
    /** out[i] for hashes[0..n); returns the number of 1s. Prefetches ahead. */
    size_t (*contains_hashes)(const uint8_t *data, uint64_t blocks, unsigned k,
                              const uint64_t *hashes, size_t n, uint8_t *out);
    void (*add_hashes)(uint8_t *data, uint64_t blocks, unsigned k, const uint64_t *hashes,
                       size_t n);
} bb_kernel;

extern const bb_kernel bb_kernel_scalar;
#if defined(__x86_64__) || defined(__i386__)
extern const bb_kernel bb_kernel_avx2;
extern const bb_kernel bb_kernel_avx512;
#endif
extern const bb_kernel bb_kernel_neon;

/** The active kernel: chosen once, on first use (dispatch.c), then one relaxed load. The
 *  tables are constant data, so no ordering beyond the pointer itself is needed. */
extern _Atomic(const bb_kernel *) bb_active_kernel;
const bb_kernel *bb_kernel_choose(void);
static inline const bb_kernel *bb_kernel_active(void) {
    const bb_kernel *k = atomic_load_explicit(&bb_active_kernel, memory_order_relaxed);
    return k ? k : bb_kernel_choose();
}

/* ---- The filter object ------------------------------------------------------------------- */
typedef enum bb_storage {
    BB_STORE_HEAP = 0,  /**< aligned heap allocation (bb_mem_alloc) */
    BB_STORE_FILE = 1   /**< read-only mapping of a saved file */
} bb_storage;

struct bb_filter {
    bb_kind kind;
    unsigned k;
    uint64_t bits;
    uint64_t blocks;        /* blocked only */
    uint64_t capacity;
    double fpr_target;
    uint64_t seed;
    uint64_t keys_added;
    uint8_t *data;          /* payload, 64-byte aligned */
    uint64_t payload_bytes;
    bb_storage storage;
    void *map_base;         /* mapping to release (heap or file) */
    size_t map_len;
    /* BB_SCALABLE only (scalable.c): the stack of blocked sub-filters, oldest first; data is
     * NULL. Each sub-filter keeps its own capacity, fpr_target and keys_added (the keys added
     * to it); the parent's keys_added, bits and blocks are the sums over its sub-filters and
     * its k is the newest one's. */
    bb_filter **subs;
    size_t n_subs, subs_cap;
    double growth, tightening;
    unsigned flags;
};

/** Payload bytes of a filter of this kind and bits (blocked and counting: bits must be a
 *  multiple of 512; counting stores 4 bits per position). Not for BB_SCALABLE. */
uint64_t bb_payload_bytes(bb_kind kind, uint64_t bits);

/** Geometry (bits, k) that bb_create gives a non-scalable config (filter.c); also used by
 *  slice.c so that a slice is exactly a range of the filter bb_create would make. */
bb_status bb_config_geometry(const bb_config *cfg, uint64_t *bits, unsigned *k);

/** Allocate a filter object with a zeroed, aligned payload for (kind, bits, k). */
bb_status bb_filter_alloc(bb_filter **out, bb_kind kind, uint64_t bits, unsigned k,
                          uint64_t seed);

/* ---- Memory (alloc.c) --------------------------------------------------------------------- */
/** Zeroed, 64-byte-aligned memory of `bytes` bytes (large ones get transparent huge pages).
 *  *base and *len receive what bb_mem_free needs. NULL on failure. */
void *bb_mem_alloc(uint64_t bytes, void **base, size_t *len);
void bb_mem_free(void *base, size_t len);

/* ---- Hashing (hash.c, the only file that includes xxhash.h) ------------------------------ */
uint64_t bb_xxh3(const void *key, size_t len, uint64_t seed);

/** Where a batch's keys are: one of the four batch shapes of the public API. */
typedef enum bb_src_shape { BB_SRC_PTRS, BB_SRC_ARROW32, BB_SRC_ARROW64, BB_SRC_FIXED } bb_src_shape;
typedef struct bb_keysrc {
    bb_src_shape shape;
    const void *const *keys;  /* PTRS */
    const size_t *lens;       /* PTRS */
    const uint8_t *data;      /* ARROW32/64, FIXED base */
    const int32_t *off32;
    const int64_t *off64;
    size_t width, stride;     /* FIXED */
} bb_keysrc;

/** BB_OK if keys 0 .. n-1 of src can be read (pointers, offsets, stride), else BB_E_INVAL
 *  (batch.c). */
bb_status bb_keysrc_validate(const bb_keysrc *src, size_t n);

/** hashes[j] = XXH3(key first + j, seed) for j < count. */
void bb_hash_keys(const bb_keysrc *src, uint64_t seed, size_t first, size_t count,
                  uint64_t *hashes);

/* ---- Per-kind operations on hashes ------------------------------------------------------- */
void bb_classic_add(bb_filter *f, uint64_t h);
bool bb_classic_contains(const bb_filter *f, uint64_t h);
size_t bb_classic_contains_hashes(const bb_filter *f, const uint64_t *h, size_t n, uint8_t *out);
void bb_classic_add_hashes(bb_filter *f, const uint64_t *h, size_t n);

/** The fields of bb_info that are stored in the object (filter.c): everything but the ones
 *  computed from the payload (bits_set, fill_ratio, fpr_estimate, cardinality_estimate,
 *  saturated_counters), which are zeroed; subfilters = 1. */
void bb_info_fields(const bb_filter *f, bb_info *out);

/* ---- Counting filter (counting.c) ---------------------------------------------------------
 * Block b of a counting filter is the 256 bytes at data + b * 256; position p of the block
 * (the same p the blocked filter would set) is the 4-bit counter in byte p >> 1, low nibble
 * for even p, high nibble for odd p. Defined on bytes, so endian-neutral like the bit layout. */
#define BB_COUNTING_BLOCK_BYTES 256u
#define BB_COUNTER_MAX 15u

void bb_counting_add(bb_filter *f, uint64_t h);
bool bb_counting_contains(const bb_filter *f, uint64_t h);
/** Counters of one block that are non-zero (*nonzero) and saturated at 15 (*saturated). */
void bb_counting_block_counts(const uint8_t *block, uint64_t *nonzero, uint64_t *saturated);
/** dst[i] += src[i] per 4-bit counter, saturating at 15, over `bytes` bytes (may alias). */
void bb_counting_merge(uint8_t *dst, const uint8_t *src, uint64_t bytes);

/* ---- Scalable filter (scalable.c) --------------------------------------------------------- */
bb_status bb_scalable_create(bb_filter **out, const bb_config *cfg);
/** Whether a scalable filter may have these parameters (see bb_config; NaN is invalid). */
bool bb_scalable_params_valid(double fpr, double growth, double tightening, unsigned flags);
/** An empty scalable parent with these parameters and no sub-filter yet (for the file reader,
 *  which then adopts the sub-filters with bb_scalable_push). */
bb_status bb_scalable_shell(bb_filter **out, double fpr, double growth, double tightening,
                            unsigned flags, uint64_t seed);
/** Append `sub` (a BB_BLOCKED filter with capacity and fpr_target set) as the newest
 *  sub-filter; f takes ownership on BB_OK only. */
bb_status bb_scalable_push(bb_filter *f, bb_filter *sub);
/** Recompute the parent's sums (bits, blocks, capacity, keys_added) and k from its subs. */
void bb_scalable_recount(bb_filter *f);
bb_status bb_scalable_add(bb_filter *f, uint64_t h);
bool bb_scalable_contains(const bb_filter *f, uint64_t h);
bb_status bb_scalable_clone(bb_filter **out, const bb_filter *f);
void bb_scalable_clear(bb_filter *f);
/** Free the sub-filters (the parent itself is freed by bb_free). */
void bb_scalable_free_subs(bb_filter *f);
bb_status bb_scalable_info(const bb_filter *f, bb_info *out);

/* ---- Classic probe positions (classic.c), for the concurrent path ------------------------ */
/** The k bit positions (0 .. bits-1) of hash h in classic filter f, in probe order. */
void bb_classic_positions(const bb_filter *f, uint64_t h, uint64_t pos[BB_MAX_K]);

/* ---- Sizing helpers (sizing.c) ------------------------------------------------------------ */
double bb_blocked_fpr_model(double n_keys, uint64_t blocks, unsigned k);
/** Fewest bits (whole blocks unless classic) whose model FPR with exactly k probes is <= fpr
 *  for `capacity` keys. BB_E_INVAL / BB_E_TOO_LARGE as bb_size. */
bb_status bb_size_for_k(bb_kind kind, uint64_t capacity, double fpr, unsigned k,
                        uint64_t *bits_out);

#endif /* BB_INTERNAL_H */
