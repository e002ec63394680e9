/* SPDX-License-Identifier: MIT */
/*
 * slice.c - `blockbloom build --slice I/N`: build one slice of a blocked filter (bb_slice,
 * see blockbloom.h) from the whole key stream and write its bytes. A slice file is the raw
 * bytes of the slice's blocks, with no header: the N slice files concatenated in order are
 * the whole filter's payload, and `blockbloom redis push --slice I/N` stores one as shard I
 * of a reserved Redis filter (docs/REDIS.md). Written by bb_write_file_atomically, as
 * bb_save writes filters (a temporary file in the same directory, fsync, rename), so a failed
 * build leaves no partial file.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse_slice(const char *text, uint64_t *index, uint64_t *n) {
    const char *slash = strchr(text, '/');
    if (!slash || slash == text || (size_t)(slash - text) > 20) return false;
    char head[24];
    memcpy(head, text, (size_t)(slash - text));
    head[slash - text] = '\0';
    return cli_parse_u64(head, 0, UINT64_MAX - 1, false, index) &&
           cli_parse_u64(slash + 1, 1, UINT64_MAX, false, n) && *index < *n;
}

int cli_write_atomic(const char *path, const void *data, uint64_t len) {
    const bb_file_part whole = {data, (size_t)len}; /* in memory, so len fits a size_t */
    bb_status s = bb_write_file_atomically(path, &whole, 1);
    return s == BB_OK ? BB_EXIT_OK : cli_lib_error("cannot write", path, s, errno);
}

static int stream(bb_slice *s, cli_keyreader *r, cli_keybuf *kb) {
    bool done = false;
    while (!done) {
        int st = cli_keyreader_fill(r, kb, CLI_CHUNK_KEYS, CLI_CHUNK_BYTES, &done);
        if (st != BB_EXIT_OK) return st;
        bb_status s2 = bb_slice_add_arrow64(s, kb->data, kb->off, kb->n);
        if (s2 != BB_OK) {
            cli_error("cannot add keys: %s", bb_strerror(s2));
            return BB_EXIT_RUNTIME;
        }
    }
    return BB_EXIT_OK;
}

int cli_build_slice(const bb_config *cfg, uint64_t index, uint64_t n, cli_keyreader *r,
                    cli_keybuf *kb, const char *path) {
    bb_slice *s;
    bb_status bs = bb_slice_create(&s, cfg, index, n);
    if (bs != BB_OK) {
        cli_error("cannot create slice %" PRIu64 "/%" PRIu64 ": %s%s", index, n,
                  bb_strerror(bs),
                  bs == BB_E_INVAL ? " (more slices than the filter has blocks?)" : "");
        return bs == BB_E_NOMEM ? BB_EXIT_RUNTIME : BB_EXIT_USAGE;
    }
    int st = stream(s, r, kb);
    uint64_t len;
    const void *data = bb_slice_data(s, &len);
    if (st == BB_EXIT_OK) st = cli_write_atomic(path, data, len);
    if (st == BB_EXIT_OK) {
        bb_slice_info in = BB_SLICE_INFO_INIT;
        bb_slice_get_info(s, &in);
        fprintf(stderr,
                "blockbloom: wrote %s: slice %" PRIu64 "/%" PRIu64 ", blocks %" PRIu64
                "..%" PRIu64 " of %" PRIu64 ", %" PRIu64 " keys read, k=%u\n",
                path, index, n, in.first_block, in.first_block + in.n_blocks - 1, in.blocks,
                in.keys_added, in.k);
    }
    bb_slice_free(s);
    return st;
}
