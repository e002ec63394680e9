/* SPDX-License-Identifier: MIT */
/*
 * test_arrow.c - the Arrow C Data Interface calls (src/arrow.c) on arrays built by hand, with
 * buffers written out here byte by byte from the Arrow columnar spec. The reference is the
 * filter built key by key with bb_add from the values the array holds (integers as their
 * little-endian bytes, written out literally): the Arrow call must give the same filter,
 * byte for byte, and the same answers. Covers utf8/binary with 32- and 64-bit offsets, an
 * array offset, validity bitmaps (nulls skipped on add, 0 on contains), string and binary
 * views (inline and in variadic buffers), fixed_size_binary, the eight integer types,
 * dictionaries (with a null dictionary value), every kind (split hashes with XXH64), streams
 * of several chunks, and each kind of bad input (BB_E_INVAL, filter unchanged, a message
 * naming the problem).
 */
#include "testutil.h"

#include <errno.h>

static void no_release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void no_release_array(struct ArrowArray *a) { a->release = NULL; }

static struct ArrowSchema schema_of(const char *format) {
    return (struct ArrowSchema){.format = format, .release = no_release_schema};
}

static struct ArrowArray array_of(int64_t length, int64_t offset, int64_t null_count,
                                  int64_t n_buffers, const void **buffers) {
    return (struct ArrowArray){.length = length, .offset = offset, .null_count = null_count,
                               .n_buffers = n_buffers, .buffers = buffers,
                               .release = no_release_array};
}

static bb_filter *make(bb_kind kind) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, 1000, 0.01, 42), BB_OK);
    return f;
}

/* A filter of `n` keys added one by one: keys[i] of lens[i] bytes. */
static bb_filter *reference(bb_kind kind, const char *const *keys, const size_t *lens, size_t n) {
    bb_filter *f = make(kind);
    for (size_t i = 0; i < n; i++) cr_assert_eq(bb_add(f, keys[i], lens[i]), BB_OK);
    return f;
}

/* Add the array to a new filter, compare it with the reference, then check the answers. */
static void check_array(const struct ArrowArray *a, const struct ArrowSchema *s,
                        const char *const *keys, const size_t *lens, size_t n_keys,
                        const uint8_t *expect_out, const char *what) {
    const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_COUNTING, BB_SCALABLE, BB_SPLIT};
    for (size_t t = 0; t < sizeof kinds / sizeof *kinds; t++) {
        bb_filter *f = make(kinds[t]), *ref = reference(kinds[t], keys, lens, n_keys);
        cr_assert_eq(bb_add_arrow_array(f, a, s), BB_OK, "%s: add: %s", what, bb_last_error());
        tu_assert_same_bytes(f, ref, what);
        uint8_t out[64];
        memset(out, 0xAA, sizeof out);
        size_t hits = 99, want = 0;
        cr_assert_eq(bb_contains_arrow_array(f, a, s, out, &hits), BB_OK, "%s", what);
        for (int64_t i = 0; i < a->length; i++) {
            cr_assert_eq(out[i], expect_out[i], "%s: row %lld answers %u", what, (long long)i, out[i]);
            want += expect_out[i];
        }
        cr_assert_eq(out[a->length], 0xAA, "%s: wrote past the end", what);
        cr_assert_eq(hits, want, "%s: n_present %zu, want %zu", what, hits, want);
        bb_free(f);
        bb_free(ref);
    }
}

/* ---- utf8 / binary with offsets ----------------------------------------------------------- */
/* Values "apple", "", "banana", <null>, "cherry"; the array starts at row 1. */
static const char str_data[] = "applebananaXXXXcherry";
static const uint8_t str_valid[] = {0x17}; /* rows 0,1,2,4 valid; 3 null */
static const char *const str_keys[] = {"", "banana", "cherry"};
static const size_t str_lens[] = {0, 6, 6};
static const uint8_t str_out[] = {1, 1, 0, 1};

Test(arrow, utf8_and_binary_32_bit_offsets_with_offset_and_nulls) {
    static const int32_t off[] = {0, 5, 5, 11, 15, 21};
    const void *bufs[] = {str_valid, off, str_data};
    struct ArrowArray a = array_of(4, 1, 1, 3, bufs);
    struct ArrowSchema u = schema_of("u"), z = schema_of("z");
    check_array(&a, &u, str_keys, str_lens, 3, str_out, "utf8");
    check_array(&a, &z, str_keys, str_lens, 3, str_out, "binary");
}

