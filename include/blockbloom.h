/* SPDX-License-Identifier: MIT */
/*
 * blockbloom.h - the core API of blockbloom, a library of Bloom filters built for
 * throughput: a cache-line-blocked filter (every key touches one 64-byte block), a classic
 * filter as the baseline, batch entry points over pointer arrays, Arrow-style columns,
 * fixed-width keys and pre-computed hashes, and a versioned little-endian file format.
 * It includes the other headers of libblockbloom, one per concern: blockbloom_view.h (inline
 * lookups), blockbloom_arrow.h (Arrow C Data Interface) and blockbloom_net.h (URL, domain,
 * CIDR and 5-tuple keys). The optional libraries have their own: blockbloom_parquet.h and
 * blockbloom_redis.h.
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
 *  - Doc comments, in every public header: a summary, the details, a "Thread-safety:" line,
 *    an "@param" for each parameter (its unit or shape and whether it may be NULL) and, unless
 *    the function returns void, an "@return" with each bb_status it gives and when. The
 *    Thread-safety line is built from three phrases: "any thread, any time" (no shared
 *    state, or only state that is read-only or per thread); "reads X" (may run alongside
 *    other readers of X, not alongside a call that changes X); "changes X" (no other call on
 *    X may run meanwhile). tests/scripts/doc_comments.py checks the form.
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
#define BB_VERSION_MINOR 2
#define BB_VERSION_PATCH 0
#define BB_VERSION_STRING "0.2.0"
/** MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons (0.2.0 is 200). */
#define BB_VERSION_NUMBER (BB_VERSION_MAJOR * 10000 + BB_VERSION_MINOR * 100 + BB_VERSION_PATCH)

#if defined(BB_STATIC_DEFINE)
#define BB_API
#elif defined(_WIN32)
#define BB_API __declspec(dllexport)
#else
#define BB_API __attribute__((visibility("default")))
#endif

/**
 * The library's version, e.g. "0.2.0": BB_VERSION_STRING of the library that runs, which may
 * be newer than the header a program was built with.
 * Thread-safety: any thread, any time.
 *
 * @return a static NUL-terminated string, never NULL.
 */
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
    BB_E_MALFORMED = 15,   /**< malformed URL, domain name, address or CIDR range */
    /* For the libraries that keep filters elsewhere (libblockbloom_redis). */
    BB_E_SERVER = 16,      /**< a server answered with an error (bb_last_error quotes it) */
    BB_E_EXISTS = 17,      /**< the name already holds a filter */
    BB_E_NOT_FOUND = 18,   /**< no filter of that name */
    BB_E_WRONGTYPE = 19,   /**< the name holds something that is not a blockbloom filter */
    BB_E_TIMEOUT = 20      /**< a request's deadline passed */
} bb_status;

/**
 * Short English description of a status.
 * Thread-safety: any thread, any time.
 *
 * @param status  any value; unknown codes get a generic text.
 * @return a static NUL-terminated string, never NULL.
 */
BB_API const char *bb_strerror(bb_status status);

/**
 * The detail of this thread's last failure, in English, e.g. "offsets decrease at row 3",
 * "host bits set beyond the prefix", "column 'x' is nested (repeated)" or a Redis server's
 * reply with the node that sent it; "" when the failing call gave none. Calls that give
 * detail (the Arrow imports, bb_cidr_parse, every bb_pq_* and bb_redis_* call that returns a
 * bb_status) empty it on entry and fill it when they fail; other calls leave it alone, except
 * that one refusing the `size` of a caller's struct (BB_CONFIG_INIT) says so here.
 * Thread-safety: any thread, any time: each thread has its own text.
 *
 * @return a NUL-terminated string, never NULL, valid until this thread's next call that
 *         gives detail.
 */
