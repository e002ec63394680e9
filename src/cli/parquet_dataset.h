/* SPDX-License-Identifier: MIT */
/*
 * parquet_dataset.h - FILE operands as datasets (parquet_dataset.c): directories and glob
 * patterns expanded into the Parquet files they stand for, each with its path relative to
 * its operand's root.
 */
#ifndef BB_CLI_PARQUET_DATASET_H
#define BB_CLI_PARQUET_DATASET_H

#include "cli.h"

typedef struct cli_pq_input {
    char *path;        /* as opened */
    const char *rel;   /* within its operand's root (into path) */
} cli_pq_input;

typedef struct cli_pq_inputs {
    cli_pq_input *v;
    size_t n, cap;
    bool dataset;      /* a directory, a glob or several operands: not one plain file */
} cli_pq_inputs;

/** Expand operands[0 .. n) into *in (sorted within each operand). Returns BB_EXIT_OK, or
 *  BB_EXIT_RUNTIME after a message (a directory without *.parquet files, a pattern that
 *  matches nothing, an unreadable directory); *in is then empty. */
int cli_pq_expand(char *const *operands, size_t n, cli_pq_inputs *in);
void cli_pq_inputs_free(cli_pq_inputs *in);

#endif
