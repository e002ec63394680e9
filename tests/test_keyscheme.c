/* SPDX-License-Identifier: MIT */
/*
 * test_keyscheme.c - the key-scheme record of format version 2 (src/keyscheme.c, format.c;
 * docs/FORMAT.md "Version 2"): a golden file (the golden blocked filter of test_format with a
 * CIDR scheme of IPv4 lengths /8 and /32; both checksums in the literal computed with xxHash's
 * own XXH3_64bits, and asserted here, not taken from the library), round trips through
 * buffers, files and mappings for every kind (a scalable filter's sub-records stay version
 * 1), filters without a scheme still written as version 1, the record's checks (checksum,
 * unknown type or scheme, bad fields, truncation, trailing data), and clone / union / clear.
 */
#include "testutil.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* The header repeats test_format's golden_blocked on purpose: a pinned vector is spelled out
 * in full where it is checked, never derived. */
static const uint8_t golden_v2[256] = {
    0x89, 0x42, 0x42, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, /*   0 magic                           */
    0x02, 0x00, 0x00, 0x00,                         /*   8 version 2: a record follows      */
    0x80, 0x00, 0x00, 0x00,                         /*  12 header size 128                  */
    0x00, 0x00, 0x00, 0x00,                         /*  16 kind 0 (blocked)                 */
    0x03, 0x00, 0x00, 0x00,                         /*  20 k 3                              */
    0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 bits 512                         */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 blocks 1                         */
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 capacity 7                       */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  48 fpr target: none                 */
    0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, /*  56 seed                             */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  64 keys added 2                     */
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 payload bytes 64                 */
    0x50, 0x95, 0x31, 0x0e, 0x51, 0xa9, 0x52, 0x70, /*  80 payload XXH3 7052a9510e319550    */
    [120] = 0x9c, 0xd1, 0xf2, 0x8b, 0xad, 0xf1, 0xd2, 0x16, /* header XXH3 16d2f1ad8bf2d19c */
    [156] = 0x40, [164] = 0x10, [167] = 0x10, [175] = 0x10, [184] = 0x40, [185] = 0x20,
    /* 192: the record */
    [192] = 0x01,                                   /* type 1: key scheme                  */
    [196] = 0x40,                                   /* 64 bytes                            */
    [200] = 0x03,                                   /* scheme 3: cidr                      */
    [233] = 0x01,                                   /* IPv4 lengths: bit 8 (/8)            */
    [236] = 0x01,                                   /*               bit 32 (/32)          */
    [248] = 0xd9, 0x5b, 0x21, 0x7f, 0x62, 0x41, 0x27, 0x81, /* record XXH3 812741627f215bd9 */
};

static bb_filter *golden_filter(void) {
    bb_config c = {.size = sizeof c,
                   .kind = BB_BLOCKED,
                   .capacity = 7,
                   .bits = 512,
                   .k = 3,
                   .seed = UINT64_C(0x0123456789abcdef)};
    bb_filter *f;
    cr_assert_eq(bb_create(&f, &c), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0x00000000deadbeef)), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0xffffffff00000001)), BB_OK);
    return f;
}

static const bb_key_scheme cidr_scheme = {BB_KEYS_CIDR, {{0, 0, 0}, (UINT64_C(1) << 8) | (UINT64_C(1) << 32)}};

static void same_scheme(const bb_filter *f, const bb_key_scheme *want) {
    bb_key_scheme got;
    cr_assert_eq(bb_get_key_scheme(f, &got), BB_OK);
    cr_expect_eq(got.keys, want->keys);
    cr_expect_eq(memcmp(&got.prefixes, &want->prefixes, sizeof got.prefixes), 0);
}

Test(keyscheme, golden_bytes) {
    cr_assert_eq(XXH3_64bits(golden_v2, 120), UINT64_C(0x16d2f1ad8bf2d19c));
    cr_assert_eq(XXH3_64bits(golden_v2 + 192, 56), UINT64_C(0x812741627f215bd9));
    bb_filter *f = golden_filter();
    cr_assert_eq(bb_set_key_scheme(f, &cidr_scheme), BB_OK);
    size_t len;
    uint8_t *b = tu_serialize(f, &len);
    cr_assert_eq(len, sizeof golden_v2);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(b[i], golden_v2[i], "byte %zu is %02x, expected %02x", i, b[i], golden_v2[i]);
    bb_info in = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &in), BB_OK);
    cr_expect_eq(in.format_version, 2);
    bb_filter *g;
    cr_assert_eq(bb_deserialize(&g, golden_v2, sizeof golden_v2), BB_OK);
    same_scheme(g, &cidr_scheme);
    cr_assert(bb_contains_hash(g, UINT64_C(0x00000000deadbeef)));
    free(b);
    bb_free(g);
    /* Without a scheme: the version-1 bytes, untouched. */
    bb_key_scheme plain = {0};
    cr_assert_eq(bb_set_key_scheme(f, &plain), BB_OK);
    b = tu_serialize(f, &len);
    cr_expect_eq(len, 192);
    cr_expect_eq(b[8], 1);
    cr_expect_eq(memcmp(b + 16, golden_v2 + 16, 104), 0);
    free(b);
    bb_free(f);
}

