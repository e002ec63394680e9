/* SPDX-License-Identifier: MIT */
/*
 * parquet_index.c - `blockbloom parquet index IN -o OUT --column NAME... [-p FPR]`: a copy
 * of the Parquet file IN with a fresh split-block Bloom filter for every chunk of the named
 * columns (bb_pq_index: pages copied byte for byte, filters sized from each chunk's
 * distinct count, footer re-encoded; OUT written atomically, IN only read).
 */
#include "parquet.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: blockbloom parquet index IN -o OUT --column NAME... [-p FPR]\n"
    "Write OUT, a copy of the Parquet file IN with a new split-block Bloom filter for\n"
    "every row group of each column NAME (give --column once per column). Pages are copied\n"
    "byte for byte; each filter is sized for its chunk's number of distinct values at the\n"
    "false-positive rate FPR, with a power-of-two size as Parquet readers expect. A\n"
    "column may be any leaf (of a struct or a list too) of type INT32, INT64, INT96,\n"
    "FLOAT, DOUBLE, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY, in any encoding of the format\n"
    "and any codec but LZO. OUT is written atomically: on error it is not created\n"
    "or changed; IN is never modified.\n"
    "\n"
    "  -o, --output OUT     the file to write (not IN)\n"
    "  -c, --column NAME    a column to index (its dotted path); repeatable\n"
    "  -p, --fpr FPR        false-positive rate of each filter, 0 < FPR < 1 (default 0.01)\n"
    "  -h, --help           show this help and exit\n"
    "\n"
    "A summary line goes to standard error.\n"
    "Exit status: 0 success, 1 error, 2 usage error (also: OUT is IN).\n";

/* The line build prints after writing a filter, for the file index wrote: its filters,
 * read back from OUT's footer. */
static void summary(const char *out, const bb_pq_index_opts *o) {
    bb_pq_file *pf;
    if (bb_pq_open(&pf, out, NULL) != BB_OK) return;
    size_t n = 0, rgs = bb_pq_row_groups(pf);
    uint64_t bytes = 0;
    for (size_t j = 0; j < o->n_columns; j++) {
        size_t col;
        if (bb_pq_find_column(pf, o->columns[j], &col, NULL) != BB_OK) continue;
        for (size_t rg = 0; rg < rgs; rg++) {
            const void *bits;
            size_t len;
            if (bb_pq_chunk_bitset(pf, rg, col, &bits, &len, NULL, NULL) == BB_OK) {
                n++;
                bytes += len;
            }
        }
    }
    bb_pq_close(pf);
    cli_error("wrote %s: %zu split-block filters (%zu columns x %zu row groups), %" PRIu64
              " bytes of bitsets, FPR %g each", out, n, o->n_columns, rgs, bytes, o->fpr);
}

int cli_parquet_index(int argc, char **argv) {
    static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                          {"column", required_argument, NULL, 'c'},
                                          {"fpr", required_argument, NULL, 'p'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    static const char cmd[] = "parquet index";
    const char **columns = calloc((size_t)argc, sizeof *columns);
    if (!columns) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    bb_pq_index_opts o = {.columns = columns, .fpr = 0.01};
    const char *out = NULL;
    int c, st = -1;
    while (st < 0 && (c = getopt_long(argc, argv, "o:c:p:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'c':
            for (size_t i = 0; i < o.n_columns; i++)
                if (strcmp(columns[i], optarg) == 0)
                    st = cli_usage_error(cmd, "--column '%s' given twice", optarg);
            columns[o.n_columns++] = optarg;
            break;
        case 'p':
            if (!cli_parse_double(optarg, 0, 1, &o.fpr))
                st = cli_usage_error(cmd, "-p '%s' is not a rate between 0 and 1", optarg);
            break;
        case 'h': st = cli_help(usage); break;
        default: st = cli_bad_option(cmd);
        }
    }
    if (st < 0) {
        if (optind >= argc)
            st = cli_usage_error(cmd, "missing IN (the Parquet file to copy)");
        else if (argc - optind > 1)
            st = cli_usage_error(cmd, "one IN only ('%s' is extra)", argv[optind + 1]);
        else if (!out)
            st = cli_usage_error(cmd, "missing -o OUT (the file to write)");
        else if (!o.n_columns)
            st = cli_usage_error(cmd, "missing --column NAME (a column to index)");
    }
    if (st < 0 && strcmp(argv[optind], out) == 0)
        st = cli_usage_error(cmd, "OUT '%s' is IN: index writes a copy, never over its input",
                             out);
    if (st < 0) {
        bb_pq_error err;
        st = BB_EXIT_OK;
        if (bb_pq_index(argv[optind], out, &o, &err) != BB_OK) {
            cli_error("cannot index '%s' into '%s': %s", argv[optind], out, err.message);
            st = BB_EXIT_RUNTIME;
        } else {
            summary(out, &o);
        }
    }
    free(columns);
    return st;
}
