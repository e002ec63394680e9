/* SPDX-License-Identifier: MIT */
/*
 * atomic_bits.h - setting and testing payload bits with atomic 64-bit word operations, for the
 * rows' concurrent adds and reads (the contract is in blockbloom.h, "Concurrent build"; why
 * relaxed order suffices is in concurrent.c).
 *
 * Byte layout: payload bit i is bit (i & 7) of byte i >> 3, so on a little-endian machine it
 * is bit i & 63 of the 64-bit word at byte 8 * (i >> 6); on a big-endian one the mask is
 * byte-swapped to land on the same bytes. Payloads are 64-byte aligned and their allocation
 * rounded up to 64 bytes (alloc.c), so every word touched is inside the allocation.
 */
#ifndef BB_ATOMIC_BITS_H
#define BB_ATOMIC_BITS_H

#include "../internal.h"

#include <stdatomic.h>

/* ThreadSanitizer sees only C11 atomics, so under it the concurrent kernels store every word
 * with an atomic store (kernels/conc_loops.h) and it can check them. */
#if defined(__SANITIZE_THREAD__)
#define BB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BB_TSAN 1
#endif
#endif

_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t),
               "atomic words must overlay the payload");

static inline _Atomic uint64_t *bb_word_at(uint8_t *data, uint64_t w) {
    return (_Atomic uint64_t *)(void *)(data + 8 * w);
}

/* Byte i of the payload, for writers that store single bytes beside readers' word loads
 * (kernels/conc_scalar.c says why that is safe). */
_Static_assert(ATOMIC_CHAR_LOCK_FREE == 2, "byte stores must be plain stores");
static inline _Atomic uint8_t *bb_byte_at(uint8_t *data, uint64_t i) {
    return (_Atomic uint8_t *)(void *)(data + i);
}

/* Mask for bits (i & 63) of word i >> 6, in the payload's byte order (see above). */
static inline uint64_t bb_payload_mask(uint64_t little_endian_mask) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(little_endian_mask);
#else
    return little_endian_mask;
#endif
}

/* Set `mask` in *w; true if some bit of it was clear (this call set it). The relaxed load
 * first skips the locked RMW when the bits are already set, the common case as the filter
 * fills (concurrent.c). */
static inline bool bb_or_word(_Atomic uint64_t *w, uint64_t mask) {
    if ((atomic_load_explicit(w, memory_order_relaxed) & mask) == mask) return false;
    return (atomic_fetch_or_explicit(w, mask, memory_order_relaxed) & mask) != mask;
}

static inline bool bb_test_word(_Atomic uint64_t *w, uint64_t mask) {
    return (atomic_load_explicit(w, memory_order_relaxed) & mask) == mask;
}

/* Bit p (0 .. 2^56) of the payload at data: set it atomically / test it. */
static inline bool bb_or_bit(uint8_t *data, uint64_t p) {
    return bb_or_word(bb_word_at(data, p >> 6), bb_payload_mask(UINT64_C(1) << (p & 63)));
}
static inline bool bb_test_bit(uint8_t *data, uint64_t p) {
    return bb_test_word(bb_word_at(data, p >> 6), bb_payload_mask(UINT64_C(1) << (p & 63)));
}

#endif /* BB_ATOMIC_BITS_H */
