/* SPDX-License-Identifier: MIT */
/*
 * encodings.c - the value and level encodings of parquet-format's Encodings.md, as
 * streaming decoders that never buffer more than one value: the RLE/bit-packed hybrid
 * (levels, dictionary indices), the deprecated BIT_PACKED levels, DELTA_BINARY_PACKED
 * (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY), DELTA_BYTE_ARRAY (BYTE_ARRAY,
 * FIXED_LEN_BYTE_ARRAY) and BYTE_STREAM_SPLIT (INT32, INT64, FLOAT, DOUBLE,
 * FIXED_LEN_BYTE_ARRAY). PLAIN and the dictionary are pages.c's.
 *
 * The hybrid: runs, each a ULEB128 header h; h odd: (h >> 1) groups of 8 values bit-packed
 * LSB first; h even: (h >> 1) repeats of one value in ceil(width / 8) little-endian bytes.
 * BIT_PACKED: values back to back, MSB first, ceil(n * width / 8) bytes.
 *
 * DELTA_BINARY_PACKED:
 *     header  <block size> <miniblocks per block> <total count> <first value (zigzag)>
 *     block   <min delta (zigzag)> <one bit-width byte per miniblock> <miniblocks>
 * A miniblock holds block size / miniblocks deltas, bit-packed LSB first at its width and
 * always stored whole; miniblocks after the last value are absent (their width bytes are
 * not, and may hold anything). value[i] = value[i-1] + min delta + packed delta, wrapping
 * in the type's width. DELTA_LENGTH_BYTE_ARRAY: the lengths so encoded, then the bytes of
 * all values back to back. DELTA_BYTE_ARRAY: prefix lengths so encoded, then the suffixes
 * as DELTA_LENGTH_BYTE_ARRAY; value[i] = the first prefix[i] bytes of value[i-1], then
 * suffix[i]. BYTE_STREAM_SPLIT: K streams (K the value's width) of N bytes, N the data's
 * length / K; byte k of value i is stream k's byte i.
 *
 * Invariants: every header, width and length is checked against the data before it is
 * used; a decoder stops at its announced count; the values a DELTA_BYTE_ARRAY page expands
 * to are capped (PQ_MAX_EXPANSION), since prefixes cost no bytes and could otherwise make a
 * few KiB stand for terabytes.
 */
#include "pq.h"

#include <stdlib.h>
#include <string.h>

/* ---- ULEB128, the hybrid and BIT_PACKED ---------------------------------------------------- */

