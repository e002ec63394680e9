/*
 * keys.c - the key reader shared by build, add and query: reads the input files in order
 * ("-" or no file at all = stdin) with getdelim, so a key may be of any length, and collects
 * the keys of one chunk in a cli_keybuf (one growing byte buffer plus Arrow-style 64-bit
 * offsets) that the batch API takes in one call.
 *
 * Key rules (also in README "Command-line tool"): in line mode LF ends a key and one CR right before it (or
 * at the very end of the input) is dropped, so CRLF files give the same keys as LF files; an
 * empty line is the empty key; NUL bytes are ordinary key bytes. With -0 a NUL ends a key
 * and nothing is stripped. In both modes the last key needs no terminator.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- The buffer ---------------------------------------------------------------------------- */

void cli_keybuf_free(cli_keybuf *kb) {
    free(kb->data);
    free(kb->off);
    memset(kb, 0, sizeof *kb);
}

/* Make room for `need` elements of `elem` bytes in *p, doubling (amortised O(1) appends). */
static bool reserve(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c = c > SIZE_MAX / 2 ? need : c * 2;
    if (c > SIZE_MAX / elem) return false;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static bool keybuf_reset(cli_keybuf *kb) {
    kb->n = 0;
    kb->len = 0;
    if (!reserve((void **)&kb->off, &kb->off_cap, 1, sizeof *kb->off)) return false;
    kb->off[0] = 0;
    return true;
}

static bool keybuf_append(cli_keybuf *kb, const char *key, size_t len) {
    if (len > SIZE_MAX - kb->len || kb->n > SIZE_MAX - 2) return false;
    if (!reserve((void **)&kb->data, &kb->cap, kb->len + len, 1) ||
        !reserve((void **)&kb->off, &kb->off_cap, kb->n + 2, sizeof *kb->off))
        return false;
    if (len) memcpy(kb->data + kb->len, key, len);
    kb->len += len;
    kb->off[++kb->n] = (int64_t)kb->len;
    return true;
}

/* ---- The reader ---------------------------------------------------------------------------- */

static char *const stdin_only[] = {(char *)"-"};

void cli_keyreader_init(cli_keyreader *r, char *const *paths, size_t n_paths, bool nul_delim,
                        bool progress) {
    memset(r, 0, sizeof *r);
    r->paths = n_paths ? paths : stdin_only;
    r->n_paths = n_paths ? n_paths : 1;
    r->delim = nul_delim ? '\0' : '\n';
    r->progress = progress && isatty(STDERR_FILENO);
}

static int open_next(cli_keyreader *r) {
    const char *path = r->paths[r->next++];
    if (strcmp(path, "-") == 0) {
        r->in = stdin;
        r->name = "(standard input)";
        return BB_EXIT_OK;
    }
    r->in = fopen(path, "rb");
    if (!r->in) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return BB_EXIT_RUNTIME;
    }
    r->name = path;
    return BB_EXIT_OK;
}

static void close_current(cli_keyreader *r) {
    if (r->in && r->in != stdin) fclose(r->in);
    r->in = NULL;
}

/* Read one key into kb; *got = false at the end of the current input. */
static int read_key(cli_keyreader *r, cli_keybuf *kb, bool *got) {
    errno = 0;
    ssize_t got_len = getdelim(&r->line, &r->line_cap, r->delim, r->in);
    if (got_len < 0) {
        *got = false;
        if (feof(r->in)) return BB_EXIT_OK;
        cli_error("cannot read '%s': %s", r->name, strerror(errno ? errno : EIO));
        return BB_EXIT_RUNTIME;
    }
    size_t len = (size_t)got_len;
    if (r->line[len - 1] == (char)r->delim) len--; /* absent only on an unterminated last key */
    if (r->delim == '\n' && len && r->line[len - 1] == '\r') len--;
    if (!keybuf_append(kb, r->line, len)) {
        cli_error("out of memory reading keys from '%s'", r->name);
        return BB_EXIT_RUNTIME;
    }
    *got = true;
    return BB_EXIT_OK;
}

static void count_key(cli_keyreader *r) {
    r->total++;
    if (r->progress && r->total % CLI_PROGRESS_EVERY == 0)
        fprintf(stderr, "\rread %" PRIu64 " keys", r->total);
}

int cli_keyreader_fill(cli_keyreader *r, cli_keybuf *kb, size_t max_keys, size_t max_bytes,
                       bool *done) {
    *done = false;
    if (!keybuf_reset(kb)) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    while (kb->n < max_keys && kb->len < max_bytes) {
        if (!r->in) {
            if (r->next == r->n_paths) {
                *done = true;
                return BB_EXIT_OK;
            }
            int st = open_next(r);
            if (st != BB_EXIT_OK) return st;
        }
        bool got;
        int st = read_key(r, kb, &got);
        if (st != BB_EXIT_OK) return st;
        if (got)
            count_key(r);
        else
            close_current(r);
    }
    return BB_EXIT_OK;
}

void cli_keyreader_close(cli_keyreader *r) {
    close_current(r);
    if (r->progress && r->total >= CLI_PROGRESS_EVERY)
        fprintf(stderr, "\rread %" PRIu64 " keys\n", r->total);
    free(r->line);
    r->line = NULL;
    r->line_cap = 0;
}

/* ---- For the network key kinds (netkeys.c), which build their own keys ------------------ */

bool cli_keybuf_reset(cli_keybuf *kb) { return keybuf_reset(kb); }

bool cli_keybuf_append(cli_keybuf *kb, const char *key, size_t len) {
    return keybuf_append(kb, key, len);
}
