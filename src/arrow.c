/* SPDX-License-Identifier: MIT */
/*
 * arrow.c - the Arrow C Data Interface entry points (blockbloom.h, "Arrow C Data Interface").
 * An ArrowArray + ArrowSchema pair is first parsed and validated in full into a `column` (a
 * plain description of where row i's bytes are), so that bad input is refused before the
 * filter is touched. Then the column goes to the batch machinery of batch.c: columns without
 * nulls whose keys are already in one of the batch shapes (utf8/binary offsets, fixed-width
 * values, little-endian integers) go straight to bb_*_arrow32/arrow64/fixed; everything else
 * (nulls on add, views, dictionaries, integers on a big-endian machine, offsets at an address
 * not aligned for their type) is hashed here row by row, nulls dropped, and handed over as
 * pre-computed hashes (bb_add_hashes / bb_contains_hashes) one chunk at a time. Layouts are
 * those of the Arrow columnar format spec: validity bitmaps LSB first, offsets n + 1 entries,
 * 16-byte views (length; inline bytes if length <= 12, else prefix, buffer index, offset),
 * and for the view types in the C interface one more buffer after the variadic ones holding
 * their sizes as int64.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lasterror.h"

#define ARROW_CHUNK 256
#define VIEW_BYTES 16
#define VIEW_INLINE 12

static bb_status fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bb_status fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bb_error_buffer(), BB_LAST_ERROR_CAP, fmt, ap);
    va_end(ap);
    return BB_E_INVAL;
}

/* ---- A validated column ----------------------------------------------------------------- */
typedef enum form { F_OFF32, F_OFF64, F_VIEW, F_FIXED } form;

typedef struct column {
    form form;
    size_t n;              /* rows */
    size_t offset;         /* array->offset: row i is buffer row offset + i */
    const uint8_t *valid;  /* validity bitmap, or NULL when every row is valid */
    const uint8_t *data;   /* values (offset forms), or fixed-width values */
    /* Offsets and view sizes are read as bytes (offset_at, view_size): the C Data Interface
     * only recommends buffers aligned for their type, producers do hand over misaligned
     * ones, and reading those as int32_t / int64_t is undefined behaviour. */
    const uint8_t *offs;   /* offset forms: n + 1 offsets of 4 (F_OFF32) or 8 bytes */
    const uint8_t *views;  /* F_VIEW: 16-byte views */
    const void *const *vbufs; /* F_VIEW: the variadic data buffers */
    const uint8_t *vsizes; /* F_VIEW: their sizes in bytes, as int64 */
    size_t n_vbufs;
    size_t width;          /* F_FIXED: bytes per value */
    bool integer, is_signed;
} column;

/* A column, and for a dictionary-encoded array its dictionary (values) with one hash per
 * value, computed once (prepare). */
typedef struct parsed {
    column col;
    bool dict;
    column values;
    uint64_t *dict_hash;
    uint8_t *dict_null;
} parsed;

static bool int_format(const char *fmt, size_t *width, bool *is_signed) {
    static const char codes[] = "cCsSiIlL";
    const char *p = fmt[0] && !fmt[1] ? strchr(codes, fmt[0]) : NULL;
    if (!p) return false;
    size_t i = (size_t)(p - codes);
    *width = (size_t)1 << (i / 2);
    *is_signed = i % 2 == 0;
    return true;
}

static bool fixed_binary_format(const char *fmt, size_t *width) {
    if (strncmp(fmt, "w:", 2) != 0 || !fmt[2]) return false;
    size_t w = 0;
    for (const char *p = fmt + 2; *p; p++) {
        if (*p < '0' || *p > '9' || w > (SIZE_MAX - 9) / 10) return false;
        w = w * 10 + (size_t)(*p - '0');
    }
    *width = w;
    return w > 0 && w <= INT32_MAX;
}

static bb_status parse_format(const char *fmt, column *c) {
    if (!fmt) return fail("schema has no format");
    if (int_format(fmt, &c->width, &c->is_signed)) {
        c->form = F_FIXED;
        c->integer = true;
    } else if (fixed_binary_format(fmt, &c->width)) {
        c->form = F_FIXED;
    } else if (!strcmp(fmt, "u") || !strcmp(fmt, "z")) {
        c->form = F_OFF32;
    } else if (!strcmp(fmt, "U") || !strcmp(fmt, "Z")) {
        c->form = F_OFF64;
    } else if (!strcmp(fmt, "vu") || !strcmp(fmt, "vz")) {
        c->form = F_VIEW;
    } else {
        return fail("unsupported Arrow format '%.40s' (takes u U z Z vu vz w:N c C s S i I l L "
                    "and dictionaries of them)", fmt);
    }
    return BB_OK;
}

