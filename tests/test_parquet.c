/* SPDX-License-Identifier: MIT */
/*
 * test_parquet.c - libblockbloom_parquet's pieces that DuckDB (tests/parquet/oracle.mjs)
 * cannot pin on their own: the Thrift compact reader and writer against bytes encoded by
 * hand from thrift-compact-protocol.md (unknown fields kept, a set field inserted in id
 * order, short and long field headers, every truncation refused, hostile sizes and depths
 * refused: a container larger than the bytes left is a truncation), and the text-to-PLAIN value encoding (INT32, DECIMAL, DATE, FLOAT, UUID) against
 * literal little-endian bytes worked out by hand, on a footer written byte by byte below;
 * bb_pq_index's refusals and failed writes of its output, each with its own message; and
 * hostile files (a schema past the depth cap, physical type -1, a DECIMAL scale of 2^31 - 1,
 * num_values above num_rows, a dictionary larger than its page, a repeated Thrift field, a
 * FIFO and /dev/zero), each message
 * pinned, which also seed the fuzz corpus.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockbloom_parquet.h"
#include "thrift.h"

/* {1: i32 5, 3: binary "ab", 20: i64 -1 (long header: delta 17), 21: bool true,
 *  22: list<i32> [1, 2], 23: struct {}} - fields 20..23 unknown to Parquet's ColumnMetaData
 *  readers, which must keep them. */
static const uint8_t sample[] = {0x15, 0x0a, 0x28, 0x02, 'a',  'b',  0x06, 0x28, 0x01, 0x11,
                                 0x19, 0x25, 0x02, 0x04, 0x1c, 0x00, 0x00};

Test(thrift, parses_known_and_unknown_fields) {
    tc_node s;
    size_t used;
    cr_assert_eq(tc_parse_struct(sample, sizeof sample, &used, &s), BB_OK);
    cr_assert_eq(used, sizeof sample);
    int64_t v;
    bool b;
    cr_assert(tc_int(&s, 1, &v) && v == 5);
    cr_assert(tc_int(&s, 20, &v) && v == -1);
    cr_assert(tc_bool(&s, 21, &b) && b);
    tc_node *l = tc_list(&s, 22);
    cr_assert(l && l->n_kids == 2 && l->kids[0].i == 1 && l->kids[1].i == 2);
    cr_assert(tc_field(&s, 3)->len == 2 && memcmp(tc_field(&s, 3)->bin, "ab", 2) == 0);
    cr_assert_not_null(tc_struct(&s, 23));
    tc_free(&s);
}

Test(thrift, rewrite_keeps_fields_and_inserts_in_order) {
    tc_node s;
    size_t used;
    cr_assert_eq(tc_parse_struct(sample, sizeof sample, &used, &s), BB_OK);
    cr_assert_eq(tc_set_int(&s, 14, TC_I64, 1000), BB_OK);
    tc_buf b = {0};
    tc_write_struct(&b, &s);
    /* 14 after 3: delta 11 (0xb6), zigzag(1000) = 2000 = d0 0f; then 20 after 14 takes the
     * short header (delta 6: 0x66). */
    static const uint8_t want[] = {0x15, 0x0a, 0x28, 0x02, 'a',  'b',  0xb6, 0xd0, 0x0f, 0x66,
                                   0x01, 0x11, 0x19, 0x25, 0x02, 0x04, 0x1c, 0x00, 0x00};
    cr_assert(!b.failed);
    cr_assert_eq(b.len, sizeof want);
    cr_assert_arr_eq(b.p, want, sizeof want);
    /* Replacing keeps one copy. */
    cr_assert_eq(tc_set_int(&s, 1, TC_I32, -3), BB_OK);
    tc_buf c = {0};
    tc_write_struct(&c, &s);
    cr_assert_eq(c.len, sizeof want);
    cr_assert_eq(c.p[1], 0x05); /* zigzag(-3) */
    tc_buf_free(&b);
    tc_buf_free(&c);
    tc_free(&s);
}

