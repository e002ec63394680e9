/*
 * cidr.c - IP addresses and CIDR ranges as keys, and the fixed-width 5-tuple key.
 *
 * Every address is handled as 128 bits: an IPv4 address a.b.c.d is the IPv4-mapped IPv6
 * address ::ffff:a.b.c.d (RFC 4291, section 2.5.5.2) and an IPv4 range a.b.c.d/n is
 * ::ffff:a.b.c.d/(96 + n). So IPv4 and IPv4-mapped IPv6 spellings of one address are the
 * same key, an IPv6 range covering ::ffff:0:0/96 matches IPv4 addresses, and no other IPv6
 * address (IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96) is taken for IPv4.
 *
 * A range is the 17-byte key (prefix length 0..128, then the 16 address bytes with the bits
 * past the prefix zero). A filter of ranges answers an address by testing its key at each
 * prefix length that occurs in the set (a bb_prefix_set, which the caller keeps, or the
 * filter's key scheme keeps for it), so a set of /24s and /32s costs two probes per address,
 * not 129. The set keeps IPv4 lengths (ranges inside ::ffff:0:0/96) apart from the others,
 * so an IPv4 address is never tested at an IPv6 range's length nor the reverse; a range
 * outside the mapped space that contains all of it (::/0, ::/80, ::ffff:0:0/96 spelt as
 * IPv6 is inside) also adds the key of 0.0.0.0/0, which IPv4 addresses do test.
 */
#include "netutil.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

void bb_ipv4_mapped(const uint8_t v4[4], uint8_t out[16]) {
    memcpy(out, mapped_prefix, 12);
    memcpy(out + 12, v4, 4);
}

bool bb_addr_is_ipv4(const uint8_t addr[16]) { return memcmp(addr, mapped_prefix, 12) == 0; }

void bb_cidr_key(const uint8_t addr[16], unsigned prefix_len, uint8_t key[BB_CIDR_KEY_BYTES]) {
    key[0] = (uint8_t)prefix_len;
    for (unsigned i = 0; i < 16; i++) {
        unsigned keep = prefix_len > 8 * i ? prefix_len - 8 * i : 0;
        uint8_t mask = keep >= 8 ? 0xff : (uint8_t)(0xff00u >> keep);
        key[1 + i] = addr[i] & mask;
    }
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

static bb_status fail(const char **why, const char *text) {
    if (why) *why = text;
    return BB_E_MALFORMED;
}

bb_status bb_cidr_parse(const char *text, size_t len, uint8_t addr[16], unsigned *prefix_len,
                        const char **why) {
    if (why) *why = NULL;
    if ((!text && len) || !addr || !prefix_len) return BB_E_INVAL;
    while (len && (*text == ' ' || *text == '\t')) text++, len--;
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r')) len--;
    const char *slash = memchr(text, '/', len);
    size_t alen = slash ? (size_t)(slash - text) : len;
    char buf[INET6_ADDRSTRLEN + 1];
    if (alen == 0 || alen >= sizeof buf) return fail(why, "not an IP address");
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
        return fail(why, "not an IP address");
    }
    unsigned n = max;
    if (slash && !parse_len(slash + 1, len - alen - 1, &n))
        return fail(why, "the prefix length is not a whole number");
    if (n > max) return fail(why, max == 32 ? "prefix length above 32 for IPv4"
                                             : "prefix length above 128 for IPv6");
    uint8_t key[BB_CIDR_KEY_BYTES];
    bb_cidr_key(addr, base + n, key);
    if (memcmp(key + 1, addr, 16) != 0) return fail(why, "host bits set beyond the prefix");
    *prefix_len = base + n;
    return BB_OK;
}

/* Whether range addr/len lies inside ::ffff:0:0/96, the IPv4-mapped space. */
static bool inside_ipv4(const uint8_t addr[16], unsigned len) { return len >= 96 && bb_addr_is_ipv4(addr); }

/* Whether range addr/len (outside the mapped space) contains all of it. */
static bool covers_ipv4(const uint8_t addr[16], unsigned len) {
    static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff};
    uint8_t k[BB_CIDR_KEY_BYTES];
    bb_cidr_key(mapped, len, k);
    return len <= 96 && memcmp(k + 1, addr, 16) == 0;
}

