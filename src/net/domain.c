/* SPDX-License-Identifier: MIT */
/*
 * domain.c - host names as keys: their normal ASCII form (lowercase, no final dot, IDNA to
 * Punycode through libidn2 when built with it), the parent domains a query tries (down to,
 * never including, the public suffix from psl.c), and the batch test of many names.
 *
 * Why this form: blocklists and queries disagree on case, final dots and Unicode, and a name
 * must hash to one key whichever way it was written. The checks follow RFC 1035 (labels of
 * 1..63 bytes, 253 in all) with '_' allowed, as it appears in real lists, and refuse a last
 * label of digits only (an IPv4 address, which belongs in a CIDR filter).
 */
#include "netutil.h"

#include <stdlib.h>
#include <string.h>

#ifdef BB_HAVE_IDN2
#include <idn2.h>
#endif

/* Longest Unicode input handed to libidn2 (a name of 253 ASCII bytes is far shorter). */
#define MAX_UNICODE_BYTES 1024

static bool valid_ascii(const char *d, size_t len) {
    if (len == 0 || len > BB_DOMAIN_MAX_LEN) return false;
    size_t label = 0;
    bool all_digits = true;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || d[i] == '.') {
            if (label == 0 || label > 63) return false;
            if (i < len) all_digits = true;
            label = 0;
            continue;
        }
        char c = d[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return false;
        if (c < '0' || c > '9') all_digits = false;
        label++;
    }
    return !all_digits;
}

/* The Punycode form of a UTF-8 name, lowercased by UTS #46 mapping. */
static bb_status to_ascii(const char *d, size_t len, char *out, size_t *out_len) {
#ifdef BB_HAVE_IDN2
    char in[MAX_UNICODE_BYTES + 1];
    if (len > MAX_UNICODE_BYTES || memchr(d, '\0', len)) return BB_E_MALFORMED;
    memcpy(in, d, len);
    in[len] = '\0';
    char *a = NULL;
    if (idn2_to_ascii_8z(in, &a, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) != IDN2_OK) {
        idn2_free(a);
        return BB_E_MALFORMED;
    }
    size_t n = strlen(a);
    bb_status st = n <= BB_DOMAIN_MAX_LEN ? BB_OK : BB_E_MALFORMED;
    if (st == BB_OK) memcpy(out, a, n);
    idn2_free(a);
    *out_len = n;
    return st;
#else
    (void)d, (void)len, (void)out, (void)out_len;
    return BB_E_UNSUPPORTED;
#endif
}

bb_status bb_net_domain_ascii(const char *d, size_t len, char out[BB_DOMAIN_MAX_LEN + 1],
                              size_t *out_len) {
    while (len && (d[0] == ' ' || d[0] == '\t')) d++, len--;
    while (len && (d[len - 1] == ' ' || d[len - 1] == '\t' || d[len - 1] == '\r')) len--;
    if (len && d[len - 1] == '.') len--;
    bool ascii = true;
    for (size_t i = 0; i < len; i++) ascii &= (unsigned char)d[i] < 0x80;
    size_t n = len;
    if (!ascii) {
        bb_status st = to_ascii(d, len, out, &n);
        if (st != BB_OK) return st;
    } else {
        if (len > BB_DOMAIN_MAX_LEN) return BB_E_MALFORMED;
        for (size_t i = 0; i < len; i++)
            out[i] = d[i] >= 'A' && d[i] <= 'Z' ? (char)(d[i] + 32) : d[i];
    }
    if (!valid_ascii(out, n)) return BB_E_MALFORMED;
    *out_len = n;
    return BB_OK;
}

bb_status bb_domain_normalize(const char *name, size_t len, char *out, size_t cap,
                              size_t *out_len) {
    if (out_len) *out_len = 0;
    if ((!name && len) || !out || !out_len || cap < BB_DOMAIN_MAX_LEN + 1) return BB_E_INVAL;
    return bb_net_domain_ascii(name ? name : "", len, out, out_len);
}

bb_status bb_domain_public_suffix(const bb_psl *psl, const char *name, size_t len,
                                  bb_span *suffix) {
    if (!psl || !name || !len || !suffix) return BB_E_INVAL;
    size_t o = bb_net_public_suffix(psl, name, len);
    *suffix = (bb_span){o, len - o};
    return BB_OK;
}

bb_status bb_domain_candidates(const bb_psl *psl, const char *name, size_t len, char *buf,
                               size_t cap, bb_span cands[BB_DOMAIN_MAX_CANDIDATES], size_t *n) {
    if (n) *n = 0;
    if (!psl || !cands || !n) return BB_E_INVAL;
    size_t d;
    bb_status st = bb_domain_normalize(name, len, buf, cap, &d);
    if (st != BB_OK) return st;
    size_t ps = bb_net_public_suffix(psl, buf, d);
    for (size_t o = 0; o < ps;) {
        cands[(*n)++] = (bb_span){o, d - o};
        const char *dot = memchr(buf + o, '.', d - o);
        o = (size_t)(dot - buf) + 1; /* o < ps <= the last label's start: a dot follows */
    }
    return BB_OK;
}

typedef struct domain_ctx {
    const bb_filter *f;
    const bb_psl *psl;
    const char *const *names;
    const size_t *lens;
} domain_ctx;

static bb_status domain_keys(void *ctx, size_t i, uint64_t *hashes, size_t *n) {
    domain_ctx *c = ctx;
    char buf[BB_DOMAIN_MAX_LEN + 1];
    bb_span cand[BB_DOMAIN_MAX_CANDIDATES];
    bb_status st = bb_domain_candidates(c->psl, c->names[i], c->lens[i], buf, sizeof buf, cand, n);
    for (size_t j = 0; j < *n; j++) hashes[j] = bb_hash(c->f, buf + cand[j].off, cand[j].len);
    return st;
}

bb_status bb_domain_contains_batch(const bb_filter *f, const bb_psl *psl,
                                   const char *const *names, const size_t *lens, size_t n,
                                   uint8_t *out, size_t *n_present) {
    if (n_present) *n_present = 0;
    if (!f || !psl || (n && (!names || !lens || !out))) return BB_E_INVAL;
    for (size_t i = 0; i < n; i++)
        if (!names[i] && lens[i]) return BB_E_INVAL;
    domain_ctx c = {f, psl, names, lens};
    return bb_net_any_batch(f, n, BB_DOMAIN_MAX_CANDIDATES, domain_keys, &c, out, n_present);
}