Test(thrift, every_truncation_is_refused) {
    for (size_t n = 0; n < sizeof sample; n++) {
        tc_node s;
        size_t used;
        cr_assert_eq(tc_parse_struct(sample, n, &used, &s), BB_E_TRUNCATED, "prefix %zu", n);
    }
}

Test(thrift, hostile_sizes_and_depth) {
    /* list<i32> claiming 1000 elements (size 15 = varint follows: e8 07) in 4 more bytes. */
    static const uint8_t big_list[] = {0x19, 0xf5, 0xe8, 0x07, 0x02, 0x02, 0x02, 0x02, 0x00};
    tc_node s;
    size_t used;
    cr_assert_eq(tc_parse_struct(big_list, sizeof big_list, &used, &s), BB_E_TRUNCATED);
    /* binary of length 100 in 2 bytes */
    static const uint8_t big_bin[] = {0x18, 0x64, 'x', 'y'};
    cr_assert_eq(tc_parse_struct(big_bin, sizeof big_bin, &used, &s), BB_E_TRUNCATED);
    /* 100 nested structs (field 1 of type struct, 0x1c, repeated) */
    uint8_t deep[201];
    memset(deep, 0x1c, 100);
    memset(deep + 100, 0x00, 101);
    cr_assert_eq(tc_parse_struct(deep, sizeof deep, &used, &s), BB_E_CORRUPT);
    /* type 13 does not exist */
    static const uint8_t bad_type[] = {0x1d, 0x00};
    cr_assert_eq(tc_parse_struct(bad_type, sizeof bad_type, &used, &s), BB_E_CORRUPT);
    /* an 11-byte varint */
    static const uint8_t long_varint[] = {0x15, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
    cr_assert_eq(tc_parse_struct(long_varint, sizeof long_varint, &used, &s), BB_E_CORRUPT);
}

static void keep(const char *name, const uint8_t *file, size_t n);

Test(thrift, a_repeated_field_keeps_its_last_value_once) {
    /* {1: i32 5, 3: i32 1, 1: i32 7 (long header: zigzag 1 = 02), 2: i32 9}: field 1 twice
     * and out of order. Thrift's generated readers keep 7; the tree holds one field 1, and
     * the rewrite is in id order with each field once. */
    static const uint8_t twice[] = {0x15, 0x0a, 0x25, 0x02, 0x05, 0x02, 0x0e, 0x15, 0x12, 0x00};
    tc_node s;
    size_t used;
    int64_t v;
    keep("hostile_repeated_field", twice, sizeof twice);
    cr_assert_eq(tc_parse_struct(twice, sizeof twice, &used, &s), BB_OK);
    cr_assert_eq(used, sizeof twice);
    cr_assert_eq(s.n_kids, 3);
    cr_assert(tc_int(&s, 1, &v) && v == 7);
    cr_assert(tc_int(&s, 2, &v) && v == 9);
    tc_buf b = {0};
    tc_write_struct(&b, &s);
    static const uint8_t want[] = {0x15, 0x0e, 0x15, 0x12, 0x15, 0x02, 0x00};
    cr_assert_eq(b.len, sizeof want);
    cr_assert_arr_eq(b.p, want, sizeof want);
    tc_buf_free(&b);
    tc_free(&s);
}

Test(values, unknown_physical_type_named_by_its_number) {
    cr_assert_str_eq(bb_pq_type_name((bb_pq_type)-1), "UNKNOWN(-1)");
    cr_assert_str_eq(bb_pq_type_name((bb_pq_type)8), "UNKNOWN(8)");
    cr_assert_str_eq(bb_pq_type_name(BB_PQ_INT96), "INT96");
}

Test(values, a_fifo_or_device_is_named) {
    char fifo[] = "/tmp/bb_test_pq_fifo_XXXXXX";
    int fd = mkstemp(fifo);
    cr_assert_geq(fd, 0);
    close(fd);
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    bb_pq_file *pf;
    errno = ENOENT; /* a stale errno must not leak into the message */
    cr_assert_eq(bb_pq_open(&pf, fifo), BB_E_IO);
    unlink(fifo);
    cr_assert(strstr(bb_last_error(), "it is a FIFO"), "%s", bb_last_error());
    cr_assert_eq(bb_pq_open(&pf, "/dev/zero"), BB_E_IO);
    cr_assert(strstr(bb_last_error(), "it is a character device"), "%s", bb_last_error());
}

/* ---- Values ------------------------------------------------------------------------------- */

/* FileMetaData{1: version 1, 2: schema [root "r" (4 children), i INT32 REQUIRED,
 * dec INT64 OPTIONAL DECIMAL scale 2, dt INT32 OPTIONAL DATE, f FLOAT REQUIRED],
 * 3: num_rows 0, 4: row_groups []}, between the magics. */
static const uint8_t footer[] = {
    0x15, 0x02, 0x19, 0x5c, 0x48, 0x01, 0x72, 0x15, 0x08, 0x00, 0x15, 0x02, 0x25, 0x00,
    0x18, 0x01, 0x69, 0x00, 0x15, 0x04, 0x25, 0x02, 0x18, 0x03, 0x64, 0x65, 0x63, 0x25,
    0x0a, 0x15, 0x04, 0x00, 0x15, 0x02, 0x25, 0x02, 0x18, 0x02, 0x64, 0x74, 0x25, 0x0c,
    0x00, 0x15, 0x08, 0x25, 0x00, 0x18, 0x01, 0x66, 0x00, 0x16, 0x00, 0x19, 0x0c, 0x00};

/* FileMetaData{1: version 1, 2: schema [root "r" (2 children), x FIXED_LEN_BYTE_ARRAY(16)
 * REQUIRED DECIMAL scale 2, y FIXED_LEN_BYTE_ARRAY(4) REQUIRED DECIMAL scale 0],
 * 3: num_rows 0, 4: row_groups []}: DuckDB and Spark store DECIMAL(38, s) as x is. */
static const uint8_t footer_fixed_decimal[] = {
    0x15, 0x02, 0x19, 0x3c, 0x48, 0x01, 0x72, 0x15, 0x04, 0x00, 0x15, 0x0e, 0x15, 0x20,
    0x15, 0x00, 0x18, 0x01, 0x78, 0x25, 0x0a, 0x15, 0x04, 0x00, 0x15, 0x0e, 0x15, 0x08,
    0x15, 0x00, 0x18, 0x01, 0x79, 0x25, 0x0a, 0x15, 0x00, 0x00, 0x16, 0x00, 0x19, 0x0c,
    0x00};

/* file (n + 12 bytes) = "PAR1", the footer, its length, "PAR1", opened. */
static bb_pq_file *open_footer(uint8_t *file, const uint8_t *meta, uint32_t n) {
    memcpy(file, "PAR1", 4);
    memcpy(file + 4, meta, n);
    for (int i = 0; i < 4; i++) file[4 + n + i] = (uint8_t)(n >> (8 * i));
    memcpy(file + 8 + n, "PAR1", 4);
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, n + 12), BB_OK, "%s", bb_last_error());
    return pf;
}

