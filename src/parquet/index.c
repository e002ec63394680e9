/* SPDX-License-Identifier: MIT */
/*
 * index.c - `parquet index`: a copy of a Parquet file with a fresh SBBF for every chunk of
 * the chosen columns. Each chunk's values are decoded (pages.c) and hashed (XXH64 seed 0 of
 * the PLAIN value, through bb_hash of a split filter), the distinct hashes counted exactly
 * in a hash set, and a BB_SPLIT filter sized for that count at the asked FPR with a
 * power-of-two size (BB_POW2_BYTES: Arrow's and parquet-mr's readers want one).
 *
 * Output layout: the input's bytes before its footer, unchanged (every page, index and old
 * filter stays at its offset, so all offsets in the footer stay right), then for each new
 * filter a BloomFilterHeader (numBytes, BLOCK, XXHASH, UNCOMPRESSED) and its bitset, then
 * the input's FileMetaData re-encoded with ColumnMetaData 14 bloom_filter_offset and
 * 15 bloom_filter_length set (every other field, unknown ones too, as read), its length
 * and "PAR1". Everything is computed before the output is opened; the output is written by
 * bb_write_file_atomically (a temporary file in the target's directory, fsynced and renamed
 * over the target), so an error leaves no partial file, and the input is only ever read.
 */
#include "../abi.h"
#include "pq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Distinct hashes ------------------------------------------------------------------------ */

/* Open addressing on 64-bit hashes; 0 is the empty slot, so a hash of 0 is kept aside. */
typedef struct hash_set {
    uint64_t *slots;
    size_t cap, n;      /* cap a power of two, n < cap / 2 */
    bool has_zero;
    const bb_filter *hasher;
} hash_set;

static bool set_insert(hash_set *hs, uint64_t h);

static bool set_grow(hash_set *hs) {
    size_t cap = hs->cap ? hs->cap * 2 : 1024;
    uint64_t *old = hs->slots;
    size_t old_cap = hs->cap;
    if (!(hs->slots = calloc(cap, sizeof *hs->slots))) {
        hs->slots = old;
        return false;
    }
    hs->cap = cap;
    hs->n = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i]) set_insert(hs, old[i]);
    free(old);
    return true;
}

static bool set_insert(hash_set *hs, uint64_t h) {
    if (!h) {
        hs->has_zero = true;
        return true;
    }
    if ((hs->n + 1) * 2 > hs->cap && !set_grow(hs)) return false;
    /* The low bits pick the slot; XXH64 mixes them well. */
    for (size_t i = (size_t)h & (hs->cap - 1);; i = (i + 1) & (hs->cap - 1)) {
        if (hs->slots[i] == h) return true;
        if (!hs->slots[i]) {
            hs->slots[i] = h;
            hs->n++;
            return true;
        }
    }
}

static bb_status collect(void *ctx, const void *value, size_t len) {
    hash_set *hs = ctx;
    return set_insert(hs, bb_hash(hs->hasher, value, len)) ? BB_OK : BB_E_NOMEM;
}

/* The set's hashes, compacted to the front of slots (the set is unusable afterwards). */
static size_t set_drain(hash_set *hs) {
    size_t n = 0;
    for (size_t i = 0; i < hs->cap; i++)
        if (hs->slots[i]) hs->slots[n++] = hs->slots[i];
    return n;
}

/* ---- One chunk's filter --------------------------------------------------------------------- */

