/* SPDX-License-Identifier: MIT */
/*
 * remove.c - `blockbloom remove FILTER [FILE]...`: remove keys from a counting filter file
 * (built with --kind counting). The file is loaded into memory, each key read (as by
 * `blockbloom build`) is removed with bb_remove, and the file is replaced atomically
 * (bb_save), so an interrupted remove leaves the old file intact.
 *
 * A key that is definitely not in the filter (one of its counters is 0) is refused by the
 * library and changes nothing; such keys are counted and reported, and are not an error: the
 * other keys are still removed and the file is written. Removing a key that was never added
 * but happens to be a false positive does decrement its counters, which can make other keys
 * false negatives: remove only keys that were added (see bb_remove in blockbloom.h).
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <unistd.h>
#include <inttypes.h>

static const char usage[] =
    "Usage: blockbloom remove [OPTION]... FILTER [FILE]...\n"
    "Remove the keys of the FILEs (standard input when no FILE or FILE is -) from the\n"
    "counting filter file FILTER (see 'blockbloom build --kind counting'), which is\n"
    "rewritten atomically. Keys are read as by 'blockbloom build'. A key that is definitely\n"
    "not in the filter is skipped and counted; remove only keys that were added, or other\n"
    "keys may stop being found.\n"
    "\n"
    "  -0, --null             keys end with NUL instead of newline; nothing is stripped\n"
    "      --max-key-bytes=N  fail on a key longer than N bytes, as 'blockbloom build'\n"
    "                         (default 16777216, 16 MiB)\n"
    "  -h, --help             show this help and exit\n"
    "\n"
    "A summary goes to standard error. Exit status: 0 success (also when keys were\n"
    "skipped), 1 error, 2 usage error.\n";

/* Remove every key of kb; count the refused (absent) ones. */
static int remove_chunk(bb_filter *f, const cli_keybuf *kb, uint64_t *absent) {
    for (size_t i = 0; i < kb->n; i++) {
        bb_status s = bb_remove(f, kb->data + kb->off[i], (size_t)(kb->off[i + 1] - kb->off[i]));
        if (s == BB_E_ABSENT) {
            (*absent)++;
        } else if (s != BB_OK) {
            cli_error("cannot remove keys: %s", bb_strerror(s));
            return BB_EXIT_RUNTIME;
        }
    }
    return BB_EXIT_OK;
}

static int remove_stream(bb_filter *f, cli_keyreader *r, uint64_t *absent) {
    cli_keybuf kb = {0};
    bool done = false;
    int st = BB_EXIT_OK;
    while (st == BB_EXIT_OK && !done) {
        st = cli_keyreader_fill(r, &kb, CLI_CHUNK_KEYS, CLI_CHUNK_BYTES, &done);
        if (st == BB_EXIT_OK) st = remove_chunk(f, &kb, absent);
    }
    cli_keybuf_free(&kb);
    return st;
}

/* Load, remove the keys of files[0 .. n_files), replace: under the file's lock. */
static int remove_keys(const char *path, char *const *files, size_t n_files, bool nul) {
    bb_filter *f;
    bb_status s = bb_load(&f, path);
    if (s != BB_OK) return cli_lib_error("cannot load filter", path, s, errno);
    bb_info in = BB_INFO_INIT;
    if (bb_get_info(f, &in) == BB_OK && in.kind != BB_COUNTING) {
        cli_error("cannot remove from '%s': it is a %s filter; only counting filters "
                  "(build --kind counting) support remove", path, bb_kind_name(in.kind));
        bb_free(f);
        return BB_EXIT_RUNTIME;
    }
    cli_keyreader r;
    uint64_t absent = 0;
    cli_keyreader_init(&r, files, n_files, nul, true);
    int st = remove_stream(f, &r, &absent);
    cli_keyreader_close(&r);
    if (st == BB_EXIT_OK && absent)
        cli_error("%" PRIu64 " of %" PRIu64 " keys were not in the filter and were skipped",
                  absent, r.total);
    if (st == BB_EXIT_OK) st = cli_save_and_report(f, path);
    bb_free(f);
    return st;
}

int bb_cmd_remove(int argc, char **argv) {
    cli_simple_opts o = {0};
    int st0 = cli_parse_simple("remove", usage, "0m", argc, argv, &o);
    if (st0 >= 0) return st0;
    if (optind >= argc) return cli_usage_error("remove", "missing FILTER (the filter file)");
    const char *path = argv[optind++];

    int lock, st = cli_lock_filter(path, &lock);
    if (st != BB_EXIT_OK) return st;
    st = remove_keys(path, argv + optind, (size_t)(argc - optind), o.nul);
    cli_unlock(lock);
    return st;
}
