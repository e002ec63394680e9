/* SPDX-License-Identifier: MIT */
/*
 * datadir.c - the location rule of datadir.h for the npm names file, shared by the CLI's demo
 * and the benchmark program (which compiles this file too). The XDG base directory
 * specification gives the per-user data directory: $XDG_DATA_HOME, or ~/.local/share.
 */
#include "datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NAMES_FILE "npm-names.txt"
#define SOURCE_TREE_NAMES "data/" NAMES_FILE

const char *bb_npm_names_path(char *buf, size_t cap) {
    const char *dir = getenv("BB_DATA_DIR"), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (dir && *dir)
        snprintf(buf, cap, "%s/" NAMES_FILE, dir);
    else if (access(SOURCE_TREE_NAMES, R_OK) == 0)
        return SOURCE_TREE_NAMES;
    else if (xdg && *xdg)
        snprintf(buf, cap, "%s/blockbloom/" NAMES_FILE, xdg);
    else if (home && *home)
        snprintf(buf, cap, "%s/.local/share/blockbloom/" NAMES_FILE, home);
    else
        return SOURCE_TREE_NAMES;
    return buf;
}