Test(arrow, large_utf8_and_large_binary) {
    static const int64_t off[] = {0, 5, 5, 11, 15, 21};
    const void *bufs[] = {str_valid, off, str_data};
    struct ArrowArray a = array_of(4, 1, -1, 3, bufs); /* null_count unknown: bitmap decides */
    struct ArrowSchema u = schema_of("U"), z = schema_of("Z");
    check_array(&a, &u, str_keys, str_lens, 3, str_out, "large_utf8");
    check_array(&a, &z, str_keys, str_lens, 3, str_out, "large_binary");
}

Test(arrow, no_bitmap_means_no_nulls) {
    static const int32_t off[] = {0, 5, 5, 11, 15, 21};
    const void *bufs[] = {NULL, off, str_data};
    struct ArrowArray a = array_of(5, 0, 0, 3, bufs);
    struct ArrowSchema u = schema_of("u");
    const char *const keys[] = {"apple", "", "banana", "XXXX", "cherry"};
    const size_t lens[] = {5, 0, 6, 4, 6};
    const uint8_t out[] = {1, 1, 1, 1, 1};
    check_array(&a, &u, keys, lens, 5, out, "utf8 without bitmap");
}

/* The C Data Interface only recommends buffers aligned for their type, and some producers
 * hand over others: offsets at every misaligned address must give the same filter and answers
 * (the sanitized run's UBSan fails on a misaligned int32_t / int64_t read). */
Test(arrow, offsets_at_misaligned_addresses) {
    static const int32_t off32[] = {0, 5, 5, 11, 15, 21};
    static const int64_t off64[] = {0, 5, 5, 11, 15, 21};
    _Alignas(8) uint8_t raw[sizeof off64 + 8];
    struct ArrowSchema u = schema_of("u"), big = schema_of("U");
    for (size_t at = 1; at < 8; at++) {
        char what[64];
        memcpy(raw + at, off32, sizeof off32);
        const void *bufs32[] = {str_valid, raw + at, str_data};
        struct ArrowArray a = array_of(4, 1, 1, 3, bufs32);
        snprintf(what, sizeof what, "utf8, offsets at +%zu", at);
        check_array(&a, &u, str_keys, str_lens, 3, str_out, what);
        const void *plain32[] = {NULL, raw + at, str_data}; /* no nulls: batch.c's shape */
        a = array_of(4, 1, 0, 3, plain32);
        const char *const keys[] = {"", "banana", "XXXX", "cherry"};
        const size_t lens[] = {0, 6, 4, 6};
        const uint8_t all[] = {1, 1, 1, 1};
        check_array(&a, &u, keys, lens, 4, all, what);
        memcpy(raw + at, off64, sizeof off64);
        const void *bufs64[] = {str_valid, raw + at, str_data};
        a = array_of(4, 1, 1, 3, bufs64);
        snprintf(what, sizeof what, "large_utf8, offsets at +%zu", at);
        check_array(&a, &big, str_keys, str_lens, 3, str_out, what);
    }
}

/* ---- Views ------------------------------------------------------------------------------------ */
static void put_view(uint8_t *v, int32_t len, const char *bytes, int32_t buf, int32_t off) {
    memset(v, 0, 16);
    memcpy(v, &len, 4);
    if (len < 0) {
        /* a bad length: nothing more */
    } else if (len <= 12) {
        memcpy(v + 4, bytes, (size_t)len);
    } else {
        memcpy(v + 4, bytes, 4);
        memcpy(v + 8, &buf, 4);
        memcpy(v + 12, &off, 4);
    }
}

Test(arrow, string_and_binary_views) {
    static const char b0[] = "0123456789abcdefghij", b1[] = "a long string in buffer one";
    uint8_t views[5 * 16];
    put_view(views + 0, 3, "abc", 0, 0);           /* row 0 (skipped by offset 1) */
    put_view(views + 16, 12, "twelve bytes", 0, 0); /* inline at the limit */
    put_view(views + 32, 13, b0 + 2, 0, 2);         /* "23456789abcde" from buffer 0 */
    put_view(views + 48, -5, "", 7, 99);            /* null: garbage is not looked at */
    put_view(views + 64, 27, b1, 1, 0);             /* the whole of buffer 1 */
    static const uint8_t valid[] = {0x17};
    const int64_t sizes[] = {20, 27};
    const void *bufs[] = {valid, views, b0, b1, sizes};
    struct ArrowArray a = array_of(4, 1, 1, 5, bufs);
    const char *const keys[] = {"twelve bytes", "23456789abcde", b1};
    const size_t lens[] = {12, 13, 27};
    const uint8_t out[] = {1, 1, 0, 1};
    struct ArrowSchema vu = schema_of("vu"), vz = schema_of("vz");
    check_array(&a, &vu, keys, lens, 3, out, "string_view");
    check_array(&a, &vz, keys, lens, 3, out, "binary_view");
    _Alignas(8) uint8_t raw[sizeof sizes + 8]; /* the sizes at a misaligned address */
    memcpy(raw + 3, sizes, sizeof sizes);
    bufs[4] = raw + 3;
    check_array(&a, &vu, keys, lens, 3, out, "string_view, sizes at +3");
}

