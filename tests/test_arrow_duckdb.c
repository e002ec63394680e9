/* SPDX-License-Identifier: MIT */
/*
 * test_arrow_duckdb.c - the Arrow C Data Interface import (src/arrow.c) fed by a real
 * producer: DuckDB's own C library (libduckdb.so of the npm package
 * @duckdb/node-bindings-linux-x64, which scripts/setup-duckdb.sh installs into build-oracle/;
 * BB_LIBDUCKDB names another), loaded with dlopen so that nothing here links it.
 *
 * One table of 5,000 rows, made by SQL from the row number i, goes out through
 * duckdb_query_arrow / duckdb_query_arrow_schema / duckdb_query_arrow_array: a struct array
 * per 2,048-row chunk (three chunks), one child per column. Three sessions give every format
 * DuckDB can produce that the import claims: by default VARCHAR "u", BLOB "z", the eight
 * integer types "c C s S i I l L" and an ENUM as a dictionary ("C" indices, "u" values); with
 * arrow_large_buffer_size "U" and "Z"; with produce_arrow_string_view "vu" and "vz". The
 * schema's format of each column is checked, so a DuckDB that changed what it produces fails
 * here instead of silently testing less. Every column has nulls (a different row pattern per
 * column); strings are empty, short (inline in a view) and longer than 12 bytes, with UTF-8.
 *
 * The reference is written here from the same formulas as the SQL, not read from DuckDB: the
 * keys (strings, or integers as their little-endian bytes, which src/arrow.c and the README
 * promise) go to the plain batch calls (bb_add_batch, bb_contains_batch). For each column and
 * each kind: the filter built from DuckDB's chunks equals, byte for byte, the one built by
 * bb_add_batch from the non-null rows; and a filter of the even rows answers DuckDB's chunks
 * as bb_contains_batch answers the keys (nulls 0), with the same count present. A stream of a
 * column's chunks (DuckDB's chunks, handed out one by one by get_next here: DuckDB's C API
 * has no stream producer) goes through bb_add_arrow_stream and bb_contains_arrow_stream.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <stdio.h>

#define ROWS 5000
#define MAX_KEY 64

/* ---- DuckDB through dlopen (signatures from DuckDB's duckdb.h) ---------------------------- */

typedef struct duck {
    void *lib, *db, *con;
    int (*open)(const char *path, void **db);
    int (*connect)(void *db, void **con);
    void (*disconnect)(void **con);
    void (*close)(void **db);
    int (*query_arrow)(void *con, const char *sql, void **result);
    int (*query_arrow_schema)(void *result, void **schema);  /* *schema: struct ArrowSchema * */
    int (*query_arrow_array)(void *result, void **array);    /* *array: struct ArrowArray * */
    const char *(*query_arrow_error)(void *result);
    void (*destroy_arrow)(void **result);
} duck;

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    cr_assert(p, "libduckdb.so has no %s", name);
    return p;
}

static duck duck_open(void) {
    const char *path = getenv("BB_LIBDUCKDB");
    char fallback[4096];
    if (!path || !*path) {
        snprintf(fallback, sizeof fallback, "%s/build-oracle/node_modules/@duckdb/"
                 "node-bindings-linux-x64/libduckdb.so", BB_SOURCE_DIR);
        path = fallback;
    }
    duck d = {0};
    d.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert(d.lib, "cannot load DuckDB (%s; scripts/setup-duckdb.sh installs it): %s", path,
              dlerror());
    *(void **)&d.open = sym(d.lib, "duckdb_open");
    *(void **)&d.connect = sym(d.lib, "duckdb_connect");
    *(void **)&d.disconnect = sym(d.lib, "duckdb_disconnect");
    *(void **)&d.close = sym(d.lib, "duckdb_close");
    *(void **)&d.query_arrow = sym(d.lib, "duckdb_query_arrow");
    *(void **)&d.query_arrow_schema = sym(d.lib, "duckdb_query_arrow_schema");
    *(void **)&d.query_arrow_array = sym(d.lib, "duckdb_query_arrow_array");
    *(void **)&d.query_arrow_error = sym(d.lib, "duckdb_query_arrow_error");
    *(void **)&d.destroy_arrow = sym(d.lib, "duckdb_destroy_arrow");
    cr_assert_eq(d.open(NULL, &d.db), 0, "duckdb_open");
    cr_assert_eq(d.connect(d.db, &d.con), 0, "duckdb_connect");
    return d;
}

