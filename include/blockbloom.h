/* SPDX-License-Identifier: MIT */
/*
 * blockbloom.h - the whole public API of blockbloom, a library of Bloom filters built for
 * throughput: a cache-line-blocked filter (every key touches one 64-byte block), a classic
 * filter as the baseline, batch entry points over pointer arrays, Arrow-style columns,
 * fixed-width keys and pre-computed hashes, and a versioned little-endian file format.
 *
 * Conventions used by every function below:
 *  - Errors are returned as a bb_status; results go through out-parameters. A membership
 *    query returns bool. The library never prints, never exits and never aborts on input.
 *  - Lengths are in bytes (`len`, `len_bytes`), sizes of filters in bits (`bits`) or bytes.
 *  - A zero-length key is a valid key; `key` may then be NULL.
 *  - Thread-safety: any number of threads may call the read-only functions (contains, info,
 *    serialize, save) on one filter at once. Functions that change a filter (add, remove,
 *    clear, union) need exclusive access to it. Different filters are independent. The one
 *    exception is the "Concurrent build" section: its adds may run on one filter from many
 *    threads at once, alongside its concurrent contains calls.
 *  - Keys are hashed with XXH3-64 (xxHash spec, Collet) and the filter's 64-bit seed (the
 *    split kind: XXH64, as Parquet), so bb_add(f, key, len) is exactly
 *    bb_add_hash(f, bb_hash(f, key, len)).
 */
#ifndef BLOCKBLOOM_H
#define BLOCKBLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BB_VERSION_MAJOR 0
#define BB_VERSION_MINOR 1
#define BB_VERSION_PATCH 0
#define BB_VERSION_STRING "0.1.0"

#if defined(BB_STATIC_DEFINE)
#define BB_API
#elif defined(_WIN32)
#define BB_API __declspec(dllexport)
#else
#define BB_API __attribute__((visibility("default")))
#endif

/** Library version, e.g. "0.1.0". Never NULL. */
BB_API const char *bb_version_string(void);

/* ============================================================================================
 * Status codes. Values are pinned: new codes are appended, none is ever renumbered.
 * ========================================================================================== */
typedef enum bb_status {
    BB_OK = 0,
    BB_E_INVAL = 1,        /**< an argument is out of range, NULL where not allowed, or NaN */
    BB_E_NOMEM = 2,        /**< memory for the filter could not be allocated */
    BB_E_TOO_LARGE = 3,    /**< size beyond BB_MAX_BITS or overflowing 64-bit arithmetic */
    BB_E_IO = 4,           /**< open/read/write/fsync/rename failed (errno is kept) */
    BB_E_TRUNCATED = 5,    /**< serialized input shorter than its header says */
    BB_E_BAD_MAGIC = 6,    /**< serialized input is not a blockbloom filter */
    BB_E_BAD_VERSION = 7,  /**< format version this library cannot read */
    BB_E_CORRUPT = 8,      /**< checksum mismatch: header or payload damaged */
    BB_E_INCONSISTENT = 9, /**< header fields contradict each other or the length */
    BB_E_UNSUPPORTED = 10, /**< operation or instruction set not available here */
    BB_E_MISMATCH = 11,    /**< filters differ in kind, size, k, seed or layout */
    BB_E_FULL = 12,        /**< a non-scaling filter is at capacity */
    BB_E_ABSENT = 13,      /**< remove of a key that is definitely not in the filter */
    BB_E_READONLY = 14,    /**< change requested on a read-only (memory-mapped) filter */
    BB_E_MALFORMED = 15    /**< malformed URL, domain name, address or CIDR range */
} bb_status;

/** Short English description of a status; never NULL (unknown codes get a generic text). */
BB_API const char *bb_strerror(bb_status status);

/* ============================================================================================
 * Kinds, sizing and models
 * ========================================================================================== */
typedef enum bb_kind {
    BB_BLOCKED = 0,  /**< cache-line-blocked: all k probes of a key in one 512-bit block */
    BB_CLASSIC = 1,  /**< classic Bloom filter: k probes over all m bits, double hashing */
    /** Counting: the blocked filter's geometry and probe positions, with a 4-bit counter in
     *  place of each bit (512 counters = 256 bytes per block, 4x the memory). Supports
     *  bb_remove; counters saturate at 15 and then never change (Fan, Cao, Almeida, Broder,
     *  "Summary Cache", 2000, for counting filters; the sticky saturation keeps every
     *  sequence of valid adds and removes free of false negatives). */
    BB_COUNTING = 2,
    /** Scalable: a stack of blocked sub-filters that grows past its capacity (Almeida,
     *  Baquero, Preguica, Hutchison, "Scalable Bloom Filters", IPL 101(6), 2007; with
     *  RedisBloom's defaults: expansion 2, tightening 0.5). See bb_config and bb_add. */
    BB_SCALABLE = 3,
    /** Split-block: Apache Parquet's split-block Bloom filter (SBBF, parquet-format
     *  BloomFilter.md), bit for bit. 256-bit blocks of 8 little-endian 32-bit words; hash h
     *  picks block ((h >> 32) * z) >> 32 of z and sets bit (lo32(h) * salt[i]) >> 27 in each
     *  word i, so k is always 8; keys are hashed with XXH64 and the filter's seed (0 for
     *  Parquet). The payload (bb_payload) is exactly a Parquet bitset; bb_split_from_bitset
     *  takes one in. At most 2^32 blocks (128 GiB). */
    BB_SPLIT = 4
} bb_kind;

/** Bits in one block of the blocked filter (one 64-byte cache line). */
#define BB_BLOCK_BITS 512u
/** Largest k (probes per key) accepted for every kind. */
#define BB_MAX_K 16u
/** Largest filter, in bits: 2^56 (8 PiB). Larger requests get BB_E_TOO_LARGE. */
#define BB_MAX_BITS (UINT64_C(1) << 56)

/**
 * Size a filter of `kind` for `capacity` keys at target false-positive rate `fpr`.
 *
 * Classic (Bloom 1970), the textbook design: bits = ceil(-n ln p / (ln 2)^2),
 * k = max(1, round((bits / n) ln 2)); for 10^6 keys at 1%: 9,585,059 bits, k = 7, whose model
 * is 1.0039% (a whole k costs at most 4.7% over p below p = 0.5; docs/DESIGN.md). Only where
 * k is clamped, to 1 above p = 0.5 or to BB_MAX_K below ~1.1e-5, is bits solved for the model
 * (1 - e^{-kn/m})^k = p at the clamped k instead.
 * Every kind: near p = 1 also enough bits that a filter is full (every bit set, so every
 * key a hit) with probability <= 1e-3.
 * Blocked: the smallest whole number of 512-bit blocks for which some k in 1..BB_MAX_K has
 * model FPR (see bb_fpr_model, Putze-Sanders-Singler 2007) <= fpr, and the k with the lowest
 * model FPR at that size (bb_best_k).
 * Split: the smallest whole number of 256-bit blocks whose split model (bb_fpr_model) is
 * <= fpr; k = 8.
 *
 * @param kind      BB_BLOCKED, BB_CLASSIC or BB_SPLIT (BB_COUNTING is sized as BB_BLOCKED,
 *                  bits meaning counters; BB_SCALABLE sizes each sub-filter as BB_BLOCKED,
 *                  see bb_config).
 * @param capacity  n >= 1 keys.
 * @param fpr       p with 0 < p < 1 (not NaN).
 * @param bits_out  bits of the filter (a multiple of 512 for blocked). Not NULL.
 * @param k_out     probes per key. Not NULL.
 * @return BB_OK, BB_E_INVAL (bad n, p, kind or NULL), BB_E_TOO_LARGE (> BB_MAX_BITS).
 * Thread-safe (pure function).
 */
BB_API bb_status bb_size(bb_kind kind, uint64_t capacity, double fpr, uint64_t *bits_out,
                         unsigned *k_out);

/**
 * Best k for a filter of `bits` bits holding `capacity` keys: the classic k = round((m/n) ln 2)
 * (at least 1, at most BB_MAX_K), or for blocked the k in 1..BB_MAX_K minimising the blocked
 * model; 8 for split. Returns BB_E_INVAL on a zero argument or NULL k_out. Thread-safe.
 */
BB_API bb_status bb_best_k(bb_kind kind, uint64_t capacity, uint64_t bits, unsigned *k_out);

/**
 * Model false-positive rate of a filter of `bits` bits, `k` probes, after `n_keys` keys.
 *
 * Classic: (1 - e^{-kn/m})^k (Bloom 1970).
 * Blocked (and counting, which has the same positions):
 *   sum over i >= 0 of Poisson(i; lambda = n / blocks) * q_k(i),
 * the number of keys per block being Poisson distributed (Putze, Sanders, Singler,
 * "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007, section 3), and q_k(i) =
 * E[(X/512)^k], X the set bits of a block after i k independent uniform probes, from the exact
 * occupancy distribution (Putze et al.'s (1 - (1 - 1/512)^{ik})^k ignores the spread of X
 * and is 0.6-3% optimistic at 8-16 bits per key; see src/sizing.c).
 * Split (k must be 8): sum over i of Poisson(i; n / z) * (1 - (1 - 1/32)^i)^8 with z = bits /
 * 256 blocks; exact for this layout, since a key sets one bit in each of the 8 words.
 *
 * @return BB_OK, or BB_E_INVAL on bits = 0, k = 0 or > BB_MAX_K, NULL fpr_out, blocked or
 *         counting bits not a multiple of 512, split bits not a multiple of 256 or k != 8, or
 *         BB_SCALABLE (no single geometry; see bb_config for its bound).
 * Thread-safe.
 */
BB_API bb_status bb_fpr_model(bb_kind kind, uint64_t n_keys, uint64_t bits, unsigned k,
                              double *fpr_out);

