/*
 * scalar_mask.h - the scalar kernels' table of probe masks: entry p (0 .. 511) is bit p & 7,
 * the mask of in-block position p within its byte p >> 3, so that a probe's update is a
 * table load instead of a variable shift. x86 takes a shift count in CL only, so the shift
 * costs a move of the count, an AND and a move of the 1 per probe. Used by the plain scalar
 * add (scalar.c) and the concurrent one (conc_scalar.c), which measured it.
 */
#ifndef BB_SCALAR_MASK_H
#define BB_SCALAR_MASK_H

#include "../internal.h"

#define BB_CM1(p) (uint8_t)(1u << ((p) & 7)),
#define BB_CM8(p) BB_CM1(p) BB_CM1(p + 1) BB_CM1(p + 2) BB_CM1(p + 3) BB_CM1(p + 4) \
    BB_CM1(p + 5) BB_CM1(p + 6) BB_CM1(p + 7)
#define BB_CM64(p) BB_CM8(p) BB_CM8(p + 8) BB_CM8(p + 16) BB_CM8(p + 24) BB_CM8(p + 32) \
    BB_CM8(p + 40) BB_CM8(p + 48) BB_CM8(p + 56)
static const uint8_t bb_scalar_mask[BB_BLOCK_BITS] = {
    BB_CM64(0) BB_CM64(64) BB_CM64(128) BB_CM64(192)
    BB_CM64(256) BB_CM64(320) BB_CM64(384) BB_CM64(448)};
_Static_assert(BB_BLOCK_BITS == 512, "the table lists 512 positions");

#endif /* BB_SCALAR_MASK_H */