bb_status bb_cidr_range_keys(const uint8_t addr[16], unsigned prefix_len, bb_prefix_set *set,
                             uint8_t keys[2][BB_CIDR_KEY_BYTES], size_t *n_keys) {
    static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff};
    if (n_keys) *n_keys = 0;
    if (!addr || !set || !keys || !n_keys || prefix_len > 128) return BB_E_INVAL;
    bb_cidr_key(addr, prefix_len, keys[0]);
    if (memcmp(keys[0] + 1, addr, 16) != 0) return BB_E_MALFORMED;
    *n_keys = 1;
    if (inside_ipv4(addr, prefix_len)) {
        set->ipv4 |= UINT64_C(1) << (prefix_len - 96);
        return BB_OK;
    }
    set->words[prefix_len >> 6] |= UINT64_C(1) << (prefix_len & 63);
    if (covers_ipv4(addr, prefix_len)) { /* IPv4 addresses find it as 0.0.0.0/0 */
        bb_cidr_key(mapped, 96, keys[(*n_keys)++]);
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
    size_t n;
    bb_status st = bb_cidr_range_keys(addr, prefix_len, set ? set : &ks.prefixes, keys, &n);
    for (size_t i = 0; st == BB_OK && i < n; i++) st = bb_add(f, keys[i], BB_CIDR_KEY_BYTES);
    if (st == BB_OK && !set) {
        ks.keys = BB_KEYS_CIDR;
        st = bb_set_key_scheme(f, &ks);
    }
    return st;
}

/* ---- The batch ----------------------------------------------------------------------------
 * Addresses in groups of 64: every (address, length) key of a group is written to one array
 * of 17-byte keys (masks precomputed per length, two 64-bit ANDs a key) and tested with one
 * bb_contains_fixed call, which hashes the keys back to back (XXH3 inlined) and runs the
 * prefetching kernel across all of them. An IPv4 address is tested at the IPv4 lengths, any
 * other at the IPv6 ones. */

#define GROUP 64u

typedef struct lengths {
    uint8_t len[129];
    uint8_t mask[129][16];
    size_t n;
} lengths;

static void add_len(lengths *l, unsigned len) {
    uint8_t ones[16];
    memset(ones, 0xff, 16);
    uint8_t key[BB_CIDR_KEY_BYTES];
    bb_cidr_key(ones, len, key);
    l->len[l->n] = (uint8_t)len;
    memcpy(l->mask[l->n++], key + 1, 16);
}

static void lengths_of(const bb_prefix_set *s, lengths *v4, lengths *v6) {
    v4->n = v6->n = 0;
    for (unsigned l = 0; l <= 128; l++) {
        if (s->words[l >> 6] >> (l & 63) & 1) add_len(v6, l);
        if (l >= 96 && (s->ipv4 >> (l - 96) & 1)) add_len(v4, l);
    }
}

static void put_key(uint8_t *key, const uint8_t *a, const lengths *l, size_t j) {
    uint64_t x[2], m[2];
    memcpy(x, a, 16);
    memcpy(m, l->mask[j], 16);
    x[0] &= m[0];
    x[1] &= m[1];
    key[0] = l->len[j];
    memcpy(key + 1, x, 16);
}

bb_status bb_cidr_contains_batch(const bb_filter *f, const bb_prefix_set *set,
                                 const uint8_t *addrs, size_t stride, size_t n, uint8_t *out,
                                 size_t *n_present) {
    if (n_present) *n_present = 0;
    if (!f || (n && (!addrs || !out)) || (stride && stride < 16)) return BB_E_INVAL;
    if (!stride) stride = 16;
    bb_key_scheme ks;
    bb_get_key_scheme(f, &ks);
    lengths *l = malloc(2 * sizeof *l);
    uint8_t *keys = malloc(GROUP * 129 * BB_CIDR_KEY_BYTES), *hit = malloc(GROUP * 129);
    if (!l || !keys || !hit) {
        free(l), free(keys), free(hit);
        return BB_E_NOMEM;
    }
    lengths_of(set ? set : &ks.prefixes, &l[0], &l[1]);
    size_t present = 0, first[GROUP + 1];
    for (size_t b = 0; b < n; b += GROUP) {
        size_t m = n - b < GROUP ? n - b : GROUP, k = 0;
        for (size_t g = 0; g < m; g++) {
            const uint8_t *a = addrs + (b + g) * stride;
            const lengths *use = bb_addr_is_ipv4(a) ? &l[0] : &l[1];
            first[g] = k;
            for (size_t j = 0; j < use->n; j++) put_key(keys + BB_CIDR_KEY_BYTES * k++, a, use, j);
        }
        first[m] = k;
        bb_contains_fixed(f, keys, BB_CIDR_KEY_BYTES, 0, k, hit, NULL);
        for (size_t g = 0; g < m; g++) {
            uint8_t any = 0;
            for (size_t j = first[g]; j < first[g + 1]; j++) any |= hit[j];
            out[b + g] = any;
            present += any;
        }
    }
    free(l), free(keys), free(hit);
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