/* ============================================================================================
 * Creating and freeing
 * ========================================================================================== */
typedef struct bb_filter bb_filter;

/**
 * Parameters for bb_create. Zero-initialise, then set what you need:
 *  - capacity + fpr: sized by bb_size (bits left 0; with k given, the fewest bits meeting p
 *    with that k);
 *  - capacity + bits_per_key: bits = ceil(capacity * bits_per_key), k by bb_best_k;
 *  - bits + k: explicit geometry (blocked rounds bits up to whole blocks);
 *  - bits with capacity (no fpr, no bits_per_key): k derived by bb_best_k;
 *  - k may be given with any of the above (it then overrides the derived k).
 * `capacity` is recorded for info; the filter accepts any number of keys (FPR grows).
 *
 * BB_COUNTING accepts the same combinations and gets exactly the geometry (bits = counters,
 * k) that BB_BLOCKED would get, so that its export (bb_counting_to_blocked) is that filter.
 *
 * BB_SCALABLE needs capacity (c0, keys of the first sub-filter) and fpr (p, the bound on the
 * whole filter's FPR); bits, k and bits_per_key must be 0. Sub-filter i (from 0) is a blocked
 * filter for capacity c_i = ceil(c_{i-1} * growth) (c_0 = capacity) and FPR
 * p_i = p (1 - r) r^i with r = tightening, so the union bound sum_i p_i = p (1 - r^n) < p
 * holds however many sub-filters there are (Almeida et al. 2007, section 4; the first
 * sub-filter is already tightened, as in RedisBloom, where r = 0.5 gives p_0 = p / 2). Each
 * is sized so that its model FPR plus 3.3 standard deviations of one filter's scatter around
 * the model is <= p_i (a little above bb_size's blocks), because the slack p r^n vanishes and
 * a small sub-filter's real FPR scatters by several per cent. At most 1024 sub-filters: the
 * add that needs the 1025th returns BB_E_TOO_LARGE.
 * growth, tightening must be 0 for every other kind; flags may be BB_POW2_BYTES for
 * BB_SPLIT and BB_BLOCKED, and must be 0 otherwise.
 *
 * BB_SPLIT: k must be 0 or 8; sized by its own model (bb_size), seed 0 = Parquet's.
 */
typedef struct bb_config {
    bb_kind kind;        /**< BB_BLOCKED (0, default) or BB_CLASSIC */
    uint64_t capacity;   /**< n, expected number of distinct keys */
    double fpr;          /**< target p in (0, 1); 0 = not given */
    double bits_per_key; /**< alternative to fpr; 0 = not given */
    uint64_t bits;       /**< explicit m; 0 = derived */
    unsigned k;          /**< explicit probes per key; 0 = derived */
    uint64_t seed;       /**< XXH3 seed stored with the filter */
    /* BB_SCALABLE only (0 for other kinds). Appended after 0.1.0; the fields above unchanged. */
    double growth;       /**< capacity factor of each new sub-filter, 1 <= growth <= 2^20;
                              0 = BB_DEFAULT_GROWTH */
    double tightening;   /**< FPR factor r of each new sub-filter, 0 < r < 1;
                              0 = BB_DEFAULT_TIGHTENING */
    unsigned flags;      /**< 0, BB_NO_SCALE (scalable) or BB_POW2_BYTES (split, blocked) */
} bb_config;

/** Scalable defaults, as in RedisBloom (expansion 2) and Almeida et al. (r = 0.5). */
#define BB_DEFAULT_GROWTH 2.0
#define BB_DEFAULT_TIGHTENING 0.5
/** bb_config.flags: a scalable filter that never grows; an add that would need a new
 *  sub-filter returns BB_E_FULL instead (RedisBloom's NONSCALING). */
#define BB_NO_SCALE 1u
/** bb_config.flags, for BB_SPLIT and BB_BLOCKED: round the payload up to a power-of-two
 *  number of bytes, at least 32 (blocked: 64) and at most 128 MiB, the convention of the
 *  Parquet writers (parquet-mr, Arrow; Arrow's reader rejects other sizes). A filter that
 *  would need more than 128 MiB gets 128 MiB, and then misses its fpr (bb_get_info tells
 *  by how much). Power-of-two filters can be halved by bb_fold down to one block. */
#define BB_POW2_BYTES 2u
/** Largest payload BB_POW2_BYTES gives: 128 MiB (Parquet's limit). */
#define BB_POW2_MAX_BYTES (UINT64_C(128) << 20)

/**
 * Create an empty filter from `cfg` (see bb_config). On success *out owns a filter that the
 * caller frees with bb_free; on error *out is NULL.
 * @return BB_OK, BB_E_INVAL (NULL, bad or contradictory parameters, k > BB_MAX_K, growth,
 *         tightening or flags out of range or given for a kind other than BB_SCALABLE),
 *         BB_E_TOO_LARGE (> BB_MAX_BITS or 64-bit overflow), BB_E_NOMEM.
 */
BB_API bb_status bb_create(bb_filter **out, const bb_config *cfg);

/** Shorthand: bb_create with {kind, capacity, fpr, seed}. */
BB_API bb_status bb_create_for(bb_filter **out, bb_kind kind, uint64_t capacity, double fpr,
                               uint64_t seed);

/** Deep copy of `f` (a memory-mapped filter becomes a writable heap copy). */
BB_API bb_status bb_clone(bb_filter **out, const bb_filter *f);

/** Free a filter (unmaps a memory-mapped one). NULL is ignored. */
BB_API void bb_free(bb_filter *f);

/** Reset to empty: all bits zero, keys_added 0 (a scalable filter goes back to its first
 *  sub-filter alone). BB_E_READONLY on a mapped filter. */
BB_API bb_status bb_clear(bb_filter *f);

/* ============================================================================================
 * Single keys
 * ========================================================================================== */

/** XXH3-64 of the key with the filter's seed (BB_SPLIT: XXH64, as Parquet; seed 0 there is
 *  Parquet's, so the plain encoding of a value hashes as a Parquet writer hashes it): the
 *  hash every other entry point uses. NULL f: XXH3 with seed 0. Thread-safe. */
BB_API uint64_t bb_hash(const bb_filter *f, const void *key, size_t len);

/**
 * Add one key (len bytes; key may be NULL when len == 0).
 * Counting: increments the key's counters (those at 15 stay at 15).
 * Scalable: does nothing (and returns BB_OK) if the key is already possibly present in any
 * sub-filter, so keys_added counts only the keys actually added; otherwise adds it to the
 * newest sub-filter, first adding a new sub-filter if the newest holds its capacity.
 * @return BB_OK, BB_E_INVAL (NULL f, or NULL key with len > 0), BB_E_READONLY; scalable
 *         also BB_E_FULL (BB_NO_SCALE and full), BB_E_NOMEM or BB_E_TOO_LARGE (the next
 *         sub-filter could not be made; the key is then not added).
 */
BB_API bb_status bb_add(bb_filter *f, const void *key, size_t len);

/** true if the key is possibly in the set, false if definitely not (never a false negative).
 *  A NULL filter, or NULL key with len > 0, answers false. */
BB_API bool bb_contains(const bb_filter *f, const void *key, size_t len);

/** Add a pre-computed 64-bit hash. Hashes must be well mixed (e.g. from bb_hash or XXH3):
 *  the blocked filter picks the block from the high bits and the probes from the low 32. */
BB_API bb_status bb_add_hash(bb_filter *f, uint64_t hash);

/** Query a pre-computed 64-bit hash (see bb_add_hash). */
BB_API bool bb_contains_hash(const bb_filter *f, uint64_t hash);

/* ============================================================================================
 * Inline lookups: a read-only view of a blocked filter. For loops of single lookups (an
 * in-process prefilter) a library call per key costs more instructions than the lookup, and
 * those instructions limit how many cache misses the core overlaps. bb_view_contains_hash
 * is the lookup itself, inlined into the caller's loop; bb_view_prefetch starts a key's line
 * on its way, for callers that pipeline their own loop (hash key i + d, prefetch it, test key
 * i), as RocksDB's PrepareHash does. The view is the file format's payload (docs/FORMAT.md),
 * so these functions are its probe scheme, written out:
 *     block  b = floor(h * blocks / 2^64)                (Lemire 2016, "fastrange")
 *     x_0 = low 32 bits of h,  x_j = x_{j-1} * 0x9E3779B9 (mod 2^32),  p_j = x_j >> 23
 *     key possibly present  <=>  bit (p_j & 7) of byte (p_j >> 3) of block b is set, j = 1..k
 * The answers equal bb_contains_hash's (tests/test_view.c checks every kernel against it).
 * The wide tests below suit loops of independent lookups, which overlap their misses. A
 * dependent chain (each answer decides the next key) waits for each test instead, and there
 * the byte test's k loads answer sooner than one 64-byte vector load and its test:
 *     bb_block_test_bytes(bb_view_block(v, h), (uint32_t)h, v->k)
 * (Zen 4, EPYC family 25 model 17, k = 6, chains of inline lookups in one process: 10^5
 * keys 12.4 ns/step against 13.2 for the AVX-512 test, 10^6 18.1-19.1 against 20.5-21.4, a
 * chain of one-word line reads 7.5 and 14.0-16.0; the benchmark's 10^7 chain 36.4 against
 * 48-53, a line-read chain 29.0).
 * A view stays valid while the filter lives and is not cleared; reading it while another
 * thread adds to the filter has bb_contains_hash's rules (it is a plain read).
 * ========================================================================================== */
typedef struct bb_view {
    const uint8_t *data; /**< blocks * 64 bytes, 64-byte aligned */
    uint64_t blocks;     /**< number of 64-byte blocks, >= 1 */
    unsigned k;          /**< probes per key, 1 .. BB_MAX_K */
} bb_view;

