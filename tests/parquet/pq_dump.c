/* SPDX-License-Identifier: MIT */
/*
 * pq_dump.c - a test tool: print every non-null value of one column of a Parquet file, as
 * libblockbloom_parquet decodes it (bb_pq_chunk_values), one line "ROW_GROUP<TAB>VALUE":
 * BYTE_ARRAY as its bytes, INT32 and INT64 in decimal, FLOAT and DOUBLE with %.9g / %.17g,
 * FIXED_LEN_BYTE_ARRAY in hex. The DuckDB oracle (oracle.mjs) compares this with what
 * DuckDB reads from the same file, so the page decoder is checked against a real reader.
 *   pq_dump FILE COLUMN        exit 0, or 1 with the library's message on stderr
 */
#include "blockbloom_parquet.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct dump {
    bb_pq_type type;
    size_t rg;
} dump;

static uint64_t le(const unsigned char *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

static bb_status print_value(void *ctx, const void *value, size_t len) {
    const dump *d = ctx;
    const unsigned char *p = value;
    printf("%zu\t", d->rg);
    if (d->type == BB_PQ_INT32) {
        printf("%" PRId32, (int32_t)(uint32_t)le(p, 4));
    } else if (d->type == BB_PQ_INT64) {
        printf("%" PRId64, (int64_t)le(p, 8));
    } else if (d->type == BB_PQ_FLOAT) {
        uint32_t b = (uint32_t)le(p, 4);
        float f;
        memcpy(&f, &b, 4);
        printf("%.9g", f);
    } else if (d->type == BB_PQ_DOUBLE) {
        uint64_t b = le(p, 8);
        double x;
        memcpy(&x, &b, 8);
        printf("%.17g", x);
    } else if (d->type == BB_PQ_BYTE_ARRAY) {
        fwrite(p, 1, len, stdout);
    } else {
        for (size_t i = 0; i < len; i++) printf("%02x", p[i]);
    }
    putchar('\n');
    return BB_OK;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: pq_dump FILE COLUMN\n", stderr);
        return 2;
    }
    bb_pq_file *pf;
    size_t col;
    bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
    bb_status s = bb_pq_open(&pf, argv[1]);
    if (s == BB_OK && (s = bb_pq_find_column(pf, argv[2], &col)) == BB_OK) {
        bb_pq_column(pf, col, &ci);
        dump d = {ci.type, 0};
        for (; d.rg < bb_pq_row_groups(pf) && s == BB_OK; d.rg++)
            s = bb_pq_chunk_values(pf, d.rg, col, print_value, &d);
    }
    bb_pq_close(pf);
    if (s != BB_OK) {
        fprintf(stderr, "pq_dump: %s: %s\n", argv[1], bb_last_error());
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
