/* SPDX-License-Identifier: MIT */
/*
 * test_kernels.c - every SIMD kernel against the specification, and golden vectors.
 *
 * For each available kernel (scalar, avx2, avx512, avx512gfni, neon; the one a CPU lacks is
 * reported and skipped) and every k in 1..16 over several block counts (one block, odd counts), a filter
 * is built and compared with a bit array that the test derives itself from the documented
 * probe scheme (testutil.h): its serialized payload must be byte-identical, and every query
 * path (bb_contains, bb_contains_hash, all five batch shapes, at every batch length 0..70)
 * must give the answers the derived bit array gives. Golden vectors pin XXH3-64 to the
 * values published by xxHash, and the payload of two small filters to literal checksums, so a
 * change of hash, probe scheme or layout cannot go unnoticed even if all kernels agree.
 */
#include "testutil.h"

#define SEED 42u
#define MAX_PROBES 8000u
#define MAX_BATCH 70u

/* ---- Filter bytes through the public API ---------------------------------------------------
 * The format (docs/FORMAT.md) is a header followed by the payload exactly as in memory, so
 * the payload is the last payload_bytes bytes of bb_serialize's output. */
static uint8_t *serialize(const bb_filter *f, size_t *len) {
    uint64_t size = 0;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *buf = malloc((size_t)size);
    cr_assert_not_null(buf);
    size_t written = 0;
    cr_assert_eq(bb_serialize(f, buf, (size_t)size, &written), BB_OK);
    cr_assert_eq(written, size);
    *len = written;
    return buf;
}

static void assert_payload(const bb_filter *f, const uint8_t *want, size_t want_len,
                           const char *what) {
    size_t len;
    uint8_t *buf = serialize(f, &len);
    cr_assert(len > want_len, "%s: serialized %zu bytes, payload alone is %zu", what, len,
              want_len);
    const uint8_t *payload = buf + (len - want_len);
    for (size_t i = 0; i < want_len; i++)
        cr_assert_eq(payload[i], want[i], "%s: payload byte %zu is 0x%02x, spec says 0x%02x",
                     what, i, payload[i], want[i]);
    free(buf);
}

static uint64_t block_bits(bb_kind kind) { return kind == BB_SPLIT ? 256 : 512; }

static uint64_t popcount(const uint8_t *b, size_t n) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcount(b[i]);
    return c;
}

/* ---- One geometry under one kernel ----------------------------------------------------------
 * Probe keys: a sample of the inserted keys (tag 1) and as many absent ones (tag 2), laid out
 * in every batch shape at once: packed 16-byte keys (fixed, Arrow offsets, pointers) and
 * hashes. */
typedef struct probes {
    size_t n;
    uint8_t *keys;            /* n x 16 bytes */
    const void **ptrs;
    size_t *lens;
    int32_t *off32;           /* n + 1 */
    int64_t *off64;
    uint64_t *hashes;
    uint8_t *want;            /* answers of the derived bit array */
    size_t want_hits;
} probes;

