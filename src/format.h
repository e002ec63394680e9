/* SPDX-License-Identifier: MIT */
/*
 * format.h - the file header's layout (docs/FORMAT.md, "Header") and its byte-order-neutral
 * integer codecs, shared by format.c and by the kinds that own header fields (a row's
 * hdr_put / hdr_get, see internal.h). Integers are encoded byte by byte, little-endian, so a
 * file is the same on every machine.
 */
#ifndef BB_FORMAT_H
#define BB_FORMAT_H

#include "internal.h"

#include <string.h>

/* The header is a multiple of 64 bytes so that the payload of a memory-mapped file (mmap
 * returns page-aligned memory) is 64-byte aligned like a heap one. */
#define BB_HDR_SIZE 128u
enum {
    BB_OFF_MAGIC = 0,
    BB_OFF_VERSION = 8,
    BB_OFF_HDR_SIZE = 12,
    BB_OFF_KIND = 16,
    BB_OFF_K = 20,
    BB_OFF_BITS = 24,
    BB_OFF_BLOCKS = 32,
    BB_OFF_CAPACITY = 40,
    BB_OFF_FPR = 48,
    BB_OFF_SEED = 56,
    BB_OFF_KEYS = 64,
    BB_OFF_PAYLOAD_LEN = 72,
    BB_OFF_PAYLOAD_SUM = 80,
    BB_HDR_KIND_FIELDS = 88, /* bytes 88 .. 119: zero, or a kind's own fields */
    BB_OFF_HDR_SUM = 120     /* the header checksum covers bytes [0, BB_OFF_HDR_SUM) */
};

static inline void bb_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void bb_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t bb_get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint64_t bb_get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline void bb_put_f64(uint8_t *p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bb_put64(p, bits);
}
static inline double bb_get_f64(const uint8_t *p) {
    uint64_t bits = bb_get64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

#endif /* BB_FORMAT_H */