static void duck_close(duck *d) {
    d->disconnect(&d->con);
    d->close(&d->db);
    /* not dlclose'd: DuckDB's threads and thread-local destructors may outlive the call */
}

/* Run a statement whose result is not needed. */
static void duck_exec(duck *d, const char *sql) {
    void *r = NULL;
    int rc = d->query_arrow(d->con, sql, &r);
    cr_assert_eq(rc, 0, "DuckDB: %s: %s", sql, d->query_arrow_error(r));
    d->destroy_arrow(&r);
}

/* ---- The table and its reference keys ----------------------------------------------------- */

/* Column name, its SQL from the row number i (BIGINT), and its key bytes for row i. */
typedef struct col {
    const char *name, *sql;
    size_t (*key)(int64_t i, uint8_t *out); /* bytes of row i's key */
} col;

static size_t le_bytes(uint64_t v, size_t width, uint8_t *out) {
    for (size_t b = 0; b < width; b++) out[b] = (uint8_t)(v >> (8 * b));
    return width;
}

static size_t key_str(int64_t i, uint8_t *out) {
    switch (i % 4) {
    case 0: return i % 400 == 0 ? 0 : (size_t)sprintf((char *)out, "k%lld", (long long)i);
    case 1: return (size_t)sprintf((char *)out, "a key longer than twelve bytes %lld", (long long)i);
    case 2: return (size_t)sprintf((char *)out, "\xc3\xbc-%lld", (long long)i); /* "ü-i" */
    default: return (size_t)sprintf((char *)out, "%012lld", (long long)i);      /* 12: inline */
    }
}
#define STR_SQL "CASE i % 4 WHEN 0 THEN (CASE WHEN i % 400 = 0 THEN '' ELSE 'k' || i END) " \
                "WHEN 1 THEN 'a key longer than twelve bytes ' || i WHEN 2 THEN 'ü-' || i " \
                "ELSE lpad(i::VARCHAR, 12, '0') END"

static const char *const moods[] = {"sad", "ok", "happy", "a mood of more than twelve bytes"};
static size_t key_enum(int64_t i, uint8_t *out) {
    size_t n = strlen(moods[i % 4]);
    memcpy(out, moods[i % 4], n);
    return n;
}
static size_t key_c(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(int8_t)(i % 256 - 128), 1, out); }
static size_t key_C(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(i * 7 % 256), 1, out); }
static size_t key_s(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(int16_t)(i * 13 % 65536 - 32768), 2, out); }
static size_t key_S(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(i * 13 % 65536), 2, out); }
static size_t key_i(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(int32_t)(i * 7919 - 20000000), 4, out); }
static size_t key_I(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(i * 858993), 4, out); }
static size_t key_l(int64_t i, uint8_t *out) { return le_bytes((uint64_t)(i * 1000000007 - 2500000000000LL), 8, out); }
static size_t key_L(int64_t i, uint8_t *out) { return le_bytes((uint64_t)i * 3000000000000000ULL, 8, out); }

