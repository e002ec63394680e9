/* SPDX-License-Identifier: MIT */
/*
 * internal.h - private structures shared by the library's source files: the filter object,
 * the kinds table (one row per kind, see "The kinds table"), the blocked filter's probe
 * scheme (shared by every kernel and the kinds built on it), the split-block probe scheme
 * and the SIMD kernel tables. Nothing here is exported (the library is built with
 * -fvisibility=hidden; only BB_API functions in blockbloom.h are visible).
 *
 * Invariants of a bb_filter:
 *  - data is 64-byte aligned and holds payload_bytes bytes; for BB_BLOCKED payload_bytes =
 *    blocks * 64, for BB_CLASSIC payload_bytes = ceil(bits / 8) and the bits past `bits` in the
 *    last byte are zero, for BB_COUNTING payload_bytes = blocks * 256 (a 4-bit counter per
 *    position, see kinds/counting.c), for BB_SPLIT payload_bytes = blocks * 32 (the Parquet
 *    bitset). BB_SCALABLE has no payload (data NULL): its sub-filters do.
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

/** The block of hash h, 0 .. blocks-1: its number (bb_block_index) and the address of its 64
 *  bytes (bb_block_of), for every kind with 64-byte blocks and every kernel; nothing else
 *  computes either. bb_block_of takes a const payload and returns it writable, as strchr
 *  does, so that adds and lookups share it. always_inline: in the concurrent kernels' per-k
 *  copies GCC 12 otherwise reaches its large-function-growth limit and stops inlining the
 *  block updates there (conc_avx512.c). */
static inline uint64_t bb_block_index(uint64_t h, uint64_t blocks) {
    return bb_fastrange64(h, blocks);
}
static inline __attribute__((always_inline)) uint8_t *bb_block_of(const uint8_t *data,
                                                                  uint64_t blocks, uint64_t h) {
    return (uint8_t *)data + bb_block_index(h, blocks) * BB_BLOCK_BYTES;
}

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

/* Bit p & 7 for in-block position p (0 .. 511): a probe's mask within its byte p >> 3, loaded
 * instead of shifted. x86 takes a variable shift count in CL only, so the shift cost a move
 * of the count, an AND and a move of the 1 per probe. Static here rather than defined once,
 * because the benchmark compiles the kernel loops outside the library (bench/floors.c); a
 * file that never sets a bit drops it. */
#define BB_PM1(p) (uint8_t)(1u << ((p) & 7)),
#define BB_PM8(p) BB_PM1(p) BB_PM1(p + 1) BB_PM1(p + 2) BB_PM1(p + 3) BB_PM1(p + 4) \
    BB_PM1(p + 5) BB_PM1(p + 6) BB_PM1(p + 7)
#define BB_PM64(p) BB_PM8(p) BB_PM8(p + 8) BB_PM8(p + 16) BB_PM8(p + 24) BB_PM8(p + 32) \
    BB_PM8(p + 40) BB_PM8(p + 48) BB_PM8(p + 56)
static const uint8_t bb_probe_masks[512] = {BB_PM64(0) BB_PM64(64) BB_PM64(128) BB_PM64(192)
                                     BB_PM64(256) BB_PM64(320) BB_PM64(384) BB_PM64(448)};
_Static_assert(BB_BLOCK_BITS == 512, "bb_probe_masks lists 512 positions");

/** Reference: set the k probe bits of hash-low-half lo in one block (also the scalar kernel's
 *  add, which Zen 1's adds run on, dispatch.c). The masks come from the table: 0.82x the time
 *  of shifting them at 10^6 keys (Zen 4, EPYC family 25 model 17, forced scalar, k = 6). */
