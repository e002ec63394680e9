/* SPDX-License-Identifier: MIT */
/*
 * table.c - the kinds table: one row per bb_kind value, each row defined in its kind's file
 * (src/kinds/<kind>.c). Adding a kind adds its file and one entry here.
 */
#include "../internal.h"

const bb_kind_ops *const bb_kind_rows[BB_KIND_ROWS] = {
    [BB_BLOCKED] = &bb_kind_blocked,
    [BB_CLASSIC] = &bb_kind_classic,
    [BB_COUNTING] = &bb_kind_counting,
    [BB_SCALABLE] = &bb_kind_scalable,
    [BB_SPLIT] = &bb_kind_split,
    [BB_SECTORIZED] = &bb_kind_sectorized,
};

const bb_kind_ops *bb_kind_row(bb_kind kind) {
    return (unsigned)kind < BB_KIND_ROWS ? bb_kind_rows[kind] : NULL;
}
