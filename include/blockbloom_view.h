/* SPDX-License-Identifier: MIT */
/*
 * blockbloom_view.h - inline lookups in a blocked filter (part of libblockbloom; included by
 * blockbloom.h). The functions here are static inline: they compile into the caller, so a
 * loop of single lookups pays no library call per key. Only bb_get_view is exported.
 */
#ifndef BLOCKBLOOM_VIEW_H
#define BLOCKBLOOM_VIEW_H

#include "blockbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * The wide tests below suit loops of independent lookups, which overlap their misses; a
 * dependent chain (each answer decides the next key) is answered sooner by the byte test's
 * k loads than by one 64-byte vector load and its test:
 *     bb_block_test_bytes(bb_view_block(v, h), (uint32_t)h, v->k)
 * A view stays valid while the filter lives and is not cleared; reading it while another
 * thread adds to the filter has bb_contains_hash's rules (it is a plain read).
 * ========================================================================================== */
typedef struct bb_view {
    const uint8_t *data; /**< blocks * 64 bytes, 64-byte aligned */
    uint64_t blocks;     /**< number of 64-byte blocks, >= 1 */
    unsigned k;          /**< probes per key, 1 .. BB_MAX_K */
} bb_view;

/**
 * Fill *out with a view of blocked filter f (heap or memory-mapped). The view points into f's
 * payload: it costs nothing, sees every later add, and is valid until f is freed.
 * Thread-safety: reads f.
 *
 * @param f    a BB_BLOCKED filter. Not NULL.
 * @param out  receives the view. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_UNSUPPORTED (f is not BB_BLOCKED).
 */
BB_API bb_status bb_get_view(const bb_filter *f, bb_view *out);

/**
 * floor(a * n / 2^64), the high half of the 128-bit product: maps a uniform 64-bit hash to
 * 0 .. n-1 without division or modulo bias (Lemire 2016, "fastrange").
 * Thread-safety: any thread, any time.
 *
 * @param a  the hash.
 * @param n  the range, >= 1 (0 gives 0).
 * @return a value in 0 .. n-1.
 */
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

/**
 * The 64-byte block of a hash in the view: block floor(hash * blocks / 2^64).
 * Thread-safety: any thread, any time (only computes an address).
 *
 * @param v     a view from bb_get_view. Not NULL.
 * @param hash  the key's hash (bb_hash).
 * @return the block's first byte, 64-byte aligned.
 */
static inline const uint8_t *bb_view_block(const bb_view *v, uint64_t hash) {
    return v->data + bb_fastrange64(hash, v->blocks) * 64u;
}

/** C^1 .. C^16 (mod 2^32), C = 0x9E3779B9: x_j = lo * C^j, so all k probes are one vector
 *  multiply in the SIMD tests below. */
#define BB_PROBE_POWERS_INIT                                                                  \
    {0x9E3779B9u, 0xE35E67B1u, 0x734297E9u, 0x35FBE861u, 0xDEB7C719u, 0x0448B211u,            \
     0x3459B749u, 0xAB25F4C1u, 0x52941879u, 0x9C95E071u, 0xF5AB9AA9u, 0x2D6BA521u,            \
     0x8BEDEDD9u, 0x9BFB72D1u, 0x3AE1C209u, 0x7FCA7981u}