static inline void bb_block_set(uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo;
    for (unsigned j = 0; j < k; j++) {
        uint32_t p = bb_probe_next(&x);
        block[p >> 3] |= bb_probe_masks[p];
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
    /** bb_contains_hash of a blocked filter: the block of h, then block_test, in one call. */
    bool (*contains_one)(const uint8_t *data, uint64_t blocks, unsigned k, uint64_t h);
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
extern const bb_kernel bb_kernel_avx512gfni;
#endif
extern const bb_kernel bb_kernel_neon;

/** The kernels that run each operation (dispatch.c's ISA table): chosen once, on first use,
 *  then one acquire load. `contains` also runs the single-key tests. */
struct bb_conc_kernel;
struct bb_split_kernel;
typedef struct bb_dispatch {
    const bb_kernel *contains;
    const bb_kernel *add;
    /** Concurrent adds of blocked filters: the add kernel's ISA (kernels/conc_*.c). */
    const struct bb_conc_kernel *conc;
    /** In filters whose payload is larger than large_bytes (a per-CPU row's choice,
     *  dispatch.c; with none, UINT64_MAX and these repeat the small filters' kernels):
     *  adds of hashes into blocked filters run on add_large, concurrent ones on conc_large;
     *  batches of keys (the kinds' *_warm entries) run blocked adds on keys_add, blocked
     *  contains on keys_contains and both sectorized operations on keys_sect. */
    uint64_t large_bytes;
    const bb_kernel *add_large;
    const struct bb_conc_kernel *conc_large;
    const bb_kernel *keys_add;
    const bb_kernel *keys_contains;
    const bb_kernel *keys_sect;
    /** Split-block filters, every operation: the contains kernel's ISA (kernels/split_*.c). */
    const struct bb_split_kernel *split;
    /** The sectorized kind's kernel, both operations (kernels/sectorized_*.c). */
    const bb_kernel *sect;
    /** Batch lookups of keys in filters of block_lines rows whose payload is larger than
     *  this (a per-CPU row's choice; UINT64_MAX with none) prefetch each key's line as it is
     *  hashed, in chunks of BB_CHUNK_INLINE keys, instead of a chunk's lines after hashing
     *  it (batch.c). A property of the CPU, the same in every ISA's table. */
    uint64_t inline_pf_bytes;
    /** The same for batch adds of keys. */
    uint64_t inline_pf_add_bytes;
    /** Batch adds of pre-computed hashes into filters whose payload is smaller than this (a
     *  per-CPU row's choice; 0 with none) stay on one thread whatever bb_set_threads says
     *  (threads.c). A property of the CPU, the same in every ISA's table. */
    uint64_t split_add_bytes;
} bb_dispatch;

extern _Atomic(const bb_dispatch *) bb_active_dispatch;
__attribute__((cold)) const bb_dispatch *bb_dispatch_choose(void);
static inline const bb_dispatch *bb_dispatch_active(void) {
    const bb_dispatch *d = atomic_load_explicit(&bb_active_dispatch, memory_order_acquire);
    return d ? d : bb_dispatch_choose();
}
/** The kernel of batch and single-key contains. */
static inline const bb_kernel *bb_kernel_active(void) { return bb_dispatch_active()->contains; }
/** The kernel of batch adds into a blocked payload of `bytes` bytes. */
static inline const bb_kernel *bb_kernel_add_active(uint64_t bytes) {
    const bb_dispatch *d = bb_dispatch_active();
    return bytes > d->large_bytes ? d->add_large : d->add;
}

/* ---- Concurrent adds under stripe locks (concurrent.c, kernels/conc_*.c) -----------------
 * A blocked filter's blocks are split into at most BB_STRIPES runs of consecutive blocks
 * (stripes), each with a spin lock on its own cache line. A concurrent batch groups its keys
 * by stripe and updates each stripe's blocks while holding its lock: one locked instruction
 * per stripe of a chunk instead of one per new bit (concurrent.c says why and what it
 * costs). Writers hold the lock, so they may read the payload with plain loads; they store
 * its 64-bit words (or bytes: kernels/conc_scalar.c) with relaxed atomic stores, which the
 * readers' relaxed atomic loads may run beside. */
#define BB_STRIPES 16u
typedef struct bb_stripes {
    struct {
        _Alignas(64) _Atomic uint32_t held;
    } lock[BB_STRIPES];
    /* Batches of the fast path's size in progress, plus writers waiting for a stripe. */
    _Alignas(64) _Atomic uint32_t writers;
} bb_stripes;

/** A blocked filter's concurrent add kernel: adds hashes[0 .. n) taking the stripe locks of
 *  st; with `count`, returns how many keys set a bit that was clear (without, any number:
 *  the kernel may then take paths that cannot tell). */
typedef struct bb_conc_kernel {
    bb_isa isa;
    size_t (*add_hashes)(uint8_t *data, uint64_t blocks, unsigned k, bb_stripes *st,
                         const uint64_t *hashes, size_t n, bool count);
} bb_conc_kernel;

extern const bb_conc_kernel bb_conc_kernel_scalar;
#if defined(__x86_64__) || defined(__i386__)
extern const bb_conc_kernel bb_conc_kernel_avx2, bb_conc_kernel_avx512, bb_conc_kernel_avx512gfni;
#endif
/** The kernels of batches of keys into a blocked payload of `bytes` bytes: contains, adds. */
static inline const bb_kernel *bb_kernel_keys_contains(uint64_t bytes) {
    const bb_dispatch *d = bb_dispatch_active();
    return bytes > d->large_bytes ? d->keys_contains : d->contains;
}
static inline const bb_kernel *bb_kernel_keys_add(uint64_t bytes) {
    const bb_dispatch *d = bb_dispatch_active();
    return bytes > d->large_bytes ? d->keys_add : d->add;
}
/** The sectorized kernel of batches of keys, adds and contains, into `bytes` bytes. */
static inline const bb_kernel *bb_kernel_keys_sect(uint64_t bytes) {
    const bb_dispatch *d = bb_dispatch_active();
    return bytes > d->large_bytes ? d->keys_sect : d->sect;
}
/** The kernel of concurrent batch adds into a blocked payload of `bytes` bytes. */
static inline const bb_conc_kernel *bb_conc_kernel_active(uint64_t bytes) {
    const bb_dispatch *d = bb_dispatch_active();
    return bytes > d->large_bytes ? d->conc_large : d->conc;
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
    uint64_t blocks;        /* bits / the kind's block_bits; 0 for kinds without blocks */
    uint64_t capacity;
    double fpr_target;
    uint64_t seed;
    uint64_t keys_added;
    uint8_t *data;          /* payload, 64-byte aligned */
    uint64_t payload_bytes;
    bb_storage storage;
    void *map_base;         /* mapping to release (heap or file) */
    size_t map_len;
    /* BB_SCALABLE only (kinds/scalable.c): the stack of blocked sub-filters, oldest first;
     * data is NULL. Each sub-filter keeps its own capacity, fpr_target and keys_added (the
     * keys added to it); the parent's keys_added, bits and blocks are the sums over its
     * sub-filters and its k is the newest one's. */
    bb_filter **subs;
    size_t n_subs, subs_cap;
    double growth, tightening;
    unsigned flags;
    /* What the keys are (keyscheme.c); saved as the version-2 record when not plain. */
    bb_key_scheme scheme;
    /* The locks of striped concurrent adds, made by the first one (concurrent.c); freed
     * with the object. */
    _Atomic(bb_stripes *) stripes;
    /* bb_set_threads: batch calls may run on this many threads; 0 (calloc) means 1. */
    unsigned threads;
};

/* ---- Hashing (hash.c, the only file that includes xxhash.h) ------------------------------ */
/** The key hash of a kind (its row's `hash`). */
typedef enum bb_hash_alg { BB_HASH_XXH3 = 0, BB_HASH_XXH64 = 1 } bb_hash_alg;

uint64_t bb_xxh3(const void *key, size_t len, uint64_t seed);
/** The hash of one key with algorithm alg. */
uint64_t bb_hash_bytes(bb_hash_alg alg, const void *key, size_t len, uint64_t seed);

/* ---- The kinds table ----------------------------------------------------------------------
 * One row per bb_kind, each defined in its own file src/kinds/<kind>.c; the table itself is
 * src/kinds/table.c. The generic files (filter.c, batch.c, format.c, union.c, concurrent.c)
 * reach a kind only through its row and never name one. Entries marked "NULL =" are
 * optional, with the generic behaviour given; the others are required.
 *
 * Layering (no call goes back up): the generic files call rows; rows call the object helpers
 * (object.c, fill.c), the math (sizing.c), hashing (hash.c) and the kernels; a row may use
 * another row below it (scalable builds on blocked), never the generic files. So the object
 * helpers read only a row's data fields (block_bits, cell_bits), never its functions. */
/** The kernel column of dispatch.c's ISA table a kind's adds and lookups run on; portable:
 *  none, plain C (classic, counting). */
typedef enum bb_layout {
    BB_LAYOUT_PORTABLE = 0,
    BB_LAYOUT_BLOCKED,
    BB_LAYOUT_SPLIT,
    BB_LAYOUT_SECTORIZED
} bb_layout;

typedef struct bb_kind_ops {
    bb_kind kind;
    const char *name;
    /* Geometry, as data. bits must be a multiple of block_bits (0 = no blocks) and
     * blocks = bits / block_bits; the payload holds cell_bits bits per filter bit
     * (ceil(bits * cell_bits / 8) bytes; 0 = no payload of its own: a nested kind). */
    unsigned block_bits;
    unsigned cell_bits;
    unsigned fixed_k;     /* the only k the layout has (split: 8); 0 = any in 1..BB_MAX_K */
    uint32_t k_set;       /* the k the layout has, as bits 1 << k (sectorized); 0 = any */
    uint64_t max_bits;    /* largest bits the layout indexes; 0 = BB_MAX_BITS */
    unsigned flags;       /* bb_config.flags the generic create accepts (BB_POW2_BYTES) */
    bool foldable;        /* bit payload, multiply-shift block index: bb_fold halves it */
    bb_hash_alg hash;     /* how keys become hashes */
    bb_layout layout;     /* whose kernels serve its adds and lookups (dispatch.c's columns) */

    /* Sizing: this layout's functions from sizing.c; the public wrappers (filter.c) check
     * the arguments first (capacity >= 1, 0 < p < 1, 1 <= k <= BB_MAX_K, bits >= 1 and a
     * multiple of block_bits). NULL = the kind has no single geometry: BB_E_INVAL. */
    bb_status (*size)(uint64_t capacity, double fpr, uint64_t *bits, unsigned *k);
    bb_status (*size_for_k)(uint64_t capacity, double fpr, unsigned k, uint64_t *bits);
    unsigned (*best_k)(uint64_t capacity, uint64_t bits);
    double (*fpr_model)(double n_keys, uint64_t bits, unsigned k);

    /* Lifetime. NULL = the generic flat object: create from the config's geometry
     * (filter.c), bb_flat_clone, bb_flat_clear, nothing to release besides the payload. */
    bb_status (*create)(bb_filter **out, const bb_config *cfg);
    bb_status (*clone)(bb_filter **out, const bb_filter *f);
    void (*clear)(bb_filter *f);
    void (*release)(bb_filter *f); /* frees what f owns besides its payload and itself */

    /* Keys, as 64-bit hashes. add and add_hashes count what they add in keys_added. The
     * batch calls: NULL = each hash in turn through add / contains (batch.c). */
    bb_status (*add)(bb_filter *f, uint64_t h);
    bool (*contains)(const bb_filter *f, uint64_t h);
    bb_status (*add_hashes)(bb_filter *f, const uint64_t *h, size_t n);
    /** add_hashes for hashes whose lines batch.c's string pipeline has just prefetched into
     *  L2 (hash_chunk); NULL: add_hashes serves them too. */
    bb_status (*add_hashes_warm)(bb_filter *f, const uint64_t *h, size_t n);
    /** out[i] for h[0 .. n); returns the number of 1s. */
    size_t (*contains_hashes)(const bb_filter *f, const uint64_t *h, size_t n, uint8_t *out);
    /** contains_hashes for hashes whose lines the pipeline prefetched, as add_hashes_warm. */
    size_t (*contains_hashes_warm)(const bb_filter *f, const uint64_t *h, size_t n,
                                   uint8_t *out);
    /** The memory a key's add or contains touches, for prefetching while a batch is hashed.
     *  NULL = not worth it (no single line per key). Non-decreasing in h: threads.c cuts a
     *  batch add into runs of lines by intervals of hashes. */
    const uint8_t *(*line_of)(const bb_filter *f, uint64_t h);
    /** Optional batch form of line_of used while a batch is hashed: prefetch the lines of
     *  h[0 .. n) into L2. One call per group of keys instead of an indirect call per key
     *  (scripts/cachegrind.sh, string batch lookups of a 512 MiB blocked filter: 102.2 ->
     *  97.0 instructions per key on the AVX2 kernel). */
    void (*prefetch_lines)(const bb_filter *f, const uint64_t *h, size_t n);
    /** Whether line_of is bb_block_of(f->data, f->blocks, h), which the grouped hashing can
     *  then prefetch itself as each hash is known (bb_hash_keys_prefetch). */
    bool block_lines;
    /** NULL = BB_E_UNSUPPORTED. */
    bb_status (*remove)(bb_filter *f, uint64_t h);
    /** Adds safe against other concurrent adds; true if some bit was new. NULL = no
     *  concurrent build (BB_E_UNSUPPORTED), and reads then use contains. */
    bool (*add_concurrent)(bb_filter *f, uint64_t h); /* (with add_striped NULL) */
    bool (*contains_concurrent)(const bb_filter *f, uint64_t h);
    /** Instead of add_concurrent, for kinds whose key touches one block: adds h[0 .. n)
     *  under the stripe locks st ("Concurrent adds under stripe locks"); with `count`,
     *  returns how many were new. */
    size_t (*add_striped)(bb_filter *f, bb_stripes *st, const uint64_t *h, size_t n, bool count);

    /* Info and union. */
    bb_status (*info)(const bb_filter *f, bb_info *out);
    /** NULL = bb_geometry_mismatch. */
    bb_mismatch (*union_check)(const bb_filter *a, const bb_filter *b);
    /** dst |= src for filters union_check matched (and the keys_added sum). */
    void (*merge)(bb_filter *dst, const bb_filter *src);

    /* File format (format.c; header layout in format.h). */
    /** Payload bytes other than the header's own fields allow; NULL = any bytes. */
    bool (*payload_valid)(const bb_filter *h, const uint8_t *payload);
    /** Header bytes [BB_HDR_KIND_FIELDS, + hdr_own_bytes) belong to the kind: hdr_put writes
     *  them (and may overwrite generic fields), hdr_get reads and checks them into h.
     *  hdr_own_bytes = 0: both NULL, and the bytes must be zero. */
    unsigned hdr_own_bytes;
    void (*hdr_put)(const bb_filter *f, uint8_t *hdr);
    bb_status (*hdr_get)(const uint8_t *hdr, bb_filter *h);
    /** Nested kinds (payload = complete records of flat sub-filters, oldest first). NULL for
     *  flat kinds. subs: the sub-filters; shell: an empty parent from a checked header;
     *  adopt: append a sub-filter (f owns it on BB_OK only; BB_E_INCONSISTENT for one that
     *  cannot belong); agrees: the adopted stack matches the header. */
    size_t (*subs)(const bb_filter *f, bb_filter *const **subs);
    bb_status (*shell)(bb_filter **out, const bb_filter *h);
    bb_status (*adopt)(bb_filter *f, bb_filter *sub);
    bool (*agrees)(const bb_filter *f, const bb_filter *h);
} bb_kind_ops;

extern const bb_kind_ops bb_kind_blocked, bb_kind_classic, bb_kind_counting, bb_kind_scalable,
    bb_kind_split, bb_kind_sectorized;

/** Whether the layout of `row` has k (1 <= k <= BB_MAX_K checked apart). */
static inline bool bb_row_has_k(const bb_kind_ops *row, unsigned k) {
    if (row->fixed_k && k != row->fixed_k) return false;
    return !row->k_set || (k < 32 && (row->k_set >> k & 1));
}

/** The row of `kind`, or NULL for a value that is not a kind (table.c). */
const bb_kind_ops *bb_kind_row(bb_kind kind);
/** The rows (kinds/table.c), indexed by bb_kind. */
#define BB_KIND_ROWS (BB_SECTORIZED + 1)
extern const bb_kind_ops *const bb_kind_rows[BB_KIND_ROWS];
/** The row of a filter: its kind is always a valid row (checked when created or loaded), so
 *  this is one load, inlined into the single-key calls. */
static inline const bb_kind_ops *bb_row(const bb_filter *f) { return bb_kind_rows[f->kind]; }
/** A batch add of one-line-per-key kinds on kernel k, counting the keys (their add rows). */
static inline bb_status bb_kernel_add(const bb_kernel *k, bb_filter *f, const uint64_t *h,
                                      size_t n) {
    k->add_hashes(f->data, f->blocks, f->k, h, n);
    f->keys_added = bb_sat_add(f->keys_added, n);
    return BB_OK;
}

/** Geometry (bits, k) that bb_create gives a flat kind's config (filter.c); also used by
 *  slice.c so that a slice is exactly a range of the filter bb_create would make. */
bb_status bb_config_geometry(const bb_config *cfg, uint64_t *bits, unsigned *k);
/** cfg->size checked, then its first cfg->size bytes into *c, zeros after (abi.h). */
bb_status bb_config_read(const bb_config *cfg, bb_config *c);

/* ---- Object helpers (object.c), for the generic files and the rows ---------------------- */
/** Allocate a filter object with a zeroed, aligned payload for (kind, bits, k): BB_E_INVAL for
 *  bits 0, k outside 1..BB_MAX_K, a nested kind or bits not whole blocks; BB_E_TOO_LARGE;
 *  BB_E_NOMEM. */
bb_status bb_filter_alloc(bb_filter **out, bb_kind kind, uint64_t bits, unsigned k,
                          uint64_t seed);
/** Payload bytes of `bits` bits of this row's layout. */
uint64_t bb_payload_bytes(const bb_kind_ops *row, uint64_t bits);
/** Release f's payload (or mapping) and f itself, nothing else. */
void bb_filter_destroy(bb_filter *f);
/** A copy of flat filter f: geometry, counters and payload. */
bb_status bb_flat_clone(bb_filter **out, const bb_filter *f);
/** Zero flat filter f's payload and keys_added. */
void bb_flat_clear(bb_filter *f);
/** The fields of bb_info that are stored in the object: everything but the ones computed
 *  from the payload (bits_set, fill_ratio, fpr_estimate, cardinality_estimate,
 *  saturated_counters), which are zeroed; subfilters = 1. */
void bb_info_fields(const bb_filter *f, bb_info *out);
/** The first field in which two filters' geometry differs: kind, bits, k, seed. */
bb_mismatch bb_geometry_mismatch(const bb_filter *a, const bb_filter *b);
/** dst's payload |= src's, and dst->keys_added += src's (a row's merge for bit payloads). */
void bb_merge_or(bb_filter *dst, const bb_filter *src);

/* ---- Fill statistics (fill.c) ------------------------------------------------------------ */
uint64_t bb_popcount_bytes(const uint8_t *p, uint64_t n);
/** Keys in m positions of which x are set by k uniform probes each: -(m/k) ln(1 - x/m)
 *  (Swamidass and Baldi 2007), INFINITY when x = m. */
double bb_cardinality(double m, double x, unsigned k);
/** Sums over blocks (a classic filter is one block of all its bits) for bb_info's estimates. */
typedef struct bb_fill {
    uint64_t bits_set, saturated, blocks;
    double fpr_sum, cardinality;
} bb_fill;
/** Account one block of `block_bits` positions of which x are set, probed k times. */
void bb_fill_block(bb_fill *acc, uint64_t x, uint64_t block_bits, unsigned k);
/** bits_set, fill_ratio (over `bits`), fpr_estimate (mean over blocks), cardinality_estimate
 *  and saturated_counters of *out from the sums. */
void bb_fill_store(const bb_fill *acc, uint64_t bits, bb_info *out);

/* ---- Memory (alloc.c) --------------------------------------------------------------------- */
/** Zeroed, 64-byte-aligned memory of `bytes` bytes (large ones get transparent huge pages).
 *  *base and *len receive what bb_mem_free needs. NULL on failure. */
void *bb_mem_alloc(uint64_t bytes, void **base, size_t *len);
void bb_mem_free(void *base, size_t len);

/* ---- Batches of keys (batch.c, hash.c) --------------------------------------------------- */
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

/** hashes[j] = hash alg of key first + j with seed, for j < count. */
void bb_hash_keys(const bb_keysrc *src, bb_hash_alg alg, uint64_t seed, size_t first,
                  size_t count, uint64_t *hashes);
/** Whether bb_hash_keys hashes keys of this shape grouped by length class (xxh3_group.h):
 *  variable-length keys under XXH3. */
bool bb_hash_grouped(const bb_keysrc *src, bb_hash_alg alg);
/** As bb_hash_keys for a shape bb_hash_grouped accepts (XXH3), and each key's block
 *  bb_block_of(data, blocks, hash) is prefetched into L2 as soon as its hash is known. */
void bb_hash_keys_prefetch(const bb_keysrc *src, uint64_t seed, size_t first, size_t count,
                           uint64_t *hashes, const uint8_t *data, uint64_t blocks);

/* ---- The library's own threads (threads.c) ---------------------------------------------- */
/** How many threads a batch of n keys into (add) or against f runs on: 1 unless
 *  bb_set_threads asked for more, the kind's adds can be partitioned by line, and the batch
 *  (its keys, or the bytes of src's keys, validated; src NULL: pre-computed hashes) is large
 *  enough to pay for starting them. */
unsigned bb_threads_for(const bb_filter *f, const bb_keysrc *src, size_t n, bool add);
/** Answers keys [first, first + count) of a contains batch; returns the number of 1s. */
typedef size_t (*bb_range_fn)(void *ctx, size_t first, size_t count);
/** Split keys [0, n) among up to t threads (fn on each part) and join them; the 1s' sum. */
size_t bb_threads_contains(unsigned t, size_t n, bb_range_fn fn, void *ctx);
/** Add n keys (hashes, or src's keys when hashes is NULL; src validated) on up to t threads,
 *  partitioned by line, and count them in keys_added. false: nothing was done (no memory for
 *  the plan), and the caller adds them on its own thread. */
bool bb_threads_add(bb_filter *f, unsigned t, const bb_keysrc *src, const uint64_t *hashes,
                    size_t n);

/* ---- Sizing (sizing.c): every layout's model, for the rows ------------------------------- */
double bb_blocked_fpr_model(double n_keys, uint64_t blocks, unsigned k);
double bb_blocked_fpr(double n_keys, uint64_t bits, unsigned k);
bb_status bb_blocked_size(uint64_t capacity, double fpr, uint64_t *bits, unsigned *k);
/** Standard deviation of one blocked filter's FPR around bb_blocked_fpr_model (the spread
 *  between filters of the same geometry holding different keys). */
double bb_blocked_fpr_sd(double n_keys, uint64_t blocks, unsigned k);
/** As bb_blocked_size, but the model plus BB_SURE_Z of those standard deviations must be
 *  <= fpr: the filter meets fpr with high probability, not only on average (scalable
 *  sub-filters; why, in src/kinds/scalable.c). 3.3 sigma: two-sided 99.9%. */
#define BB_SURE_Z 3.3
bb_status bb_blocked_size_sure(uint64_t capacity, double fpr, uint64_t *bits, unsigned *k);
/** Fewest bits (whole blocks, or any for classic) whose model FPR with exactly k probes is
 *  <= fpr for `capacity` keys; BB_E_TOO_LARGE beyond BB_MAX_BITS. */
bb_status bb_blocked_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits);
unsigned bb_blocked_best_k(uint64_t capacity, uint64_t bits);
double bb_classic_fpr(double n_keys, uint64_t bits, unsigned k);
bb_status bb_classic_size(uint64_t capacity, double fpr, uint64_t *bits, unsigned *k);
bb_status bb_classic_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits);
unsigned bb_classic_best_k(uint64_t capacity, uint64_t bits);
/** Split-block (Parquet): 256-bit blocks, k = 8; sizes up to max_bits. */
#define BB_SPLIT_BLOCK_BITS 256u
#define BB_SPLIT_BLOCK_BYTES 32u
#define BB_SPLIT_K 8u
#define BB_SPLIT_MAX_BITS (UINT64_C(1) << 40) /* 2^32 blocks: ((h >> 32) z) >> 32 fits */
double bb_split_fpr_model(double n_keys, uint64_t blocks);
double bb_split_fpr(double n_keys, uint64_t bits, unsigned k);
bb_status bb_split_size(uint64_t capacity, double fpr, uint64_t *bits, unsigned *k);
bb_status bb_split_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits);
unsigned bb_split_best_k(uint64_t capacity, uint64_t bits);

