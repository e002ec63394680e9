/* SPDX-License-Identifier: MIT */
/*
 * cidr.c - IP addresses and CIDR ranges as keys, and the fixed-width 5-tuple key.
 *
 * Every address is handled as 128 bits: an IPv4 address a.b.c.d is the IPv4-mapped IPv6
 * address ::ffff:a.b.c.d (RFC 4291, section 2.5.5.2) and an IPv4 range a.b.c.d/n is
 * ::ffff:a.b.c.d/(96 + n). So IPv4 and IPv4-mapped IPv6 spellings of one address are the
 * same key, an IPv6 range covering ::ffff:0:0/96 matches IPv4 addresses, and no other IPv6
 * address (IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96) is taken for IPv4.
 *
 * A range's key is its prefix length and its address with the bits past the prefix zero: for
 * an IPv4 range /n, 5 bytes (n, then the 4 IPv4 bytes), for any other range 17 bytes (the
 * 128-bit length, then the 16 bytes); the short IPv4 key takes XXH3's cheapest path. A filter of ranges answers an address by testing its key at each
 * prefix length that occurs in the set (a bb_prefix_set, which the caller keeps, or the
 * filter's key scheme keeps for it), so a set of /24s and /32s costs two probes per address,
 * not 129. The set keeps IPv4 lengths (ranges inside ::ffff:0:0/96) apart from the others,
 * so an IPv4 address is never tested at an IPv6 range's length nor the reverse; a range
 * outside the mapped space that contains all of it (::/0, ::/80, ::ffff:0:0/96 spelt as
 * IPv6 is inside) also adds the key of 0.0.0.0/0, which IPv4 addresses do test.
 */
#include "netutil.h"
#include "../lasterror.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

void bb_ipv4_mapped(const uint8_t v4[4], uint8_t out[16]) {
    memcpy(out, mapped_prefix, 12);
    memcpy(out + 12, v4, 4);
}

static inline bool is_ipv4(const uint8_t addr[16]) { return memcmp(addr, mapped_prefix, 12) == 0; }

bool bb_addr_is_ipv4(const uint8_t addr[16]) { return is_ipv4(addr); }

void bb_cidr_mask(const uint8_t addr[16], unsigned prefix_len, uint8_t out[16]) {
    for (unsigned i = 0; i < 16; i++) {
        unsigned keep = prefix_len > 8 * i ? prefix_len - 8 * i : 0;
        out[i] = addr[i] & (keep >= 8 ? 0xff : (uint8_t)(0xff00u >> keep));
    }
}

/* Whether range addr/len lies inside ::ffff:0:0/96, the IPv4-mapped space. */
static bool inside_ipv4(const uint8_t addr[16], unsigned len) { return len >= 96 && is_ipv4(addr); }

size_t bb_cidr_key(const uint8_t addr[16], unsigned prefix_len, uint8_t key[BB_CIDR_KEY_BYTES]) {
    uint8_t m[16];
    bb_cidr_mask(addr, prefix_len, m);
    if (inside_ipv4(addr, prefix_len)) { /* IPv4 /n: n, then the 4 masked bytes */
        key[0] = (uint8_t)(prefix_len - 96);
        memcpy(key + 1, m + 12, 4);
        return BB_CIDR4_KEY_BYTES;
    }
    key[0] = (uint8_t)prefix_len;
    memcpy(key + 1, m, 16);
    return BB_CIDR_KEY_BYTES;
}

/* Whole decimal number of at most 3 digits. */
static bool parse_len(const char *s, size_t len, unsigned *out) {
    if (len == 0 || len > 3) return false;
    unsigned v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return true;
}

static bb_status fail(const char *text) { return bb_error_set(BB_E_MALFORMED, "%s", text); }

bb_status bb_cidr_parse(const char *text, size_t len, uint8_t addr[16], unsigned *prefix_len) {
    bb_error_clear();
    if ((!text && len) || !addr || !prefix_len) return BB_E_INVAL;
    while (len && (*text == ' ' || *text == '\t')) text++, len--;
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r')) len--;
    const char *slash = memchr(text, '/', len);
    size_t alen = slash ? (size_t)(slash - text) : len;
    char buf[INET6_ADDRSTRLEN + 1];
    if (alen == 0 || alen >= sizeof buf) return fail("not an IP address");
    memcpy(buf, text, alen);
    buf[alen] = '\0';
    uint8_t v4[4];
    unsigned max, base;
    if (inet_pton(AF_INET, buf, v4) == 1) {
        bb_ipv4_mapped(v4, addr);
        max = 32, base = 96;
    } else if (inet_pton(AF_INET6, buf, addr) == 1) {
        max = 128, base = 0;
    } else {
        return fail("not an IP address");
    }
    unsigned n = max;
    if (slash && !parse_len(slash + 1, len - alen - 1, &n))
        return fail("the prefix length is not a whole number");
    if (n > max) return fail(max == 32 ? "prefix length above 32 for IPv4"
                                             : "prefix length above 128 for IPv6");
    uint8_t m[16];
    bb_cidr_mask(addr, base + n, m);
    if (memcmp(m, addr, 16) != 0) return fail("host bits set beyond the prefix");
    *prefix_len = base + n;
    return BB_OK;
}