static bb_pq_file *open_sample(uint8_t *file) { return open_footer(file, footer, sizeof footer); }

static void expect(bb_pq_file *pf, const char *col, const char *text, const uint8_t *bytes,
                   size_t n) {
    size_t c;
    cr_assert_eq(bb_pq_find_column(pf, col, &c), BB_OK);
    uint8_t buf[16];
    const void *v;
    size_t len;
    cr_assert_eq(bb_pq_encode_value(pf, c, text, strlen(text), buf, &v, &len), BB_OK,
                 "%s: %s", text, bb_last_error());
    cr_assert_eq(len, n, "%s", text);
    cr_assert_arr_eq(v, bytes, n, "%s", text);
}

static void refuse(bb_pq_file *pf, const char *col, const char *text) {
    size_t c;
    cr_assert_eq(bb_pq_find_column(pf, col, &c), BB_OK);
    uint8_t buf[16];
    const void *v;
    size_t len;
    cr_assert_eq(bb_pq_encode_value(pf, c, text, strlen(text), buf, &v, &len), BB_E_INVAL,
                 "%s accepted", text);
}

Test(values, schema_and_plain_encodings) {
    uint8_t file[sizeof footer + 12];
    bb_pq_file *pf = open_sample(file);
    cr_assert_eq(bb_pq_columns(pf), 4);
    bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
    cr_assert_eq(bb_pq_column(pf, 1, &ci), BB_OK);
    cr_assert_str_eq(ci.name, "dec");
    cr_assert_str_eq(ci.logical, "DECIMAL");
    cr_assert(ci.optional && ci.flat && ci.scale == 2);
    /* The size member: 0 is refused and nothing written; bytes past the struct are left. */
    struct {
        bb_pq_column_info ci;
        unsigned char after[32];
    } big;
    memset(&big, 0xA5, sizeof big);
    big.ci.size = 0;
    cr_assert_eq(bb_pq_column(pf, 1, &big.ci), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "BB_PQ_COLUMN_INFO_INIT"), "%s", bb_last_error());
    for (size_t i = sizeof(size_t); i < sizeof big; i++)
        cr_assert_eq(((const unsigned char *)&big)[i], 0xA5, "byte %zu written", i);
    big.ci.size = sizeof big;
    cr_assert_eq(bb_pq_column(pf, 1, &big.ci), BB_OK);
    cr_assert_str_eq(big.ci.name, "dec");
    cr_assert_eq(big.ci.size, sizeof big);
    for (size_t i = 0; i < sizeof big.after; i++) cr_assert_eq(big.after[i], 0xA5);
    bb_pq_chunk_info ch = {0};
    cr_assert_eq(bb_pq_chunk(pf, 0, 1, &ch), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "BB_PQ_CHUNK_INFO_INIT"), "%s", bb_last_error());
    expect(pf, "i", "-1", (const uint8_t[]){0xff, 0xff, 0xff, 0xff}, 4);
    expect(pf, "i", "2147483647", (const uint8_t[]){0xff, 0xff, 0xff, 0x7f}, 4);
    expect(pf, "i", "-2147483648", (const uint8_t[]){0x00, 0x00, 0x00, 0x80}, 4);
    refuse(pf, "i", "2147483648");
    refuse(pf, "i", " 1");
    refuse(pf, "i", "1.5");
    refuse(pf, "i", "");
    /* DECIMAL(scale 2): 12.3 -> 1230 = 0x4ce; -0.05 -> -5 */
    expect(pf, "dec", "12.3", (const uint8_t[]){0xce, 0x04, 0, 0, 0, 0, 0, 0}, 8);
    expect(pf, "dec", "-0.05", (const uint8_t[]){0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8);
    expect(pf, "dec", "7", (const uint8_t[]){0xbc, 0x02, 0, 0, 0, 0, 0, 0}, 8);
    refuse(pf, "dec", "1.234");
    refuse(pf, "dec", "1.");
    /* DATE: 2020-01-01 is day 18262 (0x4756) since 1970-01-01; 1969-12-31 is -1 */
    expect(pf, "dt", "2020-01-01", (const uint8_t[]){0x56, 0x47, 0, 0}, 4);
    expect(pf, "dt", "1969-12-31", (const uint8_t[]){0xff, 0xff, 0xff, 0xff}, 4);
    expect(pf, "dt", "2000-02-29", (const uint8_t[]){0x08, 0x2b, 0, 0}, 4); /* 11016 */
    refuse(pf, "dt", "2001-02-29");
    /* FLOAT: 0.5 = 0x3f000000, -2 = 0xc0000000 */
    expect(pf, "f", "0.5", (const uint8_t[]){0, 0, 0, 0x3f}, 4);
    expect(pf, "f", "-2", (const uint8_t[]){0, 0, 0, 0xc0}, 4);
    refuse(pf, "f", "abc");
    refuse(pf, "f", "1e999");
    bb_pq_close(pf);
}