/* ---- The split-block probe scheme and kernels (kinds/split.c, kernels/split_*.c) ---------
 * Apache Parquet BloomFilter.md: hash h picks block ((h >> 32) * z) >> 32 of z blocks of 8
 * little-endian uint32 words, and sets bit (lo32(h) * salt[i]) >> 27 of word i. */
extern const uint32_t bb_split_salts[8];

/** The block of hash h: its number and the address of its 32 bytes (as bb_block_of). */
static inline uint64_t bb_split_block_index(uint64_t h, uint64_t blocks) {
    return ((h >> 32) * blocks) >> 32; /* blocks <= 2^32: no overflow */
}
static inline uint8_t *bb_split_block_of(const uint8_t *data, uint64_t blocks, uint64_t h) {
    return (uint8_t *)(uintptr_t)data + bb_split_block_index(h, blocks) * BB_SPLIT_BLOCK_BYTES;
}

/** Reference: bit (word * 32 + bit) of a block is bit (bit & 7) of byte word * 4 + bit / 8,
 *  the little-endian word view on bytes (endian-neutral). */
static inline void bb_split_block_set(uint8_t *block, uint32_t lo) {
    for (unsigned i = 0; i < 8; i++) {
        uint32_t b = (lo * bb_split_salts[i]) >> 27;
        block[4 * i + (b >> 3)] |= (uint8_t)(1u << (b & 7));
    }
}