/**
 * Whether all k probe bits of lo are set in one 64-byte block: the blocked filter's in-block
 * test on bytes. Branch-free over the probes, so absent keys do not mispredict; this is also
 * the library's scalar kernel.
 * Thread-safety: reads the block (as bb_contains_hash reads the filter).
 *
 * @param block  64 bytes (bb_view_block). Not NULL.
 * @param lo     the low 32 bits of the key's hash.
 * @param k      probes, 1 .. BB_MAX_K (0 answers true).
 * @return true if every probe bit is set.
 */
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
 * -march=native, ...); they are also the library's avx512 and avx2 kernels. One wide load per
 * key instead of k byte loads lets a loop over a filter beyond L2 keep k times as many keys'
 * lines in flight (src/view.c has the figures). Both read the block as little-endian words,
 * which is its byte layout on x86. */
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
/**
 * bb_block_test_bytes with one 64-byte load (AVX-512F): 16 lanes of lo * C^j, word p_j >> 5
 * fetched by one in-register permute of the whole block, bit p_j & 31 tested; lanes j >= k
 * masked off. Both come straight from x_j: p_j >> 5 is x_j >> 28, and p_j & 31 is the rotate
 * count of x_j >> 23 (vprolvd takes counts mod 32, so no mask is needed); the key is absent
 * if some wanted lane's bit is clear (vptestnmd, one flag test).
 * Thread-safety: reads the block.
 *
 * @param block  64 bytes, 64-byte aligned (bb_view_block). Not NULL.
 * @param lo     the low 32 bits of the key's hash.
 * @param k      probes, 1 .. BB_MAX_K.
 * @return bb_block_test_bytes's answer.
 */
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
/**
 * One AVX2 pass over probes j0 .. j0+7 (after RocksDB's FastLocalBloom AVX2 path): vpermd
 * fetches word p_j >> 5 from each 256-bit half, a blend keeps the right one (bit 3 of the
 * word index, which is the sign bit of x_j), and bit p_j & 31 is compared; lanes j >= k
 * test bit 0 of an all-pass mask.
 * Thread-safety: any thread, any time (registers only).
 *
 * @param lo_half  bytes 0 .. 31 of the block.
 * @param hi_half  bytes 32 .. 63 of the block.
 * @param lo       the low 32 bits of the key's hash.
 * @param j0       the first probe of the pass, 0 or 8.
 * @param k        probes, 1 .. BB_MAX_K.
 * @return true if every probe bit j0 .. min(j0 + 8, k) - 1 is set.
 */
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

/**
 * bb_block_test_bytes with two 32-byte loads (AVX2): eight probes per pass, two passes when
 * k > 8.
 * Thread-safety: reads the block.
 *
 * @param block  64 bytes, 32-byte aligned (bb_view_block). Not NULL.
 * @param lo     the low 32 bits of the key's hash.
 * @param k      probes, 1 .. BB_MAX_K.
 * @return bb_block_test_bytes's answer.
 */
static inline bool bb_block_test_avx2(const uint8_t *block, uint32_t lo, unsigned k) {
    __m256i lo_half = _mm256_load_si256((const __m256i *)(const void *)block);
    __m256i hi_half = _mm256_load_si256((const __m256i *)(const void *)(block + 32));
    bool ok = bb_block_pass_avx2(lo_half, hi_half, lo, 0, k);
    if (k > 8) ok &= bb_block_pass_avx2(lo_half, hi_half, lo, 8, k);
    return ok;
}
#endif

/**
 * The widest of the tests above that the including file is compiled for.
 * Thread-safety: reads the block.
 *
 * @param block  64 bytes, 64-byte aligned (bb_view_block). Not NULL.
 * @param lo     the low 32 bits of the key's hash.
 * @param k      probes, 1 .. BB_MAX_K.
 * @return bb_block_test_bytes's answer.
 */
static inline bool bb_block_test(const uint8_t *block, uint32_t lo, unsigned k) {
#if defined(__AVX512F__)
    return bb_block_test_avx512(block, lo, k);
#elif defined(__AVX2__)
    return bb_block_test_avx2(block, lo, k);
#else
    return bb_block_test_bytes(block, lo, k);
#endif
}

/**
 * Whether a key is possibly in the view's filter: the same answer as bb_contains_hash(f, hash)
 * for the filter f the view was taken from.
 * Thread-safety: reads the view's filter (as bb_contains_hash).
 *
 * @param v     a view from bb_get_view. Not NULL.
 * @param hash  the key's hash (bb_hash of the filter).
 * @return true if possibly present, false if definitely absent.
 */
static inline bool bb_view_contains_hash(const bb_view *v, uint64_t hash) {
    return bb_block_test(bb_view_block(v, hash), (uint32_t)hash, v->k);
}

/**
 * Hint that a hash will be looked up soon: starts reading its block (no effect on answers; a
 * no-op on compilers without __builtin_prefetch).
 * Thread-safety: any thread, any time (a prefetch reads nothing the program sees).
 *
 * @param v     a view from bb_get_view. Not NULL.
 * @param hash  the key's hash.
 */
static inline void bb_view_prefetch(const bb_view *v, uint64_t hash) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(bb_view_block(v, hash));
#else
    (void)v, (void)hash;
#endif
}

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_VIEW_H */
