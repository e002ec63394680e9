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
 * not 129. Those keys go through the grouped batch of anybatch.c.
 */
#include "netutil.h"

#include <arpa/inet.h>
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

static bool set_has(const bb_prefix_set *s, unsigned l) { return s->words[l >> 6] >> (l & 63) & 1; }

bb_status bb_cidr_add(bb_filter *f, bb_prefix_set *set, const uint8_t addr[16],
                      unsigned prefix_len) {
    if (!f || !addr || prefix_len > 128) return BB_E_INVAL;
    bb_key_scheme ks;
    bb_get_key_scheme(f, &ks);
    if (!set && ks.keys != BB_KEYS_PLAIN && ks.keys != BB_KEYS_CIDR) return BB_E_INVAL;
    uint8_t key[BB_CIDR_KEY_BYTES];
    bb_cidr_key(addr, prefix_len, key);
    if (memcmp(key + 1, addr, 16) != 0) return BB_E_MALFORMED;
    bb_status st = bb_add(f, key, sizeof key);
    bb_prefix_set *s = set ? set : &ks.prefixes;
    if (st == BB_OK) s->words[prefix_len >> 6] |= UINT64_C(1) << (prefix_len & 63);
    if (st == BB_OK && !set) {
        ks.keys = BB_KEYS_CIDR;
        st = bb_set_key_scheme(f, &ks);
    }
    return st;
}

typedef struct cidr_ctx {
    const bb_filter *f;
    const uint8_t *addrs;
    size_t stride;
    uint8_t lens[129];
    size_t n_lens;
} cidr_ctx;

static bb_status cidr_keys(void *ctx, size_t i, uint64_t *hashes, size_t *n) {
    const cidr_ctx *c = ctx;
    const uint8_t *a = c->addrs + i * c->stride;
    for (size_t j = 0; j < c->n_lens; j++) {
        uint8_t key[BB_CIDR_KEY_BYTES];
        bb_cidr_key(a, c->lens[j], key);
        hashes[j] = bb_hash(c->f, key, sizeof key);
    }
    *n = c->n_lens;
    return BB_OK;
}

bb_status bb_cidr_contains_batch(const bb_filter *f, const bb_prefix_set *set,
                                 const uint8_t *addrs, size_t stride, size_t n, uint8_t *out,
                                 size_t *n_present) {
    if (n_present) *n_present = 0;
    if (!f || (n && (!addrs || !out)) || (stride && stride < 16)) return BB_E_INVAL;
    bb_key_scheme ks;
    bb_get_key_scheme(f, &ks);
    if (!set) set = &ks.prefixes;
    cidr_ctx c = {.f = f, .addrs = addrs, .stride = stride ? stride : 16};
    for (unsigned l = 0; l <= 128; l++)
        if (set_has(set, l)) c.lens[c.n_lens++] = (uint8_t)l;
    if (c.n_lens == 0) { /* an empty set holds no address */
        if (n) memset(out, 0, n);
        return BB_OK;
    }
    return bb_net_any_batch(f, n, c.n_lens, cidr_keys, &c, out, n_present);
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