static const col cols[] = {
    {"str", STR_SQL, key_str},
    {"bin", "encode(" STR_SQL ")", key_str},
    {"mood", "['sad', 'ok', 'happy', 'a mood of more than twelve bytes'][i % 4 + 1]::mood", key_enum},
    {"i8", "(i % 256 - 128)::TINYINT", key_c},
    {"u8", "(i * 7 % 256)::UTINYINT", key_C},
    {"i16", "(i * 13 % 65536 - 32768)::SMALLINT", key_s},
    {"u16", "(i * 13 % 65536)::USMALLINT", key_S},
    {"i32", "(i * 7919 - 20000000)::INTEGER", key_i},
    {"u32", "(i * 858993)::UINTEGER", key_I},
    {"i64", "(i * 1000000007 - 2500000000000)::BIGINT", key_l},
    {"u64", "i::UBIGINT * 3000000000000000::UBIGINT", key_L},
};
#define N_COLS (sizeof cols / sizeof *cols)

/* Column c of row i is null when this holds (a different pattern per column). */
static bool is_null(size_t c, int64_t i) { return (i + (int64_t)c) % 7 == 3; }

static void make_table(duck *d) {
    duck_exec(d, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', "
                 "'a mood of more than twelve bytes')");
    char sql[8192];
    int at = snprintf(sql, sizeof sql, "CREATE TABLE t AS SELECT i");
    for (size_t c = 0; c < N_COLS; c++)
        at += snprintf(sql + at, sizeof sql - (size_t)at,
                       ", CASE WHEN (i + %zu) %% 7 = 3 THEN NULL ELSE %s END AS %s", c,
                       cols[c].sql, cols[c].name);
    snprintf(sql + at, sizeof sql - (size_t)at, " FROM range(%d) r(i) ORDER BY i", ROWS);
    duck_exec(d, sql);
}

/* The keys of column c: keys/lens for every row (nulls too, as if they were not), and which
 * rows are null. */
typedef struct keys {
    uint8_t bytes[ROWS][MAX_KEY];
    const void *p[ROWS];
    size_t len[ROWS];
    bool null[ROWS];
} keys;

static void keys_of(size_t c, keys *k) {
    for (int64_t i = 0; i < ROWS; i++) {
        k->len[i] = cols[c].key(i, k->bytes[i]);
        k->p[i] = k->bytes[i];
        k->null[i] = is_null(c, i);
    }
}

/* ---- One exported result ------------------------------------------------------------------ */

#define MAX_CHUNKS 8

typedef struct result {
    struct ArrowSchema schema;
    struct ArrowArray chunk[MAX_CHUNKS];
    size_t n_chunks;
} result;

/* SELECT the table in DuckDB's session as it is set, exported as Arrow: the schema and
 * every chunk (a struct array; children in column order after `i`). */
static void export_table(duck *d, result *r) {
    memset(r, 0, sizeof *r);
    void *res = NULL;
    char sql[512] = "SELECT ";
    for (size_t c = 0; c < N_COLS; c++)
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%s%s", c ? ", " : "", cols[c].name);
    strcat(sql, " FROM t ORDER BY i");
    cr_assert_eq(d->query_arrow(d->con, sql, &res), 0, "DuckDB: %s", d->query_arrow_error(res));
    void *sp = &r->schema;
    cr_assert_eq(d->query_arrow_schema(res, &sp), 0);
    cr_assert_eq(r->schema.n_children, (int64_t)N_COLS);
    for (;;) {
        cr_assert_lt(r->n_chunks, MAX_CHUNKS);
        struct ArrowArray *a = &r->chunk[r->n_chunks];
        memset(a, 0, sizeof *a);
        void *ap = a;
        cr_assert_eq(d->query_arrow_array(res, &ap), 0, "DuckDB: %s", d->query_arrow_error(res));
        if (!a->release) break; /* untouched: no more chunks */
        cr_assert_eq(a->n_children, (int64_t)N_COLS);
        r->n_chunks++;
    }
    d->destroy_arrow(&res); /* the exported structs own their buffers */
    int64_t rows = 0;
    for (size_t i = 0; i < r->n_chunks; i++) rows += r->chunk[i].length;
    cr_assert_eq(rows, ROWS);
    cr_assert_geq(r->n_chunks, 3, "DuckDB gave %zu chunks, the test wants several", r->n_chunks);
}