static bool bit_set(const uint8_t *bits, size_t i) { return bits[i >> 3] >> (i & 7) & 1; }

static bool row_valid(const column *c, size_t i) {
    return !c->valid || bit_set(c->valid, c->offset + i);
}

/* Integer at buffer row r, as int64 (an unsigned 64-bit value above INT64_MAX gives -1, which
 * no dictionary index check accepts). */
static int64_t read_int(const column *c, size_t r) {
    const uint8_t *p = c->data + r * c->width;
    switch (c->width) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return c->is_signed ? (int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return c->is_signed ? (int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return c->is_signed ? (int32_t)v : (int64_t)v; }
    default: { uint64_t v; memcpy(&v, p, 8); return c->is_signed || v <= INT64_MAX ? (int64_t)v : -1; }
    }
}

static int32_t view_field(const uint8_t *view, size_t at) {
    int32_t v;
    memcpy(&v, view + at, 4);
    return v;
}

/* Offset r (buffer row) of an offset form. */
static int64_t offset_at(const column *c, size_t r) {
    if (c->form == F_OFF32) {
        int32_t v;
        memcpy(&v, c->offs + r * 4, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, c->offs + r * 8, 8);
    return v;
}

static int64_t view_size(const column *c, size_t b) {
    int64_t v;
    memcpy(&v, c->vsizes + b * 8, 8);
    return v;
}

/* ---- Validation --------------------------------------------------------------------------- */

static bb_status check_offsets(const column *c, bool have_data) {
    size_t first = c->offset, last = c->offset + c->n;
    int64_t prev = offset_at(c, first);
    if (prev < 0) return fail("offset of row 0 is negative (%lld)", (long long)prev);
    for (size_t r = first + 1; r <= last; r++) {
        int64_t o = offset_at(c, r);
        if (o < prev) return fail("offsets decrease at row %zu (%lld < %lld)", r - 1 - first,
                                  (long long)o, (long long)prev);
        prev = o;
    }
    int64_t span = prev - offset_at(c, first);
    if (!have_data && span) return fail("missing data buffer");
    return BB_OK;
}

/* Offsets are the one check the batch calls of batch.c repeat (bb_keysrc_validate: the same
 * rules, before anything is added), so an array that goes straight to them is not walked
 * twice; every other path calls this first. */
static bb_status check_offsets_now(const column *c) {
    if ((c->form != F_OFF32 && c->form != F_OFF64) || c->n == 0) return BB_OK;
    return check_offsets(c, c->data != NULL);
}

static bb_status check_views(const column *c) {
    for (size_t i = 0; i < c->n; i++) {
        if (!row_valid(c, i)) continue; /* a null slot's view is undefined */
        const uint8_t *v = c->views + (c->offset + i) * VIEW_BYTES;
        int32_t len = view_field(v, 0);
        if (len < 0) return fail("view of row %zu has negative length %d", i, len);
        if (len <= VIEW_INLINE) continue;
        int32_t b = view_field(v, 8), off = view_field(v, 12);
        if (b < 0 || (size_t)b >= c->n_vbufs)
            return fail("view of row %zu: buffer index %d out of range (%zu data buffers)", i, b,
                        c->n_vbufs);
        if (off < 0 || (int64_t)off + len > view_size(c, (size_t)b) || !c->vbufs[b])
            return fail("view of row %zu: bytes [%d, %lld) outside data buffer %d (%lld bytes)", i,
                        off, (long long)off + len, b, (long long)view_size(c, (size_t)b));
    }
    return BB_OK;
}

static bb_status check_buffers(const struct ArrowArray *a, column *c) {
    const void *const *buf = a->buffers;
    int64_t want = c->form == F_FIXED ? 2 : 3;
    if (c->form == F_VIEW ? a->n_buffers < want : a->n_buffers != want)
        return fail("%lld buffers where the format has %s%lld", (long long)a->n_buffers,
                    c->form == F_VIEW ? "at least " : "", (long long)want);
    if (!buf) return fail("buffers pointer is NULL");
    if (a->null_count > 0 && !buf[0])
        return fail("null_count %lld but no validity bitmap", (long long)a->null_count);
    c->valid = a->null_count == 0 ? NULL : buf[0];
    if (c->n == 0) return BB_OK;
    if (!buf[1]) return fail("missing %s buffer", c->form == F_FIXED ? "data" : c->form == F_VIEW
                                                                              ? "views" : "offsets");
    switch (c->form) {
    case F_FIXED:
        if (c->offset + c->n > SIZE_MAX / c->width) return fail("array too large");
        c->data = buf[1];
        return BB_OK;
    case F_OFF32:
    case F_OFF64: /* checked by check_offsets_now, or by the batch call itself */
        c->offs = buf[1];
        c->data = buf[2];
        return BB_OK;
    case F_VIEW:
        c->views = buf[1];
        c->n_vbufs = (size_t)(a->n_buffers - 3);
        c->vbufs = buf + 2;
        c->vsizes = buf[a->n_buffers - 1];
        if (c->n_vbufs && !c->vsizes) return fail("missing buffer of variadic buffer sizes");
        return check_views(c);
    }
    return BB_OK;
}

/* One array (no dictionary handling): format, counts, buffers, offsets and views. */
static bb_status check_array(const struct ArrowArray *a, const struct ArrowSchema *s, column *c) {
    memset(c, 0, sizeof *c);
    if (!a || !s) return fail("NULL array or schema");
    if (!s->release) return fail("schema is released");
    if (!a->release) return fail("array is released");
    if (a->length < 0) return fail("negative length %lld", (long long)a->length);
    if (a->offset < 0) return fail("negative offset %lld", (long long)a->offset);
    if (a->null_count < -1) return fail("null_count %lld below -1", (long long)a->null_count);
    if (a->length > INT64_MAX - a->offset - 1 || (uint64_t)(a->offset + a->length) >= SIZE_MAX / 16)
        return fail("offset + length too large");
    if (a->n_children || s->n_children) return fail("arrays with children are not supported");
    bb_status st = parse_format(s->format, c);
    if (st != BB_OK) return st;
    c->n = (size_t)a->length;
    c->offset = (size_t)a->offset;
    return check_buffers(a, c);
}

static bb_status check_dictionary(const struct ArrowArray *a, const struct ArrowSchema *s,
                                  parsed *p) {
    if (!p->col.integer)
        return fail("dictionary index type must be an integer, not '%.40s'", s->format);
    if (!a->dictionary) return fail("dictionary-encoded schema but the array has no dictionary");
    if (s->dictionary->dictionary) return fail("nested dictionaries are not supported");
    bb_status st = check_array(a->dictionary, s->dictionary, &p->values);
    if (st == BB_OK) st = check_offsets_now(&p->values);
    if (st != BB_OK) return st;
    for (size_t i = 0; i < p->col.n; i++) {
        if (!row_valid(&p->col, i)) continue;
        int64_t d = read_int(&p->col, p->col.offset + i);
        if (d < 0 || (uint64_t)d >= p->values.n)
            return fail("dictionary index %lld at row %zu outside the dictionary (%zu values)",
                        (long long)d, i, p->values.n);
    }
    p->dict = true;
    return BB_OK;
}

static bb_status check_parsed(const struct ArrowArray *a, const struct ArrowSchema *s, parsed *p) {
    memset(p, 0, sizeof *p);
    bb_status st = check_array(a, s, &p->col);
    if (st != BB_OK) return st;
    if (s->dictionary) return check_dictionary(a, s, p);
    if (a->dictionary) return fail("array has a dictionary but the schema does not");
    return BB_OK;
}

/* ---- Hashing rows ----------------------------------------------------------------------------- */

/* The filter's own key hash (bb_hash: the kind decides the algorithm, the filter the seed),
 * so these rows hash exactly as bb_add would hash the same bytes. */
static uint64_t hash_bytes(const uint8_t *p, size_t len, const bb_filter *f) {
    return bb_hash(f, len ? p : NULL, len);
}

/* Hash of valid row i. Integers are hashed as their little-endian bytes. */
static uint64_t row_hash(const column *c, size_t i, const bb_filter *f) {
    size_t r = c->offset + i;
    switch (c->form) {
    case F_OFF32:
    case F_OFF64: {
        int64_t start = offset_at(c, r), end = offset_at(c, r + 1);
        return end == start ? hash_bytes(NULL, 0, f)
                            : hash_bytes(c->data + start, (size_t)(end - start), f);
    }
    case F_VIEW: {
        const uint8_t *v = c->views + r * VIEW_BYTES;
        int32_t len = view_field(v, 0);
        if (len <= VIEW_INLINE) return hash_bytes(v + 4, (size_t)len, f);
        const uint8_t *b = c->vbufs[view_field(v, 8)];
        return hash_bytes(b + view_field(v, 12), (size_t)len, f);
    }
    case F_FIXED:
        break;
    }
    const uint8_t *p = c->data + r * c->width;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    if (c->integer) {
        uint8_t le[8];
        for (size_t j = 0; j < c->width; j++) le[j] = p[c->width - 1 - j];
        return hash_bytes(le, c->width, f);
    }
#endif
    return hash_bytes(p, c->width, f);
}

/* false for a null row (or a valid index of a null dictionary value); else *h. */
static bool row_key(const parsed *p, size_t i, const bb_filter *f, uint64_t *h) {
    if (!row_valid(&p->col, i)) return false;
    if (!p->dict) {
        *h = row_hash(&p->col, i, f);
        return true;
    }
    int64_t d = read_int(&p->col, p->col.offset + i);
    if (p->dict_null[d]) return false;
    *h = p->dict_hash[d];
    return true;
}

/* Hash each dictionary value once. */
static bb_status prepare(parsed *p, const bb_filter *f) {
    if (!p->dict) return BB_OK;
    size_t n = p->values.n ? p->values.n : 1;
    p->dict_hash = malloc(n * sizeof *p->dict_hash);
    p->dict_null = malloc(n);
    if (!p->dict_hash || !p->dict_null) return BB_E_NOMEM;
    for (size_t d = 0; d < p->values.n; d++) {
        p->dict_null[d] = !row_valid(&p->values, d);
        p->dict_hash[d] = p->dict_null[d] ? 0 : row_hash(&p->values, d, f);
    }
    return BB_OK;
}

static void parsed_free(parsed *p) {
    free(p->dict_hash);
    free(p->dict_null);
    p->dict_hash = NULL;
    p->dict_null = NULL;
}

/* ---- Feeding the batch calls --------------------------------------------------------------- */

/* Whether the column's keys are one of batch.c's shapes as they stand (nulls aside). */
static bool direct(const parsed *p) {
    if (p->dict || p->col.form == F_VIEW) return false;
    /* batch.c takes offsets as int32_t / int64_t arrays: misaligned ones go row by row */
    if (p->col.form == F_OFF32 && (uintptr_t)p->col.offs % _Alignof(int32_t)) return false;
    if (p->col.form == F_OFF64 && (uintptr_t)p->col.offs % _Alignof(int64_t)) return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    if (p->col.integer) return false;
#endif
    return true;
}

/* The offsets of the array's first row as batch.c's arrays (direct: aligned). */
static const int32_t *offs32(const column *c) {
    return (const int32_t *)(const void *)c->offs + c->offset;
}
static const int64_t *offs64(const column *c) {
    return (const int64_t *)(const void *)c->offs + c->offset;
}

static bb_status add_direct(bb_filter *f, const column *c) {
    switch (c->form) {
    case F_OFF32: return bb_add_arrow32(f, c->data, offs32(c), c->n);
    case F_OFF64: return bb_add_arrow64(f, c->data, offs64(c), c->n);
    default: return bb_add_fixed(f, c->data + c->offset * c->width, c->width, 0, c->n);
    }
}

static bb_status contains_direct(const bb_filter *f, const column *c, uint8_t *out, size_t *hits) {
    switch (c->form) {
    case F_OFF32: return bb_contains_arrow32(f, c->data, offs32(c), c->n, out, hits);
    case F_OFF64: return bb_contains_arrow64(f, c->data, offs64(c), c->n, out, hits);
    default:
        return bb_contains_fixed(f, c->data + c->offset * c->width, c->width, 0, c->n, out, hits);
    }
}

static bb_status add_rows(bb_filter *f, const parsed *p) {
    uint64_t h[ARROW_CHUNK];
    for (size_t i = 0; i < p->col.n;) {
        size_t m = 0, end = p->col.n - i < ARROW_CHUNK ? p->col.n : i + ARROW_CHUNK;
        for (; i < end; i++) m += row_key(p, i, f, &h[m]);
        bb_status s = bb_add_hashes(f, h, m);
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

static size_t contains_rows(const bb_filter *f, const parsed *p, uint8_t *out) {
    uint64_t h[ARROW_CHUNK];
    uint16_t row[ARROW_CHUNK];
    uint8_t ans[ARROW_CHUNK];
    size_t total = 0;
    for (size_t start = 0; start < p->col.n; start += ARROW_CHUNK) {
        size_t m = 0, count = p->col.n - start < ARROW_CHUNK ? p->col.n - start : ARROW_CHUNK;
        for (size_t j = 0; j < count; j++) {
            out[start + j] = 0;
            if (row_key(p, start + j, f, &h[m])) row[m++] = (uint16_t)j;
        }
        size_t hits = 0;
        bb_contains_hashes(f, h, m, ans, &hits);
        for (size_t j = 0; j < m; j++) out[start + row[j]] = ans[j];
        total += hits;
    }
    return total;
}

/* A batch call refused the offsets: say where (check_offsets finds the same fault). */
static bb_status explain(const column *c, bb_status s) {
    if (s == BB_E_INVAL && check_offsets_now(c) == BB_OK) fail("bad offsets");
    return s;
}

static bb_status add_parsed(bb_filter *f, parsed *p) {
    if (p->col.n == 0) return BB_OK;
    bool nulls = p->col.valid != NULL;
    if (direct(p) && !nulls) return explain(&p->col, add_direct(f, &p->col));
    bb_status s = check_offsets_now(&p->col);
    if (s == BB_OK) s = prepare(p, f);
    return s == BB_OK ? add_rows(f, p) : s;
}

static bb_status contains_parsed(const bb_filter *f, parsed *p, uint8_t *out, size_t *n_present) {
    size_t hits = 0;
    if (p->col.n && direct(p)) {
        bb_status s = contains_direct(f, &p->col, out, &hits);
        if (s != BB_OK) return explain(&p->col, s);
        for (size_t i = 0; p->col.valid && i < p->col.n; i++)
            if (!row_valid(&p->col, i) && out[i]) {
                out[i] = 0;
                hits--;
            }
    } else if (p->col.n) {
        bb_status s = check_offsets_now(&p->col);
        if (s == BB_OK) s = prepare(p, f);
        if (s != BB_OK) return s;
        hits = contains_rows(f, p, out);
    }
    if (n_present) *n_present = hits;
    return BB_OK;
}

static bb_status check_writable(const bb_filter *f) {
    if (!f) return fail("NULL filter");
    return f->storage == BB_STORE_FILE ? BB_E_READONLY : BB_OK;
}

bb_status bb_add_arrow_array(bb_filter *f, const struct ArrowArray *array,
                             const struct ArrowSchema *schema) {
    bb_error_clear();
    bb_status s = check_writable(f);
    parsed p;
    if (s == BB_OK) s = check_parsed(array, schema, &p);
    if (s != BB_OK) return s;
    s = add_parsed(f, &p);
    parsed_free(&p);
    return s;
}

bb_status bb_contains_arrow_array(const bb_filter *f, const struct ArrowArray *array,
                                  const struct ArrowSchema *schema, uint8_t *out,
                                  size_t *n_present) {
    bb_error_clear();
    if (!f) return fail("NULL filter");
    parsed p;
    bb_status s = check_parsed(array, schema, &p);
    if (s != BB_OK) return s;
    if (p.col.n && !out) return fail("NULL out with %zu rows", p.col.n);
    s = contains_parsed(f, &p, out, n_present);
    parsed_free(&p);
    return s;
}

/* ---- Streams ------------------------------------------------------------------------------ */

static bb_status stream_fail(struct ArrowArrayStream *st, int code) {
    const char *msg = st->get_last_error ? st->get_last_error(st) : NULL;
    bb_error_set(BB_E_IO, "stream error %d: %.150s", code, msg ? msg : "");
    errno = code;
    return BB_E_IO;
}

/* Chunks read so far, kept until the whole stream is validated (moved structs: Arrow allows
 * an ArrowArray to be moved by copying it). */
typedef struct chunks {
    struct ArrowArray *a;
    parsed *p;
    size_t n, cap;
} chunks;

static bb_status chunks_push(chunks *c, const struct ArrowArray *a) {
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct ArrowArray *na = realloc(c->a, cap * sizeof *na);
        if (na) c->a = na;
        parsed *np = na ? realloc(c->p, cap * sizeof *np) : NULL;
        if (np) c->p = np;
        if (!na || !np) return BB_E_NOMEM;
        c->cap = cap;
    }
    c->a[c->n++] = *a;
    return BB_OK;
}

static void chunks_free(chunks *c) {
    for (size_t i = 0; i < c->n; i++) c->a[i].release(&c->a[i]);
    free(c->a);
    free(c->p);
}

/* Start a stream walk: its schema in *schema (released by the caller). */
static bb_status stream_open(struct ArrowArrayStream *st, struct ArrowSchema *schema) {
    bb_error_clear();
    if (!st || !st->release || !st->get_schema || !st->get_next)
        return fail("NULL or released stream");
    memset(schema, 0, sizeof *schema);
    int rc = st->get_schema(st, schema);
    if (rc != 0) return stream_fail(st, rc);
    return schema->release ? BB_OK : fail("stream gave a released schema");
}

/* Next chunk into *a (a->release NULL at the end of the stream). */
static bb_status stream_next(struct ArrowArrayStream *st, struct ArrowArray *a) {
    memset(a, 0, sizeof *a);
    int rc = st->get_next(st, a);
    return rc == 0 ? BB_OK : stream_fail(st, rc);
}

static void stream_close(struct ArrowArrayStream *st, struct ArrowSchema *schema) {
    if (schema && schema->release) schema->release(schema);
    if (st && st->release) st->release(st);
}

static bb_status read_all(struct ArrowArrayStream *st, const struct ArrowSchema *schema,
                          chunks *c) {
    for (;;) {
        struct ArrowArray a;
        bb_status s = stream_next(st, &a);
        if (s != BB_OK || !a.release) return s;
        s = chunks_push(c, &a);
        if (s != BB_OK) {
            a.release(&a);
            return s;
        }
        s = check_parsed(&c->a[c->n - 1], schema, &c->p[c->n - 1]);
        if (s == BB_OK) s = check_offsets_now(&c->p[c->n - 1].col); /* all before any add */
        if (s != BB_OK) return s;
    }
}

bb_status bb_add_arrow_stream(bb_filter *f, struct ArrowArrayStream *stream) {
    struct ArrowSchema schema;
    bb_status s = stream_open(stream, &schema);
    if (s != BB_OK) {
        stream_close(stream, NULL);
        return s;
    }
    s = check_writable(f);
    chunks c = {0};
    if (s == BB_OK) s = read_all(stream, &schema, &c);
    for (size_t i = 0; s == BB_OK && i < c.n; i++) s = add_parsed(f, &c.p[i]);
    for (size_t i = 0; i < c.n; i++) parsed_free(&c.p[i]);
    chunks_free(&c);
    stream_close(stream, &schema);
    return s;
}

static bb_status contains_chunk(const bb_filter *f, const struct ArrowArray *a,
                                const struct ArrowSchema *schema, uint8_t **buf, size_t *cap,
                                bb_arrow_sink sink, void *ctx, size_t *total) {
    parsed p;
    bb_status s = check_parsed(a, schema, &p);
    if (s != BB_OK) return s;
    if (p.col.n > *cap) {
        uint8_t *nb = realloc(*buf, p.col.n);
        if (!nb) return BB_E_NOMEM;
        *buf = nb;
        *cap = p.col.n;
    }
    size_t hits = 0;
    s = contains_parsed(f, &p, *buf, &hits);
    parsed_free(&p);
    if (s != BB_OK) return s;
    *total += hits;
    return sink(ctx, *buf, p.col.n) ? fail("stopped by the sink") : BB_OK;
}

bb_status bb_contains_arrow_stream(const bb_filter *f, struct ArrowArrayStream *stream,
                                   bb_arrow_sink sink, void *ctx, size_t *n_present) {
    struct ArrowSchema schema;
    bb_status s = stream_open(stream, &schema);
    if (s != BB_OK) {
        stream_close(stream, NULL);
        return s;
    }
    if (!f || !sink) s = fail("NULL filter or sink");
    uint8_t *buf = NULL;
    size_t cap = 0, total = 0;
    while (s == BB_OK) {
        struct ArrowArray a;
        s = stream_next(stream, &a);
        if (s != BB_OK || !a.release) break;
        s = contains_chunk(f, &a, &schema, &buf, &cap, sink, ctx, &total);
        a.release(&a);
    }
    free(buf);
    stream_close(stream, &schema);
    if (s == BB_OK && n_present) *n_present = total;
    return s;
}