/* Expected bytes: the unscaled integers in big-endian two's complement, worked by hand. */
Test(values, decimal_in_fixed_len_byte_array) {
    uint8_t file[sizeof footer_fixed_decimal + 12];
    bb_pq_file *pf = open_footer(file, footer_fixed_decimal, sizeof footer_fixed_decimal);
    static const uint8_t zero16[16];
    /* x, scale 2: 12.5 -> 1250 = 0x04e2; -0.01 -> -1; 1 -> 100 = 0x64 */
    expect(pf, "x", "12.5", (const uint8_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0xe2},
           16);
    expect(pf, "x", "-0.01", (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                               0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 16);
    expect(pf, "x", "1", (const uint8_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x64}, 16);
    expect(pf, "x", "-0", zero16, 16);
    /* 10^38 - 1 (38 nines), the largest DECIMAL(38, 0) value: here 10^36 - 0.01, unscaled
     * 10^38 - 1 = 0x4b3b4ca85a86c47a098a223fffffffff */
    expect(pf, "x", "999999999999999999999999999999999999.99",
           (const uint8_t[]){0x4b, 0x3b, 0x4c, 0xa8, 0x5a, 0x86, 0xc4, 0x7a, 0x09, 0x8a, 0x22, 0x3f,
                             0xff, 0xff, 0xff, 0xff}, 16);
    /* -2^127 fits, 2^127 does not: 1701411834604692317316873037158841057.28 is 2^127 / 100 */
    expect(pf, "x", "-1701411834604692317316873037158841057.28",
           (const uint8_t[]){0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16);
    refuse(pf, "x", "1701411834604692317316873037158841057.28");
    refuse(pf, "x", "-1701411834604692317316873037158841057.29");
    refuse(pf, "x", "99999999999999999999999999999999999999999"); /* past 2^128 */
    refuse(pf, "x", "1.234");
    refuse(pf, "x", "1.");
    refuse(pf, "x", "");
    refuse(pf, "x", "-");
    refuse(pf, "x", "0x10");
    /* y, 4 bytes, scale 0: the int32 range */
    expect(pf, "y", "2147483647", (const uint8_t[]){0x7f, 0xff, 0xff, 0xff}, 4);
    expect(pf, "y", "-2147483648", (const uint8_t[]){0x80, 0, 0, 0}, 4);
    expect(pf, "y", "-1", (const uint8_t[]){0xff, 0xff, 0xff, 0xff}, 4);
    refuse(pf, "y", "2147483648");
    refuse(pf, "y", "-2147483649");
    refuse(pf, "y", "1.5");
    bb_pq_close(pf);
}

Test(values, footer_errors_have_their_own_message) {
    uint8_t file[sizeof footer + 12];
    bb_pq_close(open_sample(file));
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, sizeof file - 1), BB_E_BAD_MAGIC);
    cr_assert(strstr(bb_last_error(), "wrong magic"), "%s", bb_last_error());
    file[sizeof file - 8] = 0xff; /* footer length 255 > 56 */
    cr_assert_eq(bb_pq_open_buffer(&pf, file, sizeof file), BB_E_TRUNCATED);
    cr_assert(strstr(bb_last_error(), "truncated footer: its length (255 bytes) exceeds the "
                                      "file"), "%s", bb_last_error());
    /* A length of 0 fits any file: it used to be reported as exceeding it. */
    memset(file + sizeof file - 8, 0, 4);
    cr_assert_eq(bb_pq_open_buffer(&pf, file, sizeof file), BB_E_CORRUPT);
    cr_assert(strstr(bb_last_error(), "corrupt footer: its length field is 0"), "%s",
              bb_last_error());
    cr_assert_null(strstr(bb_last_error(), "exceeds"), "%s", bb_last_error());
    memcpy(file + sizeof file - 4, "PARE", 4);
    cr_assert_eq(bb_pq_open_buffer(&pf, file, sizeof file), BB_E_UNSUPPORTED);
    cr_assert(strstr(bb_last_error(), "encrypted"), "%s", bb_last_error());
}