static void probes_init(probes *p, bb_kind kind, size_t n_in, size_t n_out, uint64_t seed) {
    p->n = n_in + n_out;
    p->keys = malloc(p->n * TU_KEY_BYTES);
    p->ptrs = malloc(p->n * sizeof *p->ptrs);
    p->lens = malloc(p->n * sizeof *p->lens);
    p->off32 = malloc((p->n + 1) * sizeof *p->off32);
    p->off64 = malloc((p->n + 1) * sizeof *p->off64);
    p->hashes = malloc(p->n * sizeof *p->hashes);
    p->want = malloc(p->n);
    cr_assert(p->keys && p->ptrs && p->lens && p->off32 && p->off64 && p->hashes && p->want);
    bb_filter *h = NULL; /* only for bb_hash with this seed (and the kind's hash) */
    cr_assert_eq(bb_create(&h, TU_CFG(.kind = kind, .bits = 512, .k = kind == BB_SPLIT ? 8 : 1,
                                      .seed = seed)),
                 BB_OK);
    for (size_t i = 0; i < p->n; i++) {
        uint8_t *k = p->keys + i * TU_KEY_BYTES;
        tu_key(k, i < n_in ? 1 : 2, i < n_in ? i : i - n_in);
        p->ptrs[i] = k;
        p->lens[i] = TU_KEY_BYTES;
        p->off32[i] = (int32_t)(i * TU_KEY_BYTES);
        p->off64[i] = (int64_t)(i * TU_KEY_BYTES);
        p->hashes[i] = bb_hash(h, k, TU_KEY_BYTES);
    }
    p->off32[p->n] = (int32_t)(p->n * TU_KEY_BYTES);
    p->off64[p->n] = (int64_t)(p->n * TU_KEY_BYTES);
    bb_free(h);
}

static void probes_free(probes *p) {
    free(p->keys); free(p->ptrs); free(p->lens); free(p->off32); free(p->off64);
    free(p->hashes); free(p->want);
}

enum shape { SHAPE_PTRS, SHAPE_ARROW32, SHAPE_ARROW64, SHAPE_FIXED, SHAPE_HASHES, N_SHAPES };
static const char *const shape_names[N_SHAPES] = {"batch", "arrow32", "arrow64", "fixed",
                                                  "hashes"};

/* Query probes [first, first + n) through one batch shape. */
static bb_status query(const bb_filter *f, const probes *p, enum shape s, size_t first,
                       size_t n, uint8_t *out, size_t *hits) {
    switch (s) {
    case SHAPE_PTRS: return bb_contains_batch(f, p->ptrs + first, p->lens + first, n, out, hits);
    case SHAPE_ARROW32: return bb_contains_arrow32(f, p->keys, p->off32 + first, n, out, hits);
    case SHAPE_ARROW64: return bb_contains_arrow64(f, p->keys, p->off64 + first, n, out, hits);
    case SHAPE_FIXED:
        return bb_contains_fixed(f, p->keys + first * TU_KEY_BYTES, TU_KEY_BYTES, 0, n, out, hits);
    case SHAPE_HASHES: return bb_contains_hashes(f, p->hashes + first, n, out, hits);
    default: break;
    }
    return BB_E_INVAL;
}

static void check_batch(const bb_filter *f, const probes *p, enum shape s, size_t first,
                        size_t n, const char *what) {
    uint8_t *out = malloc(n + 1);
    cr_assert_not_null(out);
    memset(out, 0xEE, n + 1);
    size_t hits = (size_t)-1, want_hits = 0;
    cr_assert_eq(query(f, p, s, first, n, out, &hits), BB_OK, "%s %s", what, shape_names[s]);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(out[i], p->want[first + i], "%s: %s[%zu..+%zu] answer %zu is %u, spec %u",
                     what, shape_names[s], first, n, i, out[i], p->want[first + i]);
        want_hits += p->want[first + i];
    }
    cr_assert_eq(out[n], 0xEE, "%s: %s of length %zu wrote past its end", what, shape_names[s], n);
    cr_assert_eq(hits, want_hits, "%s: %s n_present %zu, expected %zu", what, shape_names[s],
                 hits, want_hits);
    free(out);
}