/* ---- Fixed width and integers ----------------------------------------------------------------- */
Test(arrow, fixed_size_binary) {
    static const char data[] = "aaaabbbbccccdddd";
    const void *bufs[] = {NULL, data};
    struct ArrowArray a = array_of(3, 1, 0, 2, bufs);
    struct ArrowSchema w = schema_of("w:4");
    const char *const keys[] = {"bbbb", "cccc", "dddd"};
    const size_t lens[] = {4, 4, 4};
    const uint8_t out[] = {1, 1, 1};
    check_array(&a, &w, keys, lens, 3, out, "fixed_size_binary");
}

/* Integers hash as their little-endian bytes, written out literally here (also Parquet's
 * PLAIN encoding). Values -2 and 7, with a null between them, after a skipped first row. */
Test(arrow, integers_hash_as_little_endian_bytes) {
    static const char *const fmts[] = {"c", "C", "s", "S", "i", "I", "l", "L"};
    static const char m2[] = "\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF", seven[] = "\x07\0\0\0\0\0\0\0";
    static const uint8_t valid[] = {0x0B}; /* rows 0, 1, 3 */
    for (size_t t = 0; t < 8; t++) {
        size_t w = (size_t)1 << (t / 2);
        union { int8_t i8[4]; int16_t i16[4]; int32_t i32[4]; int64_t i64[4]; } v;
        memset(&v, 0, sizeof v);
        int64_t vals[4] = {100, -2, 55, 7};
        for (int i = 0; i < 4; i++) {
            if (w == 1) v.i8[i] = (int8_t)vals[i];
            if (w == 2) v.i16[i] = (int16_t)vals[i];
            if (w == 4) v.i32[i] = (int32_t)vals[i];
            if (w == 8) v.i64[i] = vals[i];
        }
        const void *bufs[] = {valid, &v};
        struct ArrowArray a = array_of(3, 1, 1, 2, bufs);
        struct ArrowSchema s = schema_of(fmts[t]);
        const char *const keys[] = {m2, seven};
        const size_t lens[] = {w, w};
        const uint8_t out[] = {1, 0, 1};
        check_array(&a, &s, keys, lens, 2, out, fmts[t]);
    }
}

/* ---- Dictionaries --------------------------------------------------------------------------- */
Test(arrow, dictionary_of_utf8_with_a_null_value) {
    static const int32_t doff[] = {0, 1, 3, 3};
    static const char ddata[] = "xyy";
    static const uint8_t dvalid[] = {0x03}; /* value 2 is null */
    const void *dbufs[] = {dvalid, doff, ddata};
    struct ArrowArray dict = array_of(3, 0, 1, 3, dbufs);
    struct ArrowSchema dschema = schema_of("u");
    static const int16_t idx[] = {9, 1, 0, 1, 2, 0};
    static const uint8_t ivalid[] = {0x1F}; /* buffer row 5 null; row 0 (index 9) is before the offset */
    const void *ibufs[] = {ivalid, idx};
    struct ArrowArray a = array_of(5, 1, 1, 2, ibufs);
    a.dictionary = &dict;
    struct ArrowSchema s = schema_of("s");
    s.dictionary = &dschema;
    const char *const keys[] = {"yy", "x", "yy"}; /* one add per valid row */
    const size_t lens[] = {2, 1, 2};
    /* rows: 1 -> "yy", 0 -> "x", 1 -> "yy", 2 -> null value (valid index), null */
    const uint8_t out[] = {1, 1, 1, 0, 0};
    check_array(&a, &s, keys, lens, 3, out, "dictionary");
}

