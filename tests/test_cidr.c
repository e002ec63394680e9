/* SPDX-License-Identifier: MIT */
/*
 * test_cidr.c - IP ranges and 5-tuples as keys (src/net/cidr.c): parsing with its per-error
 * reasons (/33, /129, host bits, garbage), the IPv4-mapped rule (IPv4 and ::ffff:a.b.c.d are
 * one address), keys worked out by hand, and the batch answering only at the prefix lengths
 * that occur, against an exact model of the ranges (no false negative; with a 1e-9 filter no
 * false positive either among these few addresses).
 */
#include <blockbloom.h>

#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <string.h>

static void parse_ok(const char *text, const char *addr6, unsigned want_len) {
    uint8_t a[16], want[16];
    unsigned l;
    bb_status s = bb_cidr_parse(text, strlen(text), a, &l);
    cr_assert_eq(s, BB_OK, "%s: %s", text, bb_strerror(s));
    cr_assert_eq(inet_pton(AF_INET6, addr6, want), 1);
    cr_expect_eq(memcmp(a, want, 16), 0, "%s", text);
    cr_expect_eq(l, want_len, "%s", text);
    cr_expect_str_eq(bb_last_error(), "", "%s: a success leaves no reason", text);
}

static void parse_bad(const char *text, const char *reason) {
    uint8_t a[16];
    unsigned l;
    cr_expect_eq(bb_cidr_parse(text, strlen(text), a, &l), BB_E_MALFORMED, "%s", text);
    cr_expect_str_eq(bb_last_error(), reason, "%s", text);
}

Test(cidr, parse) {
    parse_ok("10.0.0.0/8", "::ffff:10.0.0.0", 104);
    parse_ok(" 192.168.1.7 ", "::ffff:192.168.1.7", 128);
    parse_ok("0.0.0.0/0", "::ffff:0.0.0.0", 96);
    parse_ok("2001:db8::/32", "2001:db8::", 32);
    parse_ok("::/0", "::", 0);
    parse_ok("::ffff:10.0.0.0/104", "::ffff:10.0.0.0", 104);
    parse_ok("2001:DB8::1", "2001:db8::1", 128);
    parse_bad("10.0.0.0/33", "prefix length above 32 for IPv4");
    parse_bad("::/129", "prefix length above 128 for IPv6");
    parse_bad("10.0.0.1/8", "host bits set beyond the prefix");
    parse_bad("2001:db8::1/32", "host bits set beyond the prefix");
    parse_bad("garbage", "not an IP address");
    parse_bad("10.0.0/8", "not an IP address"); /* inet_pton wants 4 parts */
    parse_bad("", "not an IP address");
    parse_bad("10.0.0.0/", "the prefix length is not a whole number");
    parse_bad("10.0.0.0/8x", "the prefix length is not a whole number");
    parse_bad("10.0.0.0/-1", "the prefix length is not a whole number");
}

Test(cidr, keys_by_hand) {
    uint8_t a[16], key[BB_CIDR_KEY_BYTES];
    cr_assert_eq(inet_pton(AF_INET6, "::ffff:10.1.2.3", a), 1);
    cr_expect_eq(bb_cidr_key(a, 96 + 12, key), 5); /* IPv4 /12: 12, then 10.0.0.0 */
    static const uint8_t want4[5] = {12, 10, 0, 0, 0};
    cr_expect_eq(memcmp(key, want4, 5), 0);
    cr_expect_eq(bb_cidr_key(a, 96 + 16, key), 5);
    static const uint8_t want16[5] = {16, 10, 1, 0, 0};
    cr_expect_eq(memcmp(key, want16, 5), 0);
    cr_expect_eq(bb_cidr_key(a, 96 + 15, key), 5);
    cr_expect_eq(key[2], 0); /* 10.1/15 -> 10.0 (1 = 0000 0001, the 16th bit cleared) */
    cr_expect_eq(bb_cidr_key(a, 80, key), 17); /* below 96: an IPv6 length */
    static const uint8_t want80[17] = {80};
    cr_expect_eq(memcmp(key, want80, 17), 0);
    uint8_t b6[16];
    cr_assert_eq(inet_pton(AF_INET6, "2001:db8:ffff::1", b6), 1);
    cr_expect_eq(bb_cidr_key(b6, 36, key), 17);
    static const uint8_t want6[17] = {36, 0x20, 0x01, 0x0d, 0xb8, 0xf0};
    cr_expect_eq(memcmp(key, want6, 17), 0);
    cr_expect(bb_addr_is_ipv4(a));
    bb_5tuple t = {.proto = 6, .src_port = 0x1234, .dst_port = 80};
    memcpy(t.src, a, 16);
    memcpy(t.dst, a, 16);
    uint8_t k5[BB_5TUPLE_KEY_BYTES];
    bb_5tuple_key(&t, k5);
    cr_expect_eq(k5[0], 6);
    cr_expect_eq(k5[33], 0x12);
    cr_expect_eq(k5[34], 0x34);
    cr_expect_eq(k5[35], 0);
    cr_expect_eq(k5[36], 80);
    cr_expect_eq(memcmp(k5 + 1, a, 16), 0);
}