static void result_free(result *r) {
    for (size_t i = 0; i < r->n_chunks; i++) r->chunk[i].release(&r->chunk[i]);
    r->schema.release(&r->schema);
}

static const char *format_of(const struct ArrowSchema *s) { return s->format; }

/* ---- The comparisons ----------------------------------------------------------------------- */

static const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_COUNTING, BB_SCALABLE, BB_SPLIT};

static bb_filter *fresh(bb_kind kind) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, ROWS, 0.01, 1234), BB_OK);
    return f;
}

/* The reference filter of the rows of k for which `take` holds and that are not null. */
static bb_filter *reference(bb_kind kind, const keys *k, int step) {
    bb_filter *f = fresh(kind);
    static const void *p[ROWS];
    static size_t len[ROWS];
    size_t n = 0;
    for (size_t i = 0; i < ROWS; i += (size_t)step)
        if (!k->null[i]) p[n] = k->p[i], len[n++] = k->len[i];
    cr_assert_eq(bb_add_batch(f, p, len, n), BB_OK);
    return f;
}

static void check_column(const result *r, size_t c, const char *want_format, const keys *k) {
    const struct ArrowSchema *s = r->schema.children[c];
    cr_assert_str_eq(format_of(s), want_format, "DuckDB exported column %s as '%s', not '%s'",
                     cols[c].name, format_of(s), want_format);
    if (!strcmp(cols[c].name, "mood"))
        cr_assert(s->dictionary && !strcmp(s->dictionary->format, "u"),
                  "the ENUM is a dictionary of utf8");
    for (size_t t = 0; t < sizeof kinds / sizeof *kinds; t++) {
        bb_filter *got = fresh(kinds[t]), *want = reference(kinds[t], k, 1);
        for (size_t ch = 0; ch < r->n_chunks; ch++)
            cr_assert_eq(bb_add_arrow_array(got, r->chunk[ch].children[c], s), BB_OK,
                         "%s chunk %zu: %s", cols[c].name, ch, bb_last_error());
        tu_assert_same_bytes(got, want, cols[c].name);
        bb_free(got);
        bb_free(want);

        bb_filter *half = reference(kinds[t], k, 2);
        size_t row = 0;
        for (size_t ch = 0; ch < r->n_chunks; ch++) {
            const struct ArrowArray *a = r->chunk[ch].children[c];
            size_t n = (size_t)a->length, got_present = 0, want_present = 0;
            uint8_t out[4096], ref[4096];
            cr_assert_leq(n, sizeof out);
            cr_assert_eq(bb_contains_arrow_array(half, a, s, out, &got_present), BB_OK);
            cr_assert_eq(bb_contains_batch(half, k->p + row, k->len + row, n, ref, NULL), BB_OK);
            for (size_t i = 0; i < n; i++) {
                if (k->null[row + i]) ref[i] = 0;
                want_present += ref[i];
            }
            cr_assert_arr_eq(out, ref, n, "%s chunk %zu: answers differ", cols[c].name, ch);
            cr_assert_eq(got_present, want_present);
            cr_assert_gt(want_present, 0);
            cr_assert_lt(want_present, n);
            row += n;
        }
        bb_free(half);
    }
}

/* ---- A stream of one column's chunks --------------------------------------------------------- */

typedef struct column_stream {
    const result *r;
    size_t c, next;
} column_stream;

static void no_release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void no_release_array(struct ArrowArray *a) { a->release = NULL; }

static int cs_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
    column_stream *cs = st->private_data;
    *out = *cs->r->schema.children[cs->c];
    out->release = no_release_schema; /* borrowed from the result, which releases it */
    return 0;
}

static int cs_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
    column_stream *cs = st->private_data;
    if (cs->next == cs->r->n_chunks) {
        memset(out, 0, sizeof *out); /* release NULL: the end */
        return 0;
    }
    *out = *cs->r->chunk[cs->next++].children[cs->c];
    out->release = no_release_array;
    return 0;
}