/* ---- Hostile footers ------------------------------------------------------------------------
 * Each is also a seed of the fuzz corpus (tests/fuzz/corpus/fuzz_parquet/hostile_*), written
 * there when BB_WRITE_CORPUS names that directory. */

static void keep(const char *name, const uint8_t *file, size_t n) {
    const char *dir = getenv("BB_WRITE_CORPUS");
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(file, 1, n, f), n);
    fclose(f);
}

/* "PAR1" meta "len" "PAR1" into file (at least n + 12 bytes). */
static size_t wrap(uint8_t *file, const uint8_t *meta, size_t n) {
    memcpy(file, "PAR1", 4);
    memcpy(file + 4, meta, n);
    for (int i = 0; i < 4; i++) file[4 + n + i] = (uint8_t)(n >> (8 * i));
    memcpy(file + 8 + n, "PAR1", 4);
    return n + 12;
}

Test(hostile, schema_deeper_than_the_cap_says_so) {
    /* FileMetaData{1: 1, 2: [70 groups {4: "a", 5: 1 child}, leaf {1: INT32, 4: "a"}], 3: 0,
     * 4: []}: 71 elements (list header 0xfc, varint 71). */
    uint8_t meta[600], file[620];
    size_t n = 0;
    static const uint8_t group[] = {0x48, 0x01, 'a', 0x15, 0x02, 0x00};
    static const uint8_t leaf[] = {0x15, 0x02, 0x38, 0x01, 'a', 0x00};
    meta[n++] = 0x15, meta[n++] = 0x02, meta[n++] = 0x19, meta[n++] = 0xfc, meta[n++] = 71;
    for (int i = 0; i < 70; i++, n += sizeof group) memcpy(meta + n, group, sizeof group);
    memcpy(meta + n, leaf, sizeof leaf);
    n += sizeof leaf;
    meta[n++] = 0x16, meta[n++] = 0x00, meta[n++] = 0x19, meta[n++] = 0x0c, meta[n++] = 0x00;
    size_t len = wrap(file, meta, n);
    keep("hostile_deep_schema", file, len);
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, len), BB_E_UNSUPPORTED);
    cr_assert_str_eq(bb_last_error(), "schema: nested more than 64 levels deep");
}