/** Fill *out with a view of blocked filter f (heap or memory-mapped).
 *  @return BB_OK, BB_E_INVAL (NULL argument), BB_E_UNSUPPORTED (f is not BB_BLOCKED). */
BB_API bb_status bb_get_view(const bb_filter *f, bb_view *out);

/** floor(a * n / 2^64), the high half of the 128-bit product: maps a uniform 64-bit hash
 *  to 0 .. n-1 without division or modulo bias (Lemire 2016, "fastrange"). */
static inline uint64_t bb_fastrange64(uint64_t a, uint64_t n) {
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(__extension__((unsigned __int128)a * n) >> 64); /* quiet under -pedantic */
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, n_lo = (uint32_t)n, n_hi = n >> 32;
    uint64_t lo_lo = a_lo * n_lo, hi_lo = a_hi * n_lo, lo_hi = a_lo * n_hi;
    uint64_t cross = (lo_lo >> 32) + (uint32_t)hi_lo + lo_hi;
    return a_hi * n_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/** The 64-byte block of `hash` in the view. */
static inline const uint8_t *bb_view_block(const bb_view *v, uint64_t hash) {
    return v->data + bb_fastrange64(hash, v->blocks) * 64u;
}

/** C^1 .. C^16 (mod 2^32), C = 0x9E3779B9: x_j = lo * C^j, so all k probes are one vector
 *  multiply in the SIMD tests below. */
#define BB_PROBE_POWERS_INIT                                                                  \
    {0x9E3779B9u, 0xE35E67B1u, 0x734297E9u, 0x35FBE861u, 0xDEB7C719u, 0x0448B211u,            \
     0x3459B749u, 0xAB25F4C1u, 0x52941879u, 0x9C95E071u, 0xF5AB9AA9u, 0x2D6BA521u,            \
     0x8BEDEDD9u, 0x9BFB72D1u, 0x3AE1C209u, 0x7FCA7981u}

/** Whether all k probe bits of `lo` (a hash's low 32 bits) are set in one 64-byte block:
 *  the blocked filter's in-block test on bytes. Branch-free over the probes, so absent keys
 *  do not mispredict; this is also the library's scalar kernel. */
static inline bool bb_block_test_bytes(const uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo;
    unsigned all = 1;
    for (unsigned j = 0; j < k; j++) {
        x *= UINT32_C(0x9E3779B9);
        uint32_t p = x >> 23;
        all &= (unsigned)(block[p >> 3] >> (p & 7));
    }
    return all & 1;
}

/* The same test with one 64-byte load (AVX-512F) or two 32-byte loads (AVX2), compiled in
 * when the including file is built with those instructions enabled (-mavx512f, -mavx2,
 * -march=native, ...); they are also the library's avx512 and avx2 kernels. One wide load
 * per key instead of k byte loads matters in loops over filters beyond L2: each load waits
 * in the core's load queue until its line arrives, so k loads per key let a loop have only
 * 1/k as many keys' lines in flight (measured on Zen 4, 10M-key filter, loop of inline
 * lookups: 45.9 ns/key with the byte test, 6.6 with the AVX-512 one; 21.8 through
 * bb_contains_hash, whose call costs more instructions per key). Both read the block as
 * little-endian words, which is its byte layout on x86. */
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
/** AVX-512F: 16 lanes of lo * C^j, word p_j >> 5 fetched by one in-register permute of the
 *  whole block, bit p_j & 31 tested; lanes j >= k masked off. Both come straight from x_j:
 *  p_j >> 5 is x_j >> 28, and p_j & 31 is the rotate count of x_j >> 23 (vprolvd takes
 *  counts mod 32, so no mask is needed); the key is absent if some wanted lane's bit is
 *  clear (vptestnmd, one flag test). A loop of single lookups is bound by how many keys'
 *  lines it has in flight, so by instructions per key: with this test the benchmark's loop
 *  (bench/view-loops.h, GCC 12 -O2) is 15 instructions per key, where the earlier test on
 *  two 256-bit halves for k <= 8 (vpermt2d, a shift-and-mask count, a compare with k's
 *  mask) made it 23. Measured on Zen 4 (EPYC family 25 model 17), one process, the two
 *  tests alternating, thread CPU time, medians of 15-21, loop of inline lookups, k = 6,
 *  this / the halves: 10^4 keys 0.75, 10^5 0.76, 10^6 0.77, 10^7 0.58, 10^8 0.82; the
 *  batch contains 0.93 at 10^4, 1.00-1.02 at 10^6-10^7. (Zen 4 runs a 512-bit operation on
 *  two 256-bit halves, which made the halves 5% faster in an earlier batch; the shorter
 *  sequence outweighs it now.) */
static inline bool bb_block_test_avx512(const uint8_t *block, uint32_t lo, unsigned k) {
    static const uint32_t powers[16] = BB_PROBE_POWERS_INIT;
    __m512i words = _mm512_load_si512((const void *)block);
    __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32((int)lo), _mm512_loadu_si512((const void *)powers));
    __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), words);
    __m512i bit = _mm512_rolv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(x, 23));
    return _mm512_mask_testn_epi32_mask((__mmask16)((1u << k) - 1u), word, bit) == 0;
}
#endif

#if defined(__AVX2__)
/* One AVX2 pass over probes j0 .. j0+7 (after RocksDB's FastLocalBloom AVX2 path): vpermd
 * fetches word p_j >> 5 from each 256-bit half, a blend keeps the right one (bit 3 of the
 * word index, which is the sign bit of x_j), and bit p_j & 31 is compared; lanes j >= k
 * test bit 0 of an all-pass mask. */
static inline bool bb_block_pass_avx2(__m256i lo_half, __m256i hi_half, uint32_t lo,
                                      unsigned j0, unsigned k) {
    static const uint32_t powers[16] = BB_PROBE_POWERS_INIT;
    __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32((int)lo),
                                   _mm256_loadu_si256((const __m256i *)(const void *)(powers + j0)));
    __m256i pos = _mm256_srli_epi32(x, 23);
    __m256i widx = _mm256_srli_epi32(x, 28); /* p_j >> 5; vpermd reads its low 3 bits */
    __m256i a = _mm256_permutevar8x32_epi32(lo_half, widx);
    __m256i b = _mm256_permutevar8x32_epi32(hi_half, widx);
    __m256 sel = _mm256_castsi256_ps(x); /* the sign bit of x_j is bit 3 of p_j >> 5 */
    __m256i word = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), sel));
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i active = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(k - j0)), lane);
    __m256i bit = _mm256_and_si256(
        _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_and_si256(pos, _mm256_set1_epi32(31))), active);
    __m256i hit = _mm256_cmpeq_epi32(_mm256_and_si256(word, bit), bit);
    return _mm256_movemask_epi8(hit) == -1;
}

/** AVX2: eight probes per pass, two passes when k > 8. */
static inline bool bb_block_test_avx2(const uint8_t *block, uint32_t lo, unsigned k) {
    __m256i lo_half = _mm256_load_si256((const __m256i *)(const void *)block);
    __m256i hi_half = _mm256_load_si256((const __m256i *)(const void *)(block + 32));
    bool ok = bb_block_pass_avx2(lo_half, hi_half, lo, 0, k);
    if (k > 8) ok &= bb_block_pass_avx2(lo_half, hi_half, lo, 8, k);
    return ok;
}
#endif

/** The widest of the tests above that this file is compiled for. */
static inline bool bb_block_test(const uint8_t *block, uint32_t lo, unsigned k) {
#if defined(__AVX512F__)
    return bb_block_test_avx512(block, lo, k);
#elif defined(__AVX2__)
    return bb_block_test_avx2(block, lo, k);
#else
    return bb_block_test_bytes(block, lo, k);
#endif
}

/** Same answer as bb_contains_hash(f, hash) for the filter f the view was taken from. */
static inline bool bb_view_contains_hash(const bb_view *v, uint64_t hash) {
    return bb_block_test(bb_view_block(v, hash), (uint32_t)hash, v->k);
}

/** Hint that `hash` will be looked up soon: starts reading its block (no effect on answers;
 *  a no-op on compilers without __builtin_prefetch). */
static inline void bb_view_prefetch(const bb_view *v, uint64_t hash) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(bb_view_block(v, hash));
#else
    (void)v, (void)hash;
#endif
}

/* ============================================================================================
 * Batches. Every contains_* writes out[i] = 1 (possibly present) or 0 (definitely absent)
 * for i < n and stores the number of 1s in *n_present (which may be NULL). n = 0 is valid
 * and any pointer may then be NULL. Batches are hashed and prefetched in groups, so they are
 * much faster per key than loops over the single-key calls on filters beyond the cache.
 * Errors (BB_E_INVAL on NULL arrays with n > 0, or bad offsets) are detected before anything
 * is added or written. Every kind accepts every batch; an add batch on a scalable filter
 * behaves as bb_add_hash key by key, and if one fails (BB_E_FULL, BB_E_NOMEM, ...) the keys
 * before it stay added and the rest are not.
 * ========================================================================================== */

/** (a) keys[i] of lens[i] bytes. keys[i] may be NULL when lens[i] == 0. */
BB_API bb_status bb_add_batch(bb_filter *f, const void *const *keys, const size_t *lens,
                              size_t n);
BB_API bb_status bb_contains_batch(const bb_filter *f, const void *const *keys,
                                   const size_t *lens, size_t n, uint8_t *out,
                                   size_t *n_present);

/** (b) Arrow-style binary/utf8 column: key i is data[offsets[i] .. offsets[i+1]), so
 *  offsets has n + 1 entries, starts >= 0 and never decreases (else BB_E_INVAL). */
