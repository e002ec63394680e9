/*
 * fuzz_keyreader.c - libFuzzer target for the CLI's key reader (src/cli/keys.c), in line and
 * NUL mode, over one to three input files read in order and in chunks of any size. The
 * reader's keys are compared with an independent reading of the rules in README "Keys":
 *  - line mode: LF ends a key and one CR right before it (or at the very end of the input)
 *    is dropped; an empty line is the empty key; NUL bytes are ordinary key bytes;
 *  - NUL mode (-0): NUL ends a key and nothing is stripped;
 *  - in both, the last key of each file needs no terminator, and a key never spans files;
 *  - a chunk holds at most max_keys keys, and only its last key may take it to max_bytes or
 *    beyond.
 * Input layout: byte 0 = mode (bit 0: NUL mode; bits 1-2: files - 1; bits 3-7: max_keys - 1),
 * byte 1 = max_bytes / 4, bytes 2-3 = where the rest is cut into files, the rest = content.
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

/* The reference: the keys of one file, checked one by one against the reader's keys
 * (*next indexes those). Returns 0 on the first difference. */
static int expect_file(const uint8_t *p, size_t n, int nul, const char *got, const int64_t *off,
                       size_t n_got, size_t *next) {
    char delim = nul ? '\0' : '\n';
    size_t pos = 0;
    while (pos < n) {
        const uint8_t *end = memchr(p + pos, delim, n - pos);
        size_t len = end ? (size_t)(end - (p + pos)) : n - pos;
        size_t keep = !nul && len && p[pos + len - 1] == '\r' ? len - 1 : len;
        if (*next >= n_got) return 0;
        size_t glen = (size_t)(off[*next + 1] - off[*next]);
        if (glen != keep || memcmp(got + off[*next], p + pos, keep) != 0) return 0;
        ++*next;
        pos += len + (end != NULL);
    }
    return 1;
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
    if (size < 4) return 0;
    int nul = data[0] & 1;
    size_t n_files = 1 + (size_t)((data[0] >> 1) & 3) % MAX_FILES;
    size_t max_keys = 1 + (size_t)(data[0] >> 3), max_bytes = 1 + (size_t)data[1] * 4;
    const uint8_t *content = data + 4;
    size_t n = size - 4;
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
    for (bool done = false; !done;) {
        if (cli_keyreader_fill(&r, &kb, max_keys, max_bytes, &done) != BB_EXIT_OK) abort();
        if (kb.n > max_keys) abort();
        if (kb.n > 1 && (size_t)kb.off[kb.n - 1] >= max_bytes) abort(); /* overfull chunk */
        if (kb.off[0] != 0 || (size_t)kb.off[kb.n] != kb.len) abort();
        append_chunk(&all, &kb);
    }
    cli_keyreader_close(&r);
    if (r.total != all.n) abort();

    size_t next = 0;
    for (size_t i = 0; i < n_files; i++)
        if (!expect_file(content + cut[i], cut[i + 1] - cut[i], nul, all.data, all.off, all.n,
                         &next))
            abort();
    if (next != all.n) abort(); /* the reader returned keys the rules do not give */
    cli_keybuf_free(&kb);
    free(all.data);
    free(all.off);
    return 0;
}