static void addr_of(const char *text, uint8_t out[16]) {
    unsigned l;
    cr_assert_eq(bb_cidr_parse(text, strlen(text), out, &l), BB_OK, "%s", text);
}

Test(cidr, batch) {
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 64, 1e-9, 5), BB_OK);
    bb_prefix_set set = {{0}, 0};
    static const char *const ranges[] = {"10.0.0.0/8", "192.168.1.0/24", "2001:db8::/32",
                                         "203.0.113.9"};
    for (size_t i = 0; i < 4; i++) {
        uint8_t a[16];
        unsigned l;
        cr_assert_eq(bb_cidr_parse(ranges[i], strlen(ranges[i]), a, &l), BB_OK);
        cr_assert_eq(bb_cidr_add(f, &set, a, l), BB_OK);
    }
    /* IPv4 /8, /24, /32; IPv6 /32 only. */
    cr_expect_eq(set.ipv4, (UINT64_C(1) << 8) | (UINT64_C(1) << 24) | (UINT64_C(1) << 32));
    cr_expect_eq(set.words[0], UINT64_C(1) << 32);
    cr_expect_eq(set.words[1], 0);
    cr_expect_eq(set.words[2], 0);
    static const char *const q[] = {"10.200.3.4", "11.0.0.1", "192.168.1.255", "192.168.2.1",
                                    "::ffff:10.9.9.9", "2001:db8:ffff::1", "2001:db9::1",
                                    "203.0.113.9", "203.0.113.8", "::a00:1"};
    static const uint8_t want[] = {1, 0, 1, 0, 1, 1, 0, 1, 0, 0};
    uint8_t addrs[10][16], out[10];
    for (size_t i = 0; i < 10; i++) addr_of(q[i], addrs[i]);
    size_t present;
    cr_assert_eq(bb_cidr_contains_batch(f, &set, &addrs[0][0], 16, 10, out, &present), BB_OK);
    for (size_t i = 0; i < 10; i++) cr_expect_eq(out[i], want[i], "%s", q[i]);
    cr_expect_eq(present, 5);
    /* An empty set answers 0; a bad stride is refused; a host-bit range is not added. */
    bb_prefix_set none = {{0}, 0};
    cr_assert_eq(bb_cidr_contains_batch(f, &none, &addrs[0][0], 0, 10, out, &present), BB_OK);
    cr_expect_eq(present, 0);
    cr_expect_eq(bb_cidr_contains_batch(f, &set, &addrs[0][0], 8, 10, out, NULL), BB_E_INVAL);
    uint8_t host[16];
    addr_of("10.0.0.1", host);
    cr_expect_eq(bb_cidr_add(f, &set, host, 104), BB_E_MALFORMED);
    cr_expect_eq(bb_cidr_add(f, &set, host, 129), BB_E_INVAL);
    bb_free(f);
}

/* IPv4 addresses are tested at IPv4 lengths only; a range holding all of ::ffff:0:0/96 from
 * outside it must still match them (it also adds 0.0.0.0/0), one inside it is IPv4. */
Test(cidr, ranges_covering_ipv4) {
    static const struct {
        const char *range, *addr;
        unsigned n_keys;
        uint64_t ipv4, word0, word1;
    } cases[] = {
        {"::/0", "192.0.2.1", 2, 1, 1, 0},
        {"::/80", "10.0.0.1", 2, 1, UINT64_C(0), UINT64_C(1) << (80 - 64)},
        {"::ffff:0:0/96", "10.0.0.1", 1, 1, 0, 0},
        {"::ffff:10.0.0.0/104", "10.9.8.7", 1, UINT64_C(1) << 8, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bb_filter *f;
        cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 16, 1e-9, 2), BB_OK);
        uint8_t a[16], q[2][16], keys[2][BB_CIDR_KEY_BYTES], out[2];
        unsigned l;
        size_t n, lens[2];
        bb_prefix_set set = {{0}, 0};
        cr_assert_eq(bb_cidr_parse(cases[i].range, strlen(cases[i].range), a, &l), BB_OK);
        cr_assert_eq(bb_cidr_range_keys(a, l, &set, keys, lens, &n), BB_OK);
        cr_expect_eq(n, cases[i].n_keys, "%s", cases[i].range);
        cr_expect_eq(lens[n - 1], n == 2 || i >= 2 ? 5 : 17, "%s", cases[i].range);
        cr_expect_eq(set.ipv4, cases[i].ipv4, "%s", cases[i].range);
        cr_expect_eq(set.words[0], cases[i].word0, "%s", cases[i].range);
        cr_expect_eq(set.words[1], cases[i].word1, "%s", cases[i].range);
        cr_assert_eq(bb_cidr_add(f, NULL, a, l), BB_OK);
        addr_of(cases[i].addr, q[0]);
        addr_of("2001:db8::1", q[1]); /* outside all but ::/0 */
        cr_assert_eq(bb_cidr_contains_batch(f, NULL, &q[0][0], 16, 2, out, NULL), BB_OK);
        cr_expect_eq(out[0], 1, "%s in %s", cases[i].addr, cases[i].range);
        cr_expect_eq(out[1], i == 0, "2001:db8::1 in %s", cases[i].range);
        bb_free(f);
    }
}