static void check_geometry(bb_kind kind, uint64_t blocks, unsigned k, const probes *p,
                           size_t n_in, const uint8_t *ref, const char *kernel) {
    char what[96];
    snprintf(what, sizeof what, "%s %s, %llu blocks, k=%u", kernel, bb_kind_name(kind),
             (unsigned long long)blocks, k);
    uint64_t bits = blocks * block_bits(kind);
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, TU_CFG(.kind = kind, .bits = bits, .k = k, .seed = SEED)), BB_OK);
    /* Insert the n_in keys of set 1: the first half by the kernel's batch add, the rest one
     * at a time (bb_add). The probes hold a prefix of them and absent keys of set 2. */
    uint8_t *in = tu_keys(1, n_in);
    cr_assert_eq(bb_add_fixed(f, in, TU_KEY_BYTES, 0, n_in / 2), BB_OK);
    for (size_t i = n_in / 2; i < n_in; i++)
        cr_assert_eq(bb_add(f, in + i * TU_KEY_BYTES, TU_KEY_BYTES), BB_OK);
    free(in);
    assert_payload(f, ref, bits / 8, what);
    for (size_t i = 0; i < p->n; i++) {
        bool a = bb_contains(f, p->keys + i * TU_KEY_BYTES, TU_KEY_BYTES);
        bool b = bb_contains_hash(f, p->hashes[i]);
        cr_assert_eq(a, p->want[i], "%s: bb_contains probe %zu answered %d, spec %d", what, i,
                     a, p->want[i]);
        cr_assert_eq(b, p->want[i], "%s: bb_contains_hash probe %zu answered %d, spec %d", what,
                     i, b, p->want[i]);
    }
    for (int s = 0; s < N_SHAPES; s++) {
        check_batch(f, p, (enum shape)s, 0, p->n, what);
        for (size_t len = 0; len <= MAX_BATCH; len++) /* windows at varying offsets */
            check_batch(f, p, (enum shape)s, (len * 37) % (p->n - len + 1), len, what);
    }
    bb_free(f);
}

/* Blocks: one, a few odd counts, a larger odd count, and an odd count past 2 MiB (40,009
 * blocks, 2.4 MiB), where the batch loops prefetch and string batches are pipelined across
 * chunks (src/kernels/prefetch.h): paths smaller filters never take. ~10 bits per key (fill
 * ~50% at k=7) so both answers occur often. k runs over 1..16 in steps of k_step. */
static void check_kind_blocks(bb_kind kind, uint64_t blocks, unsigned k_first, unsigned k_step) {
    uint64_t bits = blocks * block_bits(kind);
    size_t n_in = (size_t)(bits / 10);
    size_t n_probe_in = n_in < MAX_PROBES / 2 ? n_in : MAX_PROBES / 2;
    probes p;
    probes_init(&p, kind, n_probe_in, MAX_PROBES / 2, SEED);
    uint8_t *in = tu_keys(1, n_in);
    uint64_t *in_h = malloc(n_in * sizeof *in_h);
    uint8_t *ref = malloc(bits / 8);
    cr_assert(in_h && ref);
    { /* hashed as the kind hashes (XXH3; XXH64 for split), like the probes */
        bb_filter *h = NULL;
        cr_assert_eq(bb_create(&h, TU_CFG(.kind = kind, .bits = 512, .k = kind == BB_SPLIT ? 8 : 1,
                                          .seed = SEED)),
                     BB_OK);
        for (size_t i = 0; i < n_in; i++) in_h[i] = bb_hash(h, in + i * TU_KEY_BYTES, TU_KEY_BYTES);
        bb_free(h);
    }
    for (unsigned k = k_first; k <= BB_MAX_K; k += k_step) {
        memset(ref, 0, bits / 8);
        for (size_t i = 0; i < n_in; i++) tu_ref_add(ref, kind, bits, k, in_h[i]);
        p.want_hits = 0;
        for (size_t i = 0; i < p.n; i++) {
            p.want[i] = tu_ref_contains(ref, kind, bits, k, p.hashes[i]);
            p.want_hits += p.want[i];
        }
        cr_assert(p.want_hits >= n_probe_in && p.want_hits < p.n, "degenerate probe set");
        unsigned ran = 0;
        for (size_t i = 0; i < bb_isa_count(); i++) {
            if (!tu_use_isa(bb_isa_at(i))) continue;
            check_geometry(kind, blocks, k, &p, n_in, ref, bb_isa_to_string(bb_isa_at(i)));
            ran++;
        }
        cr_assert(ran >= 2, "only %u kernels ran", ran);
        if (kind == BB_SPLIT) break; /* k is always 8 */
    }
    free(in);
    free(in_h);
    free(ref);
    probes_free(&p);
}

