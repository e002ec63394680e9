/* SPDX-License-Identifier: MIT */
/*
 * datadir.h - where the npm package names (the real-data keys of `blockbloom demo` and of the
 * benchmark) are looked for, one rule for both programs (datadir.c); the fetch script,
 * scripts/fetch-npm-names.sh (installed as blockbloom-fetch-npm-names), writes to the same
 * place. Nothing here points into a build or source tree, so installed programs behave the
 * same as built ones.
 */
#ifndef BB_DATADIR_H
#define BB_DATADIR_H

#include <stddef.h>

/** The names file: $BB_DATA_DIR/npm-names.txt when BB_DATA_DIR is set; else
 *  data/npm-names.txt when it exists (the source tree's data/, when run from there); else
 *  $XDG_DATA_HOME/blockbloom/npm-names.txt, XDG_DATA_HOME defaulting to ~/.local/share
 *  (where the installed fetch script writes). Returns buf (cap bytes) or a string constant. */
const char *bb_npm_names_path(char *buf, size_t cap);

#endif