static bb_filter *kind_filter(bb_kind kind) {
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, kind, 100, 0.01, 9), BB_OK);
    for (int i = 0; i < 300; i++) cr_assert_eq(bb_add(f, &i, sizeof i), BB_OK); /* scalable grows */
    return f;
}

Test(keyscheme, round_trips_every_kind) {
    static const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_COUNTING, BB_SCALABLE};
    char path[] = "/tmp/bb_test_ks_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    for (size_t k = 0; k < 4; k++) {
        bb_filter *f = kind_filter(kinds[k]), *g;
        bb_key_scheme url = {BB_KEYS_URL, {{0}, 0}};
        cr_assert_eq(bb_set_key_scheme(f, &url), BB_OK);
        size_t len;
        uint8_t *b = tu_serialize(f, &len);
        cr_expect_eq(b[8], 2, "%s", bb_kind_name(kinds[k]));
        if (kinds[k] == BB_SCALABLE) cr_expect_eq(b[128 + 8], 1); /* the first sub-record */
        cr_assert_eq(bb_deserialize(&g, b, len), BB_OK, "%s", bb_kind_name(kinds[k]));
        same_scheme(g, &url);
        bb_free(g);
        cr_assert_eq(bb_save(f, path), BB_OK);
        cr_assert_eq(bb_load(&g, path), BB_OK, "%s", bb_kind_name(kinds[k]));
        same_scheme(g, &url);
        int i = 5;
        cr_expect(bb_contains(g, &i, sizeof i));
        bb_free(g);
        cr_assert_eq(bb_open_mmap(&g, path), BB_OK, "%s", bb_kind_name(kinds[k]));
        same_scheme(g, &url);
        cr_expect_eq(bb_set_key_scheme(g, &url), BB_E_READONLY);
        bb_free(g);
        /* Clone keeps it, clear keeps it. */
        cr_assert_eq(bb_clone(&g, f), BB_OK);
        same_scheme(g, &url);
        cr_assert_eq(bb_clear(g), BB_OK);
        same_scheme(g, &url);
        bb_free(g);
        free(b);
        bb_free(f);
    }
    unlink(path);
}

static bb_status deser(const uint8_t *b, size_t len) {
    bb_filter *f = NULL;
    bb_status s = bb_deserialize(&f, b, len);
    bb_free(f);
    return s;
}

/* Set a record byte, then re-seal the record's checksum (as a faulty writer would). */
static bb_status edited(size_t off, uint8_t value) {
    uint8_t b[256];
    memcpy(b, golden_v2, sizeof b);
    b[off] = value;
    uint64_t sum = XXH3_64bits(b + 192, 56);
    for (int i = 0; i < 8; i++) b[248 + i] = (uint8_t)(sum >> (8 * i));
    return deser(b, sizeof b);
}