BB_API bb_status bb_add_arrow32(bb_filter *f, const void *data, const int32_t *offsets,
                                size_t n);
BB_API bb_status bb_contains_arrow32(const bb_filter *f, const void *data,
                                     const int32_t *offsets, size_t n, uint8_t *out,
                                     size_t *n_present);
BB_API bb_status bb_add_arrow64(bb_filter *f, const void *data, const int64_t *offsets,
                                size_t n);
BB_API bb_status bb_contains_arrow64(const bb_filter *f, const void *data,
                                     const int64_t *offsets, size_t n, uint8_t *out,
                                     size_t *n_present);

/** (c) Fixed-width keys: key i is the `width` bytes at base + i * stride (stride >= width,
 *  or stride == 0 meaning stride = width). For IPv4/IPv6 addresses, 5-tuples, integers
 *  (hashed as their bytes in memory: the same integer on a big-endian machine hashes
 *  differently unless the caller stores it little-endian). */
BB_API bb_status bb_add_fixed(bb_filter *f, const void *base, size_t width, size_t stride,
                              size_t n);
BB_API bb_status bb_contains_fixed(const bb_filter *f, const void *base, size_t width,
                                   size_t stride, size_t n, uint8_t *out,
                                   size_t *n_present);

/** (d) Pre-computed 64-bit hashes (see bb_add_hash). */
BB_API bb_status bb_add_hashes(bb_filter *f, const uint64_t *hashes, size_t n);
BB_API bb_status bb_contains_hashes(const bb_filter *f, const uint64_t *hashes, size_t n,
                                    uint8_t *out, size_t *n_present);

/* ============================================================================================
 * Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html and
 * CStreamInterface.html). The three ABI structs are the spec's own, under the spec's guard
 * macros, so a program that already includes Arrow's abi.h (or nanoarrow) gets one
 * definition and the library needs no Arrow dependency.
 *
 * Formats taken (schema->format): "u" "U" (utf8, large_utf8), "z" "Z" (binary, large_binary),
 * "vu" "vz" (string_view, binary_view), "w:N" (fixed_size_binary), "c" "C" "s" "S" "i" "I"
 * "l" "L" (signed/unsigned 8, 16, 32, 64-bit integers), and dictionary-encoded arrays of
 * those (schema->dictionary set, format the integer index type): each dictionary value is
 * hashed once and the indices are mapped to its hash.
 * Keys: a string or binary value is hashed as its bytes, exactly as bb_add(value, len); an
 * integer as its width in little-endian bytes on every machine (int64 7 hashes as the 8
 * bytes 07 00 .. 00). Those are also the bytes of Parquet's PLAIN encoding of INT32/INT64
 * and of BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY values (without the 4-byte length prefix), so a
 * filter of an Arrow column matches the filter of the same Parquet column.
 * The array's offset and validity bitmap are respected. Nulls (and valid indices that point
 * at a null dictionary value) are skipped by the adds and answer 0 in the contains calls.
 * Validation comes first: an unsupported format, a released (release == NULL) array or
 * schema, a negative length, offset or null_count below -1, a wrong buffer or child count, a
 * missing buffer, offsets that are negative or decrease, a view with a negative length or a
 * buffer index or range outside the variadic buffers, a dictionary index outside the
 * dictionary: BB_E_INVAL, and nothing is added or written. bb_arrow_last_error() then says
 * what was wrong (for a format, which one). Buffers are not owned: the arrays are borrowed.
 * ========================================================================================== */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif /* ARROW_C_DATA_INTERFACE */
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif /* ARROW_C_STREAM_INTERFACE */

/** Add every non-null value of `array` (described by `schema`; see the section comment).
 *  @return BB_OK; BB_E_INVAL (NULL, or bad array: nothing added); the errors of the batch
 *  adds (BB_E_READONLY, scalable BB_E_FULL ...). The array and schema are not released. */
BB_API bb_status bb_add_arrow_array(bb_filter *f, const struct ArrowArray *array,
                                    const struct ArrowSchema *schema);

/** out[i] for i < array->length: 1 if value i is possibly present, 0 if definitely absent or
 *  null; *n_present (may be NULL) gets the number of 1s. Errors as bb_add_arrow_array
 *  (nothing written on BB_E_INVAL). Thread-safe like bb_contains_batch. */
BB_API bb_status bb_contains_arrow_array(const bb_filter *f, const struct ArrowArray *array,
                                         const struct ArrowSchema *schema, uint8_t *out,
                                         size_t *n_present);

/** Add every chunk of a stream. The stream is consumed: read to its end, then released
 *  (also on error). All chunks are read and validated before the first key is added, so a
 *  bad chunk anywhere adds nothing. A get_schema/get_next failure gives BB_E_IO with errno
 *  set to the stream's code and the stream's message in bb_arrow_last_error(). */
BB_API bb_status bb_add_arrow_stream(bb_filter *f, struct ArrowArrayStream *stream);

/** Receives the answers of one chunk of a stream: out[0 .. n), in stream order. A non-zero
 *  return stops the walk; bb_contains_arrow_stream then returns BB_E_INVAL ("stopped by the
 *  sink"). */
typedef int (*bb_arrow_sink)(void *ctx, const uint8_t *out, size_t n);

/** Query every chunk of a stream, in order, handing each chunk's answers to sink(ctx, ...);
 *  *n_present (may be NULL) gets the number of 1s over the whole stream. The stream is
 *  consumed (released, also on error). A bad chunk stops the walk with BB_E_INVAL after the
 *  chunks before it were delivered; stream failures as bb_add_arrow_stream. */
BB_API bb_status bb_contains_arrow_stream(const bb_filter *f, struct ArrowArrayStream *stream,
                                          bb_arrow_sink sink, void *ctx, size_t *n_present);

/** What the last failing Arrow call of this thread found wrong, e.g. "unsupported Arrow
 *  format 'tsu:'" or "offsets decrease at row 3"; "" if none failed. Thread-local; valid
 *  until the thread's next Arrow call. */
BB_API const char *bb_arrow_last_error(void);

/* ============================================================================================
 * Information
 * ========================================================================================== */
typedef struct bb_info {
    bb_kind kind;
    uint64_t bits;        /**< m (counting: counters; scalable: sum over sub-filters) */
    uint64_t bytes;       /**< payload bytes: bits / 8 rounded up (counting: bits / 2) */
    unsigned k;           /**< probes per key */
    uint64_t blocks;      /**< 512-bit blocks (blocked, counting), 256-bit blocks (split); 0
                               for classic */
    uint64_t capacity;    /**< n the filter was sized for (0 if created from bits alone) */
    double fpr_target;    /**< p the filter was sized for (0 if not sized from p) */
    uint64_t seed;        /**< XXH3 seed */
    /** Blocked and classic: number of add operations, duplicates included. Counting: adds
     *  minus successful removes. Scalable: keys actually added (possibly-present keys are
     *  skipped). After bb_union: the sum of both filters', an upper bound on the distinct
     *  keys (cardinality_estimate is the better count). */
    uint64_t keys_added;
    uint64_t bits_set;    /**< X, number of 1 bits (counting: non-zero counters) */
    double fill_ratio;    /**< X / m */
    /** From the fill: (X/m)^k; blocked and counting: mean over blocks of (X_b/512)^k;
     *  split: mean over blocks of prod_w (X_w/32) over its 8 words;
     *  scalable: 1 - prod_i (1 - fpr_estimate_i) over its sub-filters. */
    double fpr_estimate;
    /** n* = -(m/k) ln(1 - X/m) (Swamidass-Baldi 2007); blocked: the sum of the same estimate
     *  per block; split: per block the mean over its words of -32 ln(1 - X_w/32), summed.
     *  INFINITY when a (block of the) filter is saturated. */
    double cardinality_estimate;
    double bits_per_key;  /**< m / capacity, 0 without capacity */
    bool read_only;       /**< memory-mapped */
    uint32_t format_version; /**< file format version this filter saves as */
    /* Appended after 0.1.0 for the counting and scalable kinds; the fields above unchanged. */
    uint64_t saturated_counters; /**< counting: counters stuck at 15; 0 for other kinds */
    uint64_t subfilters;  /**< scalable: number of sub-filters (see bb_subfilter_info); else 1 */
    double growth;        /**< scalable: capacity factor of new sub-filters; else 0 */
    double tightening;    /**< scalable: FPR factor of new sub-filters; else 0 */
    unsigned flags;       /**< scalable: BB_NO_SCALE or 0; else 0 */
} bb_info;

/** Fill *out. Costs one pass over the filter (counts set bits).
 *  A scalable filter reports sums over its sub-filters (bits, bytes, blocks, bits_set,
 *  keys_added, cardinality_estimate), capacity = the sum of the sub-filters' capacities (keys
 *  it holds before it next grows), fpr_target = p of the whole filter, k of the newest. */
BB_API bb_status bb_get_info(const bb_filter *f, bb_info *out);

/**
 * Info of sub-filter i (0 = oldest) of a scalable filter: a blocked filter with its own
 * capacity c_i, fpr_target p_i, k and keys_added (see bb_config for c_i and p_i). Any other
 * kind is its own single sub-filter: i = 0 gives bb_get_info.
 * @return BB_OK, BB_E_INVAL (NULL f or out, i >= info.subfilters).
 * Thread-safe like bb_get_info.
 */
BB_API bb_status bb_subfilter_info(const bb_filter *f, size_t i, bb_info *out);

/** Name of a kind: "blocked", "classic", "counting", "scalable", "split"; "unknown" otherwise. */
BB_API const char *bb_kind_name(bb_kind kind);

/* ============================================================================================
 * Counting filters: remove and export
 * ========================================================================================== */