static void check_blocks(uint64_t blocks, unsigned k_step) {
    check_kind_blocks(BB_BLOCKED, blocks, 1, k_step);
}

/* Split-block (Parquet): k is 8; the same block counts, as 256-bit blocks, and past 2 MiB
 * (80,021 blocks, 2.4 MiB) where its loops prefetch too. */
static void check_split_blocks(uint64_t blocks) { check_kind_blocks(BB_SPLIT, blocks, 8, 1); }

Test(kernels, split_one_block) { check_split_blocks(1); }
Test(kernels, split_three_blocks) { check_split_blocks(3); }
Test(kernels, split_blocks_1001) { check_split_blocks(1001); }
Test(kernels, split_blocks_80021_prefetched) { check_split_blocks(80021); }

Test(kernels, one_block) { check_blocks(1, 1); }
Test(kernels, three_blocks) { check_blocks(3, 1); }
Test(kernels, seven_blocks) { check_blocks(7, 1); }
Test(kernels, blocks_1001) { check_blocks(1001, 1); }
Test(kernels, blocks_40009_prefetched) { check_blocks(40009, 5); } /* k = 1, 6, 11, 16 */

/* ---- Keys whose probes repeat a position ----------------------------------------------------
 * The avx512gfni add sums probes over GF(2), where a position hit twice would cancel, so it
 * drops repeats first; in a full filter a lost bit is usually set by another key anyway. Here
 * each such key is added alone to a one-block filter (hashes found by searching the derived
 * probe scheme, with the repeat inside each 8-probe pass and across passes), and the block
 * must be exactly the derived bits, for every k and kernel. */
static bool repeats_position(uint64_t h, unsigned k) {
    uint64_t pos[BB_MAX_K];
    tu_positions(BB_BLOCKED, 512, k, h, pos);
    for (unsigned a = 0; a < k; a++)
        for (unsigned b = a + 1; b < k; b++)
            if (pos[a] == pos[b]) return true;
    return false;
}