BB_API const char *bb_last_error(void);

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
    BB_SPLIT = 4,
    /** Sectorized: one 64-byte line of 8 little-endian 64-bit words per key, with the key's
     *  probes fixed to words (Lang, Neumann, Kemper, Boncz, "Performance-Optimal Filtering",
     *  VLDB 2019; Boost.Bloom's fast_multiblock64): k = 8 sets one bit in each word, k = 16
     *  two, and k = 1, 2, 4 one in each word of an aligned run of k words (high FPRs). No
     *  other k. About 2% more bits than BB_BLOCKED at 1% and 0.1% for cheaper SIMD adds;
     *  src/kinds/sectorized.c has the layout. */
    BB_SECTORIZED = 5
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
 * Thread-safety: any thread, any time.
 *
 * @param kind      BB_BLOCKED, BB_CLASSIC, BB_SPLIT or BB_SECTORIZED (BB_COUNTING is sized
 *                  as BB_BLOCKED, bits meaning counters; BB_SCALABLE gives the geometry of
 *                  one sub-filter for capacity c_i and fpr p_i: BB_BLOCKED's plus the
 *                  margin for scatter described at bb_config, exactly what the filter
 *                  grows).
 * @param capacity  n >= 1 keys.
 * @param fpr       p with 0 < p < 1 (not NaN).
 * @param bits_out  bits of the filter (a multiple of 512 for blocked). Not NULL.
 * @param k_out     probes per key. Not NULL.
 * @return BB_OK; BB_E_INVAL (bad n, p, kind or NULL); BB_E_TOO_LARGE (> BB_MAX_BITS, or
 *         beyond the kind's own limit: 2^32 blocks for BB_SPLIT).
 */
BB_API bb_status bb_size(bb_kind kind, uint64_t capacity, double fpr, uint64_t *bits_out,
                         unsigned *k_out);

/**
 * Best k for a filter of `bits` bits holding `capacity` keys: the classic k = round((m/n) ln 2)
 * (at least 1, at most BB_MAX_K), or for blocked the k in 1..BB_MAX_K minimising the blocked
 * model; 8 for split.
 * Thread-safety: any thread, any time.
 *
 * @param kind      the kind of filter.
 * @param capacity  n >= 1 keys.
 * @param bits      m >= 1 bits.
 * @param k_out     receives k. Not NULL.
 * @return BB_OK; BB_E_INVAL (a zero argument, NULL k_out, or a kind without a single
 *         geometry: BB_SCALABLE, unknown values).
 */
BB_API bb_status bb_best_k(bb_kind kind, uint64_t capacity, uint64_t bits, unsigned *k_out);

/**
 * Model false-positive rate of a filter of `bits` bits, `k` probes, after `n_keys` keys.
 *
 * Classic: (1 - e^{-kn/m})^k (Bloom 1970). Blocked and counting: the Poisson-weighted sum over
 * block loads of Putze, Sanders and Singler (WEA 2007), with the exact in-block term. Split
 * (k must be 8): the same sum over 256-bit blocks of 8 words, one bit per word. The
 * derivations are in src/sizing.c.
 * Thread-safety: any thread, any time.
 *
 * @param kind     the kind of filter.
 * @param n_keys   keys added, n (0 allowed).
 * @param bits     m >= 1 bits.
 * @param k        probes per key, 1 .. BB_MAX_K (one the kind takes).
 * @param fpr_out  receives the model FPR. Not NULL.
 * @return BB_OK, or BB_E_INVAL on bits = 0, k = 0 or > BB_MAX_K, NULL fpr_out, blocked or
 *         counting bits not a multiple of 512, split bits not a multiple of 256 or k != 8, a k
 *         the sectorized kind does not take, bits beyond the kind's limit, or BB_SCALABLE (no
 *         single geometry; see bb_config for its bound).
 */
BB_API bb_status bb_fpr_model(bb_kind kind, uint64_t n_keys, uint64_t bits, unsigned k,
                              double *fpr_out);

/* ============================================================================================
 * Creating and freeing
 * ========================================================================================== */
typedef struct bb_filter bb_filter;

/**
 * Parameters for bb_create. Start from BB_CONFIG_INIT (which sets `size` and zeroes the
 * rest), then set what you need:
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
 * p_i = p (1 - r) r^i with r = tightening, so the union bound sum_i p_i < p holds however
 * many sub-filters there are (Almeida et al. 2007, section 4; src/kinds/scalable.c sizes
 * each with a margin for its scatter). At most 1024 sub-filters: the add that needs the
 * 1025th returns BB_E_TOO_LARGE.
 * growth, tightening must be 0 for every other kind; flags may be BB_POW2_BYTES for
 * BB_SPLIT, BB_BLOCKED and BB_SECTORIZED, and must be 0 otherwise.
 *
 * BB_SPLIT: k must be 0 or 8; sized by its own model (bb_size), seed 0 = Parquet's.
 * BB_SECTORIZED: k must be 0, 1, 2, 4, 8 or 16 (BB_E_INVAL otherwise); sized by its own
 * model (bb_size picks the k with the fewest lines).
 */
typedef struct bb_config {
    size_t size;         /**< sizeof(bb_config) as the caller compiled it (BB_CONFIG_INIT) */
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
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_config;

/* Caller-allocated structs that may grow carry their size in a first member `size`: the
 * caller sets it to the sizeof it was compiled with (the *_INIT macros do), and the library
 * reads or writes only that many bytes, so a program built against an older header keeps
 * working with a newer library. Fields are only ever appended. A size of 0, or one smaller
 * than the struct's first published layout, is refused with BB_E_INVAL (bb_last_error names
 * the struct and the macro). An input struct's fields past `size` take their defaults (0);
 * an output struct gets its first min(size, sizeof) bytes written, `size` itself left as the
 * caller set it and nothing past it touched. docs/DESIGN.md, "Struct sizes and the SOVERSION".
 * The macros are initialisers for a declaration, in C and C++: bb_info in = BB_INFO_INIT;
 * (in C++ they are calls of a function template that returns the zeroed, sized struct). */
#ifdef __cplusplus
} /* a value-initialised copy: no -Wmissing-field-initializers for an aggregate in C++ */
template <class T> inline T bb_sized_init_() {
    T v = T();
    v.size = sizeof(T);
    return v;
}
extern "C" {
#define BB_SIZED_INIT(type) (bb_sized_init_<type>())
#else
#define BB_SIZED_INIT(type) {.size = sizeof(type)}
#endif
#define BB_CONFIG_INIT BB_SIZED_INIT(bb_config)

/** Scalable defaults, as in RedisBloom (expansion 2) and Almeida et al. (r = 0.5). */
#define BB_DEFAULT_GROWTH 2.0
#define BB_DEFAULT_TIGHTENING 0.5
/** bb_config.flags: a scalable filter that never grows; an add that would need a new
 *  sub-filter returns BB_E_FULL instead (RedisBloom's NONSCALING). */
#define BB_NO_SCALE 1u
/** bb_config.flags, for BB_SPLIT, BB_BLOCKED and BB_SECTORIZED: round the payload up to a
 *  power-of-two number of bytes, at least 32 (blocked, sectorized: 64) and at most 128 MiB,
 *  the convention of the Parquet writers (parquet-mr, Arrow; Arrow's reader rejects other
 *  sizes). A filter that
 *  would need more than 128 MiB gets 128 MiB, and then misses its fpr (bb_get_info tells
 *  by how much). Power-of-two filters can be halved by bb_fold down to one block. */
#define BB_POW2_BYTES 2u
/** Largest payload BB_POW2_BYTES gives: 128 MiB (Parquet's limit). */
#define BB_POW2_MAX_BYTES (UINT64_C(128) << 20)

/**
 * Create an empty filter from `cfg` (see bb_config). On success *out owns a filter that the
 * caller frees with bb_free; on error *out is NULL. Only cfg->size bytes of *cfg are read;
 * fields past them are 0 (their defaults).
 * Thread-safety: any thread, any time; the new filter is the caller's.
 *
 * @param out  receives the filter (NULL on error). Not NULL.
 * @param cfg  the parameters, from BB_CONFIG_INIT. Not NULL.
 * @return BB_OK; BB_E_INVAL (NULL, cfg->size 0 or short of `seed`, the 0.1.0 fields, with
 *         bb_last_error naming BB_CONFIG_INIT; bad or contradictory parameters, k > BB_MAX_K,
 *         growth, tightening or flags out of range or given for a kind other than
 *         BB_SCALABLE); BB_E_TOO_LARGE (> BB_MAX_BITS or 64-bit overflow); BB_E_NOMEM.
 */
BB_API bb_status bb_create(bb_filter **out, const bb_config *cfg);

/**
 * Shorthand: bb_create with {kind, capacity, fpr, seed}.
 * Thread-safety: any thread, any time.
 *
 * @param out       receives the filter (NULL on error). Not NULL.
 * @param kind      the kind of filter.
 * @param capacity  n >= 1 keys.
 * @param fpr       p with 0 < p < 1 (0 and NaN are BB_E_INVAL here, not "not given").
 * @param seed      the hash seed stored with the filter.
 * @return as bb_create.
 */
BB_API bb_status bb_create_for(bb_filter **out, bb_kind kind, uint64_t capacity, double fpr,
                               uint64_t seed);

/**
 * Deep copy of a filter, key scheme included (a memory-mapped filter becomes a writable heap
 * copy).
 * Thread-safety: reads f.
 *
 * @param out  receives the copy, for bb_free (NULL on error). Not NULL.
 * @param f    the filter. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_NOMEM.
 */
BB_API bb_status bb_clone(bb_filter **out, const bb_filter *f);

/**
 * Free a filter (unmaps a memory-mapped one); its views and payload pointers become invalid.
 * Thread-safety: changes f (no call may still be using it).
 *
 * @param f  the filter; NULL does nothing.
 */
BB_API void bb_free(bb_filter *f);

/**
 * Reset to empty: all bits zero, keys_added 0 (a scalable filter goes back to its first
 * sub-filter alone). The key scheme stays.
 * Thread-safety: changes f.
 *
 * @param f  the filter. Not NULL.
 * @return BB_OK; BB_E_INVAL (f NULL); BB_E_READONLY (a mapped filter).
 */
BB_API bb_status bb_clear(bb_filter *f);

/* ============================================================================================
 * Single keys
 * ========================================================================================== */

/**
 * XXH3-64 of the key with the filter's seed (BB_SPLIT: XXH64, as Parquet; seed 0 there is
 * Parquet's, so the plain encoding of a value hashes as a Parquet writer hashes it): the hash
 * every other entry point uses.
 * Thread-safety: reads f (only its kind and seed, which never change).
 *
 * @param f    the filter; NULL hashes with XXH3 and seed 0.
 * @param key  len bytes; NULL allowed when len is 0.
 * @param len  bytes of key.
 * @return the 64-bit hash.
 */
BB_API uint64_t bb_hash(const bb_filter *f, const void *key, size_t len);

/**
 * Add one key (len bytes; key may be NULL when len == 0).
 * Counting: increments the key's counters (those at 15 stay at 15).
 * Scalable: does nothing (and returns BB_OK) if the key is already possibly present in any
 * sub-filter, so keys_added counts only the keys actually added; otherwise adds it to the
 * newest sub-filter, first adding a new sub-filter if the newest holds its capacity.
 * Thread-safety: changes f.
 *
 * @param f    the filter. Not NULL.
 * @param key  len bytes; NULL allowed when len is 0.
 * @param len  bytes of key.
 * @return BB_OK; BB_E_INVAL (NULL f, or NULL key with len > 0); BB_E_READONLY; scalable
 *         also BB_E_FULL (BB_NO_SCALE and full), BB_E_NOMEM or BB_E_TOO_LARGE (the next
 *         sub-filter could not be made; the key is then not added).
 */
BB_API bb_status bb_add(bb_filter *f, const void *key, size_t len);

/**
 * Whether a key is possibly in the set (never a false negative).
 * Thread-safety: reads f.
 *
 * @param f    the filter; NULL answers false.
 * @param key  len bytes; NULL with len > 0 answers false.
 * @param len  bytes of key.
 * @return true if possibly present, false if definitely absent.
 */
BB_API bool bb_contains(const bb_filter *f, const void *key, size_t len);

/**
 * Add a pre-computed 64-bit hash. Hashes must be well mixed (e.g. from bb_hash or XXH3): the
 * blocked filter picks the block from the high bits and the probes from the low 32.
 * Thread-safety: changes f.
 *
 * @param f     the filter. Not NULL.
 * @param hash  the key's hash.
 * @return as bb_add (BB_E_INVAL only for NULL f).
 */
BB_API bb_status bb_add_hash(bb_filter *f, uint64_t hash);

/**
 * Query a pre-computed 64-bit hash (see bb_add_hash).
 * Thread-safety: reads f.
 *
 * @param f     the filter; NULL answers false.
 * @param hash  the key's hash.
 * @return true if possibly present, false if definitely absent.
 */
BB_API bool bb_contains_hash(const bb_filter *f, uint64_t hash);

/* ============================================================================================
 * Batches. Every contains_* writes out[i] = 1 (possibly present) or 0 (definitely absent)
 * for i < n and stores the number of 1s in *n_present (which may be NULL). n = 0 is valid
 * and every array may then be NULL (the filter may not). Batches are hashed and prefetched
 * in groups, so they are much faster per key than loops over the single-key calls on
 * filters beyond the cache.
 * Errors (BB_E_INVAL on NULL arrays with n > 0, or bad offsets) are detected before anything
 * is added or written. Every kind accepts every batch; an add batch on a scalable filter
 * behaves as bb_add_hash key by key, and if one fails (BB_E_FULL, BB_E_NOMEM, ...) the keys
 * before it stay added and the rest are not.
 * ========================================================================================== */

/**
 * (a) Add n keys given as pointers: keys[i] of lens[i] bytes.
 * Thread-safety: changes f.
 *
 * @param f     the filter. Not NULL.
 * @param keys  keys[n]; keys[i] may be NULL when lens[i] is 0.
 * @param lens  lens[n], bytes of each key.
 * @param n     number of keys.
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, keys[i] NULL with lens[i] > 0:
 *         nothing added);
 *         BB_E_READONLY; scalable also bb_add's BB_E_FULL, BB_E_NOMEM, BB_E_TOO_LARGE (the
 *         keys before the failing one stay added).
 */
BB_API bb_status bb_add_batch(bb_filter *f, const void *const *keys, const size_t *lens,
                              size_t n);
/**
 * (a) Test n keys given as pointers: keys[i] of lens[i] bytes.
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param keys       keys[n]; keys[i] may be NULL when lens[i] is 0.
 * @param lens       lens[n], bytes of each key.
 * @param n          number of keys.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s (untouched on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, keys[i] NULL with lens[i] > 0:
 *         nothing written).
 */
BB_API bb_status bb_contains_batch(const bb_filter *f, const void *const *keys,
                                   const size_t *lens, size_t n, uint8_t *out,
                                   size_t *n_present);

/**
 * (b) Add an Arrow-style binary/utf8 column: key i is data[offsets[i] .. offsets[i+1]), so
 * offsets has n + 1 entries, starts >= 0 and never decreases (else BB_E_INVAL).
 * Thread-safety: changes f.
 *
 * @param f        the filter. Not NULL.
 * @param data     the values' bytes; NULL allowed when every key is empty.
 * @param offsets  offsets[n + 1], 32-bit.
 * @param n        number of keys (< SIZE_MAX).
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, bad offsets: nothing added);
 *         BB_E_READONLY; scalable also bb_add's BB_E_FULL, BB_E_NOMEM, BB_E_TOO_LARGE (the
 *         keys before the failing one stay added).
 */
BB_API bb_status bb_add_arrow32(bb_filter *f, const void *data, const int32_t *offsets,
                                size_t n);
/**
 * (b) Test an Arrow-style binary/utf8 column, keys as bb_add_arrow32's.
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param data       the values' bytes; NULL allowed when every key is empty.
 * @param offsets    offsets[n + 1], 32-bit.
 * @param n          number of keys (< SIZE_MAX).
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s (untouched on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, bad offsets: nothing written).
 */
BB_API bb_status bb_contains_arrow32(const bb_filter *f, const void *data,
                                     const int32_t *offsets, size_t n, uint8_t *out,
                                     size_t *n_present);
/**
 * (b) bb_add_arrow32 with 64-bit offsets (Arrow's large_binary, large_utf8).
 * Thread-safety: changes f.
 *
 * @param f        the filter. Not NULL.
 * @param data     the values' bytes; NULL allowed when every key is empty.
 * @param offsets  offsets[n + 1], 64-bit.
 * @param n        number of keys (< SIZE_MAX).
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, bad offsets: nothing added);
 *         BB_E_READONLY; scalable also bb_add's BB_E_FULL, BB_E_NOMEM, BB_E_TOO_LARGE (the
 *         keys before the failing one stay added).
 */
BB_API bb_status bb_add_arrow64(bb_filter *f, const void *data, const int64_t *offsets,
                                size_t n);
/**
 * (b) bb_contains_arrow32 with 64-bit offsets.
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param data       the values' bytes; NULL allowed when every key is empty.
 * @param offsets    offsets[n + 1], 64-bit.
 * @param n          number of keys (< SIZE_MAX).
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s (untouched on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, bad offsets: nothing written).
 */
BB_API bb_status bb_contains_arrow64(const bb_filter *f, const void *data,
                                     const int64_t *offsets, size_t n, uint8_t *out,
                                     size_t *n_present);

/**
 * (c) Add fixed-width keys: key i is the `width` bytes at base + i * stride. For IPv4/IPv6
 * addresses, 5-tuples, integers (hashed as their bytes in memory: the same integer on a
 * big-endian machine hashes differently unless the caller stores it little-endian).
 * Thread-safety: changes f.
 *
 * @param f       the filter. Not NULL.
 * @param base    the first key; NULL allowed when width is 0.
 * @param width   bytes per key (0: every key is empty).
 * @param stride  bytes from one key to the next, >= width; 0 means width.
 * @param n       number of keys.
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, 0 < stride < width, a last
 *         key past SIZE_MAX: nothing added);
 *         BB_E_READONLY; scalable also bb_add's BB_E_FULL, BB_E_NOMEM, BB_E_TOO_LARGE (the
 *         keys before the failing one stay added).
 */
BB_API bb_status bb_add_fixed(bb_filter *f, const void *base, size_t width, size_t stride,
                              size_t n);
/**
 * (c) Test fixed-width keys, laid out as bb_add_fixed's.
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param base       the first key; NULL allowed when width is 0.
 * @param width      bytes per key.
 * @param stride     bytes from one key to the next, >= width; 0 means width.
 * @param n          number of keys.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s (untouched on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (NULL f, a NULL array with n > 0, 0 < stride < width, a last
 *         key past SIZE_MAX: nothing written).
 */
BB_API bb_status bb_contains_fixed(const bb_filter *f, const void *base, size_t width,
                                   size_t stride, size_t n, uint8_t *out,
                                   size_t *n_present);

/**
 * (d) Add pre-computed 64-bit hashes (see bb_add_hash).
 * Thread-safety: changes f.
 *
 * @param f       the filter. Not NULL.
 * @param hashes  hashes[n].
 * @param n       number of hashes.
 * @return BB_OK; BB_E_INVAL (NULL f, hashes NULL with n > 0: nothing added);
 *         BB_E_READONLY; scalable also bb_add's BB_E_FULL, BB_E_NOMEM, BB_E_TOO_LARGE (the
 *         keys before the failing one stay added).
 */
BB_API bb_status bb_add_hashes(bb_filter *f, const uint64_t *hashes, size_t n);
/**
 * (d) Test pre-computed 64-bit hashes (see bb_add_hash).
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param hashes     hashes[n].
 * @param n          number of hashes.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s (untouched on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (NULL f, hashes NULL with n > 0: nothing written).
 */
BB_API bb_status bb_contains_hashes(const bb_filter *f, const uint64_t *hashes, size_t n,
                                    uint8_t *out, size_t *n_present);

/* ============================================================================================
 * The library's own threads for batches (src/threads.c)
 * ========================================================================================== */

/** Largest thread count bb_set_threads accepts. */
#define BB_MAX_THREADS 256u

/**
 * Let the batch calls on `f` run on up to n_threads threads: the caller's plus up to
 * n_threads - 1 that the call starts and joins before it returns. 1 (the default of every
 * new, loaded, mapped or cloned filter) starts no thread; 0 means the CPUs this process may
 * run on (sched_getaffinity where there is one, else the online CPUs).
 *
 * Honoured by bb_add_hashes, bb_add_batch, bb_add_arrow32/64, bb_add_fixed and their
 * contains_* counterparts (and so by the Arrow imports that call them). Every kind's
 * contains batches are split by key range. Adds use the threads for BB_BLOCKED, BB_SPLIT and
 * BB_SECTORIZED: each thread sets only the keys whose block lies in its own range of cache
 * lines, so no line is written by two threads and no atomic instruction is needed; classic,
 * counting and scalable filters add on the caller's thread alone. A batch smaller than a
 * measured threshold (src/threads.c gives it: 2^16 keys, or 16 MiB of key bytes, per thread)
 * runs on the caller's thread alone, and so does bb_add_hashes into a filter smaller than
 * the CPU's measured size for it (4 MiB, but none on the Intel CPUs of src/dispatch.c); a
 * thread that cannot be started leaves its share to the threads that could (never a lost
 * key).
 *
 * Results are those of one thread: the same out[], *n_present, keys_added and payload bytes
 * (bit for bit, on every kernel). Every key of a batch add is visible to any contains that
 * happens after the call returned. The setting belongs to the object: it is not saved in
 * files and not copied by bb_clone.
 * Thread-safety: changes f, like an add (it may be called on a read-only mapped filter).
 *
 * @param f          the filter. Not NULL.
 * @param n_threads  threads per batch call, 0 .. BB_MAX_THREADS; 0: the usable CPUs (at
 *                   most BB_MAX_THREADS).
 * @return BB_OK; BB_E_INVAL (NULL f, n_threads > BB_MAX_THREADS).
 */
BB_API bb_status bb_set_threads(bb_filter *f, unsigned n_threads);

/**
 * The thread count of f's batch calls (bb_set_threads, with 0 resolved to the CPU count).
 * Thread-safety: reads f.
 *
 * @param f  the filter; NULL allowed.
 * @return 1 .. BB_MAX_THREADS; 1 for NULL f.
 */
BB_API unsigned bb_threads(const bb_filter *f);

/* ============================================================================================
 * Information
 * ========================================================================================== */
typedef struct bb_info {
    size_t size;          /**< sizeof(bb_info) as the caller compiled it (BB_INFO_INIT) */
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
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_info;

/** Initialiser of a bb_info: its size set, every other field zero (see BB_CONFIG_INIT). */
#define BB_INFO_INIT BB_SIZED_INIT(bb_info)

/**
 * Describe a filter into the first out->size bytes of *out (out->size is left as it is, and
 * nothing past it is written). Costs one pass over the filter (counts set bits).
 * A scalable filter reports sums over its sub-filters (bits, bytes, blocks, bits_set,
 * keys_added, cardinality_estimate), capacity = the sum of the sub-filters' capacities (keys
 * it holds before it next grows), fpr_target = p of the whole filter, k of the newest.
 * Thread-safety: reads f.
 *
 * @param f    the filter. Not NULL.
 * @param out  receives the description; out->size set first (BB_INFO_INIT). Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, or out->size 0 or short of format_version, the
 *         0.1.0 fields: bb_last_error names BB_INFO_INIT; nothing is written).
 */
BB_API bb_status bb_get_info(const bb_filter *f, bb_info *out);

/**
 * Info of sub-filter i (0 = oldest) of a scalable filter: a blocked filter with its own
 * capacity c_i, fpr_target p_i, k and keys_added (see bb_config for c_i and p_i). Any other
 * kind is its own single sub-filter: i = 0 gives bb_get_info.
 * Thread-safety: reads f.
 *
 * @param f    the filter. Not NULL.
 * @param i    the sub-filter, 0 .. info.subfilters - 1.
 * @param out  receives its description, as bb_get_info's. Not NULL.
 * @return BB_OK; BB_E_INVAL (NULL f or out, i >= info.subfilters, out->size refused as by
 *         bb_get_info).
 */
BB_API bb_status bb_subfilter_info(const bb_filter *f, size_t i, bb_info *out);

/**
 * Name of a kind, as the CLI and the file format's docs spell it.
 * Thread-safety: any thread, any time.
 *
 * @param kind  any value.
 * @return "blocked", "classic", "counting", "scalable", "split", "sectorized"; "unknown"
 *         otherwise. A static string, never NULL.
 */
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
 * keys_added drops by one on BB_OK.
 * Thread-safety: changes f.
 *
 * @param f    a BB_COUNTING filter. Not NULL.
 * @param key  len bytes; NULL allowed when len is 0.
 * @param len  bytes of key.
 * @return BB_OK; BB_E_ABSENT if some counter of the key is 0 (definitely absent: nothing
 *         changes); BB_E_INVAL (NULL f, or NULL key with len > 0); BB_E_UNSUPPORTED (not a
 *         counting filter); BB_E_READONLY.
 */
BB_API bb_status bb_remove(bb_filter *f, const void *key, size_t len);

/**
 * Remove a pre-computed hash (see bb_add_hash and bb_remove).
 * Thread-safety: changes f.
 *
 * @param f     a BB_COUNTING filter. Not NULL.
 * @param hash  the key's hash.
 * @return as bb_remove (BB_E_INVAL only for NULL f).
 */
BB_API bb_status bb_remove_hash(bb_filter *f, uint64_t hash);

/**
 * Export a counting filter as the plain BB_BLOCKED filter of its keys: bit = (counter != 0),
 * same blocks, k, seed, capacity, fpr_target and keys_added. While no counter has saturated
 * the result is byte-identical to the blocked filter built from the keys currently in the
 * counting filter; where counters saturated, its bits are a superset of that (never a false
 * negative). Costs one pass.
 * Thread-safety: reads counting.
 *
 * @param counting  a BB_COUNTING filter. Not NULL.
 * @param out       receives a new heap filter, for bb_free (NULL on error). Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_UNSUPPORTED (not BB_COUNTING);
 *         BB_E_NOMEM.
 */
BB_API bb_status bb_counting_to_blocked(const bb_filter *counting, bb_filter **out);

/* ============================================================================================
 * Payload bytes, Parquet bitsets and folding
 * ========================================================================================== */

/**
 * The raw payload of a flat filter: for BB_SPLIT exactly the Parquet SBBF bitset (what a
 * Parquet file stores after its BloomFilterHeader); for blocked, classic and counting their
 * payload as in the file format; sectorized likewise.
 * Thread-safety: reads f; the bytes change with every later add.
 *
 * @param f          the filter. Not NULL.
 * @param data       receives the payload's first byte, inside the filter: read-only, valid
 *                   until the filter is folded or freed. Not NULL.
 * @param len_bytes  receives the payload's length in bytes. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_UNSUPPORTED (scalable: no single
 *         payload); BB_E_TOO_LARGE (does not fit a size_t).
 */
BB_API bb_status bb_payload(const bb_filter *f, const void **data, size_t *len_bytes);

/**
 * A new BB_SPLIT filter holding a copy of the Parquet SBBF bitset[0 .. len_bytes): z =
 * len_bytes / 32 blocks, k 8, seed 0, capacity and fpr_target 0, keys_added 0 (the bitset does
 * not record them; bb_get_info's cardinality_estimate does). Any power of two or not: other
 * writers' sizes are accepted.
 * Thread-safety: any thread, any time (reads only bitset).
 *
 * @param out        receives the filter, for bb_free (NULL on error). Not NULL.
 * @param bitset     len_bytes bytes, copied. Not NULL.
 * @param len_bytes  a positive multiple of 32.
 * @return BB_OK; BB_E_INVAL (NULL out or bitset, len_bytes 0 or not a multiple of 32);
 *         BB_E_TOO_LARGE (more than 2^32 blocks); BB_E_NOMEM.
 */
BB_API bb_status bb_split_from_bitset(bb_filter **out, const void *bitset, size_t len_bytes);

/**
 * Halve a BB_BLOCKED, BB_SECTORIZED or BB_SPLIT filter's block count in place: block j of the
 * result is blocks 2j and 2j + 1 ORed. With multiply-shift block indexing (floor(h z / 2^64)
 * blocked, ((h >> 32) z) >> 32 split) block b of 2z blocks maps to block floor(b / 2) of z and
 * the in-block bits do not depend on z, so the result is byte for byte the filter built
 * directly with half the blocks from the same keys. keys_added and capacity stay; fpr_target
 * becomes 0 (the sizing no longer holds). The payload is reallocated at half size, so earlier
 * bb_payload pointers and views become invalid.
 * Thread-safety: changes f.
 *
 * @param f  the filter. Not NULL.
 * @return BB_OK; BB_E_INVAL (NULL, or an odd block count); BB_E_UNSUPPORTED (other kinds);
 *         BB_E_READONLY; BB_E_NOMEM (the filter is unchanged).
 */
BB_API bb_status bb_fold(bb_filter *f);

/**
 * Fold (bb_fold) as often as the block count stays even and the model FPR (bb_fpr_model) of
 * the folded filter at its key count stays <= fpr; for writers that size from an
 * over-estimate of the distinct count and shrink once it is known. The key count is
 * keys_added, or bb_get_info's cardinality_estimate when that is larger (a filter from
 * bb_split_from_bitset has keys_added 0). If it folded, fpr_target becomes fpr. Folding zero
 * times is success. Costs one pass over the payload plus the folds.
 * Thread-safety: changes f.
 *
 * @param f    the filter (a kind bb_fold takes). Not NULL.
 * @param fpr  the largest model FPR to fold down to, 0 < fpr < 1.
 * @return BB_OK; BB_E_INVAL (NULL, fpr not in (0, 1)); BB_E_UNSUPPORTED; BB_E_READONLY;
 *         BB_E_NOMEM (unchanged).
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

/**
 * Name of a mismatch, as the CLI prints it.
 * Thread-safety: any thread, any time.
 *
 * @param m  any value.
 * @return "match", "kind", "bits", "k", "seed", "layout", "keys"; "unknown" otherwise. A
 *         static string, never NULL.
 */
BB_API const char *bb_mismatch_name(bb_mismatch m);

/**
 * Whether `src` can be merged into `dst` by bb_union: same kind, bits, k and seed and, for
 * scalable filters, the same sub-filter layout (count, and bits and k of each), and the same
 * key scheme.
 * Thread-safety: reads dst and src.
 *
 * @param dst   the filter to merge into. Not NULL.
 * @param src   the filter to merge. Not NULL.
 * @param what  receives the first difference in the order of bb_mismatch, or BB_MATCH. May
 *              be NULL.
 * @return BB_OK (mergeable); BB_E_MISMATCH; BB_E_INVAL (a NULL filter).
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
 * The prefix sets of two CIDR key schemes are ORed.
 * Thread-safety: changes dst; reads src (other threads may read src meanwhile).
 *
 * @param dst  the filter to merge into. Not NULL.
 * @param src  the filter to merge; may be dst. Not NULL.
 * @return BB_OK; BB_E_MISMATCH (see bb_union_check for which field; dst unchanged);
 *         BB_E_INVAL (NULL); BB_E_READONLY (dst memory-mapped).
 */
BB_API bb_status bb_union(bb_filter *dst, const bb_filter *src);

/* ============================================================================================
 * Concurrent build. For BB_BLOCKED, BB_CLASSIC, BB_SPLIT and BB_SECTORIZED filters (others:
 * BB_E_UNSUPPORTED):
 * any number of threads may call the *_concurrent adds and contains on one filter at once.
 * No bit is ever lost: once every add has returned, the filter is byte-identical to a
 * single-thread build of the same keys, in any order, and keys_added (updated atomically) is
 * the same. A blocked filter's adds take spin locks on runs of its blocks, a few locked
 * instructions per batch, so a batch costs about what bb_add_hashes does; a thread that holds
 * a lock and is descheduled delays the others that need it. A batch into a small blocked
 * filter (at most 2 MiB) that passes n_new = NULL while another batch runs may build its keys
 * in a private copy of the filter (malloc'd for the call, the filter's size) and OR it in: its
 * keys then reach readers when the call merges them, still before it returns. Classic and
 * split filters set each new bit with an atomic fetch-or on the aligned 64-bit word that holds
 * it. src/concurrent.c has the lock layout and the figures behind it.
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
 * Thread-safety: any thread, alongside the other *_concurrent calls on f (not alongside a
 * plain add, remove, clear or union).
 *
 * @param f        a BB_BLOCKED, BB_CLASSIC, BB_SPLIT or BB_SECTORIZED filter. Not NULL.
 * @param hash     the key's hash.
 * @param was_new  receives whether this call set a bit that was 0 (untouched on error). May
 *                 be NULL.
 * @return BB_OK; BB_E_INVAL (NULL f); BB_E_UNSUPPORTED (counting or scalable);
 *         BB_E_READONLY; BB_E_NOMEM (the first concurrent add of a blocked filter could not
 *         allocate its locks; nothing was added).
 */
BB_API bb_status bb_add_hash_concurrent(bb_filter *f, uint64_t hash, bool *was_new);

/**
 * Add one key from any thread (see bb_add and bb_add_hash_concurrent).
 * Thread-safety: any thread, alongside the other *_concurrent calls on f (not alongside a
 * plain add, remove, clear or union).
 *
 * @param f        the filter, as bb_add_hash_concurrent's. Not NULL.
 * @param key      len bytes; NULL allowed when len is 0.
 * @param len      bytes of key.
 * @param was_new  as bb_add_hash_concurrent's. May be NULL.
 * @return as bb_add_hash_concurrent, and BB_E_INVAL for NULL key with len > 0.
 */
BB_API bb_status bb_add_concurrent(bb_filter *f, const void *key, size_t len, bool *was_new);

/**
 * Add n pre-computed hashes from any thread. Errors are detected before anything is added.
 * Thread-safety: any thread, alongside the other *_concurrent calls on f (not alongside a
 * plain add, remove, clear or union).
 *
 * @param f       the filter, as bb_add_hash_concurrent's. Not NULL.
 * @param hashes  hashes[n]; NULL allowed when n is 0.
 * @param n       number of hashes.
 * @param n_new   receives how many would have reported was_new (untouched on error). May be
 *                NULL, which also lets a small blocked filter build in a private copy (see
 *                the section comment).
 * @return as bb_add_hash_concurrent, and BB_E_INVAL for NULL hashes with n > 0.
 */
BB_API bb_status bb_add_hashes_concurrent(bb_filter *f, const uint64_t *hashes, size_t n,
                                          size_t *n_new);

/**
 * Add keys[i] of lens[i] bytes from any thread (batch shape (a)). Errors are detected before
 * anything is added.
 * Thread-safety: any thread, alongside the other *_concurrent calls on f (not alongside a
 * plain add, remove, clear or union).
 *
 * @param f      the filter, as bb_add_hash_concurrent's. Not NULL.
 * @param keys   keys[n]; keys[i] may be NULL when lens[i] is 0. NULL allowed when n is 0.
 * @param lens   lens[n], bytes of each key. NULL allowed when n is 0.
 * @param n      number of keys.
 * @param n_new  as bb_add_hashes_concurrent's. May be NULL.
 * @return as bb_add_hash_concurrent, and BB_E_INVAL for a bad key array.
 */
BB_API bb_status bb_add_batch_concurrent(bb_filter *f, const void *const *keys,
                                         const size_t *lens, size_t n, size_t *n_new);

/**
 * Query while other threads run concurrent adds (see the section comment for what is seen).
 * On counting and scalable filters, which have no concurrent adds, this is bb_contains_hash.
 * Same answers as bb_contains_hash once the writers are done.
 * Thread-safety: reads f, alongside any number of threads in the *_concurrent adds.
 *
 * @param f     the filter; NULL answers false.
 * @param hash  the key's hash.
 * @return true if possibly present, false if definitely absent.
 */
BB_API bool bb_contains_hash_concurrent(const bb_filter *f, uint64_t hash);

/**
 * Key version of bb_contains_hash_concurrent.
 * Thread-safety: reads f, alongside any number of threads in the *_concurrent adds.
 *
 * @param f    the filter; NULL answers false.
 * @param key  len bytes; NULL with len > 0 answers false.
 * @param len  bytes of key.
 * @return true if possibly present, false if definitely absent.
 */
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

/**
 * Whether a kernel can run on this CPU and build.
 * Thread-safety: any thread, any time.
 *
 * @param isa  any value.
 * @return true if it can (BB_ISA_AUTO and BB_ISA_SCALAR always can); false otherwise and
 *         for unknown values.
 */
BB_API bool bb_isa_available(bb_isa isa);

/**
 * Select the kernel for all filters of the process; BB_ISA_AUTO picks per operation (see
 * bb_isa_name_for). Overrides the environment variable BB_ISA.
 * Thread-safety: changes the whole process's choice: not to be called while other threads
 * use filters.
 *
 * @param isa  the kernel, or BB_ISA_AUTO.
 * @return BB_OK; BB_E_UNSUPPORTED (not available on this CPU or build); BB_E_INVAL (not a
 *         bb_isa value).
 */
BB_API bb_status bb_set_isa(bb_isa isa);

/**
 * The active kernel of lookups (bb_isa_name_for(BB_OP_CONTAINS)).
 * Thread-safety: any thread, any time.
 *
 * @return "scalar", "avx2", "avx512", "avx512gfni" or "neon"; a static string, never NULL.
 */
BB_API const char *bb_isa_name(void);

/** Operations whose kernel is chosen separately (bb_isa_name_for, bb_isa_kernel).
 *  BB_OP_CONTAINS: single lookups and batch lookups of pre-computed hashes. BB_OP_ADD: batch
 *  adds of pre-computed hashes (bb_add_hashes), and any batch add the library's own threads
 *  run (bb_set_threads). BB_OP_ADD_CONCURRENT: bb_add_hashes_concurrent and the other
 *  concurrent adds. BB_OP_ADD_KEYS and BB_OP_CONTAINS_KEYS: batches of keys the library
 *  hashes in chunks, prefetching a chunk's lines while it hashes the next (bb_add_batch,
 *  bb_add_fixed, bb_add_arrow32/64, bb_contains_arrow64, ...; the Arrow array calls too, but
 *  adds of arrays with nulls, dictionaries or views, which go row by row as batches of
 *  hashes); in large filters a CPU's row may run them on another kernel than batches of
 *  hashes. */
typedef enum bb_op {
    BB_OP_CONTAINS = 0,
    BB_OP_ADD = 1,
    BB_OP_ADD_CONCURRENT = 2,
    BB_OP_ADD_KEYS = 3,
    BB_OP_CONTAINS_KEYS = 4
} bb_op;

/**
 * The kernel that runs an operation on blocked filters now. With BB_ISA_AUTO the kernels are
 * chosen per operation: on x86, the widest available for contains and scalar for adds,
 * unless the CPU has a row of measured choices (src/dispatch.c lists them); on AArch64, NEON
 * for both; with bb_set_isa(isa) or
 * BB_ISA every operation runs on that one ISA's kernels. Other kinds: bb_isa_kernel. A CPU's
 * row may also move adds into large filters to another kernel; this names the kernel of
 * small ones, and bb_isa_kernel_for that of a given filter.
 * Thread-safety: any thread, any time.
 *
 * @param op  a bb_op.
 * @return the kernel's name ("scalar", ...), a static string; NULL for an unknown op.
 */
BB_API const char *bb_isa_name_for(bb_op op);

/**
 * How many ISAs this build has: the rows of the library's ISA table, whether this CPU can run
 * them or not. With bb_isa_at, for code that runs or times every kernel, so that a new ISA
 * needs no list of its own:
 *     for (size_t i = 0; i < bb_isa_count(); i++) if (bb_isa_available(bb_isa_at(i))) ...
 * Thread-safety: any thread, any time.
 *
 * @return at least 5 (the pinned bb_isa values other than BB_ISA_AUTO).
 */
BB_API size_t bb_isa_count(void);

/**
 * The ISA of row i of the walk: BB_ISA_SCALAR (the reference kernel) first, then from the
 * narrowest to the widest.
 * Thread-safety: any thread, any time.
 *
 * @param i  any value.
 * @return the ISA for i < bb_isa_count(); BB_ISA_AUTO otherwise.
 */
BB_API bb_isa bb_isa_at(size_t i);

/**
 * Whether a kernel runs natively on this CPU: available, and one the automatic choice may
 * take. "neon" is available on every processor (SIMDe's portable code stands in for it, for
 * tests) but native on AArch64 only, so only native kernels' timings say anything.
 * Thread-safety: any thread, any time.
 *
 * @param isa  any value.
 * @return true if native; false otherwise, for BB_ISA_AUTO and for unknown values.
 */
BB_API bool bb_isa_native(bb_isa isa);

/**
 * What every operation is put on now: the ISA of the last bb_set_isa (or of BB_ISA).
 * Thread-safety: any thread, any time.
 *
 * @return that ISA, or BB_ISA_AUTO for the automatic choice.
 */
BB_API bb_isa bb_isa_selected(void);

/**
 * Which ISA's kernel runs an operation on filters of a kind when an ISA is selected. It may
 * be another ISA than the selected one: a layout without a kernel of every ISA runs another's
 * (the AVX-512 ISAs run the AVX2 split-block kernel, NEON the scalar concurrent add).
 * Classic and counting filters, and the concurrent adds of split, sectorized and classic
 * ones, have no SIMD kernel: portable code, reported as BB_ISA_SCALAR; scalable filters look
 * up on their blocked sub-filters' kernels and add key by key in portable code.
 * bb_isa_kernel(bb_isa_selected(), ...) is what runs now. With BB_ISA_AUTO, a CPU's row may
 * put some operations on filters above a size on other kernels than on smaller ones
 * (src/dispatch.c); this answers for the smallest filters, and bb_isa_kernel_for for a given
 * one.
 * Thread-safety: any thread, any time.
 *
 * @param isa   the selection asked about (as for bb_set_isa), or BB_ISA_AUTO for the
 *              automatic choice.
 * @param kind  the kind of filter.
 * @param op    a bb_op.
 * @param out   receives the ISA. Not NULL.
 * @return BB_OK; BB_E_INVAL (NULL out, or an unknown kind, op or isa); BB_E_UNSUPPORTED
 *         (isa not available on this CPU or build, or a kind without that operation:
 *         scalable and counting filters have no concurrent adds).
 */
BB_API bb_status bb_isa_kernel(bb_isa isa, bb_kind kind, bb_op op, bb_isa *out);

/**
 * bb_isa_kernel for one filter: which ISA's kernel runs op on f when isa is selected, its
 * size and threads counted: with bb_set_threads(f, n > 1), BB_OP_ADD_KEYS answers for the
 * batches the threads split, which add as batches of hashes (a batch too small to split
 * stays on the caller's thread, as BB_OP_ADD_KEYS without threads).
 * bb_isa_kernel_for(bb_isa_selected(), f, ...) is what runs on f now.
 * Thread-safety: any thread, while no other thread adds to f unless f is concurrent.
 *
 * @param isa  the selection asked about, or BB_ISA_AUTO for the automatic choice.
 * @param f    the filter. Not NULL.
 * @param op   a bb_op.
 * @param out  receives the ISA. Not NULL.
 * @return as bb_isa_kernel; BB_E_INVAL also for a NULL f.
 */
BB_API bb_status bb_isa_kernel_for(bb_isa isa, const bb_filter *f, bb_op op, bb_isa *out);

/**
 * Name of a kernel, as BB_ISA and the CLI's --isa spell it.
 * Thread-safety: any thread, any time.
 *
 * @param isa  any value.
 * @return "auto", "scalar", "avx2", "avx512", "avx512gfni", "neon"; "unknown" otherwise. A
 *         static string, never NULL.
 */
BB_API const char *bb_isa_to_string(bb_isa isa);
/**
 * The kernel of a name: the reverse of bb_isa_to_string. Says nothing of availability
 * (bb_isa_available).
 * Thread-safety: any thread, any time.
 *
 * @param name  a NUL-terminated name. Not NULL.
 * @param out   receives the value. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument or an unknown name).
 */
BB_API bb_status bb_isa_from_string(const char *name, bb_isa *out);

/* ============================================================================================
 * Files and buffers (format: docs/FORMAT.md). Little-endian, versioned, checksummed.
 * ========================================================================================== */
#define BB_FORMAT_VERSION 1u
/** Version of files that carry a key-scheme record (bb_set_key_scheme; docs/FORMAT.md,
 *  "Version 2: the key-scheme record"). Files without one are still written as version 1. */
#define BB_FORMAT_VERSION_KEYS 2u

/**
 * Bytes bb_serialize needs for a filter (every kind is stored: a scalable filter with all
 * its sub-filters; a key scheme adds its record).
 * Thread-safety: reads f.
 *
 * @param f         the filter. Not NULL.
 * @param size_out  receives the size in bytes. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument).
 */
BB_API bb_status bb_serialized_size(const bb_filter *f, uint64_t *size_out);

/**
 * Write the serialized filter (docs/FORMAT.md) into a buffer.
 * Thread-safety: reads f.
 *
 * @param f        the filter. Not NULL.
 * @param buf      cap bytes. Not NULL.
 * @param cap      bytes of buf, >= bb_serialized_size.
 * @param written  receives the byte count (0 on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, or cap too small).
 */
BB_API bb_status bb_serialize(const bb_filter *f, void *buf, size_t cap, size_t *written);

/**
 * Parse and validate a serialized filter (magic, version, every field, both checksums)
 * before building a new heap filter from it; nothing in buf is trusted before that.
 * Thread-safety: any thread, any time (reads only buf).
 *
 * @param out  receives the filter, for bb_free (NULL on error). Not NULL.
 * @param buf  len bytes. Not NULL.
 * @param len  bytes of buf.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_TRUNCATED; BB_E_BAD_MAGIC;
 *         BB_E_BAD_VERSION; BB_E_CORRUPT; BB_E_INCONSISTENT; BB_E_UNSUPPORTED (a kind or
 *         key-scheme record this library does not know: written by a newer one); BB_E_NOMEM.
 */
BB_API bb_status bb_deserialize(bb_filter **out, const void *buf, size_t len);

/** Save atomically: write `path`.tmp.XXXXXX in the same directory, fsync it, rename it
 *  over `path`, fsync the directory. On error `path` is untouched and no temp file remains
 *  (a process killed mid-save can leave the temp file, never a partial `path`). A symlink
 *  is followed (its final target is replaced, the link stays); a dangling symlink is
 *  refused (BB_E_IO, errno ENOENT), nothing written; an existing `path` that is
 *  not a regular file (directory, FIFO, device) is refused: BB_E_IO with errno EISDIR or
 *  EINVAL.
 * Thread-safety: reads f; two concurrent saves to one path leave one of the two complete
 * files.
 *
 * @param f     the filter. Not NULL.
 * @param path  the file, NUL-terminated. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_NOMEM; BB_E_IO (errno tells why).
 */
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
 *  new one gets 0666 less the umask.
 * Thread-safety: any thread, any time; two concurrent writers of one path leave one of the
 * two complete files.
 *
 * @param path     the file, NUL-terminated. Not NULL.
 * @param parts    parts[n_parts], written back to back; NULL allowed when n_parts is 0.
 * @param n_parts  number of parts (0 writes an empty file).
 * @return BB_OK; BB_E_INVAL (path NULL, parts NULL with n_parts > 0, or a part with NULL
 *         data and a length); BB_E_NOMEM; BB_E_IO (errno tells why).
 */
BB_API bb_status bb_write_file_atomically(const char *path, const bb_file_part *parts,
                                          size_t n_parts);

/**
 * Read and validate a file into a new heap filter, as bb_deserialize.
 * Thread-safety: any thread, any time.
 *
 * @param out   receives the filter, for bb_free (NULL on error). Not NULL.
 * @param path  the file, NUL-terminated. Not NULL.
 * @return as bb_deserialize, plus BB_E_IO (open or read failed; errno tells why).
 */
BB_API bb_status bb_load(bb_filter **out, const char *path);

/** Map a saved file read-only, without copying the bit array. The file is validated (header
 *  and payload checksums) before use. Changes return BB_E_READONLY. The mapping lives until
 *  bb_free; the file must not be modified in place meanwhile (bb_save replaces, so is safe).
 * Thread-safety: any thread, any time; the filter is read-only, so any number of threads
 * may read it at once.
 *
 * @param out   receives the filter, for bb_free (NULL on error). Not NULL.
 * @param path  the file, NUL-terminated. Not NULL.
 * @return as bb_load, plus BB_E_IO for a file that is not regular (errno EISDIR or ENODEV)
 *         or a failed mmap, and BB_E_TOO_LARGE for a file larger than the address space.
 */
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

/**
 * Blocks per slice for n_slices slices of `blocks` blocks: ceil(blocks / n_slices).
 * Thread-safety: any thread, any time.
 *
 * @param blocks    blocks of the whole filter, >= 1.
 * @param n_slices  number of slices, 1 .. blocks.
 * @param per_out   receives the blocks per slice. Not NULL.
 * @return BB_OK; BB_E_INVAL (blocks or n_slices 0, per_out NULL, or fewer slices would cover
 *         the blocks: ceil(blocks / per) < n_slices, some slice would be empty).
 */
BB_API bb_status bb_slice_split(uint64_t blocks, uint64_t n_slices, uint64_t *per_out);

/**
 * Create slice `index` (0-based) of `n_slices` of the blocked filter bb_create(cfg) would
 * make (cfg->kind must be BB_BLOCKED; same sizing rules). Only the slice's blocks are
 * allocated (zeroed, 64-byte aligned).
 * Thread-safety: any thread, any time; the new slice is the caller's.
 *
 * @param out       receives the slice, for bb_slice_free (NULL on error). Not NULL.
 * @param cfg       the whole filter's parameters, kind BB_BLOCKED, read up to cfg->size as
 *                  by bb_create. Not NULL.
 * @param index     this slice, 0 .. n_slices - 1.
 * @param n_slices  number of slices (a split bb_slice_split takes).
 * @return BB_OK; BB_E_INVAL (NULL, another kind, index >= n_slices, a split bb_slice_split
 *         refuses, bad config); BB_E_TOO_LARGE; BB_E_NOMEM.
 */
BB_API bb_status bb_slice_create(bb_slice **out, const bb_config *cfg, uint64_t index,
                                 uint64_t n_slices);

/**
 * Add n keys (Arrow 64-bit offsets, as bb_add_arrow64): each key counts in keys_added, and
 * sets its bits only if its block is in the slice.
 * Thread-safety: changes s.
 *
 * @param s        the slice. Not NULL.
 * @param data     the values' bytes; NULL allowed when every key is empty.
 * @param offsets  offsets[n + 1], 64-bit.
 * @param n        number of keys (< SIZE_MAX).
 * @return BB_OK; BB_E_INVAL (NULL s, bad offsets: nothing added).
 */
BB_API bb_status bb_slice_add_arrow64(bb_slice *s, const void *data, const int64_t *offsets,
                                      size_t n);
/**
 * Add n pre-computed hashes (see bb_add_hash), as bb_slice_add_arrow64.
 * Thread-safety: changes s.
 *
 * @param s       the slice. Not NULL.
 * @param hashes  hashes[n]; NULL allowed when n is 0.
 * @param n       number of hashes.
 * @return BB_OK; BB_E_INVAL (NULL s, or hashes NULL with n > 0).
 */
BB_API bb_status bb_slice_add_hashes(bb_slice *s, const uint64_t *hashes, size_t n);

typedef struct bb_slice_info {
    size_t size;               /**< sizeof(bb_slice_info) as compiled (BB_SLICE_INFO_INIT) */
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
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_slice_info;

/** Initialiser of a bb_slice_info: its size set, every other field zero. */
#define BB_SLICE_INFO_INIT BB_SIZED_INIT(bb_slice_info)

/**
 * Describe a slice and the whole filter it is part of, into the first out->size bytes of
 * *out.
 * Thread-safety: reads s.
 *
 * @param s    the slice. Not NULL.
 * @param out  receives the description; out->size set first (BB_SLICE_INFO_INIT). Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, or out->size 0 or short of keys_added:
 *         bb_last_error says which; nothing is written).
 */
BB_API bb_status bb_slice_get_info(const bb_slice *s, bb_slice_info *out);

/**
 * The slice's bytes, blocks first_block .. first_block + n_blocks - 1 of the whole payload.
 * Thread-safety: reads s; the bytes change with every later add to s.
 *
 * @param s          the slice; NULL allowed.
 * @param len_bytes  receives 64 * n_blocks (0 for NULL s). May be NULL.
 * @return the slice's first byte, valid until bb_slice_free; NULL for NULL s.
 */
BB_API const void *bb_slice_data(const bb_slice *s, uint64_t *len_bytes);

/**
 * Free a slice; its bb_slice_data pointer becomes invalid.
 * Thread-safety: changes s (no call may still be using it).
 *
 * @param s  the slice; NULL does nothing.
 */
BB_API void bb_slice_free(bb_slice *s);

/**
 * Test hashes against blocks kept elsewhere (e.g. fetched from Redis by GETRANGE):
 * out[i] = 1 if all k probes of hashes[i] are set in the 64 bytes at blocks + 64 i, which
 * the caller filled with the block of hashes[i] (block floor(h * blocks / 2^64) of its
 * filter, see bb_add_hash), else 0; *n_present (may be NULL) counts the 1s. Uses the active
 * kernel, so answers equal bb_contains_hash on the whole filter. blocks may have any
 * alignment; 64-byte-aligned blocks are tested in place, others are copied first. n = 0 is
 * valid.
 * Thread-safety: any thread, any time (reads only its arguments).
 *
 * @param blocks     n blocks of 64 bytes, any alignment. NULL allowed when n is 0.
 * @param hashes     hashes[n], the keys' hashes. NULL allowed when n is 0.
 * @param n          number of hashes and blocks.
 * @param k          probes per key of the filter, 1 .. BB_MAX_K.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s. May be NULL.
 * @return BB_OK; BB_E_INVAL (NULL arrays with n > 0, k outside 1..BB_MAX_K).
 */
BB_API bb_status bb_blocks_test(const void *blocks, const uint64_t *hashes, size_t n, unsigned k,
                                uint8_t *out, size_t *n_present);

#ifdef __cplusplus
}
#endif

/* The rest of libblockbloom's API, so that including this header gives all of it. */
#include "blockbloom_arrow.h"
#include "blockbloom_net.h"
#include "blockbloom_view.h"

#endif /* BLOCKBLOOM_H */