Test(hostile, physical_type_minus_one_is_named_by_its_number) {
    /* The sample footer with column i's type (its first field, i32 1 = 0x02) set to -1 (0x01). */
    uint8_t meta[sizeof footer], file[sizeof footer + 12];
    memcpy(meta, footer, sizeof footer);
    cr_assert_eq(meta[10], 0x15);
    cr_assert_eq(meta[11], 0x02);
    meta[11] = 0x01;
    size_t len = wrap(file, meta, sizeof meta);
    keep("hostile_type_minus_one", file, len);
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, len), BB_OK, "%s", bb_last_error());
    bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
    cr_assert_eq(bb_pq_column(pf, 0, &ci), BB_OK);
    cr_assert_str_eq(bb_pq_type_name(ci.type), "UNKNOWN(-1)");
    uint8_t buf[16];
    const void *v;
    size_t vlen;
    cr_assert_eq(bb_pq_encode_value(pf, 0, "1", 1, buf, &v, &vlen), BB_E_UNSUPPORTED);
    cr_assert_str_eq(bb_last_error(), "column 'i' has physical type UNKNOWN(-1) (not supported)");
    bb_pq_close(pf);
}

Test(hostile, decimal_scale_checked_against_its_type) {
    /* The sample footer with dec's scale (field 7 after converted_type DECIMAL 0x0a: i32 2 =
     * 0x15 0x04) set to 2^31 - 1 (zigzag fe ff ff ff 0f): probing a value padded its
     * fraction 2^31 digits long. No precision given: the widest INT64 holds, 18. */
    uint8_t meta[sizeof footer + 4], file[sizeof footer + 16];
    size_t at = 0;
    for (size_t i = 0; i + 1 < sizeof footer; i++)
        if (i && footer[i - 1] == 0x0a && footer[i] == 0x15 && footer[i + 1] == 0x04) at = i;
    cr_assert_neq(at, 0);
    memcpy(meta, footer, at + 1);
    static const uint8_t big[] = {0xfe, 0xff, 0xff, 0xff, 0x0f};
    memcpy(meta + at + 1, big, sizeof big);
    memcpy(meta + at + 6, footer + at + 2, sizeof footer - at - 2);
    size_t len = wrap(file, meta, sizeof meta);
    keep("hostile_decimal_scale", file, len);
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, len), BB_OK, "%s", bb_last_error());
    size_t col;
    cr_assert_eq(bb_pq_find_column(pf, "dec", &col), BB_OK);
    uint8_t buf[16];
    const void *v;
    size_t vlen;
    cr_assert_eq(bb_pq_encode_value(pf, col, "1.5", 3, buf, &v, &vlen), BB_E_INCONSISTENT);
    cr_assert(strstr(bb_last_error(), "column 'dec' is DECIMAL(18, 2147483647), which INT64 cannot "
                                  "hold"), "%s", bb_last_error());
    bb_pq_close(pf);
}

