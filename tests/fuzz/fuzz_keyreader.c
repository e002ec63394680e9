/* SPDX-License-Identifier: MIT */
/*
 * fuzz_keyreader.c - libFuzzer target for the CLI's key reader (src/cli/keys.c), in line and
 * NUL mode, over one to three input files read in order and in chunks of any size. The
 * reader's keys are compared with an independent reading of the rules in docs/CLI.md "Keys":
 *  - line mode: LF ends a key and one CR right before it (or at the very end of the input)
 *    is dropped; an empty line is the empty key; NUL bytes are ordinary key bytes;
 *  - NUL mode (-0): NUL ends a key and nothing is stripped;
 *  - in both, the last key of each file needs no terminator, and a key never spans files;
 *  - a chunk holds at most max_keys keys, and only its last key may take it to max_bytes or
 *    beyond;
 *  - a key longer than the limit (r.max_key, after a stripped CR) fails the fill, after the
 *    keys before it came out whole in the chunks already returned.
 * Input layout: byte 0 = mode (bit 0: NUL mode; bits 1-2: files - 1; bits 3-7: max_keys - 1),
 * byte 1 = max_bytes / 4, bytes 2-3 = where the rest is cut into files, byte 4 = the key
 * limit (0: the default), the rest = content.
 * The files are memfds (no disk I/O). Build and run: scripts/fuzz.sh.
 */
#ifndef _GNU_SOURCE /* memfd_create; scripts/fuzz.sh also defines it, for the CLI files */
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../src/cli/cli.h"

#define MAX_FILES 3

static int fds[MAX_FILES] = {-1, -1, -1};
static char paths[MAX_FILES][64];

static void write_file(int i, const uint8_t *p, size_t n) {
    if (fds[i] < 0) {
        fds[i] = memfd_create("fuzz_keys", MFD_CLOEXEC);
        if (fds[i] < 0) abort();
        snprintf(paths[i], sizeof paths[i], "/proc/self/fd/%d", fds[i]);
    }
    if (ftruncate(fds[i], 0) != 0 || pwrite(fds[i], p, n, 0) != (ssize_t)n) abort();
}

/* The reference: append the keys of one file (where each starts in p, and its length after
 * a stripped CR) to ref[*n_ref ..]; note in *first_bad the index of the first key longer
 * than max_key, if none was before. */
typedef struct ref_key {
    const uint8_t *p;
    size_t len;
} ref_key;

static void reference_keys(const uint8_t *p, size_t n, int nul, size_t max_key, ref_key *ref,
                           size_t *n_ref, size_t *first_bad) {
    char delim = nul ? '\0' : '\n';
    size_t pos = 0;
    while (pos < n) {
        const uint8_t *end = memchr(p + pos, delim, n - pos);
        size_t len = end ? (size_t)(end - (p + pos)) : n - pos;
        size_t keep = !nul && len && p[pos + len - 1] == '\r' ? len - 1 : len;
        if (keep > max_key && *first_bad == SIZE_MAX) *first_bad = *n_ref;
        ref[(*n_ref)++] = (ref_key){p + pos, keep};
        pos += len + (end != NULL);
    }
}

/* All keys the reader returns, concatenated as in a cli_keybuf. */
typedef struct all_keys {
    char *data;
    int64_t *off;
    size_t n, len;
} all_keys;

static void append_chunk(all_keys *a, const cli_keybuf *kb) {
    a->data = realloc(a->data, a->len + kb->len + 1);
    a->off = realloc(a->off, (a->n + kb->n + 1) * sizeof *a->off);
    if (!a->data || !a->off) abort();
    if (a->n == 0) a->off[0] = 0;
    if (kb->len) memcpy(a->data + a->len, kb->data, kb->len);
    for (size_t i = 1; i <= kb->n; i++) a->off[a->n + i] = (int64_t)a->len + kb->off[i];
    a->n += kb->n;
    a->len += kb->len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5) return 0;
    int nul = data[0] & 1;
    size_t n_files = 1 + (size_t)((data[0] >> 1) & 3) % MAX_FILES;
    size_t max_keys = 1 + (size_t)(data[0] >> 3), max_bytes = 1 + (size_t)data[1] * 4;
    size_t max_key = data[4] ? data[4] : CLI_MAX_KEY_DEFAULT;
    const uint8_t *content = data + 5;
    size_t n = size - 5;
    size_t cut[MAX_FILES + 1] = {0};
    cut[1] = n_files > 1 ? data[2] % (n + 1) : n;
    cut[2] = n_files > 2 ? cut[1] + data[3] % (n - cut[1] + 1) : n;
    cut[n_files] = n;
    char *argv_paths[MAX_FILES];
    for (size_t i = 0; i < n_files; i++) {
        write_file((int)i, content + cut[i], cut[i + 1] - cut[i]);
        argv_paths[i] = paths[i];
    }

    cli_keyreader r;
    cli_keybuf kb = {0};
    all_keys all = {0};
    cli_keyreader_init(&r, argv_paths, n_files, nul, false);
    r.max_key = max_key;
    int failed = 0;
    for (bool done = false; !done && !failed;) {
        if (cli_keyreader_fill(&r, &kb, max_keys, max_bytes, &done) != BB_EXIT_OK) {
            failed = 1; /* the keys of this chunk are dropped with it */
            continue;
        }
        if (kb.n > max_keys) abort();
        if (kb.n > 1 && (size_t)kb.off[kb.n - 1] >= max_bytes) abort(); /* overfull chunk */
        if (kb.off[0] != 0 || (size_t)kb.off[kb.n] != kb.len) abort();
        append_chunk(&all, &kb);
    }
    cli_keyreader_close(&r);
    if (!failed && r.total != all.n) abort();

    /* A failed run returned a prefix of the keys before the first one over the limit (the
     * failing chunk is dropped); a run that did not fail returned every key, none too long. */
    ref_key *ref = malloc((n + MAX_FILES) * sizeof *ref);
    size_t n_ref = 0, first_bad = SIZE_MAX;
    if (!ref) abort();
    for (size_t i = 0; i < n_files; i++)
        reference_keys(content + cut[i], cut[i + 1] - cut[i], nul, max_key, ref, &n_ref,
                       &first_bad);
    if (failed != (first_bad != SIZE_MAX)) abort();
    if (failed ? all.n > first_bad : all.n != n_ref) abort();
    for (size_t i = 0; i < all.n; i++) {
        size_t glen = (size_t)(all.off[i + 1] - all.off[i]);
        if (glen != ref[i].len || memcmp(all.data + all.off[i], ref[i].p, glen) != 0) abort();
    }
    free(ref);
    cli_keybuf_free(&kb);
    free(all.data);
    free(all.off);
    return 0;
}