/**
 * Remove one key from a BB_COUNTING filter: decrement its counters, except those saturated
 * at 15, which stay (so that no other key sharing them can become a false negative). Each
 * distinct position of the key counts once, as in bb_add, so a remove undoes an add exactly.
 * Removing a key that was never added (but is a false positive) corrupts the filter for the
 * keys sharing its counters, as in every counting Bloom filter: remove only keys you added.
 * @return BB_OK; BB_E_ABSENT if some counter of the key is 0 (definitely absent: nothing
 *         changes); BB_E_INVAL (NULL f, or NULL key with len > 0); BB_E_UNSUPPORTED (not a
 *         counting filter); BB_E_READONLY. keys_added drops by one on BB_OK.
 * Needs exclusive access to f.
 */
BB_API bb_status bb_remove(bb_filter *f, const void *key, size_t len);

/** Remove a pre-computed hash (see bb_add_hash and bb_remove). */
BB_API bb_status bb_remove_hash(bb_filter *f, uint64_t hash);

/**
 * Export a counting filter as the plain BB_BLOCKED filter of its keys: bit = (counter != 0),
 * same blocks, k, seed, capacity, fpr_target and keys_added. While no counter has saturated
 * the result is byte-identical to the blocked filter built from the keys currently in the
 * counting filter; where counters saturated, its bits are a superset of that (never a false
 * negative). Costs one pass; *out is a new heap filter for bb_free (NULL on error).
 * @return BB_OK, BB_E_INVAL (NULL), BB_E_UNSUPPORTED (not BB_COUNTING), BB_E_NOMEM.
 * Thread-safe like bb_get_info.
 */
BB_API bb_status bb_counting_to_blocked(const bb_filter *counting, bb_filter **out);

/* ============================================================================================
 * Payload bytes, Parquet bitsets and folding
 * ========================================================================================== */

/**
 * The raw payload of a flat filter: for BB_SPLIT exactly the Parquet SBBF bitset (what a
 * Parquet file stores after its BloomFilterHeader); for blocked, classic and counting their
 * payload as in the file format. *data points into the filter (valid until it is changed or
 * freed; read-only). @return BB_OK, BB_E_INVAL (NULL argument), BB_E_UNSUPPORTED (scalable:
 * no single payload), BB_E_TOO_LARGE (does not fit a size_t). Thread-safe.
 */
BB_API bb_status bb_payload(const bb_filter *f, const void **data, size_t *len_bytes);

/**
 * A new BB_SPLIT filter holding a copy of the Parquet SBBF bitset[0 .. len_bytes): z =
 * len_bytes / 32 blocks, k 8, seed 0, capacity and fpr_target 0, keys_added 0 (the bitset does
 * not record them; bb_get_info's cardinality_estimate does). Any power of two or not: other
 * writers' sizes are accepted. @return BB_OK, BB_E_INVAL (NULL out or bitset, len_bytes 0 or
 * not a multiple of 32), BB_E_TOO_LARGE (more than 2^32 blocks), BB_E_NOMEM.
 */
BB_API bb_status bb_split_from_bitset(bb_filter **out, const void *bitset, size_t len_bytes);

/**
 * Halve a BB_BLOCKED or BB_SPLIT filter's block count in place: block j of the result is
 * blocks 2j and 2j + 1 ORed. With multiply-shift block indexing (floor(h z / 2^64) blocked,
 * ((h >> 32) z) >> 32 split) block b of 2z blocks maps to block floor(b / 2) of z and the
 * in-block bits do not depend on z, so the result is byte for byte the filter built directly
 * with half the blocks from the same keys. keys_added and capacity stay; fpr_target becomes 0
 * (the sizing no longer holds). The payload is reallocated at half size.
 * @return BB_OK, BB_E_INVAL (NULL, or an odd block count), BB_E_UNSUPPORTED (other kinds),
 *         BB_E_READONLY, BB_E_NOMEM (the filter is unchanged).
 */
BB_API bb_status bb_fold(bb_filter *f);

/**
 * Fold (bb_fold) as often as the block count stays even and the model FPR (bb_fpr_model) of
 * the folded filter at its key count stays <= fpr; for writers that size from an
 * over-estimate of the distinct count and shrink once it is known. The key count is
 * keys_added, or bb_get_info's cardinality_estimate when that is larger (a filter from
 * bb_split_from_bitset has keys_added 0). If it folded, fpr_target becomes fpr. Folding zero
 * times is success. Costs one pass over the payload plus the folds. @return BB_OK, BB_E_INVAL (NULL, fpr not in
 * (0, 1)), BB_E_UNSUPPORTED, BB_E_READONLY, BB_E_NOMEM (unchanged).
 */
BB_API bb_status bb_fold_to_fpr(bb_filter *f, double fpr);

/* ============================================================================================
 * Union
 * ========================================================================================== */

/** What differs between two filters that cannot be merged (bb_union_check). */
typedef enum bb_mismatch {
    BB_MATCH = 0,           /**< mergeable */
    BB_MISMATCH_KIND = 1,   /**< different kinds */
    BB_MISMATCH_BITS = 2,   /**< different bits (or counters) */
    BB_MISMATCH_K = 3,      /**< different probes per key */
    BB_MISMATCH_SEED = 4,   /**< different hash seeds */
    BB_MISMATCH_LAYOUT = 5, /**< scalable: different number or geometry of sub-filters */
    BB_MISMATCH_KEYS = 6    /**< different key schemes (bb_key_scheme.keys) */
} bb_mismatch;

/** "match", "kind", "bits", "k", "seed", "layout", "keys"; "unknown" otherwise. */
BB_API const char *bb_mismatch_name(bb_mismatch m);

/**
 * Whether `src` can be merged into `dst` by bb_union: same kind, bits, k and seed and, for
 * scalable filters, the same sub-filter layout (count, and bits and k of each). *what (may
 * be NULL) gets the first difference in that order, or BB_MATCH.
 * @return BB_OK (mergeable), BB_E_MISMATCH, BB_E_INVAL (NULL filter). Thread-safe.
 */
BB_API bb_status bb_union_check(const bb_filter *dst, const bb_filter *src, bb_mismatch *what);

/**
 * Merge src into dst: OR of the bits (blocked, classic, and each scalable sub-filter), or sum
 * of the counters saturating at 15 (counting; a saturated counter stays saturated). The union
 * of filters built from two halves of a key set is byte-identical to the filter built from
 * the whole set (for blocked, classic and counting; a scalable filter's bytes depend on the
 * order of adds). keys_added becomes the sum (saturating at UINT64_MAX): an upper bound on
 * the distinct keys, since keys in both are counted twice; prefer cardinality_estimate.
 * dst keeps its own capacity and fpr_target. dst == src is allowed. Merged scalable
 * sub-filters hold the keys of both inputs, so they can exceed their capacities and the
 * whole filter its FPR bound p (no sub-filter is added by a union).
 * @return BB_OK; BB_E_MISMATCH (see bb_union_check for which field; dst unchanged);
 *         BB_E_INVAL (NULL); BB_E_READONLY (dst memory-mapped).
 * Needs exclusive access to dst; src may be read by other threads meanwhile.
 */
BB_API bb_status bb_union(bb_filter *dst, const bb_filter *src);

/* ============================================================================================
 * Concurrent build. For BB_BLOCKED, BB_CLASSIC and BB_SPLIT filters (others: BB_E_UNSUPPORTED):
 * any number of threads may call the *_concurrent adds and contains on one filter at once.
 * No bit is ever lost: once every add has returned, the filter is byte-identical to a
 * single-thread build of the same keys, in any order, and keys_added (updated atomically) is
 * the same. A blocked filter's adds take spin locks on 16 runs of its blocks (one locked
 * instruction per run per 1024 keys of a batch; a batch that is the only writer takes all
 * of them), so a batch costs about what bb_add_hashes does; a thread that holds a lock and
 * is descheduled delays the others that need it. A batch into a blocked filter of at most
 * 2 MiB that passes n_new = NULL while another batch runs, with at least as many keys as
 * the filter has blocks, is built (from the point where it sees the other writer on) in a
 * private copy (malloc'd for the call, the filter's size) and ORed in, one run at a time:
 * those keys reach readers when the call merges them, still before it returns.
 * bb_add_batch_concurrent hashes and adds its keys 1024 at a time, so for it this holds per
 * 1024 keys: only filters of at most 1024 blocks (64 KiB), one copy per 1024 keys.
 * Classic and split filters set each new bit
 * with an atomic fetch-or on the aligned 64-bit word that holds it: one locked
 * read-modify-write per new bit (src/concurrent.c has the measurements).
 *
 * Readers alongside writers must use bb_contains_concurrent / bb_contains_hash_concurrent,
 * which read the words with relaxed atomic loads. They see every key whose add happens-before
 * the read (the add returned in this thread, or in another thread that then synchronised with
 * this one: a mutex, a release/acquire flag, a thread join); a key whose add is still running
 * may be seen as absent or present. The plain contains/batch/info/serialize functions read
 * without atomics and are only safe once the writers have finished (after such a
 * synchronisation). No plain add, remove, clear or union may run meanwhile.
 * ========================================================================================== */

/**
 * Add a pre-computed hash from any thread. *was_new (may be NULL) is true if this call set at
 * least one bit that was 0 when it looked, i.e. exactly when a contains just before would
 * have answered false, if no other thread is adding. Under concurrency: if several threads
 * add keys with the same bits at once, every bit is set by exactly one of them, so at least
 * one reports true if the bits were not all set before; more than one may (each wins some
 * words). false means every bit was already set (the key was possibly present already).
 * @return BB_OK, BB_E_INVAL (NULL f), BB_E_UNSUPPORTED (counting or scalable), BB_E_READONLY,
 *         BB_E_NOMEM (the first concurrent add of a blocked filter could not allocate its
 *         1 KiB of locks; nothing was added).
 */
