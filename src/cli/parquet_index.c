/* SPDX-License-Identifier: MIT */
/*
 * parquet_index.c - `blockbloom parquet index IN -o OUT --column NAME... [-p FPR]`: a copy
 * of the Parquet file IN with a fresh split-block Bloom filter for every chunk of the named
 * columns (bb_pq_index: pages copied byte for byte, filters sized from each chunk's
 * distinct count, footer re-encoded; OUT written atomically, IN only read).
 */
#include "parquet.h"

#include <getopt.h>
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
    "Exit status: 0 success, 1 error, 2 usage error.\n";

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
    if (st < 0) {
        bb_pq_error err;
        st = BB_EXIT_OK;
        if (bb_pq_index(argv[optind], out, &o, &err) != BB_OK) {
            cli_error("cannot index '%s' into '%s': %s", argv[optind], out, err.message);
            st = BB_EXIT_RUNTIME;
        }
    }
    free(columns);
    return st;
}