typedef struct bb_split_kernel {
    bb_isa isa;
    const char *name;
    bool (*block_test)(const uint8_t *block, uint32_t lo);
    /** out[i] for hashes[0..n); returns the number of 1s. */
    size_t (*contains_hashes)(const uint8_t *data, uint64_t blocks, const uint64_t *hashes,
                              size_t n, uint8_t *out);
    void (*add_hashes)(uint8_t *data, uint64_t blocks, const uint64_t *hashes, size_t n);
} bb_split_kernel;

extern const bb_split_kernel bb_split_kernel_scalar, bb_split_kernel_neon;
#if defined(__x86_64__) || defined(__i386__)
extern const bb_split_kernel bb_split_kernel_avx2;
#endif
/** The kernel of split-block filters. */
static inline const bb_split_kernel *bb_split_kernel_active(void) {
    return bb_dispatch_active()->split;
}

/* ---- The sectorized probe scheme (kinds/sectorized.c, kernels/sectorized_*.c) -----------
 * A key picks line floor(h B / 2^64) of B 64-byte lines (bb_block_index, as the blocked
 * kind), a line being 8 little-endian 64-bit words. With lo = lo32(h), probe j (0 .. k) sets
 * bit (lo * salt[j]) >> 26 of word first + j % w, where w = min(k, 8) words per key and
 * first = ((lo * salt[16]) >> 29) & (8 - w) picks the key's run of w words (0 when k >= 8).
 * So k = 8 sets one bit in each word, k = 16 two, and k = 1, 2, 4 one bit in each word of an
 * aligned run of k words; no other k (sizing.c gives the model of each). */