/* Whether range addr/len (outside the mapped space) contains all of it. */
static bool covers_ipv4(const uint8_t addr[16], unsigned len) {
    static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff};
    uint8_t m[16];
    bb_cidr_mask(mapped, len, m);
    return len <= 96 && memcmp(m, addr, 16) == 0;
}

bb_status bb_cidr_range_keys(const uint8_t addr[16], unsigned prefix_len, bb_prefix_set *set,
                             uint8_t keys[2][BB_CIDR_KEY_BYTES], size_t key_lens[2],
                             size_t *n_keys) {
    static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff};
    if (n_keys) *n_keys = 0;
    if (!addr || !set || !keys || !key_lens || !n_keys || prefix_len > 128) return BB_E_INVAL;
    uint8_t m[16];
    bb_cidr_mask(addr, prefix_len, m);
    if (memcmp(m, addr, 16) != 0) return BB_E_MALFORMED;
    key_lens[0] = bb_cidr_key(addr, prefix_len, keys[0]);
    *n_keys = 1;
    if (inside_ipv4(addr, prefix_len)) {
        set->ipv4 |= UINT64_C(1) << (prefix_len - 96);
        return BB_OK;
    }
    set->words[prefix_len >> 6] |= UINT64_C(1) << (prefix_len & 63);
    if (covers_ipv4(addr, prefix_len)) { /* IPv4 addresses find it as 0.0.0.0/0 */
        key_lens[1] = bb_cidr_key(mapped, 96, keys[1]);
        *n_keys = 2;
        set->ipv4 |= 1;
    }
    return BB_OK;
}

bb_status bb_cidr_add(bb_filter *f, bb_prefix_set *set, const uint8_t addr[16],
                      unsigned prefix_len) {
    if (!f) return BB_E_INVAL;
    bb_key_scheme ks;
    bb_get_key_scheme(f, &ks);
    if (!set && ks.keys != BB_KEYS_PLAIN && ks.keys != BB_KEYS_CIDR) return BB_E_INVAL;
    uint8_t keys[2][BB_CIDR_KEY_BYTES];
    size_t lens[2], n;
    bb_status st = bb_cidr_range_keys(addr, prefix_len, set ? set : &ks.prefixes, keys, lens, &n);
    for (size_t i = 0; st == BB_OK && i < n; i++) st = bb_add(f, keys[i], lens[i]);
    if (st == BB_OK && !set) {
        ks.keys = BB_KEYS_CIDR;
        st = bb_set_key_scheme(f, &ks);
    }
    return st;
}

/* ---- The batch ----------------------------------------------------------------------------
 * Addresses in groups of 256: the group's keys go to two arrays, IPv4 keys (5 bytes, tested
 * at the IPv4 lengths) and IPv6 keys (17 bytes, at the IPv6 lengths), each address's keys
 * side by side, and each array to one bb_contains_fixed call, which hashes its keys back to
 * back (XXH3 inlined; 5-byte keys take XXH3's short-input path) and runs the prefetching
 * kernel across hundreds of them. Masks are precomputed per length. */

#define GROUP 256u

typedef struct lengths {
    uint8_t len[129];
    uint32_t mask4[33];      /* IPv4 /n: the mask of the 4 bytes, in memory order */
    uint64_t mask6[129][2];  /* IPv6 /l: the mask of the 16 bytes */
    size_t n;
} lengths;

static void lengths_of(const bb_prefix_set *s, lengths *v4, lengths *v6) {
    uint8_t ones[16], m[16];
    memset(ones, 0xff, 16);
    v4->n = v6->n = 0;
    /* Masks only for the lengths present: this runs once per batch call. */
    for (unsigned l = 0; l <= 128; l++) {
        if (s->words[l >> 6] >> (l & 63) & 1) {
            bb_cidr_mask(ones, l, m);
            memcpy(v6->mask6[v6->n], m, 16);
            v6->len[v6->n++] = (uint8_t)l;
        }
        if (l >= 96 && (s->ipv4 >> (l - 96) & 1)) {
            bb_cidr_mask(ones, l, m);
            memcpy(&v4->mask4[v4->n], m + 12, 4);
            v4->len[v4->n++] = (uint8_t)(l - 96);
        }
    }
}

typedef struct work {
    uint8_t *k4, *k6, *hit;        /* keys (5 and 17 bytes) and answers */
    uint16_t of4[GROUP], of6[GROUP]; /* the IPv4 and the other addresses (in the group) */
} work;

