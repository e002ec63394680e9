/* SPDX-License-Identifier: MIT */
/*
 * linemasks_avx512.c - bb_line_masks, the one-bit blocks that the avx512 add kernels OR
 * together (avx512_line_masks.h has why). Plain data, built with the avx512 row so that it
 * exists only where those kernels do; one copy for both kernels, so that they share the
 * 32 KiB of L1 it occupies.
 */
#include "../internal.h"

/* Word w of row p: bit p - 64w if p is in word w, else 0. */
#define LINE_WORD(p, w) (((p) >> 6) == (w) ? UINT64_C(1) << ((p)&63) : 0)
#define LINE_ROW(p)                                                                                \
    {LINE_WORD(p, 0), LINE_WORD(p, 1), LINE_WORD(p, 2), LINE_WORD(p, 3),                           \
     LINE_WORD(p, 4), LINE_WORD(p, 5), LINE_WORD(p, 6), LINE_WORD(p, 7)},
#define LINE_ROW8(p)                                                                               \
    LINE_ROW(p)                                                                                    \
    LINE_ROW(p + 1) LINE_ROW(p + 2) LINE_ROW(p + 3) LINE_ROW(p + 4) LINE_ROW(p + 5)                \
        LINE_ROW(p + 6) LINE_ROW(p + 7)
#define LINE_ROW64(p)                                                                              \
    LINE_ROW8(p)                                                                                   \
    LINE_ROW8(p + 8) LINE_ROW8(p + 16) LINE_ROW8(p + 24) LINE_ROW8(p + 32) LINE_ROW8(p + 40)       \
        LINE_ROW8(p + 48) LINE_ROW8(p + 56)

_Alignas(64) const uint64_t bb_line_masks[BB_BLOCK_BITS][8] = {
    LINE_ROW64(0) LINE_ROW64(64) LINE_ROW64(128) LINE_ROW64(192) LINE_ROW64(256) LINE_ROW64(320)
        LINE_ROW64(384) LINE_ROW64(448)};
_Static_assert(BB_BLOCK_BITS == 512, "bb_line_masks lists 512 positions");