static bb_status ignore_value(void *ctx, const void *v, size_t len) {
    (void)ctx, (void)v, (void)len;
    return BB_OK;
}

Test(hostile, num_values_checked_against_num_rows) {
    /* DuckDB's small file of the corpus, its first chunk's num_values (ColumnMetaData 5) set
     * to 2^31 - 1 in a row group of a few rows: one RLE run of nulls took 23 s. */
    static uint8_t in[4096], file[4096];
    FILE *f = fopen(BB_SOURCE_DIR "/tests/fuzz/corpus/fuzz_parquet/v1_snappy.parquet", "rb");
    cr_assert_not_null(f);
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    uint32_t flen = (uint32_t)in[n - 8] | (uint32_t)in[n - 7] << 8 | (uint32_t)in[n - 6] << 16 |
                    (uint32_t)in[n - 5] << 24;
    size_t start = n - 8 - flen, used;
    tc_node meta;
    cr_assert_eq(tc_parse_struct(in + start, flen, &used, &meta), BB_OK);
    tc_node *cc = &tc_list(&tc_list(&meta, 4)->kids[0], 1)->kids[0];
    cr_assert_eq(tc_set_int(tc_struct(cc, 3), 5, TC_I64, INT32_MAX), BB_OK);
    tc_buf b = {0};
    tc_write_struct(&b, &meta);
    tc_free(&meta);
    memcpy(file, in, start);
    memcpy(file + start, b.p, b.len);
    size_t len = start + b.len;
    for (int i = 0; i < 4; i++) file[len + i] = (uint8_t)(b.len >> (8 * i));
    memcpy(file + len + 4, "PAR1", 4);
    len += 8;
    tc_buf_free(&b);
    keep("hostile_num_values", file, len);
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, len), BB_OK, "%s", bb_last_error());
    cr_assert_eq(bb_pq_chunk_values(pf, 0, 0, ignore_value, NULL), BB_E_INCONSISTENT);
    cr_assert(strstr(bb_last_error(), "num_values 2147483647 exceeds the row group's num_rows"),
              "%s", bb_last_error());
    bb_pq_close(pf);
}

Test(hostile, dictionary_entries_bounded_by_its_page) {
    /* DuckDB's small file, its first chunk's dictionary page claiming 60 entries (one
     * varint byte, as the real count's) in a page too small for 60 BYTE_ARRAY values of 4
     * length bytes each: refused before anything is allocated for them (a 2^28-entry
     * dictionary in 8 KB of ZSTD cost 16 bytes per entry, 4.4 GB, before). */
    static uint8_t file[4096];
    FILE *f = fopen(BB_SOURCE_DIR "/tests/fuzz/corpus/fuzz_parquet/v1_snappy.parquet", "rb");
    cr_assert_not_null(f);
    size_t n = fread(file, 1, sizeof file, f), used;
    fclose(f);
    tc_node ph;
    cr_assert_eq(tc_parse_struct(file + 4, n - 4, &used, &ph), BB_OK);
    int64_t type, ulen, entries;
    cr_assert(tc_int(&ph, 1, &type) && type == 2, "the first page is the dictionary");
    cr_assert(tc_int(&ph, 2, &ulen) && ulen < 240);
    cr_assert(tc_int(tc_struct(&ph, 7), 1, &entries) && entries < 60);
    tc_free(&ph);
    size_t at = 0;
    for (size_t i = 4; i + 2 < 4 + used; i++)
        if ((file[i] & 0x0f) == TC_STRUCT && file[i + 1] == 0x15 &&
            file[i + 2] == (uint8_t)(entries * 2))
            at = i + 2;
    cr_assert_neq(at, 0);
    file[at] = 120; /* zigzag(60) */
    keep("hostile_dictionary_entries", file, n);
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open_buffer(&pf, file, n), BB_OK, "%s", bb_last_error());
    cr_assert_eq(bb_pq_chunk_values(pf, 0, 0, ignore_value, NULL), BB_E_CORRUPT);
    cr_assert(strstr(bb_last_error(), "dictionary of 60 entries cannot fit its"), "%s", bb_last_error());
    bb_pq_close(pf);
}