Test(kernels, keys_with_repeated_positions_set_every_bit) {
    for (size_t i = 0; i < bb_isa_count(); i++) {
        if (!tu_use_isa(bb_isa_at(i))) continue;
        for (unsigned k = 2; k <= BB_MAX_K; k++) {
            uint64_t st = 1000 + k;
            for (unsigned found = 0; found < 40;) {
                uint64_t h = tu_splitmix64(&st);
                if (!repeats_position(h, k)) continue;
                found++;
                bb_filter *f = NULL;
                cr_assert_eq(bb_create(&f, TU_CFG(.bits = 512, .k = k)), BB_OK);
                cr_assert_eq(bb_add_hashes(f, &h, 1), BB_OK);
                uint8_t want[64] = {0};
                tu_ref_add(want, BB_BLOCKED, 512, k, h);
                char what[64];
                snprintf(what, sizeof what, "%s k=%u hash %016llx", bb_isa_to_string(bb_isa_at(i)),
                         k, (unsigned long long)h);
                assert_payload(f, want, sizeof want, what);
                bb_free(f);
            }
        }
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
}

/* ---- Concurrent adds at every k -------------------------------------------------------------
 * The concurrent batch add has its own kernels (src/kernels/conc_*.c, one unrolled copy per k,
 * a copy with prefetch past 256 KiB): on one thread, in batches of varying length (single
 * keys, short batches, whole chunks), every kernel must make the spec's bits and report as
 * new exactly the keys that the spec's bit array lacked before each one, key by key. Keys
 * repeat (every fifth is an earlier one), and at ~10 bits per key the block fills to ~50%,
 * so both answers occur; 16 probes into 64 bytes share a byte in most keys. */
static void check_concurrent_adds(uint64_t blocks, unsigned k_step) {
    uint64_t bits = blocks * 512;
    size_t n = (size_t)(bits / 10), n_runs = 0;
    const size_t lens[] = {1, 2, 31, 33, 1024, 1025, 3000};
    /* batch lengths in order, and each batch's new keys by the spec */
    size_t *run = malloc(n * sizeof *run), *want = malloc(n * sizeof *want);
    uint64_t *h = malloc(n * sizeof *h), st = 77;
    uint8_t *ref = malloc(bits / 8);
    cr_assert(run && want && h && ref);
    for (size_t at = 0; at < n; n_runs++) {
        size_t len = lens[n_runs % (sizeof lens / sizeof *lens)];
        run[n_runs] = len < n - at ? len : n - at;
        at += run[n_runs];
    }
    for (size_t i = 0; i < n; i++) h[i] = i % 5 == 4 ? h[(i * 7) % i] : tu_splitmix64(&st);
    for (unsigned k = 1; k <= BB_MAX_K; k += k_step) {
        memset(ref, 0, bits / 8);
        for (size_t r = 0, at = 0; r < n_runs; at += run[r++]) {
            want[r] = 0;
            for (size_t j = at; j < at + run[r]; j++) {
                want[r] += !tu_ref_contains(ref, BB_BLOCKED, bits, k, h[j]);
                tu_ref_add(ref, BB_BLOCKED, bits, k, h[j]);
            }
        }
        for (size_t i = 0; i < bb_isa_count(); i++) {
            if (!tu_use_isa(bb_isa_at(i))) continue;
            char what[80];
            snprintf(what, sizeof what, "%s concurrent k=%u, %llu blocks",
                     bb_isa_to_string(bb_isa_at(i)), k, (unsigned long long)blocks);
            bb_filter *f = NULL;
            cr_assert_eq(bb_create(&f, TU_CFG(.bits = bits, .k = k)), BB_OK);
            for (size_t r = 0, at = 0; r < n_runs; at += run[r++]) {
                size_t got = 0;
                cr_assert_eq(bb_add_hashes_concurrent(f, h + at, run[r], &got), BB_OK);
                cr_assert_eq(got, want[r], "%s, keys %zu+%zu: %zu new, spec %zu", what, at,
                             run[r], got, want[r]);
            }
            assert_payload(f, ref, bits / 8, what);
            bb_free(f);
        }
    }
    cr_assert_eq(bb_set_isa(BB_ISA_AUTO), BB_OK);
    free(run);
    free(want);
    free(h);
    free(ref);
}

Test(kernels, concurrent_adds_every_k_7_blocks) { check_concurrent_adds(7, 1); }
Test(kernels, concurrent_adds_every_k_1001_blocks) { check_concurrent_adds(1001, 1); }
Test(kernels, concurrent_adds_5003_blocks_prefetched) { check_concurrent_adds(5003, 5); }

/* ---- String batch adds of every length ----------------------------------------------------
 * Pointer and Arrow batches are hashed out of order, grouped by XXH3's length class
 * (xxh3_group.h), in chunks of 1024 keys (batch.c). Keys of every length 0 .. 300 (every
 * class, the out-of-line long path too; empty ones as NULL), added in calls of lengths that
 * cross the groups of 256 and the chunks, must give the payload the spec derives and count
 * every key, under every kernel and through each shape, on filters with and without the
 * kernels' prefetch (7, 1001 and 5003 blocks: 448 B, 63 KiB, 320 KiB), at k covering every
 * pass split of avx512gfni's mask (1-3 and 9-11: short passes, 8 and 16: full ones). */
#define MIXED_KEYS 3000u
#define MIXED_MAX_LEN 300u

typedef struct mixed {
    uint8_t *arena;
    const void **ptrs;
    size_t *lens;
    int32_t *off32;
    int64_t *off64;
} mixed;

static void mixed_init(mixed *m) {
    size_t bytes = (size_t)MIXED_KEYS * MIXED_MAX_LEN;
    m->arena = malloc(bytes + 1);
    m->ptrs = malloc(MIXED_KEYS * sizeof *m->ptrs);
    m->lens = malloc(MIXED_KEYS * sizeof *m->lens);
    m->off32 = malloc((MIXED_KEYS + 1) * sizeof *m->off32);
    m->off64 = malloc((MIXED_KEYS + 1) * sizeof *m->off64);
    cr_assert(m->arena && m->ptrs && m->lens && m->off32 && m->off64);
    size_t at = 0;
    for (size_t i = 0; i < MIXED_KEYS; i++) {
        size_t len = (i * 37) % (MIXED_MAX_LEN + 1);
        for (size_t b = 0; b < len; b++) m->arena[at + b] = (uint8_t)(i * 131 + b * 7 + (i >> 8));
        m->ptrs[i] = len ? m->arena + at : NULL; /* an empty key may come as NULL */
        m->lens[i] = len;
        m->off32[i] = (int32_t)at;
        m->off64[i] = (int64_t)at;
        at += len;
    }
    m->off32[MIXED_KEYS] = (int32_t)at;
    m->off64[MIXED_KEYS] = (int64_t)at;
}

static void mixed_free(mixed *m) {
    free(m->arena); free(m->ptrs); free(m->lens); free(m->off32); free(m->off64);
}

static bb_status mixed_add(bb_filter *f, const mixed *m, enum shape s, size_t first, size_t n) {
    switch (s) {
    case SHAPE_PTRS: return bb_add_batch(f, m->ptrs + first, m->lens + first, n);
    case SHAPE_ARROW32: return bb_add_arrow32(f, m->arena, m->off32 + first, n);
    case SHAPE_ARROW64: return bb_add_arrow64(f, m->arena, m->off64 + first, n);
    default: break;
    }
    return BB_E_INVAL;
}

static void check_mixed_adds(uint64_t blocks) {
    static const unsigned ks[] = {1, 2, 3, 4, 7, 8, 9, 11, 16};
    static const size_t calls[] = {0, 1, 15, 16, 17, 255, 256, 257, 1025}; /* then the rest */
    uint64_t bits = blocks * 512;
    mixed m;
    mixed_init(&m);
    uint64_t *h = malloc(MIXED_KEYS * sizeof *h);
    uint8_t *ref = malloc(bits / 8);
    cr_assert(h && ref);
    bb_filter *hf = NULL;
    cr_assert_eq(bb_create(&hf, TU_CFG(.bits = 512, .k = 1, .seed = SEED)), BB_OK);
    for (size_t i = 0; i < MIXED_KEYS; i++) h[i] = bb_hash(hf, m.ptrs[i], m.lens[i]);
    bb_free(hf);
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
        memset(ref, 0, bits / 8);
        for (size_t i = 0; i < MIXED_KEYS; i++) tu_ref_add(ref, BB_BLOCKED, bits, ks[ki], h[i]);
        for (size_t i = 0; i < bb_isa_count(); i++) {
            if (!tu_use_isa(bb_isa_at(i))) continue;
            for (int s = SHAPE_PTRS; s <= SHAPE_ARROW64; s++) {
                char what[96];
                snprintf(what, sizeof what, "%s %s adds, %llu blocks, k=%u",
                         bb_isa_to_string(bb_isa_at(i)), shape_names[s], (unsigned long long)blocks,
                         ks[ki]);
                bb_filter *f = NULL;
                cr_assert_eq(bb_create(&f, TU_CFG(.bits = bits, .k = ks[ki], .seed = SEED)), BB_OK);
                size_t done = 0;
                for (size_t c = 0; c <= sizeof calls / sizeof *calls; c++) {
                    size_t n = c < sizeof calls / sizeof *calls ? calls[c] : MIXED_KEYS - done;
                    cr_assert_eq(mixed_add(f, &m, (enum shape)s, done, n), BB_OK, "%s", what);
                    done += n;
                }
                bb_info info = BB_INFO_INIT;
                cr_assert_eq(bb_get_info(f, &info), BB_OK);
                cr_assert_eq(info.keys_added, MIXED_KEYS, "%s: keys_added %llu", what,
                             (unsigned long long)info.keys_added);
                assert_payload(f, ref, bits / 8, what);
                bb_free(f);
            }
        }
    }
    free(h);
    free(ref);
    mixed_free(&m);
}