/* ---- Bad input: BB_E_INVAL, nothing added, a message ---------------------------------------- */
static void expect_inval(const struct ArrowArray *a, const struct ArrowSchema *s,
                         const char *message_part) {
    bb_filter *f = make(BB_BLOCKED), *empty = make(BB_BLOCKED);
    cr_assert_eq(bb_add(f, "seed key", 8), BB_OK);
    cr_assert_eq(bb_add(empty, "seed key", 8), BB_OK);
    cr_assert_eq(bb_add_arrow_array(f, a, s), BB_E_INVAL, "accepted: %s", message_part);
    cr_assert(strstr(bb_last_error(), message_part), "message '%s' lacks '%s'",
              bb_last_error(), message_part);
    tu_assert_same_bytes(f, empty, message_part);
    uint8_t out[16];
    memset(out, 0xAA, sizeof out);
    cr_assert_eq(bb_contains_arrow_array(f, a, s, out, NULL), BB_E_INVAL, "%s", message_part);
    cr_assert_eq(out[0], 0xAA, "%s: contains wrote before failing", message_part);
    bb_free(f);
    bb_free(empty);
}

Test(arrow, bad_input_is_refused_before_anything_changes) {
    static const int32_t off[] = {0, 5, 5, 11, 15, 21};
    static const int32_t dec[] = {0, 5, 4, 11};
    static const int32_t neg[] = {-1, 5, 6};
    const void *good[] = {NULL, off, str_data}, *decb[] = {NULL, dec, str_data};
    const void *negb[] = {NULL, neg, str_data};
    struct ArrowSchema u = schema_of("u"), ts = schema_of("tsu:"), bad_w = schema_of("w:0");
    struct ArrowArray a = array_of(5, 0, 0, 3, good);
    expect_inval(&a, &ts, "'tsu:'");
    expect_inval(&a, &bad_w, "'w:0'");
    struct ArrowArray r = a;
    r.release = NULL;
    expect_inval(&r, &u, "array is released");
    struct ArrowSchema rs = u;
    rs.release = NULL;
    expect_inval(&a, &rs, "schema is released");
    struct ArrowArray n = array_of(-1, 0, 0, 3, good);
    expect_inval(&n, &u, "negative length");
    struct ArrowArray o = array_of(1, -2, 0, 3, good);
    expect_inval(&o, &u, "negative offset");
    struct ArrowArray d = array_of(3, 0, 0, 3, decb);
    expect_inval(&d, &u, "offsets decrease at row 1");
    struct ArrowArray ng = array_of(2, 0, 0, 3, negb);
    expect_inval(&ng, &u, "negative");
    struct ArrowArray nb = array_of(5, 0, 0, 2, good);
    expect_inval(&nb, &u, "2 buffers");
    struct ArrowArray nc = array_of(5, 0, 2, 3, good);
    expect_inval(&nc, &u, "no validity bitmap");
    const void *nodata[] = {NULL, off, NULL};
    struct ArrowArray md = array_of(5, 0, 0, 3, nodata);
    expect_inval(&md, &u, "missing data buffer");
}

Test(arrow, bad_views_and_dictionary_indices) {
    static const char b0[] = "0123456789abcdefghij";
    const int64_t sizes[] = {20};
    uint8_t views[16];
    struct ArrowSchema vu = schema_of("vu");
    put_view(views, 13, b0, 1, 0);
    const void *bufs[] = {NULL, views, b0, sizes};
    struct ArrowArray a = array_of(1, 0, 0, 4, bufs);
    expect_inval(&a, &vu, "buffer index 1 out of range");
    put_view(views, 13, b0, 0, 8); /* [8, 21) of 20 bytes */
    expect_inval(&a, &vu, "outside data buffer 0");
    put_view(views, -3, b0, 0, 0);
    expect_inval(&a, &vu, "negative length");

    static const int8_t idx[] = {0, 3};
    static const int32_t doff[] = {0, 1, 2};
    const void *dbufs[] = {NULL, doff, "ab"}, *ibufs[] = {NULL, idx};
    struct ArrowArray dict = array_of(2, 0, 0, 3, dbufs), ia = array_of(2, 0, 0, 2, ibufs);
    ia.dictionary = &dict;
    struct ArrowSchema ds = schema_of("u"), is = schema_of("c");
    is.dictionary = &ds;
    expect_inval(&ia, &is, "dictionary index 3 at row 1");
    static const int32_t off[] = {0, 1, 2};
    const void *sbufs[] = {NULL, off, "ab"};
    struct ArrowArray sa = array_of(2, 0, 0, 3, sbufs);
    sa.dictionary = &dict;
    struct ArrowSchema fs = schema_of("u");
    fs.dictionary = &ds;
    expect_inval(&sa, &fs, "index type must be an integer");
}

/* ---- Streams ---------------------------------------------------------------------------------- */
/* A stream of `n` utf8 chunks, each an ArrowArray over one shared buffer set with its own
 * offset and length; chunk `bad` (if < n) has a decreasing offset. */