#define BB_SECT_WORDS 8u
#define BB_SECT_KS ((1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16))
extern const uint64_t bb_sect_salts[17]; /* odd 32-bit values, in 64-bit lanes for vpmuludq */

static inline unsigned bb_sect_width(unsigned k) { return k < BB_SECT_WORDS ? k : BB_SECT_WORDS; }

/** Bit 0 .. 63 of probe j. */
static inline unsigned bb_sect_bit(uint32_t lo, unsigned j) {
    return (lo * (uint32_t)bb_sect_salts[j]) >> 26;
}

/** First word of the key's run (0 for k >= 8). */
static inline unsigned bb_sect_first(uint32_t lo, unsigned k) {
    return ((lo * (uint32_t)bb_sect_salts[16]) >> 29) & (BB_SECT_WORDS - bb_sect_width(k));
}

/** Reference: set the k probe bits of lo in a line; bit b of word i is bit (b & 7) of byte
 *  8 i + b / 8 (the little-endian word view, endian-neutral). */
static inline void bb_sect_line_set(uint8_t *line, uint32_t lo, unsigned k) {
    unsigned w = bb_sect_width(k), first = bb_sect_first(lo, k);
    for (unsigned j = 0; j < k; j++) {
        unsigned b = bb_sect_bit(lo, j);
        line[8 * (first + j % w) + (b >> 3)] |= (uint8_t)(1u << (b & 7));
    }
}