/* Keys of addresses addrs[0 .. m) into w, each address's keys together, one per length;
 * *n4, *n6 get the numbers of IPv4 and other addresses. */
static void group_keys(const uint8_t *addrs, size_t stride, size_t m, const lengths l[2],
                       work *w, size_t *n4, size_t *n6) {
    size_t a4 = 0, a6 = 0;
    for (size_t g = 0; g < m; g++) {
        const uint8_t *a = addrs + g * stride;
        if (is_ipv4(a)) {
            uint32_t v;
            memcpy(&v, a + 12, 4);
            uint8_t *k = w->k4 + BB_CIDR4_KEY_BYTES * l[0].n * a4;
            for (size_t j = 0; j < l[0].n; j++, k += BB_CIDR4_KEY_BYTES) {
                uint32_t x = v & l[0].mask4[j];
                k[0] = l[0].len[j];
                memcpy(k + 1, &x, 4);
            }
            w->of4[a4++] = (uint16_t)g;
        } else {
            uint64_t x[2];
            memcpy(x, a, 16);
            uint8_t *k = w->k6 + BB_CIDR_KEY_BYTES * l[1].n * a6;
            for (size_t j = 0; j < l[1].n; j++, k += BB_CIDR_KEY_BYTES) {
                uint64_t y[2] = {x[0] & l[1].mask6[j][0], x[1] & l[1].mask6[j][1]};
                k[0] = l[1].len[j];
                memcpy(k + 1, y, 16);
            }
            w->of6[a6++] = (uint16_t)g;
        }
    }
    *n4 = a4;
    *n6 = a6;
}

static bool work_alloc(work *w, size_t most) {
    size_t keys = GROUP * (most ? most : 1);
    w->k4 = malloc(keys * BB_CIDR4_KEY_BYTES);
    w->k6 = malloc(keys * BB_CIDR_KEY_BYTES);
    w->hit = malloc(keys);
    return w->k4 && w->k6 && w->hit;
}

static void work_free(work *w) { free(w->k4), free(w->k6), free(w->hit); }

/* out[of[a]] = whether any of address a's `per` answers in hit is 1, for a < n. One store
 * per address, not a read-modify-write per key (those chain through memory). */
static void answer(const uint8_t *hit, size_t per, const uint16_t *of, size_t n, uint8_t *out) {
    for (size_t a = 0; a < n; a++, hit += per) {
        uint8_t any = 0;
        for (size_t j = 0; j < per; j++) any |= hit[j];
        out[of[a]] = any;
    }
}

bb_status bb_cidr_contains_batch(const bb_filter *f, const bb_prefix_set *set,
                                 const uint8_t *addrs, size_t stride, size_t n, uint8_t *out,
                                 size_t *n_present) {
    if (n_present) *n_present = 0;
    if (!f || (n && (!addrs || !out)) || (stride && stride < 16)) return BB_E_INVAL;
    if (!stride) stride = 16;
    bb_key_scheme ks;
    bb_get_key_scheme(f, &ks);
    lengths l[2];
    lengths_of(set ? set : &ks.prefixes, &l[0], &l[1]);
    /* Tens of KiB for typical sets: below malloc's mmap threshold, so no fresh pages. */
    work w;
    if (!work_alloc(&w, l[0].n > l[1].n ? l[0].n : l[1].n)) {
        work_free(&w);
        return BB_E_NOMEM;
    }
    size_t present = 0;
    for (size_t b = 0; b < n; b += GROUP) {
        size_t m = n - b < GROUP ? n - b : GROUP, n4, n6;
        uint8_t *o = out + b;
        group_keys(addrs + b * stride, stride, m, l, &w, &n4, &n6);
        bb_contains_fixed(f, w.k4, BB_CIDR4_KEY_BYTES, 0, n4 * l[0].n, w.hit, NULL);
        answer(w.hit, l[0].n, w.of4, n4, o);
        bb_contains_fixed(f, w.k6, BB_CIDR_KEY_BYTES, 0, n6 * l[1].n, w.hit, NULL);
        answer(w.hit, l[1].n, w.of6, n6, o);
        for (size_t g = 0; g < m; g++) present += o[g];
    }
    work_free(&w);
    if (n_present) *n_present = present;
    return BB_OK;
}

void bb_5tuple_key(const bb_5tuple *t, uint8_t key[BB_5TUPLE_KEY_BYTES]) {
    key[0] = t->proto;
    memcpy(key + 1, t->src, 16);
    memcpy(key + 17, t->dst, 16);
    key[33] = (uint8_t)(t->src_port >> 8);
    key[34] = (uint8_t)t->src_port;
    key[35] = (uint8_t)(t->dst_port >> 8);
    key[36] = (uint8_t)t->dst_port;
}