typedef struct hand_stream {
    int64_t offsets[4], lengths[4];
    size_t n, next, bad;
    int fail_code;
    bool released;
} hand_stream;

static const int32_t stream_off[] = {0, 5, 5, 11, 15, 21};
static const int32_t stream_bad_off[] = {0, 5, 2, 11, 15, 21};

static int hs_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
    (void)st;
    *out = schema_of("u");
    return 0;
}
static int hs_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
    hand_stream *h = st->private_data;
    static const void *good[] = {NULL, stream_off, str_data}, *bad[] = {NULL, stream_bad_off, str_data};
    if (h->fail_code && h->next == 1) return h->fail_code;
    if (h->next == h->n) {
        out->release = NULL;
        return 0;
    }
    size_t i = h->next++;
    *out = array_of(h->lengths[i], h->offsets[i], 0, 3, i == h->bad ? bad : good);
    return 0;
}
static const char *hs_error(struct ArrowArrayStream *st) {
    (void)st;
    return "hand-made failure";
}
static void hs_release(struct ArrowArrayStream *st) {
    ((hand_stream *)st->private_data)->released = true;
    st->release = NULL;
}
static struct ArrowArrayStream stream_of(hand_stream *h) {
    return (struct ArrowArrayStream){hs_schema, hs_next, hs_error, hs_release, h};
}

typedef struct collected {
    uint8_t out[32];
    size_t n, calls;
} collected;
static int collect(void *ctx, const uint8_t *out, size_t n) {
    collected *c = ctx;
    memcpy(c->out + c->n, out, n);
    c->n += n;
    c->calls++;
    return 0;
}

Test(arrow, stream_of_three_chunks) {
    /* chunks: rows [0,2) = apple, ""; [2,3) = banana; [3,5) = XXXX, cherry */
    hand_stream h = {.offsets = {0, 2, 3}, .lengths = {2, 1, 2}, .n = 3, .bad = 99};
    struct ArrowArrayStream st = stream_of(&h);
    bb_filter *f = make(BB_BLOCKED);
    cr_assert_eq(bb_add_arrow_stream(f, &st), BB_OK, "%s", bb_last_error());
    cr_assert(h.released && !st.release, "stream not released");
    const char *const keys[] = {"apple", "", "banana", "XXXX", "cherry"};
    const size_t lens[] = {5, 0, 6, 4, 6};
    bb_filter *ref = reference(BB_BLOCKED, keys, lens, 5);
    tu_assert_same_bytes(f, ref, "stream");

    hand_stream q = {.offsets = {0, 1, 2}, .lengths = {1, 1, 3}, .n = 3, .bad = 99};
    struct ArrowArrayStream qs = stream_of(&q);
    bb_filter *g = reference(BB_BLOCKED, keys + 2, lens + 2, 1); /* only banana */
    collected c = {.n = 0};
    size_t hits = 0;
    cr_assert_eq(bb_contains_arrow_stream(g, &qs, collect, &c, &hits), BB_OK);
    cr_assert_eq(c.calls, 3);
    cr_assert_eq(c.n, 5);
    const uint8_t want[] = {0, 0, 1, 0, 0};
    for (int i = 0; i < 5; i++) cr_assert_eq(c.out[i], want[i], "row %d", i);
    cr_assert_eq(hits, 1);
    bb_free(f);
    bb_free(g);
    bb_free(ref);
}

Test(arrow, stream_with_a_bad_chunk_adds_nothing) {
    hand_stream h = {.offsets = {0, 2, 0}, .lengths = {2, 1, 4}, .n = 3, .bad = 2};
    struct ArrowArrayStream st = stream_of(&h);
    bb_filter *f = make(BB_BLOCKED), *empty = make(BB_BLOCKED);
    cr_assert_eq(bb_add_arrow_stream(f, &st), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "offsets decrease"), "%s", bb_last_error());
    cr_assert(h.released, "stream not released on error");
    tu_assert_same_bytes(f, empty, "bad chunk");

    hand_stream e = {.offsets = {0, 2}, .lengths = {2, 1}, .n = 2, .bad = 99, .fail_code = EIO};
    struct ArrowArrayStream es = stream_of(&e);
    errno = 0;
    cr_assert_eq(bb_add_arrow_stream(f, &es), BB_E_IO);
    cr_assert_eq(errno, EIO);
    cr_assert(strstr(bb_last_error(), "hand-made failure"), "%s", bb_last_error());
    cr_assert(e.released);
    tu_assert_same_bytes(f, empty, "failing stream");
    bb_free(f);
    bb_free(empty);
}