BB_API bb_status bb_add_hash_concurrent(bb_filter *f, uint64_t hash, bool *was_new);

/** Add one key from any thread (see bb_add and bb_add_hash_concurrent). */
BB_API bb_status bb_add_concurrent(bb_filter *f, const void *key, size_t len, bool *was_new);

/** Add hashes[0 .. n) from any thread; *n_new (may be NULL) gets how many reported was_new.
 *  Errors as bb_add_hash_concurrent, plus BB_E_INVAL for NULL hashes with n > 0, all detected
 *  before anything is added. */
BB_API bb_status bb_add_hashes_concurrent(bb_filter *f, const uint64_t *hashes, size_t n,
                                          size_t *n_new);

/** Add keys[i] of lens[i] bytes from any thread (batch shape (a)); *n_new as above. */
BB_API bb_status bb_add_batch_concurrent(bb_filter *f, const void *const *keys,
                                         const size_t *lens, size_t n, size_t *n_new);

/** Query while other threads run concurrent adds (see the section comment for what is
 *  seen). On counting and scalable filters, which have no concurrent adds, this is
 *  bb_contains_hash. Same answers as bb_contains_hash once the writers are done. */
BB_API bool bb_contains_hash_concurrent(const bb_filter *f, uint64_t hash);

/** Key version of bb_contains_hash_concurrent (false for NULL f or NULL key with len > 0). */
BB_API bool bb_contains_concurrent(const bb_filter *f, const void *key, size_t len);

/* ============================================================================================
 * Instruction sets. The blocked filter's kernels are chosen once, at first use, from the CPU
 * (best available), unless the environment variable BB_ISA names one of
 * "scalar", "avx2", "avx512", "avx512gfni", "neon". Every kernel gives bit-identical filters
 * and answers. "avx512gfni" is the AVX-512 kernel for CPUs that also have AVX512-BW/CD/VBMI
 * and GFNI (Ice Lake, Zen 4 and later), whose adds build their masks with GF(2) products.
 * ========================================================================================== */
typedef enum bb_isa {
    BB_ISA_AUTO = 0,
    BB_ISA_SCALAR = 1,
    BB_ISA_AVX2 = 2,
    BB_ISA_AVX512 = 3,
    BB_ISA_NEON = 4,
    BB_ISA_AVX512GFNI = 5
} bb_isa;

/** Whether `isa` can run on this CPU (BB_ISA_AUTO and BB_ISA_SCALAR always can). */
BB_API bool bb_isa_available(bb_isa isa);

/** Select the kernel for all filters of the process; BB_ISA_AUTO picks per operation (see
 *  bb_isa_name_for).
 *  @return BB_OK, BB_E_UNSUPPORTED (not available on this CPU/build), BB_E_INVAL.
 *  Not to be called while other threads use filters. */
BB_API bb_status bb_set_isa(bb_isa isa);

/** The active kernel of lookups: "scalar", "avx2", "avx512", "avx512gfni" or "neon". */
BB_API const char *bb_isa_name(void);

/** Operations whose kernel is chosen separately (bb_isa_name_for). */
typedef enum bb_op { BB_OP_CONTAINS = 0, BB_OP_ADD = 1 } bb_op;

/** The kernel that runs `op` now ("scalar", ...), or NULL for an unknown op. With BB_ISA_AUTO
 *  the kernels are chosen per operation: the widest available, except on CPUs where a
 *  narrower one was measured faster for that operation (src/dispatch.c lists them); with
 *  bb_set_isa(isa) or BB_ISA every operation runs on that one kernel. */
BB_API const char *bb_isa_name_for(bb_op op);

/** Name of a given isa ("auto", "scalar", ...), and the reverse (BB_E_INVAL if unknown). */
BB_API const char *bb_isa_to_string(bb_isa isa);
BB_API bb_status bb_isa_from_string(const char *name, bb_isa *out);

/* ============================================================================================
 * Files and buffers (format: docs/FORMAT.md). Little-endian, versioned, checksummed.
 * ========================================================================================== */
#define BB_FORMAT_VERSION 1u
/** Version of files that carry a key-scheme record (bb_set_key_scheme; docs/FORMAT.md,
 *  "Version 2: the key-scheme record"). Files without one are still written as version 1. */
#define BB_FORMAT_VERSION_KEYS 2u

/** Bytes bb_serialize needs for `f` (every kind is stored: blocked, classic, counting, and a
 *  scalable filter with all its sub-filters). BB_E_INVAL on NULL. */
BB_API bb_status bb_serialized_size(const bb_filter *f, uint64_t *size_out);

/** Write the serialized filter into buf[0 .. cap). BB_E_INVAL if cap is too small.
 *  *written (may be NULL) gets the byte count (0 on error). */
BB_API bb_status bb_serialize(const bb_filter *f, void *buf, size_t cap, size_t *written);

/** Parse and validate buf[0 .. len) (magic, version, every field, both checksums) before
 *  building a new heap filter in *out. Errors: BB_E_TRUNCATED, BB_E_BAD_MAGIC,
 *  BB_E_BAD_VERSION, BB_E_CORRUPT, BB_E_INCONSISTENT, BB_E_UNSUPPORTED (a kind this library
 *  does not know: written by a newer one), BB_E_NOMEM, BB_E_INVAL. */
BB_API bb_status bb_deserialize(bb_filter **out, const void *buf, size_t len);

/** Save atomically: write `path`.tmp.XXXXXX in the same directory, fsync it, rename it
 *  over `path`, fsync the directory. On error `path` is untouched and no temp file remains
 *  (a process killed mid-save can leave the temp file, never a partial `path`). A symlink
 *  is followed (its final target is replaced, the link stays); a dangling symlink is
 *  refused (BB_E_IO, errno ENOENT), nothing written; an existing `path` that is
 *  not a regular file (directory, FIFO, device) is refused: BB_E_IO with errno EISDIR or
 *  EINVAL. Errors: BB_E_INVAL (NULL), BB_E_UNSUPPORTED (kind not storable), BB_E_NOMEM,
 *  BB_E_IO (errno tells why). */
BB_API bb_status bb_save(const bb_filter *f, const char *path);

/** One byte range of a file for bb_write_file_atomically (data may be NULL if len_bytes is 0). */
typedef struct bb_file_part {
    const void *data;
    size_t len_bytes;
} bb_file_part;

/** Replace `path` atomically by parts[0 .. n_parts) back to back, exactly as bb_save replaces
 *  a filter file (bb_save, libblockbloom_parquet's bb_pq_index and the CLI all write through
 *  it): `path`.tmp.XXXXXX in the same directory, fsync, rename over `path`, fsync of the
 *  directory. On error `path` is untouched and no temporary file remains. A symlink is
 *  followed (its final target is replaced, the link stays); a dangling symlink is refused
 *  (BB_E_IO, errno ENOENT), nothing written; an existing `path` that is not a regular file is
 *  refused (BB_E_IO, errno EISDIR or EINVAL). A replaced file keeps its permission bits, a
 *  new one gets 0666 less the umask. Errors: BB_E_INVAL (path NULL, parts NULL with n_parts >
 *  0, or a part with NULL data and a length), BB_E_NOMEM, BB_E_IO (errno tells why).
 *  Thread-safe; two concurrent writers of one path leave one of the two complete files. */
BB_API bb_status bb_write_file_atomically(const char *path, const bb_file_part *parts,
                                          size_t n_parts);

/** Read and validate a file into a new heap filter (errors as bb_deserialize, plus BB_E_IO). */
BB_API bb_status bb_load(bb_filter **out, const char *path);

/** Map a saved file read-only, without copying the bit array. The file is validated (header
 *  and payload checksums) before use. Changes return BB_E_READONLY. The mapping lives until
 *  bb_free; the file must not be modified in place meanwhile (bb_save replaces, so is safe). */
BB_API bb_status bb_open_mmap(bb_filter **out, const char *path);

/* ============================================================================================
 * Slices: a blocked filter built in parts (src/slice.c)
 *
 * Slice i of n of a blocked filter of B blocks is the contiguous block range
 * [i * per, min((i + 1) * per, B)) with per = ceil(B / n) blocks per slice. A slice is built
 * from the WHOLE key stream: each key's block is chosen among all B blocks, exactly as in the
 * whole filter, and keys whose block falls outside the range are skipped. So a slice needs
 * 64 * per bytes, about 1/n of the filter, and the n slices' bytes, concatenated in order, are
 * byte for byte the whole filter's payload (the bytes after its 128-byte file header). The
 * Redis binding (blockbloom_redis.h) stores shard i of a filter as slice i.
 * ========================================================================================== */
typedef struct bb_slice bb_slice;

/** Blocks per slice for n_slices slices of `blocks` blocks: ceil(blocks / n_slices).
 *  BB_E_INVAL if blocks or n_slices is 0, or if fewer slices would cover the blocks
 *  (ceil(blocks / per) < n_slices: some slice would be empty), or per_out is NULL. */
BB_API bb_status bb_slice_split(uint64_t blocks, uint64_t n_slices, uint64_t *per_out);

/**
 * Create slice `index` (0-based) of `n_slices` of the blocked filter bb_create(cfg) would
 * make (cfg->kind must be BB_BLOCKED; same sizing rules). Only the slice's blocks are
 * allocated (zeroed, 64-byte aligned).
 * @return BB_OK, BB_E_INVAL (NULL, another kind, index >= n_slices, a split bb_slice_split
 *         refuses, bad config), BB_E_TOO_LARGE, BB_E_NOMEM. *out is NULL on error.
 */
BB_API bb_status bb_slice_create(bb_slice **out, const bb_config *cfg, uint64_t index,
                                 uint64_t n_slices);