bool pq_uleb(const uint8_t **p, const uint8_t *end, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

static bool next_run(pq_hybrid *h) {
    uint64_t hdr;
    if (h->msb_first) { /* BIT_PACKED: one packed run of what the data holds */
        if (h->p >= h->end || h->started) return false;
        h->started = true;
        h->packed = true;
        h->left = h->width ? (uint64_t)(h->end - h->p) * 8 / h->width : UINT64_MAX;
        h->acc = 0;
        h->have = 0;
        return h->left > 0;
    }
    if (!pq_uleb(&h->p, h->end, &hdr)) return false;
    h->packed = hdr & 1;
    if (h->packed) {
        uint64_t groups = hdr >> 1;
        if (groups > (uint64_t)(h->end - h->p) || groups * h->width > (uint64_t)(h->end - h->p))
            return false;
        h->left = groups * 8;
        h->acc = 0;
        h->have = 0;
        return true;
    }
    unsigned bytes = (h->width + 7) / 8;
    if ((size_t)(h->end - h->p) < bytes) return false;
    h->value = 0;
    for (unsigned b = 0; b < bytes; b++) h->value |= (uint32_t)h->p[b] << (8 * b);
    h->p += bytes;
    h->left = hdr >> 1;
    return h->width == 32 || h->value >> h->width == 0;
}

bool pq_hybrid_next(pq_hybrid *h, uint32_t *v) {
    while (h->left == 0)
        if (!next_run(h)) return false;
    h->left--;
    if (!h->packed) {
        *v = h->value;
        return true;
    }
    if (h->width == 0) {
        *v = 0;
        return true;
    }
    /* next_run checked that the run's bytes are there. */
    while (h->have < h->width) {
        if (h->msb_first)
            h->acc = h->acc << 8 | *h->p++;
        else
            h->acc |= (uint64_t)*h->p++ << h->have;
        h->have += 8;
    }
    uint64_t mask = (UINT64_C(1) << h->width) - 1;
    if (h->msb_first) {
        *v = (uint32_t)(h->acc >> (h->have - h->width) & mask);
    } else {
        *v = (uint32_t)(h->acc & mask);
        h->acc >>= h->width;
    }
    h->have -= h->width;
    return true;
}

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------------------- */

bool pq_delta_init(pq_delta *d, const uint8_t *p, const uint8_t *end, unsigned bits) {
    uint64_t first;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->end = end;
    d->bits = bits;
    if (!pq_uleb(&d->p, end, &d->block) || !pq_uleb(&d->p, end, &d->minis) ||
        !pq_uleb(&d->p, end, &d->total) || !pq_uleb(&d->p, end, &first))
        return false;
    /* Block size a multiple of 128 and miniblocks of a multiple of 32 values, as the spec
     * says; a multiple of 8 is what keeps miniblocks whole bytes, and is all we need. */
    if (d->block == 0 || d->minis == 0 || d->block % d->minis != 0 ||
        (d->block / d->minis) % 8 != 0 || d->minis > (uint64_t)(end - p))
        return false;
    d->per_mini = d->block / d->minis;
    d->last = (first >> 1) ^ (0 - (first & 1));
    return true;
}

/* Start the next miniblock (and the next block when the last one is used up). */
static bool delta_next_mini(pq_delta *d) {
    if (d->mini == d->minis || !d->widths) {
        uint64_t z;
        if (!pq_uleb(&d->p, d->end, &z)) return false;
        d->min_delta = (z >> 1) ^ (0 - (z & 1));
        if ((uint64_t)(d->end - d->p) < d->minis) return false;
        d->widths = d->p;
        d->p += d->minis;
        d->mini = 0;
    }
    unsigned w = d->widths[d->mini++];
    if (w > d->bits) return false;
    uint64_t bytes = d->per_mini * w / 8;
    if (bytes > (uint64_t)(d->end - d->p)) return false;
    d->width = w;
    d->data = d->p;
    d->p += bytes;
    d->in_mini = 0;
    return true;
}

bool pq_delta_next(pq_delta *d, uint64_t *v) {
    if (d->done == d->total) return false;
    if (d->done++ == 0) {
        *v = d->last;
        return true;
    }
    if (!d->widths || d->in_mini == d->per_mini)
        if (!delta_next_mini(d)) return false;
    uint64_t x = 0, bit = d->in_mini++ * d->width;
    for (unsigned got = 0; got < d->width;) {
        unsigned shift = (unsigned)(bit % 8), take = 8 - shift;
        if (take > d->width - got) take = d->width - got;
        x |= (uint64_t)(d->data[bit / 8] >> shift & ((1u << take) - 1)) << got;
        got += take;
        bit += take;
    }
    d->last += d->min_delta + x;
    if (d->bits == 32) d->last = (uint32_t)d->last;
    *v = d->last;
    return true;
}

/* Run a copy of d to its end: where the bytes after its values start. */
static bool delta_skip(const pq_delta *d, const uint8_t **after) {
    pq_delta c = *d;
    uint64_t v;
    while (c.done < c.total)
        if (!pq_delta_next(&c, &v)) return false;
    *after = c.p;
    return true;
}

/* ---- The value decoders -------------------------------------------------------------------- */

static bb_status bad(pq_values *pv, const char *why) {
    pv->why = why;
    return BB_E_CORRUPT;
}

/* A delta stream announces at least the n values the page needs and at most the page's
 * level count (so skipping to its end is bounded by what the page header claims). */
static bool count_ok(const pq_values *pv, const pq_delta *d, size_t n) {
    return d->total >= n && d->total <= pv->max_count;
}

static bb_status delta_binary(pq_values *pv, const uint8_t *p, size_t len, size_t n) {
    pq_delta d;
    unsigned bits = pv->width == 4 ? 32 : 64;
    if (!pq_delta_init(&d, p, p + len, bits)) return bad(pv, "bad DELTA_BINARY_PACKED header");
    if (!count_ok(pv, &d, n)) return bad(pv, "DELTA_BINARY_PACKED count differs from the page's");
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        uint8_t le[8];
        if (!pq_delta_next(&d, &v)) return bad(pv, "DELTA_BINARY_PACKED values run past the page");
        for (unsigned b = 0; b < pv->width; b++) le[b] = (uint8_t)(v >> (8 * b));
        bb_status s = pv->fn(pv->ctx, le, pv->width);
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

/* The lengths of n values, then their bytes: d is set on the lengths and *data on the
 * bytes, which must hold their sum. */
static bb_status lengths(pq_values *pv, const uint8_t *p, const uint8_t *end, size_t n,
                         pq_delta *d, const uint8_t **data) {
    if (!pq_delta_init(d, p, end, 32) || !count_ok(pv, d, n))
        return bad(pv, "bad DELTA_LENGTH_BYTE_ARRAY lengths");
    if (!delta_skip(d, data)) return bad(pv, "DELTA_LENGTH_BYTE_ARRAY lengths run past the page");
    return BB_OK;
}

static bb_status delta_length(pq_values *pv, const uint8_t *p, size_t len, size_t n) {
    pq_delta d;
    const uint8_t *data, *end = p + len;
    bb_status s = lengths(pv, p, end, n, &d, &data);
    for (size_t i = 0; i < n && s == BB_OK; i++) {
        uint64_t l;
        if (!pq_delta_next(&d, &l) || l > (uint64_t)(end - data))
            return bad(pv, "DELTA_LENGTH_BYTE_ARRAY value runs past the page");
        if (pv->width && l != pv->width)
            return bad(pv, "value length differs from the FIXED_LEN_BYTE_ARRAY length");
        s = pv->fn(pv->ctx, data, (size_t)l);
        data += l;
    }
    return s;
}

static bb_status delta_byte_array(pq_values *pv, const uint8_t *p, size_t len, size_t n) {
    pq_delta pre, suf;
    const uint8_t *end = p + len, *after_prefixes, *data;
    if (!pq_delta_init(&pre, p, end, 32) || !count_ok(pv, &pre, n))
        return bad(pv, "bad DELTA_BYTE_ARRAY prefix lengths");
    if (!delta_skip(&pre, &after_prefixes))
        return bad(pv, "DELTA_BYTE_ARRAY prefix lengths run past the page");
    bb_status s = lengths(pv, after_prefixes, end, n, &suf, &data);
    size_t prev = 0, budget = pv->max_expansion;
    for (size_t i = 0; i < n && s == BB_OK; i++) {
        uint64_t pl, sl;
        if (!pq_delta_next(&pre, &pl) || !pq_delta_next(&suf, &sl))
            return bad(pv, "DELTA_BYTE_ARRAY lengths run past the page");
        if (pl > prev) return bad(pv, "DELTA_BYTE_ARRAY prefix longer than the previous value");
        if (sl > (uint64_t)(end - data)) return bad(pv, "DELTA_BYTE_ARRAY suffix runs past the page");
        size_t vlen = (size_t)(pl + sl);
        if (vlen > budget) {
            pv->why = "DELTA_BYTE_ARRAY values expand past the decoder's limit "
                      "(PQ_MAX_EXPANSION bytes per page)";
            return BB_E_TOO_LARGE;
        }
        budget -= vlen;
        if (vlen > pv->scratch_cap) {
            size_t cap = pv->scratch_cap ? pv->scratch_cap : 64;
            while (cap < vlen) cap *= 2;
            uint8_t *q = realloc(pv->scratch, cap);
            if (!q) return BB_E_NOMEM;
            pv->scratch = q;
            pv->scratch_cap = cap;
        }
        if (sl) memcpy(pv->scratch + pl, data, (size_t)sl);
        data += sl;
        prev = vlen;
        if (pv->width && vlen != pv->width)
            return bad(pv, "value length differs from the FIXED_LEN_BYTE_ARRAY length");
        s = pv->fn(pv->ctx, pv->scratch, vlen);
    }
    return s;
}

static bb_status byte_stream_split(pq_values *pv, const uint8_t *p, size_t len, size_t n) {
    size_t k = pv->width;
    if (k == 0 || k > sizeof pv->one) return bad(pv, "BYTE_STREAM_SPLIT of a variable-length type");
    if (len % k != 0) return bad(pv, "BYTE_STREAM_SPLIT data is not a whole number of values");
    size_t stride = len / k;
    if (stride < n) return bad(pv, "BYTE_STREAM_SPLIT holds fewer values than the page");
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 0; b < k; b++) pv->one[b] = p[b * stride + i];
        bb_status s = pv->fn(pv->ctx, pv->one, k);
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

/* Which encodings apply to which physical types (Encodings.md's table). */
static bool applies(int64_t encoding, bb_pq_type t) {
    switch (encoding) {
    case 5: return t == BB_PQ_INT32 || t == BB_PQ_INT64;
    case 6: return t == BB_PQ_BYTE_ARRAY;
    case 7: return t == BB_PQ_BYTE_ARRAY || t == BB_PQ_FIXED_LEN_BYTE_ARRAY;
    case 9:
        return t == BB_PQ_INT32 || t == BB_PQ_INT64 || t == BB_PQ_FLOAT || t == BB_PQ_DOUBLE ||
               t == BB_PQ_FIXED_LEN_BYTE_ARRAY;
    default: return false;
    }
}

bb_status pq_decode_values(pq_values *pv, int64_t encoding, bb_pq_type type, const uint8_t *p,
                           size_t len, size_t n) {
    pv->why = NULL;
    if (!applies(encoding, type)) {
        pv->why = "unsupported";
        return BB_E_UNSUPPORTED;
    }
    switch (encoding) {
    case 5: return delta_binary(pv, p, len, n);
    case 6: return delta_length(pv, p, len, n);
    case 7: return delta_byte_array(pv, p, len, n);
    default: return byte_stream_split(pv, p, len, n);
    }
}
