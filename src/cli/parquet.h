/* SPDX-License-Identifier: MIT */
/*
 * parquet.h - what the `blockbloom parquet` subcommands share (parquet.c): the subcommands'
 * entry points (parquet_info.c is in parquet.c, parquet_probe.c, parquet_index.c) and the
 * helpers that open a Parquet file or load a chunk's filter with the CLI's messages.
 */
#ifndef BB_CLI_PARQUET_H
#define BB_CLI_PARQUET_H

#include "blockbloom_parquet.h"
#include "cli.h"

int cli_parquet_probe(int argc, char **argv);
int cli_parquet_extract(int argc, char **argv);
int cli_parquet_index(int argc, char **argv);

/** Open `path`, or print "blockbloom: cannot read Parquet file 'PATH': MESSAGE" and return
 *  BB_EXIT_RUNTIME. */
int cli_pq_open(const char *path, bb_pq_file **out);

/** The filter of a chunk, or NULL in *out when it has none. A filter whose size is not a
 *  power of two is accepted with a note on stderr (*pow2, which may be NULL, tells which).
 *  Returns BB_EXIT_OK, or BB_EXIT_RUNTIME after a message naming the file. */
int cli_pq_chunk_filter(const char *path, const bb_pq_file *pf, size_t rg, size_t col,
                        bb_filter **out, bool *pow2);

/** Resolve --column NAME in pf, or print why not (BB_EXIT_RUNTIME). */
int cli_pq_column(const char *path, const bb_pq_file *pf, const char *name, size_t *col);

#endif