/** Add n keys (Arrow 64-bit offsets, as bb_add_arrow64): each key counts in keys_added, and
 *  sets its bits only if its block is in the slice. Errors as bb_add_arrow64. */
BB_API bb_status bb_slice_add_arrow64(bb_slice *s, const void *data, const int64_t *offsets,
                                      size_t n);
/** Add n pre-computed hashes (see bb_add_hash), as bb_slice_add_arrow64. */
BB_API bb_status bb_slice_add_hashes(bb_slice *s, const uint64_t *hashes, size_t n);

typedef struct bb_slice_info {
    uint64_t index, n_slices;  /**< this slice, of how many */
    uint64_t first_block;      /**< first block of the whole filter held here */
    uint64_t n_blocks;         /**< blocks held here (the last slice may hold fewer) */
    uint64_t blocks_per_slice; /**< ceil(blocks / n_slices) */
    uint64_t blocks;           /**< blocks of the whole filter */
    uint64_t bits;             /**< bits of the whole filter */
    unsigned k;
    uint64_t seed, capacity;
    double fpr_target;
    uint64_t keys_added;       /**< keys streamed through this slice, kept or skipped */
} bb_slice_info;

/** Fill *out. BB_E_INVAL on NULL. */
BB_API bb_status bb_slice_get_info(const bb_slice *s, bb_slice_info *out);

/** The slice's bytes: 64 * n_blocks of them (*len_bytes, may be NULL); NULL for NULL s. */
BB_API const void *bb_slice_data(const bb_slice *s, uint64_t *len_bytes);

/** Free a slice. NULL is ignored. */
BB_API void bb_slice_free(bb_slice *s);

/**
 * Test hashes against blocks kept elsewhere (e.g. fetched from Redis by GETRANGE):
 * out[i] = 1 if all k probes of hashes[i] are set in the 64 bytes at blocks + 64 i, which
 * the caller filled with the block of hashes[i] (block floor(h * blocks / 2^64) of its
 * filter, see bb_add_hash), else 0; *n_present (may be NULL) counts the 1s. Uses the active
 * kernel, so answers equal bb_contains_hash on the whole filter. blocks may have any
 * alignment; 64-byte-aligned blocks are tested in place, others are copied first. n = 0 is
 * valid. Thread-safe (reads only).
 * @return BB_OK, or BB_E_INVAL (NULL arrays with n > 0, k outside 1..BB_MAX_K).
 */
BB_API bb_status bb_blocks_test(const void *blocks, const uint64_t *hashes, size_t n, unsigned k,
                                uint8_t *out, size_t *n_present);

/* ============================================================================================
 * Network keys: URL expressions, domains, IP/CIDR ranges (src/net/). These helpers turn the
 * inputs of URL and packet filters into keys of an ordinary filter, with the canonical rules,
 * and test many inputs with the batch kernels. They never allocate per input: the per-URL
 * and per-domain calls write into caller buffers; a batch call allocates one work area.
 * All are thread-safe on distinct buffers (read-only on the filter, like bb_contains).
 * ========================================================================================== */

/** A piece of a caller's buffer: bytes buf[off .. off + len). */
typedef struct bb_span {
    size_t off, len;
} bb_span;

/** Bytes a buffer needs for the canonical form of a URL of len bytes: every byte may come
 *  back escaped (x3), plus "http://", the root "/" and a dotted-quad host grown from "1". */
#define BB_URL_CANON_BOUND(len) (3 * (size_t)(len) + 24)
/** At most 5 host suffixes x 6 path prefixes (Safe Browsing v4, "Suffix/Prefix Expressions"). */
#define BB_URL_MAX_EXPRESSIONS 30
/** A network batch's out[i] for an input that cannot be read (a malformed URL, name or
 *  address); 1 means possibly present, 0 definitely absent. */
#define BB_NET_MALFORMED 2

/**
 * Canonicalise a URL as Safe Browsing v4 "URLs and Hashing" specifies: tab, CR and LF
 * removed, surrounding spaces trimmed, the fragment dropped, percent-unescaped until no
 * escape is left; host: user info and port dropped, leading and trailing dots removed, runs
 * of dots collapsed, lowercased, an IPv4 address in decimal, octal, hex or with fewer than 4
 * parts (inet_aton's forms) written as 4 decimals; path: "/./" and "/../" resolved, runs of
 * slashes collapsed ("/" when empty); query kept; bytes <= 0x20, >= 0x7f, '#' and '%'
 * re-escaped as %XX. A URL without "scheme://" gets "http://"; the scheme is lowercased.
 * An internationalised host name becomes its ASCII (Punycode) form through libidn2, as
 * bb_domain_normalize does (the document asks for it; libidn2 allocates inside that one call);
 * a host libidn2 cannot map, or any host in a build without libidn2, keeps its bytes >= 0x80,
 * escaped.
 *
 * @param url      len bytes, not NUL-terminated (NULL allowed when len is 0).
 * @param out      cap bytes of working space and result, cap >= BB_URL_CANON_BOUND(len).
 * @param out_len  receives the canonical length (0 on error). Not NULL.
 * @return BB_OK; BB_E_MALFORMED (empty URL or host, unclosed "[", non-digit port);
 *         BB_E_INVAL (NULL, or cap too small).
 */
BB_API bb_status bb_url_canonicalize(const char *url, size_t len, char *out, size_t cap,
                                     size_t *out_len);

/**
 * Canonicalise url into buf (as bb_url_canonicalize) and list its host-suffix x path-prefix
 * expressions as spans of buf, Safe Browsing's order: for each host (the exact host, then up
 * to 4 made from its last 5 labels by removing leading labels while 2 remain; an IP address
 * only as itself), each path (the exact path with its query, without it, then "/" and up to 3
 * leading directories each with its trailing "/"; duplicates dropped). An expression has no
 * scheme: "a.b.c/1/2.html?param=1", "b.c/1/". exprs[0] is the whole URL's expression (the
 * key a blocklist entry adds, see bb_url_add).
 * @return as bb_url_canonicalize; *n_exprs (1 .. 30, 0 on error) may not be NULL.
 */
BB_API bb_status bb_url_expressions(const char *url, size_t len, char *buf, size_t cap,
                                    bb_span exprs[BB_URL_MAX_EXPRESSIONS], size_t *n_exprs);

/** Add a blocklist entry: the exact expression (exprs[0]) of url. buf as bb_url_expressions. */
BB_API bb_status bb_url_add(bb_filter *f, const char *url, size_t len, char *buf, size_t cap);

/** Whether any expression of url is possibly in f: *found, and *match (may be NULL) the
 *  first one found, a span of buf. Errors as bb_url_expressions (then *found is false). */
BB_API bb_status bb_url_match(const bb_filter *f, const char *url, size_t len, char *buf,
                              size_t cap, bb_span *match, bool *found);

/**
 * Test every expression of urls[i] (lens[i] bytes) for i < n: out[i] = 1 if one is possibly
 * in f, 0 if none is, BB_NET_MALFORMED if the URL cannot be canonicalised. The hashes of 64
 * URLs' expressions go to one bb_contains_hashes call (grouped and prefetched). Allocates one
 * work area (3 x the longest URL + 32 KiB) per call. *n_present (may be NULL) counts the 1s.
 * @return BB_OK, BB_E_INVAL (NULL arrays with n > 0, urls[i] NULL with lens[i] > 0),
 *         BB_E_NOMEM.
 */
BB_API bb_status bb_url_contains_batch(const bb_filter *f, const char *const *urls,
                                       const size_t *lens, size_t n, uint8_t *out,
                                       size_t *n_present);

/* ---- Domains ------------------------------------------------------------------------------
 * A query host matches when it or a parent domain is in the set, down to (never including)
 * its public suffix: a.b.example.com tries a.b.example.com, b.example.com, example.com. The
 * public suffix list (publicsuffix.org) is read at run time, by default from Debian's
 * publicsuffix package. Internationalised names are mapped to their ASCII (Punycode) form
 * with libidn2 (UTS #46 non-transitional processing, NFC input) when the library is built
 * with it (CMake option BB_WITH_IDN2, on by default; without it they give
 * BB_E_UNSUPPORTED). libidn2 allocates inside that one call, for non-ASCII names only. */

/** Longest domain name in its ASCII form, in bytes (RFC 1035, without the final dot). */
#define BB_DOMAIN_MAX_LEN 253
/** Most parents a name can have (a 253-byte name has at most 127 labels). */
#define BB_DOMAIN_MAX_CANDIDATES 127
/** Where Debian's publicsuffix package installs the list (its README.Debian). */
#define BB_PSL_DEFAULT_PATH "/usr/share/publicsuffix/public_suffix_list.dat"

typedef struct bb_psl bb_psl;

/** Read a public suffix list file (path NULL: BB_PSL_DEFAULT_PATH) into *out, for
 *  bb_psl_free. @return BB_OK, BB_E_IO (cannot open or read; errno kept), BB_E_MALFORMED
 *  (no rule in it), BB_E_NOMEM, BB_E_INVAL (NULL out). The list is read-only afterwards:
 *  any number of threads may use it. */
BB_API bb_status bb_psl_load(bb_psl **out, const char *path);
BB_API void bb_psl_free(bb_psl *psl);
/** Number of distinct rules read (0 for NULL). */
BB_API size_t bb_psl_rules(const bb_psl *psl);

/**
 * Normalise a host name: surrounding spaces and one final dot removed, ASCII lowercased,
 * non-ASCII names mapped to Punycode (libidn2). The result must be labels of 1 to 63 bytes of
 * [a-z0-9_-] (underscores occur in real blocklists), at most BB_DOMAIN_MAX_LEN bytes, with a
 * last label that is not all digits (that is an address, not a name).
 * @param out  cap >= BB_DOMAIN_MAX_LEN + 1 bytes (not NUL-terminated on return).
 * @return BB_OK, BB_E_MALFORMED, BB_E_UNSUPPORTED (non-ASCII name, library built without
 *         libidn2), BB_E_INVAL (NULL, small cap).
 */
