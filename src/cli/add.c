/* SPDX-License-Identifier: MIT */
/*
 * add.c - `blockbloom add FILTER [FILE]...`: load a filter file into memory, stream the
 * keys of the FILEs (or stdin) into it and replace the file atomically (bb_save: temporary
 * file, fsync, rename), so an interrupted or failed add leaves the old file intact. The
 * filter keeps its size: keys beyond its capacity raise the false-positive rate (see the
 * summary line and `blockbloom info`).
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <unistd.h>

static const char usage[] =
    "Usage: blockbloom add [OPTION]... FILTER [FILE]...\n"
    "Add the keys of the FILEs (standard input when no FILE or FILE is -) to the filter\n"
    "file FILTER, which is rewritten atomically. Keys are read as by 'blockbloom build'.\n"
    "The filter keeps its size: adding more keys than its capacity raises its\n"
    "false-positive rate.\n"
    "\n"
    "  -0, --null             keys end with NUL instead of newline; nothing is stripped\n"
    "      --max-key-bytes=N  fail on a key longer than N bytes, as 'blockbloom build'\n"
    "                         (default 16777216, 16 MiB)\n"
    "  -j, --jobs=N           hash and add on N threads, as 'blockbloom build'\n"
    "  -h, --help             show this help and exit\n"
    "\n"
    "A summary goes to standard error. Exit status: 0 success, 1 error, 2 usage error.\n";

static int add_plain(bb_filter *f, char *const *files, size_t n_files, bool nul) {
    cli_keyreader r;
    cli_keyreader_init(&r, files, n_files, nul, true);
    int st = cli_add_stream(f, &r);
    cli_keyreader_close(&r);
    return st;
}

/* Load, add the keys of files[0 .. n_files), replace: under the file's lock. A filter built
 * with --keys takes lines of its key kind (netkeys.c). */
static int add_keys(const char *path, char *const *files, size_t n_files, bool nul) {
    bb_filter *f;
    bb_status s = bb_load(&f, path);
    if (s != BB_OK) return cli_lib_error("cannot load filter", path, s, errno);
    cli_use_jobs(f);
    bb_key_scheme ks = {0};
    bb_get_key_scheme(f, &ks);
    int st = ks.keys ? cli_net_add(f, files, n_files) /* built with --keys (netkeys.c) */
                     : add_plain(f, files, n_files, nul);
    if (st == BB_EXIT_OK) st = cli_save_and_report(f, path);
    bb_free(f);
    return st;
}

int bb_cmd_add(int argc, char **argv) {
    cli_simple_opts o = {0};
    int st0 = cli_parse_simple("add", usage, "0mj", argc, argv, &o);
    if (st0 >= 0) return st0;
    if (optind >= argc) return cli_usage_error("add", "missing FILTER (the filter file)");
    const char *path = argv[optind++];

    int lock, st = cli_lock_filter(path, &lock);
    if (st != BB_EXIT_OK) return st;
    st = add_keys(path, argv + optind, (size_t)(argc - optind), o.nul);
    cli_unlock(lock);
    return st;
}
