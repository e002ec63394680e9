/* SPDX-License-Identifier: MIT */
/*
 * merge.c - `blockbloom merge -o OUT A B [C]...`: the union of filter files (bb_union), e.g.
 * of filters built in parallel from parts of one key set: the result is byte-identical to the
 * filter built from all the keys. The first input is loaded into memory and the others are
 * memory-mapped and merged into it one by one; inputs must agree in kind, size, probes, seed
 * (and, for scalable filters, sub-filter layout), else the first difference is named and
 * nothing is written. OUT is replaced atomically and may be one of the inputs.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>

static const char usage[] =
    "Usage: blockbloom merge [OPTION]... -o OUT A B [C]...\n"
    "Write to OUT the union of the filter files A, B, C...: a key is in OUT when it is in\n"
    "any input. The inputs must have the same kind, size, probes per key and seed (build\n"
    "them with the same options); counting filters add their counters. OUT is replaced\n"
    "atomically. Its keys-added count is the sum of the inputs': an upper bound, since a\n"
    "key in two inputs counts twice ('blockbloom info' also estimates the distinct keys).\n"
    "\n"
    "  -o, --output=OUT  file to write (required)\n"
    "  -h, --help        show this help and exit\n"
    "\n"
    "A summary goes to standard error. Exit status: 0 success, 1 error, 2 usage error.\n";

/* "kind blocked vs classic", "seed 0x... vs 0x...": the values behind a mismatch. */
static void describe_mismatch(bb_mismatch what, const bb_filter *fa, const bb_filter *fb,
                              const bb_info *a, const bb_info *b, char *buf, size_t cap) {
    bb_key_scheme ka, kb;
    switch (what) {
    case BB_MISMATCH_KEYS:
        bb_get_key_scheme(fa, &ka);
        bb_get_key_scheme(fb, &kb);
        snprintf(buf, cap, "keys (--keys %s vs %s)", bb_keys_name(ka.keys), bb_keys_name(kb.keys));
        break;
    case BB_MISMATCH_KIND:
        snprintf(buf, cap, "kind (%s vs %s)", bb_kind_name(a->kind), bb_kind_name(b->kind));
        break;
    case BB_MISMATCH_BITS:
        snprintf(buf, cap, "size (%" PRIu64 " vs %" PRIu64 " bits)", a->bits, b->bits);
        break;
    case BB_MISMATCH_K: snprintf(buf, cap, "probes per key (k=%u vs k=%u)", a->k, b->k); break;
    case BB_MISMATCH_SEED:
        snprintf(buf, cap, "seed (0x%016" PRIx64 " vs 0x%016" PRIx64 ")", a->seed, b->seed);
        break;
    default:
        snprintf(buf, cap, "sub-filter layout (%" PRIu64 " vs %" PRIu64 " sub-filters, or their "
                 "sizes)", a->subfilters, b->subfilters);
    }
}

/* Merge the file `path` into dst (loaded from `dst_path`). */
static int merge_one(bb_filter *dst, const char *dst_path, const char *path) {
    bb_filter *src;
    bb_status s = bb_open_mmap(&src, path);
    if (s != BB_OK) return cli_lib_error("cannot open filter", path, s, errno);
    bb_mismatch what = BB_MATCH;
    s = bb_union_check(dst, src, &what);
    if (s == BB_OK) s = bb_union(dst, src);
    if (s == BB_E_MISMATCH) {
        bb_info a = BB_INFO_INIT, b = BB_INFO_INIT;
        char why[160] = "";
        if (bb_get_info(dst, &a) == BB_OK && bb_get_info(src, &b) == BB_OK)
            describe_mismatch(what, dst, src, &a, &b, why, sizeof why);
        cli_error("cannot merge '%s' with '%s': they differ in %s", dst_path, path, why);
    } else if (s != BB_OK) {
        cli_lib_error("cannot merge", path, s, 0);
    }
    bb_free(src);
    return s == BB_OK ? BB_EXIT_OK : BB_EXIT_RUNTIME;
}

int bb_cmd_merge(int argc, char **argv) {
    cli_simple_opts o = {0};
    int st0 = cli_parse_simple("merge", usage, "o", argc, argv, &o);
    if (st0 >= 0) return st0;
    if (argc - optind < 2) return cli_usage_error("merge", "need at least two filter files");

    /* OUT's lock before any input is read: when OUT is an input, an add to it either
     * finishes before the merge loads it or loads the merged file. */
    int lock, st = cli_lock_output(o.out, &lock);
    if (st != BB_EXIT_OK) return st;
    const char *first = argv[optind];
    bb_filter *dst;
    bb_status s = bb_load(&dst, first);
    if (s != BB_OK) {
        cli_unlock(lock);
        return cli_lib_error("cannot load filter", first, s, errno);
    }
    for (int i = optind + 1; st == BB_EXIT_OK && i < argc; i++) st = merge_one(dst, first, argv[i]);
    if (st == BB_EXIT_OK) st = cli_save_and_report(dst, o.out);
    cli_unlock(lock);
    bb_free(dst);
    return st;
}