static const char *cs_error(struct ArrowArrayStream *st) { (void)st; return NULL; }
static void cs_release(struct ArrowArrayStream *st) { st->release = NULL; }

static struct ArrowArrayStream stream_of(column_stream *cs) {
    return (struct ArrowArrayStream){.get_schema = cs_schema, .get_next = cs_next,
                                     .get_last_error = cs_error, .release = cs_release,
                                     .private_data = cs};
}

typedef struct sink_state {
    uint8_t out[ROWS];
    size_t n;
} sink_state;

static int sink(void *ctx, const uint8_t *out, size_t n) {
    sink_state *s = ctx;
    cr_assert_leq(s->n + n, ROWS);
    memcpy(s->out + s->n, out, n);
    s->n += n;
    return 0;
}

static void check_stream(const result *r, size_t c, const keys *k) {
    bb_filter *got = fresh(BB_BLOCKED), *want = reference(BB_BLOCKED, k, 1);
    column_stream cs = {r, c, 0};
    struct ArrowArrayStream st = stream_of(&cs);
    cr_assert_eq(bb_add_arrow_stream(got, &st), BB_OK, "%s", bb_last_error());
    cr_assert_null(st.release, "the stream was released");
    tu_assert_same_bytes(got, want, "stream");

    bb_filter *half = reference(BB_BLOCKED, k, 2);
    static sink_state s;
    s.n = 0;
    size_t present = 0, want_present = 0;
    column_stream cs2 = {r, c, 0};
    st = stream_of(&cs2);
    cr_assert_eq(bb_contains_arrow_stream(half, &st, sink, &s, &present), BB_OK);
    cr_assert_eq(s.n, ROWS);
    uint8_t ref[ROWS];
    cr_assert_eq(bb_contains_batch(half, k->p, k->len, ROWS, ref, NULL), BB_OK);
    for (size_t i = 0; i < ROWS; i++) {
        if (k->null[i]) ref[i] = 0;
        want_present += ref[i];
    }
    cr_assert_arr_eq(s.out, ref, ROWS);
    cr_assert_eq(present, want_present);
    bb_free(got);
    bb_free(want);
    bb_free(half);
}

/* ---- The sessions ------------------------------------------------------------------------- */

/* Export the table after the SET statements of `settings` (NULL-terminated) and check every
 * column whose format is listed in formats[c] (NULL: not checked in this session). */
static void session(const char *const settings[], const char *const formats[N_COLS]) {
    duck d = duck_open();
    make_table(&d);
    for (size_t i = 0; settings[i]; i++) duck_exec(&d, settings[i]);
    static result r;
    static keys k;
    export_table(&d, &r);
    for (size_t c = 0; c < N_COLS; c++) {
        if (!formats[c]) continue;
        keys_of(c, &k);
        check_column(&r, c, formats[c], &k);
        check_stream(&r, c, &k);
    }
    result_free(&r);
    duck_close(&d);
}

Test(arrow_duckdb, default_formats_u_z_integers_and_enum_dictionary, .timeout = 300) {
    const char *const formats[N_COLS] = {"u", "z", "C", "c", "C", "s", "S", "i", "I", "l", "L"};
    const char *const settings[] = {NULL};
    session(settings, formats);
}

Test(arrow_duckdb, large_buffers_U_Z, .timeout = 300) {
    const char *const formats[N_COLS] = {"U", "Z"};
    const char *const settings[] = {"SET arrow_large_buffer_size = true", NULL};
    session(settings, formats);
}

Test(arrow_duckdb, string_views_vu_vz, .timeout = 300) {
    const char *const formats[N_COLS] = {"vu", "vz"};
    /* DuckDB makes views only for Arrow format version 1.4 and later */
    const char *const settings[] = {"SET produce_arrow_string_view = true",
                                    "SET arrow_output_version = '1.4'", NULL};
    session(settings, formats);
}
