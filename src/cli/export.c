/* SPDX-License-Identifier: MIT */
/*
 * export.c - `blockbloom export -o OUT FILTER`: write the plain blocked filter of a counting
 * filter file (bb_counting_to_blocked): a copy a quarter of the size, for readers that never
 * remove. It answers exactly as the counting filter does and is byte-identical to a blocked
 * filter built from the keys the counting filter holds, unless counters saturated (then it
 * is a superset, which is reported). The input is memory-mapped, not loaded.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>

static const char usage[] =
    "Usage: blockbloom export [OPTION]... -o OUT FILTER\n"
    "Write to OUT the plain blocked filter of the counting filter file FILTER: the same\n"
    "answers in a quarter of the space, for copies that never remove keys. OUT is replaced\n"
    "atomically.\n"
    "\n"
    "  -o, --output=OUT  file to write (required)\n"
    "  -h, --help        show this help and exit\n"
    "\n"
    "A summary goes to standard error. Exit status: 0 success, 1 error, 2 usage error.\n";

static int export_file(const char *path, const char *out) {
    bb_filter *f, *b = NULL;
    bb_status s = bb_open_mmap(&f, path);
    if (s != BB_OK) return cli_lib_error("cannot open filter", path, s, errno);
    bb_info in = BB_INFO_INIT;
    s = bb_get_info(f, &in);
    if (s == BB_OK) s = bb_counting_to_blocked(f, &b);
    bb_free(f);
    if (s == BB_E_UNSUPPORTED) {
        cli_error("cannot export '%s': it is a %s filter; only counting filters are exported",
                  path, bb_kind_name(in.kind));
        return BB_EXIT_RUNTIME;
    }
    if (s != BB_OK) return cli_lib_error("cannot export", path, s, 0);
    if (in.saturated_counters)
        cli_error("%" PRIu64 " counters of '%s' are saturated: the export keeps their bits set "
                  "(a superset of the filter of the current keys)", in.saturated_counters, path);
    int st = cli_save_and_report(b, out);
    bb_free(b);
    return st;
}

int bb_cmd_export(int argc, char **argv) {
    cli_simple_opts o = {0};
    int st0 = cli_parse_simple("export", usage, "o", argc, argv, &o);
    if (st0 >= 0) return st0;
    if (optind >= argc) return cli_usage_error("export", "missing FILTER (the counting filter)");
    if (argc - optind > 1)
        return cli_usage_error("export", "one FILTER only, got '%s' too", argv[optind + 1]);
    int lock, st = cli_lock_output(o.out, &lock);
    if (st == BB_EXIT_OK) st = export_file(argv[optind], o.out);
    cli_unlock(lock);
    return st;
}
