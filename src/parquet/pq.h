/* SPDX-License-Identifier: MIT */
/*
 * pq.h - what the files of libblockbloom_parquet share: the open file (its mapping, parsed
 * footer and leaf columns), the error helper, and the entry points of the page decoder and
 * codecs. Field ids are parquet.thrift's, named where they are used.
 */
#ifndef BB_PQ_INTERNAL_H
#define BB_PQ_INTERNAL_H

#include "blockbloom_parquet.h"
#include "../lasterror.h"
#include "thrift.h"

typedef struct pq_column {
    char *name;          /* dotted path */
    bb_pq_type type;         /* the file's i32, possibly outside the enum */
    int32_t type_length;
    const char *logical;
    int32_t scale, precision; /* DECIMAL's (precision -1: not given), else 0 */
    bool optional, flat;
    int max_def, max_rep;     /* definition and repetition levels of a present value */
} pq_column;

struct bb_pq_file {
    const uint8_t *data;  /* the whole file */
    size_t size;
    bool mapped;          /* data is our mmap (else the caller's buffer) */
    size_t footer_start;  /* offset of the FileMetaData; the footer ends at size - 8 */
    tc_node meta;         /* FileMetaData */
    pq_column *cols;
    size_t n_cols, n_rg;
    tc_node **chunks;     /* ColumnChunk of row group r, column c at [r * n_cols + c] */
};

/* Put the formatted message in the thread's detail text (bb_last_error) and return s. */
bb_status pq_fail(bb_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The ColumnMetaData of a chunk, checked: not encrypted, present. */
bb_status pq_chunk_meta(const bb_pq_file *pf, size_t rg, size_t col, tc_node **meta);

/* bb_pq_chunk_bitset, and *incomplete (may be NULL): the header left out a union the spec
 * requires (algorithm, hash or compression), read as the only value the spec defines. */
bb_status pq_chunk_bitset(const bb_pq_file *pf, size_t rg, size_t col, const void **bitset,
                          size_t *len_bytes, bool *pow2, bool *incomplete);

/* bb_pq_chunk_values for a chunk's set of values: each dictionary entry that a page names
 * is reported once, after the pages (an RLE run of indices costs one step, not one per
 * row); values of non-dictionary pages are reported as they come. For bb_pq_index, which
 * needs the distinct values only: a dictionary-encoded chunk costs one hash and hash-set
 * insert per used entry, not per row. */
bb_status pq_chunk_distinct_values(const bb_pq_file *pf, size_t rg, size_t col,
                                   bb_pq_value_fn fn, void *ctx);

/* Names of parquet.thrift enum values, for messages ("UNKNOWN(9)" past the table). */
const char *pq_codec_name(int64_t codec);
const char *pq_encoding_name(int64_t encoding);

/* Decompress src[0 .. src_len) of `codec` into exactly dst_len bytes at dst. */
bb_status pq_decompress(int64_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_len);

/* ---- encodings.c ---------------------------------------------------------------------------- */

/* Most bytes of values one DELTA_BYTE_ARRAY page may expand to: prefixes cost no bytes, so
 * a few KiB could stand for terabytes to hash. 1 GiB, the largest page decompressed. */
#define PQ_MAX_EXPANSION ((size_t)1 << 30)

bool pq_uleb(const uint8_t **p, const uint8_t *end, uint64_t *out);

/* A streaming decoder of the RLE/bit-packed hybrid (or, msb_first, of BIT_PACKED). */
typedef struct pq_hybrid {
    const uint8_t *p, *end;
    unsigned width;           /* 0..32 */
    bool msb_first, started;  /* BIT_PACKED */
    uint64_t left;            /* values left in the current run */
    bool packed;
    uint32_t value;           /* RLE run's value */
    uint64_t acc;             /* bit-packed: bits not yet used */
    unsigned have;
} pq_hybrid;
/** The next value; false when the data ends first or is malformed. */
bool pq_hybrid_next(pq_hybrid *h, uint32_t *v);

/* A streaming DELTA_BINARY_PACKED decoder of `bits` (32 or 64) wide integers. */
typedef struct pq_delta {
    const uint8_t *p, *end;
    unsigned bits, width;
    uint64_t block, minis, per_mini, total, done, mini, in_mini;
    uint64_t last, min_delta;
    const uint8_t *widths, *data;
} pq_delta;
bool pq_delta_init(pq_delta *d, const uint8_t *p, const uint8_t *end, unsigned bits);
bool pq_delta_next(pq_delta *d, uint64_t *v);

/* A value decoder's context: the callback, the PLAIN width of the type (0: BYTE_ARRAY),
 * a scratch buffer the caller frees, and the reason of a BB_E_CORRUPT. */
typedef struct pq_values {
    bb_pq_value_fn fn;
    void *ctx;
    size_t width;
    uint64_t max_count;       /* the page's level count: a stream may announce no more */
    size_t max_expansion;
    uint8_t *scratch;
    size_t scratch_cap;
    uint8_t one[16];
    const char *why;
} pq_values;

/** n values of a DELTA_* or BYTE_STREAM_SPLIT `encoding` of physical type `type` from
 *  p[0 .. len): BB_E_UNSUPPORTED when the encoding does not apply to the type, BB_E_CORRUPT
 *  or BB_E_TOO_LARGE (pv->why says why), BB_E_NOMEM, or what the callback returned. */
bb_status pq_decode_values(pq_values *pv, int64_t encoding, bb_pq_type type, const uint8_t *p,
                           size_t len, size_t n);

#endif