static bb_status chunk_filter(const bb_pq_file *pf, size_t rg, size_t col, double fpr,
                              const bb_filter *hasher, bb_filter **out) {
    hash_set hs = {.hasher = hasher};
    *out = NULL;
    bb_status s = pq_chunk_distinct_values(pf, rg, col, collect, &hs);
    if (s == BB_E_NOMEM && !bb_error_buffer()[0]) pq_fail(s, "out of memory");
    if (s == BB_OK) {
        size_t n = set_drain(&hs);
        uint64_t distinct = n + hs.has_zero;
        bb_config cfg = {.size = sizeof cfg,
                         .kind = BB_SPLIT,
                         .capacity = distinct ? distinct : 1,
                         .fpr = fpr,
                         .flags = BB_POW2_BYTES};
        s = bb_create(out, &cfg);
        if (s == BB_OK) s = bb_add_hashes(*out, hs.slots, n);
        if (s == BB_OK && hs.has_zero) s = bb_add_hash(*out, 0);
        if (s != BB_OK)
            pq_fail(s, "row group %zu, column '%s': cannot make its filter: %s", rg,
                    pf->cols[col].name, bb_strerror(s));
    }
    free(hs.slots);
    if (s != BB_OK) {
        bb_free(*out);
        *out = NULL;
    }
    return s;
}

/* ---- The new footer ------------------------------------------------------------------------- */

/* BloomFilterHeader{1: numBytes, 2: {1: BLOCK{}}, 3: {1: XXHASH{}}, 4: {1: UNCOMPRESSED{}}}. */
static void write_bloom_header(tc_buf *b, size_t num_bytes) {
    int16_t last = 0;
    tc_write_field(b, &last, 1, TC_I32);
    tc_write_varint(b, tc_zigzag((int64_t)num_bytes));
    for (int16_t id = 2; id <= 4; id++) {
        static const uint8_t empty_union_member[] = {0x1c, 0x00, 0x00}; /* {1: {}} */
        tc_write_field(b, &last, id, TC_STRUCT);
        tc_buf_put(b, empty_union_member, sizeof empty_union_member);
    }
    tc_buf_put(b, "", 1); /* STOP */
}

/* Append the filters (header + bitset each) to `tail`, point the chunks' metadata at them
 * (offsets from `base`, where the tail starts in the output), then append the footer. */
static bb_status build_tail(bb_pq_file *pf, bb_filter *const *filters, const size_t *cols,
                            size_t n_cols, tc_buf *tail) {
    size_t base = pf->footer_start;
    for (size_t r = 0; r < pf->n_rg; r++)
        for (size_t j = 0; j < n_cols; j++) {
            const void *bits;
            size_t len;
            bb_status s = bb_payload(filters[r * n_cols + j], &bits, &len);
            if (s != BB_OK) return pq_fail(s, "filter payload: %s", bb_strerror(s));
            size_t at = tail->len;
            write_bloom_header(tail, len);
            tc_buf_put(tail, bits, len);
            size_t total = tail->len - at;
            if (total > INT32_MAX) return pq_fail(BB_E_TOO_LARGE, "filter too large");
            tc_node *meta;
            if ((s = pq_chunk_meta(pf, r, cols[j], &meta)) != BB_OK) return s;
            if (tc_set_int(meta, 14, TC_I64, (int64_t)(base + at)) != BB_OK ||
                tc_set_int(meta, 15, TC_I32, (int64_t)total) != BB_OK)
                return pq_fail(BB_E_NOMEM, "out of memory");
        }
    size_t footer_at = tail->len;
    tc_write_struct(tail, &pf->meta);
    size_t flen = tail->len - footer_at;
    if (flen > UINT32_MAX) return pq_fail(BB_E_TOO_LARGE, "footer too large");
    uint8_t end[8] = {(uint8_t)flen, (uint8_t)(flen >> 8), (uint8_t)(flen >> 16),
                      (uint8_t)(flen >> 24), 'P', 'A', 'R', '1'};
    tc_buf_put(tail, end, sizeof end);
    return tail->failed ? pq_fail(BB_E_NOMEM, "out of memory") : BB_OK;
}

/* ---- Output ---------------------------------------------------------------------------------
 * Written by bb_write_file_atomically (the core's, as bb_save writes filters): temporary file
 * beside the target, fsync, rename. Its BB_E_IO cases are told apart here, afterwards, to give
 * the message of each: a dangling symlink, a target that is not a regular file, or the
 * system's reason. */

