/* SPDX-License-Identifier: MIT */
/*
 * pq.h - what the files of libblockbloom_parquet share: the open file (its mapping, parsed
 * footer and leaf columns), the error helper, and the entry points of the page decoder and
 * codecs. Field ids are parquet.thrift's, named where they are used.
 */
#ifndef BB_PQ_INTERNAL_H
#define BB_PQ_INTERNAL_H

#include "blockbloom_parquet.h"
#include "thrift.h"

typedef struct pq_column {
    char *name;          /* dotted path */
    bb_pq_type type;
    int32_t type_length;
    const char *logical;
    int32_t scale;
    bool optional, flat;
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

/* Fill err (if not NULL) with the formatted message and return s. */
bb_status pq_fail(bb_pq_error *err, bb_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The ColumnMetaData of a chunk, checked: not encrypted, present. */
bb_status pq_chunk_meta(const bb_pq_file *pf, size_t rg, size_t col, tc_node **meta,
                        bb_pq_error *err);

/* Names of parquet.thrift enum values, for messages ("UNKNOWN(9)" past the table). */
const char *pq_codec_name(int64_t codec);
const char *pq_encoding_name(int64_t encoding);

/* Decompress src[0 .. src_len) of `codec` into exactly dst_len bytes at dst. */
bb_status pq_decompress(int64_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_len, bb_pq_error *err);

#endif