Test(kernels, string_adds_of_every_length_7_blocks) { check_mixed_adds(7); }
Test(kernels, string_adds_of_every_length_1001_blocks) { check_mixed_adds(1001); }
Test(kernels, string_adds_of_every_length_5003_blocks_prefetched) { check_mixed_adds(5003); }

/* ---- Golden vectors: XXH3-64 --------------------------------------------------------------
 * From xxHash's own self-test, XSUM_sanityCheck() in cli/xsum_sanity_check.c (xxHash 0.8;
 * the same values sit in every port's tests): the input is the first `len` bytes of a buffer
 * filled by  gen = 2654435761 (PRIME32); byte i = gen >> 56; gen *= PRIME64  (mod 2^64), and
 * the seed is 0 or PRIME64 = 11400714785074694797. The lengths cover each XXH3 code path. */
#define PRIME64 UINT64_C(11400714785074694797)

Test(kernels, golden_xxh3_published_vectors) {
    static const struct { size_t len; uint64_t seed, want; } v[] = {
        {0, 0, UINT64_C(0x2D06800538D394C2)},      {0, PRIME64, UINT64_C(0xA8A6B918B2F0364A)},
        {1, 0, UINT64_C(0xC44BDFF4074EECDB)},      {1, PRIME64, UINT64_C(0x032BE332DD766EF8)},
        {6, 0, UINT64_C(0x27B56A84CD2D7325)},      {6, PRIME64, UINT64_C(0x84589C116AB59AB9)},
        {12, 0, UINT64_C(0xA713DAF0DFBB77E7)},     {12, PRIME64, UINT64_C(0xE7303E1B2336DE0E)},
        {24, 0, UINT64_C(0xA3FE70BF9D3510EB)},     {24, PRIME64, UINT64_C(0x850E80FC35BDD690)},
        {48, 0, UINT64_C(0x397DA259ECBA1F11)},     {48, PRIME64, UINT64_C(0xADC2CBAA44ACC616)},
        {80, 0, UINT64_C(0xBCDEFBBB2C47C90A)},     {80, PRIME64, UINT64_C(0xC6DD0CB699532E73)},
        {195, 0, UINT64_C(0xCD94217EE362EC3A)},    {195, PRIME64, UINT64_C(0xBA68003D370CB3D9)},
        {403, 0, UINT64_C(0xCDEB804D65C6DEA4)},    {403, PRIME64, UINT64_C(0x6259F6ECFD6443FD)},
        {512, 0, UINT64_C(0x617E49599013CB6B)},    {512, PRIME64, UINT64_C(0x3CE457DE14C27708)},
        {2048, 0, UINT64_C(0xDD59E2C3A5F038E0)},   {2048, PRIME64, UINT64_C(0x66F81670669ABABC)},
        {2240, 0, UINT64_C(0x6E73A90539CF2948)},   {2240, PRIME64, UINT64_C(0x757BA8487D1B5247)},
        {2367, 0, UINT64_C(0xCB37AEB9E5D361ED)},   {2367, PRIME64, UINT64_C(0xD2DB3415B942B42A)},
    };
    static uint8_t buf[2367];
    uint64_t gen = 2654435761u;
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(gen >> 56);
        gen *= PRIME64;
    }
    bb_filter *f[2] = {NULL, NULL};
    cr_assert_eq(bb_create(&f[0], TU_CFG(.bits = 512, .k = 1, .seed = 0)), BB_OK);
    cr_assert_eq(bb_create(&f[1], TU_CFG(.bits = 512, .k = 1, .seed = PRIME64)), BB_OK);
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        uint64_t got = bb_hash(f[v[i].seed != 0], v[i].len ? buf : NULL, v[i].len);
        cr_assert_eq(got, v[i].want, "XXH3(len %zu, seed %llu) = 0x%016llx, published 0x%016llx",
                     v[i].len, (unsigned long long)v[i].seed, (unsigned long long)got,
                     (unsigned long long)v[i].want);
    }
    bb_free(f[0]);
    bb_free(f[1]);
}