Test(keyscheme, record_checks) {
    uint8_t b[257];
    memcpy(b, golden_v2, 256);
    for (size_t i = 192; i < 256; i++) { /* any flip in the record: its checksum */
        b[i] ^= 4;
        cr_expect_eq(deser(b, 256), BB_E_CORRUPT, "byte %zu", i);
        b[i] ^= 4;
    }
    for (size_t len = 192; len < 256; len++) cr_expect_eq(deser(b, len), BB_E_TRUNCATED);
    b[256] = 0;
    cr_expect_eq(deser(b, 257), BB_E_INCONSISTENT);
    cr_expect_eq(edited(192, 2), BB_E_UNSUPPORTED);   /* record type 2: newer writer */
    cr_expect_eq(edited(200, 9), BB_E_UNSUPPORTED);   /* scheme 9: newer writer */
    cr_expect_eq(edited(200, 0), BB_E_INCONSISTENT);  /* plain needs no record */
    cr_expect_eq(edited(196, 65), BB_E_INCONSISTENT); /* record size */
    cr_expect_eq(edited(204, 1), BB_E_INCONSISTENT);  /* reserved */
    cr_expect_eq(edited(224, 2), BB_E_INCONSISTENT);  /* IPv6 length 129 */
    cr_expect_eq(edited(236, 3), BB_E_INCONSISTENT);  /* IPv4 length 33 */
    cr_expect_eq(edited(200, 1), BB_E_INCONSISTENT);  /* prefixes on a url scheme */
    cr_expect_eq(edited(240, 1), BB_E_INCONSISTENT);  /* reserved */
    /* Files: cut in the record, and trailing data. */
    char path[] = "/tmp/bb_test_ks_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, golden_v2, 250), 250);
    close(fd);
    bb_filter *f = NULL;
    cr_expect_eq(bb_load(&f, path), BB_E_TRUNCATED);
    cr_expect_eq(bb_open_mmap(&f, path), BB_E_TRUNCATED);
    fd = open(path, O_WRONLY | O_TRUNC);
    cr_assert_eq(write(fd, b, 257), 257);
    close(fd);
    cr_expect_eq(bb_load(&f, path), BB_E_INCONSISTENT);
    cr_expect_eq(bb_open_mmap(&f, path), BB_E_INCONSISTENT);
    unlink(path);
}

Test(keyscheme, setters_union_and_cidr) {
    bb_filter *a, *b, *p;
    cr_assert_eq(bb_create_for(&a, BB_BLOCKED, 100, 0.01, 1), BB_OK);
    cr_assert_eq(bb_create_for(&b, BB_BLOCKED, 100, 0.01, 1), BB_OK);
    cr_assert_eq(bb_create_for(&p, BB_BLOCKED, 100, 0.01, 1), BB_OK);
    bb_key_scheme bad = {BB_KEYS_URL, {{1, 0, 0}, 0}};
    cr_expect_eq(bb_set_key_scheme(a, &bad), BB_E_INVAL);
    bad = (bb_key_scheme){BB_KEYS_CIDR, {{0, 0, 2}, 0}};
    cr_expect_eq(bb_set_key_scheme(a, &bad), BB_E_INVAL);
    bad = (bb_key_scheme){BB_KEYS_CIDR, {{0}, UINT64_C(1) << 33}};
    cr_expect_eq(bb_set_key_scheme(a, &bad), BB_E_INVAL);
    bad = (bb_key_scheme){(bb_keys)5, {{0}, 0}};
    cr_expect_eq(bb_set_key_scheme(a, &bad), BB_E_INVAL);
    cr_expect_str_eq(bb_keys_name(BB_KEYS_5TUPLE), "5tuple");
    /* bb_cidr_add with no set records into the filter. */
    uint8_t addr[16];
    unsigned len;
    cr_assert_eq(bb_cidr_parse("10.0.0.0/8", 10, addr, &len), BB_OK);
    cr_assert_eq(bb_cidr_add(a, NULL, addr, len), BB_OK);
    cr_assert_eq(bb_cidr_parse("2001:db8::/32", 13, addr, &len), BB_OK);
    cr_assert_eq(bb_cidr_add(b, NULL, addr, len), BB_OK);
    bb_mismatch m;
    cr_expect_eq(bb_union_check(a, p, &m), BB_E_MISMATCH);
    cr_expect_eq(m, BB_MISMATCH_KEYS);
    cr_expect_str_eq(bb_mismatch_name(m), "keys");
    cr_assert_eq(bb_union(a, b), BB_OK);
    bb_key_scheme want = {BB_KEYS_CIDR, {{UINT64_C(1) << 32, 0, 0}, UINT64_C(1) << 8}};
    same_scheme(a, &want);
    /* The union answers both ranges, at the lengths it now records. */
    uint8_t q[2][16];
    cr_assert_eq(bb_cidr_parse("10.9.9.9", 8, q[0], &len), BB_OK);
    cr_assert_eq(bb_cidr_parse("2001:db8::77", 12, q[1], &len), BB_OK);
    uint8_t out[2];
    cr_assert_eq(bb_cidr_contains_batch(a, NULL, &q[0][0], 16, 2, out, NULL), BB_OK);
    cr_expect(out[0] && out[1]);
    bb_key_scheme dom = {BB_KEYS_DOMAIN, {{0}, 0}};
    cr_assert_eq(bb_set_key_scheme(p, &dom), BB_OK);
    cr_expect_eq(bb_cidr_add(p, NULL, addr, len), BB_E_INVAL); /* not a CIDR filter */
    bb_free(a);
    bb_free(b);
    bb_free(p);
}