/* ---- Output (bb_pq_index through bb_write_file_atomically) --------------------------------
 * The sample file (no row groups: the copy is its head and a re-encoded footer) indexed onto
 * outputs bb_write_file_atomically refuses or fails on: each has its own message, and the
 * old output, a link or a directory is left as it was with no temporary file beside it. */

static char out_dir[64];

static void out_enter(void) {
    strcpy(out_dir, "/tmp/bb_test_pq_XXXXXX");
    cr_assert_not_null(mkdtemp(out_dir));
    cr_assert_eq(chdir(out_dir), 0);
    uint8_t file[sizeof footer + 12];
    bb_pq_close(open_sample(file));
    FILE *f = fopen("in.parquet", "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(file, 1, sizeof file, f), sizeof file);
    cr_assert_eq(fclose(f), 0);
}

static void out_leave(void) {
    DIR *d = opendir(".");
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlink(e->d_name) != 0)
            rmdir(e->d_name);
    if (d) closedir(d);
    if (chdir("/") == 0) rmdir(out_dir);
}

/* Entries of the working directory whose name holds ".tmp." */
static int temp_files(void) {
    DIR *d = opendir(".");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

static bb_status index_to(const char *out) {
    static const char *const cols[] = {"i"};
    bb_pq_index_opts o = {.size = sizeof o, .columns = cols, .n_columns = 1, .fpr = 0.01};
    return bb_pq_index("in.parquet", out, &o);
}

TestSuite(output, .init = out_enter, .fini = out_leave);

Test(output, written_and_readable) {
    cr_assert_eq(index_to("out.parquet"), BB_OK, "%s", bb_last_error());
    bb_pq_file *pf;
    cr_assert_eq(bb_pq_open(&pf, "out.parquet"), BB_OK, "%s", bb_last_error());
    bb_pq_close(pf);
    cr_expect_eq(temp_files(), 0);
}

Test(output, dangling_link_refused_and_kept) {
    cr_assert_eq(symlink("no_such_dir/x", "link.parquet"), 0);
    cr_assert_eq(index_to("link.parquet"), BB_E_IO);
    cr_expect(strstr(bb_last_error(), "'link.parquet' is a symbolic link to a file that does not exist"),
              "%s", bb_last_error());
    struct stat st;
    cr_assert_eq(lstat("link.parquet", &st), 0);
    cr_expect(S_ISLNK(st.st_mode));
}

Test(output, directory_refused) {
    cr_assert_eq(mkdir("d.parquet", 0755), 0);
    cr_assert_eq(index_to("d.parquet"), BB_E_IO);
    cr_expect(strstr(bb_last_error(), "'d.parquet' is not a regular file"), "%s", bb_last_error());
    cr_expect_eq(temp_files(), 0);
}

Test(output, failed_write_keeps_the_old_output) {
    FILE *f = fopen("out.parquet", "wb");
    cr_assert_not_null(f);
    fputs("old", f);
    cr_assert_eq(fclose(f), 0);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {16, 16}; /* the copy is longer: its write fails with EFBIG */
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    cr_assert_eq(index_to("out.parquet"), BB_E_IO);
    cr_expect(strstr(bb_last_error(), "cannot write 'out.parquet': File too large"), "%s", bb_last_error());
    char buf[8] = {0};
    f = fopen("out.parquet", "rb");
    cr_assert_not_null(f);
    cr_expect_eq(fread(buf, 1, sizeof buf, f), 3);
    fclose(f);
    cr_expect_str_eq(buf, "old");
    cr_expect_eq(temp_files(), 0);
}
