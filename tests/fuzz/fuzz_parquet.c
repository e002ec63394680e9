/* SPDX-License-Identifier: MIT */
/*
 * fuzz_parquet.c - libFuzzer target for libblockbloom_parquet's parsers: the Thrift compact
 * reader and writer (src/parquet/thrift.c), the footer parser (FileMetaData, schema, row
 * groups) and the Bloom filter header parser. Each input is used three ways:
 *  1. as one Thrift struct: if it parses, writing it and parsing the result again must work
 *     and consume exactly the written bytes, and a second write must equal the first (the
 *     writer is canonical and keeps every field, known or not);
 *  2. as a whole Parquet file (bb_pq_open_buffer);
 *  3. as a footer, wrapped as "PAR1" INPUT <length> "PAR1", so that the footer parser sees
 *     arbitrary FileMetaData and the chunk offsets point into the input itself.
 * For every file that opens, every column and chunk is described, every chunk's Bloom
 * filter header is parsed (bb_pq_chunk_bitset; a returned bitset must lie inside the file)
 * and its pages are decoded (bb_pq_chunk_values: page headers, codecs, levels, PLAIN and
 * dictionary, DELTA_* and BYTE_STREAM_SPLIT values; never more values than the chunk's
 * num_values).
 * Invariants: no crash, leak, out-of-bounds read or undefined behaviour (ASan, UBSan).
 * Build and run: scripts/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_parquet/, small
 * files written by DuckDB, and the hostile ones of tests/test_parquet.c).
 */
#include <stdlib.h>
#include <string.h>

#include "blockbloom_parquet.h"
#include "thrift.h"

static void thrift_round_trip(const uint8_t *data, size_t size) {
    tc_node a, b;
    size_t used;
    if (tc_parse_struct(data, size, &used, &a) != BB_OK) return;
    if (used > size) abort();
    tc_buf w1 = {0}, w2 = {0};
    tc_write_struct(&w1, &a);
    if (w1.failed || tc_parse_struct(w1.p, w1.len, &used, &b) != BB_OK || used != w1.len) abort();
    tc_write_struct(&w2, &b);
    if (w2.failed || w2.len != w1.len || memcmp(w1.p, w2.p, w1.len) != 0) abort();
    tc_buf_free(&w1);
    tc_buf_free(&w2);
    tc_free(&a);
    tc_free(&b);
}

/* The values of a chunk: counted, and each must lie inside the file or the decoder's own
 * buffers (ASan checks the reads). */
static bb_status count_value(void *ctx, const void *value, size_t len) {
    const uint8_t *p = value;
    volatile uint8_t sink = len ? p[0] ^ p[len - 1] : 0;
    (void)sink;
    ++*(size_t *)ctx;
    return BB_OK;
}

static void walk_file(const uint8_t *data, size_t size) {
    bb_pq_file *pf;
    if (bb_pq_open_buffer(&pf, data, size) != BB_OK) return;
    for (size_t c = 0; c < bb_pq_columns(pf); c++) {
        bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
        if (bb_pq_column(pf, c, &ci) != BB_OK || !ci.name || !ci.logical) abort();
    }
    for (size_t rg = 0; rg < bb_pq_row_groups(pf); rg++)
        for (size_t c = 0; c < bb_pq_columns(pf); c++) {
            bb_pq_chunk_info ch = BB_PQ_CHUNK_INFO_INIT;
            bb_pq_chunk(pf, rg, c, &ch);
            const void *bits;
            size_t len;
            bool pow2;
            if (bb_pq_chunk_bitset(pf, rg, c, &bits, &len, &pow2) == BB_OK) {
                const uint8_t *p = bits;
                if (p < data || len > size || p + len > data + size || len % 32) abort();
            }
            size_t n = 0;
            if (bb_pq_chunk_values(pf, rg, c, count_value, &n) == BB_OK &&
                n > (size_t)(ch.num_values > 0 ? ch.num_values : 0))
                abort(); /* more values than the chunk holds */
        }
    bb_pq_close(pf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    thrift_round_trip(data, size);
    walk_file(data, size);
    uint8_t *wrapped = malloc(size + 12);
    if (!wrapped) return 0;
    memcpy(wrapped, "PAR1", 4);
    if (size) memcpy(wrapped + 4, data, size);
    uint32_t n = (uint32_t)size;
    for (int i = 0; i < 4; i++) wrapped[4 + size + i] = (uint8_t)(n >> (8 * i));
    memcpy(wrapped + size + 8, "PAR1", 4);
    walk_file(wrapped, size + 12);
    free(wrapped);
    return 0;
}