static bb_status save_error(const char *path, bb_status s) {
    int e = errno;
    struct stat st;
    if (s == BB_E_NOMEM) return pq_fail(s, "out of memory");
    if (e == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0)
        s = pq_fail(BB_E_IO, "'%s' is a symbolic link to a file that does not exist "
                    "(create the target or remove the link)", path);
    else if ((e == EISDIR || e == EINVAL) && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        s = pq_fail(BB_E_IO, "'%s' is not a regular file", path);
    else
        s = pq_fail(s, "cannot write '%s': %s", path, s == BB_E_IO ? strerror(e) : bb_strerror(s));
    errno = e;
    return s;
}

static bb_status save(const char *path, const uint8_t *head, size_t head_len, const tc_buf *tail) {
    const bb_file_part parts[] = {{head, head_len}, {tail->p, tail->len}};
    bb_status s = bb_write_file_atomically(path, parts, 2);
    return s == BB_OK ? BB_OK : save_error(path, s);
}

/* ---- bb_pq_index ---------------------------------------------------------------------------- */

static bb_status same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
        return pq_fail(BB_E_INVAL, "the output '%s' is the input file", b);
    return BB_OK;
}

static bb_status make_filters(bb_pq_file *pf, const bb_pq_index_opts *o, size_t *cols,
                            bb_filter **filters) {
    bb_filter *hasher;
    static const uint8_t one_block[32];
    bb_status s = bb_split_from_bitset(&hasher, one_block, sizeof one_block);
    if (s != BB_OK) return pq_fail(s, "%s", bb_strerror(s));
    for (size_t j = 0; j < o->n_columns && s == BB_OK; j++)
        s = bb_pq_find_column(pf, o->columns[j], &cols[j]);
    for (size_t r = 0; r < pf->n_rg && s == BB_OK; r++)
        for (size_t j = 0; j < o->n_columns && s == BB_OK; j++)
            s = chunk_filter(pf, r, cols[j], o->fpr, hasher, &filters[r * o->n_columns + j]);
    bb_free(hasher);
    return s;
}

bb_status bb_pq_index(const char *in_path, const char *out_path,
                      const bb_pq_index_opts *user_opts) {
    bb_error_clear();
    if (!user_opts) return pq_fail(BB_E_INVAL, "invalid argument");
    bb_pq_index_opts o;
    bb_status s = BB_ABI_READ(&o, user_opts, bb_pq_index_opts, fpr, "BB_PQ_INDEX_OPTS_INIT");
    if (s != BB_OK) return s;
    const bb_pq_index_opts *opts = &o;
    if (!in_path || !out_path || !opts->columns || !opts->n_columns)
        return pq_fail(BB_E_INVAL, "invalid argument");
    if (!(opts->fpr > 0 && opts->fpr < 1))
        return pq_fail(BB_E_INVAL, "the false-positive rate must be in (0, 1)");
    s = same_file(in_path, out_path);
    if (s != BB_OK) return s;
    bb_pq_file *pf;
    if ((s = bb_pq_open(&pf, in_path)) != BB_OK) return s;
    size_t n_filters = pf->n_rg * opts->n_columns;
    size_t *cols = calloc(opts->n_columns, sizeof *cols);
    bb_filter **filters = calloc(n_filters ? n_filters : 1, sizeof *filters);
    tc_buf tail = {0};
    if (!cols || !filters)
        s = pq_fail(BB_E_NOMEM, "out of memory");
    else if ((s = make_filters(pf, opts, cols, filters)) == BB_OK &&
             (s = build_tail(pf, filters, cols, opts->n_columns, &tail)) == BB_OK)
        s = save(out_path, pf->data, pf->footer_start, &tail);
    for (size_t i = 0; filters && i < n_filters; i++) bb_free(filters[i]);
    free(filters);
    free(cols);
    tc_buf_free(&tail);
    bb_pq_close(pf);
    return s;
}