/** Reference test, branch-free over the probes (batches of absent keys do not mispredict). */
static inline bool bb_sect_line_test(const uint8_t *line, uint32_t lo, unsigned k) {
    unsigned w = bb_sect_width(k), first = bb_sect_first(lo, k), all = 1;
    for (unsigned j = 0; j < k; j++) {
        unsigned b = bb_sect_bit(lo, j);
        all &= (unsigned)(line[8 * (first + j % w) + (b >> 3)] >> (b & 7));
    }
    return all & 1;
}

/* The kernels (src/kernels/sectorized_<isa>.c) are bb_kernel tables made by the blocked
 * kernels' loops (kernels/blocked_loops.h) around a sectorized line test and set: a line
 * is a block. */
extern const bb_kernel bb_kernel_sectorized_scalar, bb_kernel_sectorized_neon;
#if defined(__x86_64__) || defined(__i386__)
extern const bb_kernel bb_kernel_sectorized_avx2, bb_kernel_sectorized_avx512;
#endif

/* Sizing (sizing.c). */
double bb_sect_fpr(double n_keys, uint64_t bits, unsigned k);
bb_status bb_sect_size(uint64_t capacity, double fpr, uint64_t *bits, unsigned *k);
bb_status bb_sect_size_for_k(uint64_t capacity, double fpr, unsigned k, uint64_t *bits);
unsigned bb_sect_best_k(uint64_t capacity, uint64_t bits);

/* ---- Key-scheme record (keyscheme.c; FORMAT.md, "Version 2") ----------------------------- */
#define BB_SCHEME_RECORD_BYTES 64u
/** The record of f's scheme (f->scheme.keys != BB_KEYS_PLAIN). */
void bb_scheme_encode(const bb_filter *f, uint8_t rec[BB_SCHEME_RECORD_BYTES]);
/** Validate a record into *out: BB_OK, BB_E_CORRUPT (checksum), BB_E_UNSUPPORTED (a record
 *  type or scheme of a newer library), BB_E_INCONSISTENT (bad fields). */
bb_status bb_scheme_decode(const uint8_t rec[BB_SCHEME_RECORD_BYTES], bb_key_scheme *out);
/** Whether ks is a valid scheme (keys known, prefixes only for CIDR, lengths <= 128). */
bool bb_scheme_valid(const bb_key_scheme *ks);

#endif /* BB_INTERNAL_H */