/* ---- Golden vectors: filter bytes ------------------------------------------------------------
 * Keys "k0" .. "k99", seed 0. The expected payload is re-derived here from the spec
 * (testutil.h) and compared byte for byte under every kernel; its XXH3-64 (seed 0) is pinned
 * as a literal, computed once from that derived payload, so the probe scheme, the layout and
 * the hash cannot drift together unnoticed. Blocked: 4 blocks, k = 7. Classic: 1001 bits
 * (the last byte has 7 unused bits, which must stay zero), k = 7. */
#define GOLDEN_BLOCKED_XXH3 UINT64_C(0x59939081C2981F9E)
#define GOLDEN_CLASSIC_XXH3 UINT64_C(0x0C956FF0F794D569)

static void golden(bb_kind kind, uint64_t bits, uint64_t want_sum, bool every_kernel) {
    bb_filter *f = NULL, *h = NULL;
    cr_assert_eq(bb_create(&h, TU_CFG(.bits = 512, .k = 1, .seed = 0)), BB_OK);
    size_t bytes = (size_t)((bits + 7) / 8);
    uint8_t *ref = calloc(bytes, 1);
    cr_assert_not_null(ref);
    char key[8];
    for (int i = 0; i < 100; i++) {
        int len = snprintf(key, sizeof key, "k%d", i);
        tu_ref_add(ref, kind, bits, 7, bb_hash(h, key, (size_t)len));
    }
    uint64_t sum = bb_hash(h, ref, bytes);
    cr_assert_eq(sum, want_sum, "%s golden payload: XXH3 0x%016llx, pinned 0x%016llx",
                 bb_kind_name(kind), (unsigned long long)sum, (unsigned long long)want_sum);
    /* The classic filter has no kernels: it is built once. */
    for (size_t i = 0; i < (every_kernel ? bb_isa_count() : 1); i++) {
        if (every_kernel && !tu_use_isa(bb_isa_at(i))) continue;
        cr_assert_eq(bb_create(&f, TU_CFG(.kind = kind, .bits = bits, .k = 7)), BB_OK);
        for (int j = 0; j < 100; j++) {
            int len = snprintf(key, sizeof key, "k%d", j);
            cr_assert_eq(bb_add(f, key, (size_t)len), BB_OK);
        }
        bb_info info = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(f, &info), BB_OK);
        cr_assert_eq(info.bits_set, popcount(ref, bytes), "bits_set %llu, spec %llu",
                     (unsigned long long)info.bits_set, (unsigned long long)popcount(ref, bytes));
        assert_payload(f, ref, bytes, bb_kind_name(kind));
        bb_free(f);
    }
    free(ref);
    bb_free(h);
}

Test(kernels, golden_blocked_payload) { golden(BB_BLOCKED, 4 * 512, GOLDEN_BLOCKED_XXH3, true); }
Test(kernels, golden_classic_payload) { golden(BB_CLASSIC, 1001, GOLDEN_CLASSIC_XXH3, false); }