BB_API bb_status bb_domain_normalize(const char *name, size_t len, char *out, size_t cap,
                                     size_t *out_len);

/** The public suffix of a normalised name, as a span of it ("co.uk" of "a.b.co.uk"; the
 *  whole name when it is a suffix itself). BB_E_INVAL on NULL or an empty name. */
BB_API bb_status bb_domain_public_suffix(const bb_psl *psl, const char *name, size_t len,
                                         bb_span *suffix);

/** Normalise name into buf (cap >= BB_DOMAIN_MAX_LEN + 1) and list the names a query for it
 *  tries, longest first, as spans of buf: the name and its parents above the public suffix.
 *  A public suffix itself gives *n = 0. Errors as bb_domain_normalize. */
BB_API bb_status bb_domain_candidates(const bb_psl *psl, const char *name, size_t len,
                                      char *buf, size_t cap,
                                      bb_span cands[BB_DOMAIN_MAX_CANDIDATES], size_t *n);

/** For i < n: out[i] = 1 if a candidate of names[i] is possibly in f, 0 if none is,
 *  BB_NET_MALFORMED if the name is malformed (or needs libidn2 that is missing). Hashes of
 *  64 names' candidates go to one bb_contains_hashes call. Errors as bb_url_contains_batch. */
BB_API bb_status bb_domain_contains_batch(const bb_filter *f, const bb_psl *psl,
                                          const char *const *names, const size_t *lens,
                                          size_t n, uint8_t *out, size_t *n_present);

/* ---- IP addresses and CIDR ranges ---------------------------------------------------------
 * Addresses are 16 bytes in network order. An IPv4 address a.b.c.d is the IPv4-mapped IPv6
 * address ::ffff:a.b.c.d (RFC 4291 2.5.5.2), and the range a.b.c.d/n is ::ffff:a.b.c.d/(96+n):
 * IPv4 and IPv4-mapped IPv6 spellings of an address are one key, and an IPv6 range covering
 * ::ffff:0:0/96 contains IPv4 addresses. No other IPv6 form (::a.b.c.d, 64:ff9b::/96) is
 * taken for IPv4. A range is stored as a key of its prefix length and masked address: an IPv4
 * range /n as 5 bytes (n, the 4 IPv4 bytes with the bits past n zero), any other range as 17
 * bytes (the length 0..128, the 16 masked bytes); a query tests an address at each prefix
 * length of its family in the set. */

/** Longest range key (IPv6); IPv4 range keys have BB_CIDR4_KEY_BYTES. */
#define BB_CIDR_KEY_BYTES 17
#define BB_CIDR4_KEY_BYTES 5
/** Which prefix lengths a set of ranges holds, IPv4 apart from IPv6 so that an address is only
 *  tested at its own family's lengths: bit n of ipv4 (n = 0..32) for ranges inside
 *  ::ffff:0:0/96 (IPv4 /n, 128-bit length 96 + n); bit l of words[l / 64] (l = 0..128) for
 *  all other ranges. A range outside the mapped space that contains all of it (::/0) is also
 *  stored as 0.0.0.0/0. */
typedef struct bb_prefix_set {
    uint64_t words[3];
    uint64_t ipv4;
} bb_prefix_set;

/** out = ::ffff:v4 (v4 in network order). */
BB_API void bb_ipv4_mapped(const uint8_t v4[4], uint8_t out[16]);
/** Whether addr is IPv4-mapped (::ffff:0:0/96), i.e. an IPv4 address. */
BB_API bool bb_addr_is_ipv4(const uint8_t addr[16]);

/**
 * Parse "ADDR" or "ADDR/LEN" (IPv4 dotted quad or IPv6 text as inet_pton(3) reads them;
 * surrounding spaces ignored; ADDR alone is a single address, /32 or /128) into addr and the
 * 128-bit prefix length (96 + n for IPv4).
 * @param why  (may be NULL) on BB_E_MALFORMED, a static English reason: "not an IP address",
 *             "the prefix length is not a whole number", "prefix length above 32 for IPv4",
 *             "prefix length above 128 for IPv6", "host bits set beyond the prefix".
 * @return BB_OK, BB_E_MALFORMED, BB_E_INVAL (NULL).
 */
BB_API bb_status bb_cidr_parse(const char *text, size_t len, uint8_t addr[16],
                               unsigned *prefix_len, const char **why);

/** out = addr with the bits past prefix_len (<= 128) cleared. */
BB_API void bb_cidr_mask(const uint8_t addr[16], unsigned prefix_len, uint8_t out[16]);

/** The key of range addr/prefix_len (prefix_len <= 128; host bits are cleared) into key;
 *  returns its length: BB_CIDR4_KEY_BYTES for a range inside ::ffff:0:0/96 with
 *  prefix_len >= 96 (IPv4), else BB_CIDR_KEY_BYTES. */
BB_API size_t bb_cidr_key(const uint8_t addr[16], unsigned prefix_len,
                          uint8_t key[BB_CIDR_KEY_BYTES]);

/** Add range addr/prefix_len to f and its length to *set, or with set NULL to f's own key
 *  scheme (which becomes BB_KEYS_CIDR). A range containing all of ::ffff:0:0/96 from outside
 *  it (::/0 .. ::/80) also adds 0.0.0.0/0, so two keys. BB_E_MALFORMED if host bits are set past the prefix,
 *  BB_E_INVAL (NULL f or addr, prefix_len > 128, set NULL on a filter of another scheme), or
 *  bb_add's errors. */
BB_API bb_status bb_cidr_add(bb_filter *f, bb_prefix_set *set, const uint8_t addr[16],
                             unsigned prefix_len);

/** The keys of range addr/prefix_len, into keys[0 .. *n_keys) with their lengths in
 *  key_lens (1 key, or 2 for a range that contains all of ::ffff:0:0/96 from outside it), its
 *  length recorded in *set: what bb_cidr_add adds, for callers that add keys in batches.
 *  Errors as bb_cidr_add. */
BB_API bb_status bb_cidr_range_keys(const uint8_t addr[16], unsigned prefix_len,
                                    bb_prefix_set *set, uint8_t keys[2][BB_CIDR_KEY_BYTES],
                                    size_t key_lens[2], size_t *n_keys);

/** For i < n: out[i] = 1 if address i (16 bytes at addrs + i * stride; stride 0 = 16) is
 *  possibly in a range of f, tested at each length of *set (NULL: of f's key scheme), else 0.
 *  Errors: BB_E_INVAL (NULL with n > 0, 0 < stride < 16), BB_E_NOMEM. */
BB_API bb_status bb_cidr_contains_batch(const bb_filter *f, const bb_prefix_set *set,
                                        const uint8_t *addrs, size_t stride, size_t n,
                                        uint8_t *out, size_t *n_present);

/* ---- 5-tuples: fixed-width keys for bb_add_fixed / bb_contains_fixed ----------------------- */
#define BB_5TUPLE_KEY_BYTES 37
typedef struct bb_5tuple {
    uint8_t proto;              /**< IP protocol number: 6 TCP, 17 UDP */
    uint8_t src[16], dst[16];   /**< addresses as above (IPv4 mapped) */
    uint16_t src_port, dst_port;
} bb_5tuple;

/** key = proto, src, dst, src_port and dst_port big-endian: 37 bytes, the same on every
 *  machine. */
BB_API void bb_5tuple_key(const bb_5tuple *t, uint8_t key[BB_5TUPLE_KEY_BYTES]);

/* ---- Key schemes: what a filter's keys are, stored with it --------------------------------
 * A filter built from network keys records their kind, and a CIDR filter the prefix lengths
 * that occur, so that a reader tests an address only at those lengths. The scheme is saved in
 * a versioned record after the payload (docs/FORMAT.md, "Version 2"); a filter without one
 * (BB_KEYS_PLAIN, the default) is saved exactly as before, as format version 1. */
typedef enum bb_keys {
    BB_KEYS_PLAIN = 0,  /**< keys are whatever the caller added */
    BB_KEYS_URL = 1,    /**< Safe Browsing expressions (bb_url_add) */
    BB_KEYS_DOMAIN = 2, /**< normalised domain names (bb_domain_normalize) */
    BB_KEYS_CIDR = 3,   /**< CIDR range keys (bb_cidr_add); prefixes says which lengths */
    BB_KEYS_5TUPLE = 4  /**< 5-tuple keys (bb_5tuple_key) */
} bb_keys;

typedef struct bb_key_scheme {
    bb_keys keys;
    bb_prefix_set prefixes; /**< BB_KEYS_CIDR: lengths present; all zero for other schemes */
} bb_key_scheme;

/** Set f's key scheme (copied; bb_clone copies it, bb_clear keeps it, bb_union ORs the prefix
 *  sets of two filters of one scheme). @return BB_OK, BB_E_INVAL (NULL, unknown keys, prefix
 *  bits above 128, or prefixes for a scheme other than BB_KEYS_CIDR), BB_E_READONLY. */
BB_API bb_status bb_set_key_scheme(bb_filter *f, const bb_key_scheme *ks);
/** f's key scheme (BB_KEYS_PLAIN unless set or loaded). BB_E_INVAL on NULL. Thread-safe. */
BB_API bb_status bb_get_key_scheme(const bb_filter *f, bb_key_scheme *out);
/** "plain", "url", "domain", "cidr", "5tuple"; "unknown" otherwise. */
BB_API const char *bb_keys_name(bb_keys keys);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_H */
