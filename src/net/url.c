/* SPDX-License-Identifier: MIT */
/*
 * url.c - URL canonicalisation and host-suffix x path-prefix expressions, as the Safe
 * Browsing v4 "URLs and Hashing" document specifies them (Google, developers.google.com/
 * safe-browsing/v4/urls-hashing, sections "Canonicalization" and "Suffix/Prefix
 * Expressions"), and the batch test of every expression of many URLs against a filter.
 *
 * Canonicalisation works inside the caller's output buffer, so it never allocates:
 *   1. copy the URL without tab, CR and LF, trimmed of surrounding spaces, cut at the first
 *      '#' (the fragment goes before unescaping, so an escaped %23 stays part of the URL);
 *   2. percent-unescape in place until no %XX is left ("%2525" becomes "%25", then "%"), in
 *      one pass that looks again only at the bytes just written (linear in the URL's length);
 *   3. move the raw bytes to the end of the buffer and write the canonical URL from its start:
 *      scheme (lowercased; "http" when the URL has none), "://", the host (dots trimmed and
 *      collapsed, lowercased, an IPv4 address in any inet_aton spelling rewritten as four
 *      decimals, an internationalised name in Punycode when libidn2 maps it), the path
 *      (runs of '/' collapsed, "." and ".." segments resolved; "/" when empty) and the query,
 *      untouched, with bytes <= 0x20, >= 0x7f, '#' and '%' re-escaped as %XX (uppercase).
 *      User info and port are dropped.
 * The writer never overtakes the reader in step 3 when the buffer holds 3 len + 24 bytes
 * (BB_URL_CANON_BOUND): it has written at most 24 + 3 i bytes when it has read i of the r <=
 * len raw bytes, which start at cap - r >= 2 r + 24.
 *
 * An expression is a host suffix followed by a path prefix, so in the canonical URL without
 * its scheme it is one contiguous span (the host suffix ends where the path begins): the
 * expressions are (offset, length) spans into the canonical URL, again without allocation.
 */
#include "netutil.h"

#include <stdlib.h>
#include <string.h>

/* ---- Small byte helpers ---------------------------------------------------------------------- */

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c; }

static bool needs_escape(unsigned char c) { return c <= 0x20 || c >= 0x7f || c == '#' || c == '%'; }

/* Append byte c to out at *w, escaped if the canonical form wants it. */
static void put_escaped(char *out, size_t *w, unsigned char c) {
    static const char digits[] = "0123456789ABCDEF";
    if (!needs_escape(c)) {
        out[(*w)++] = (char)c;
        return;
    }
    out[(*w)++] = '%';
    out[(*w)++] = digits[c >> 4];
    out[(*w)++] = digits[c & 15];
}

/* ---- Steps 1 and 2: strip, cut the fragment, unescape ---------------------------------------- */

/* Copy url into out without \t \r \n, trimmed of spaces, up to the first '#'. */
static size_t strip_copy(const char *url, size_t len, char *out) {
    size_t b = 0, e = len, w = 0;
    while (b < e && (url[b] == ' ' || url[b] == '\t' || url[b] == '\r' || url[b] == '\n')) b++;
    while (e > b && (url[e - 1] == ' ' || url[e - 1] == '\t' || url[e - 1] == '\r' ||
                     url[e - 1] == '\n'))
        e--;
    for (size_t i = b; i < e; i++) {
        char c = url[i];
        if (c == '#') break;
        if (c != '\t' && c != '\r' && c != '\n') out[w++] = c;
    }
    return w;
}

/* Percent-unescape in place until no %XX is left, in one left-to-right pass: a decoded byte
 * can complete a new %XX only with the two or so bytes just before it, so after each byte is
 * written only the last three written bytes are looked at again. %XX matches never overlap
 * (their second and third bytes are hex digits, never '%'), so every order of decoding ends in
 * the same text: this gives what repeated whole passes give, in linear time (repeated passes
 * took 9.2 s for "%" + "25" x 80,000 + "41"). Returns the new length. */
static size_t unescape_all(char *s, size_t len) {
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        s[w++] = s[i];
        int hi, lo;
        while (w >= 3 && s[w - 3] == '%' && (hi = hex_value((unsigned char)s[w - 2])) >= 0 &&
               (lo = hex_value((unsigned char)s[w - 1])) >= 0) {
            s[w - 3] = (char)(hi * 16 + lo);
            w -= 2;
        }
    }
    return w;
}

/* ---- The host ------------------------------------------------------------------------------------ */

/* One inet_aton component: decimal, 0-prefixed octal or 0x-prefixed hex. */
static bool parse_ip_part(const char *s, size_t len, uint64_t *out) {
    unsigned base = 10;
    size_t i = 0;
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len >= 2 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    if (i == len && base == 16) return false; /* "0x" alone */
    if (len == 0) return false;
    uint64_t v = 0;
    for (; i < len; i++) {
        int d = hex_value((unsigned char)s[i]);
        if (d < 0 || (unsigned)d >= base) return false;
        v = v * base + (unsigned)d;
        if (v > UINT32_MAX) return false;
    }
    *out = v;
    return true;
}

/* An IPv4 address written as inet_aton accepts it (1 to 4 parts, the last one filling the
 * remaining bytes), into *addr. */
static bool parse_ipv4_any(const char *s, size_t len, uint32_t *addr) {
    uint64_t parts[4];
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.') continue;
        if (n == 4 || !parse_ip_part(s + start, i - start, &parts[n])) return false;
        n++;
        start = i + 1;
    }
    uint64_t v = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (parts[i] > 255) return false;
        v |= parts[i] << (24 - 8 * i);
    }
    uint64_t last_max = n == 1 ? UINT32_MAX : (UINT64_C(1) << (8 * (5 - n))) - 1;
    if (parts[n - 1] > last_max) return false;
    *addr = (uint32_t)(v | parts[n - 1]);
    return true;
}

static size_t write_u8_decimal(char *out, unsigned v) {
    size_t n = 0;
    if (v >= 100) out[n++] = (char)('0' + v / 100);
    if (v >= 10) out[n++] = (char)('0' + v / 10 % 10);
    out[n++] = (char)('0' + v % 10);
    return n;
}

/* An internationalised host h[0 .. *n) replaced by its Punycode form, as the document asks
 * ("convert the URL to the ASCII Punycode representation"), when libidn2 can map it and the
 * result fits the room the escaped form would have had (3 bytes a byte). Otherwise false, and
 * its bytes >= 0x80 are escaped (the document's "http://\x01\x80.com/" example). */
static bool idna_host(char *h, size_t *n) {
    bool ascii = true;
    for (size_t i = 0; i < *n; i++) {
        if ((unsigned char)h[i] <= 0x20) return false; /* not a name libidn2 should trim */
        ascii &= (unsigned char)h[i] < 0x80;
    }
    char a[BB_DOMAIN_MAX_LEN + 1];
    size_t m;
    if (ascii || bb_net_domain_ascii(h, *n, a, &m) != BB_OK || m > 3 * *n) return false;
    memcpy(h, a, m);
    *n = m;
    return true;
}

/* Write the canonical host of raw[0 .. len) at out + *w (raw lies beyond what is written). */
static bb_status write_host(const char *raw, size_t len, char *out, size_t *w) {
    size_t start = *w;
    bool dot = true; /* drops leading dots and runs of dots */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = lower((unsigned char)raw[i]);
        if (c == '.' && dot) continue;
        dot = c == '.';
        out[(*w)++] = (char)c;
    }
    if (*w > start && out[*w - 1] == '.') (*w)--;
    if (*w == start) return BB_E_MALFORMED;
    uint32_t a;
    if (parse_ipv4_any(out + start, *w - start, &a)) {
        *w = start;
        for (int i = 3; i >= 0; i--) {
            *w += write_u8_decimal(out + *w, (a >> (8 * i)) & 255);
            if (i) out[(*w)++] = '.';
        }
        return BB_OK;
    }
    size_t n = *w - start, extra = 0;
    if (idna_host(out + start, &n)) {
        *w = start + n;
        return BB_OK;
    }
    /* Escape in place, from the back (the escaped host is at most 3x, within the bound). */
    for (size_t i = 0; i < n; i++) extra += needs_escape((unsigned char)out[start + i]) ? 2 : 0;
    size_t r = start + n, dst = start + n + extra;
    *w = dst;
    while (r > start) {
        size_t one = 0;
        char tmp[3];
        put_escaped(tmp, &one, (unsigned char)out[--r]);
        dst -= one;
        memcpy(out + dst, tmp, one);
    }
    return BB_OK;
}

/* ---- The path ------------------------------------------------------------------------------------ */

/* Write the canonical path of raw[0 .. len) (len 0 or raw[0] == '/'). */
static void write_path(const char *raw, size_t len, char *out, size_t *w) {
    size_t root = *w;
    out[(*w)++] = '/';
    bool trailing = false;
    size_t i = 0;
    while (i < len) {
        while (i < len && raw[i] == '/') i++;
        size_t b = i;
        while (i < len && raw[i] != '/') i++;
        size_t seg = i - b;
        if (seg == 0) break;
        trailing = i < len; /* a '/' follows */
        if (seg == 1 && raw[b] == '.') {
            trailing = true;
        } else if (seg == 2 && raw[b] == '.' && raw[b + 1] == '.') {
            if (*w > root + 1) { /* drop the last segment and its '/' */
                (*w)--;
                while (out[*w - 1] != '/') (*w)--;
            }
            trailing = true;
        } else {
            for (size_t j = b; j < i; j++) put_escaped(out, w, (unsigned char)raw[j]);
            out[(*w)++] = '/';
        }
    }
    if (*w > root + 1 && !trailing) (*w)--; /* the last segment had no '/' after it */
}

/* ---- The whole URL ----------------------------------------------------------------------------- */

/* Length of a "scheme://" prefix of s (scheme = ALPHA *(ALPHA / DIGIT / + - .)), else 0. */
static size_t scheme_len(const char *s, size_t len) {
    size_t i = 0;
    if (len == 0 || !((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z')) return 0;
    while (i < len && (((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
                       s[i] == '+' || s[i] == '-' || s[i] == '.'))
        i++;
    return i + 3 <= len && memcmp(s + i, "://", 3) == 0 ? i : 0;
}

/* The host of authority a[0 .. len): user info and port removed. */
static bb_status split_authority(const char *a, size_t len, size_t *host_b, size_t *host_e) {
    size_t b = 0;
    for (size_t i = 0; i < len; i++)
        if (a[i] == '@') b = i + 1;
    size_t e = len, d = b;
    while (d < len && a[d] == '.') d++; /* dots before a '[' go too (write_host drops them) */
    if (d < len && a[d] == '[') {
        const char *close = memchr(a + d, ']', len - d);
        if (!close || memchr(a + d + 1, '[', (size_t)(close - a) - d - 1)) return BB_E_MALFORMED;
        b = d;
        e = (size_t)(close - a) + 1;
        if (e < len && a[e] != ':') return BB_E_MALFORMED;
    } else {
        /* A bracket is only valid around an IPv6 address: elsewhere the host would not read
         * back as itself. */
        if (memchr(a + b, '[', len - b) || memchr(a + b, ']', len - b)) return BB_E_MALFORMED;
        const char *colon = memchr(a + b, ':', len - b);
        if (colon) e = (size_t)(colon - a);
    }
    for (size_t i = e + 1; i < len; i++)
        if (a[i] < '0' || a[i] > '9') return BB_E_MALFORMED; /* a port is digits */
    *host_b = b;
    *host_e = e;
    return BB_OK;
}

/* Step 3: canonical URL of raw[0 .. len) written from out[0]; raw lies at the end of out. */
static bb_status write_canonical(const char *raw, size_t len, char *out, size_t *out_len) {
    size_t w = 0, s = scheme_len(raw, len), i;
    if (s) {
        for (i = 0; i < s; i++) out[w++] = (char)lower((unsigned char)raw[i]);
        i = s + 3;
    } else {
        memcpy(out, "http", 4);
        w = 4;
        i = 0;
    }
    memcpy(out + w, "://", 3);
    w += 3;
    size_t a = i;
    while (i < len && raw[i] != '/' && raw[i] != '?') i++;
    size_t hb, he;
    bb_status st = split_authority(raw + a, i - a, &hb, &he);
    if (st == BB_OK) st = write_host(raw + a + hb, he - hb, out, &w);
    if (st != BB_OK) return st;
    size_t p = i;
    while (i < len && raw[i] != '?') i++;
    write_path(raw + p, i - p, out, &w);
    for (; i < len; i++) put_escaped(out, &w, (unsigned char)raw[i]);
    *out_len = w;
    return BB_OK;
}

bb_status bb_url_canonicalize(const char *url, size_t len, char *out, size_t cap,
                              size_t *out_len) {
    if (out_len) *out_len = 0;
    if ((!url && len) || !out || !out_len || len > (SIZE_MAX - 24) / 3 ||
        cap < BB_URL_CANON_BOUND(len))
        return BB_E_INVAL;
    size_t r = unescape_all(out, strip_copy(url, len, out));
    if (r == 0) return BB_E_MALFORMED;
    char *raw = memmove(out + cap - r, out, r);
    return write_canonical(raw, r, out, out_len);
}

/* ---- Expressions ------------------------------------------------------------------------------- */

/* Whether host h[0 .. len) is an IPv4 address in dotted decimal or a bracketed IPv6 one (a
 * canonical host that is an address is never cut into suffixes). */
static bool host_is_address(const char *h, size_t len) {
    if (len && h[0] == '[') return true;
    uint32_t a;
    return parse_ipv4_any(h, len, &a);
}

/* Offsets (into the host) of the host suffixes: the host, then up to 4 suffixes made from its
 * last 5 labels by removing leading labels while 2 or more remain. Returns the count. */
static size_t host_suffixes(const char *h, size_t len, size_t off[5]) {
    size_t n = 0;
    off[n++] = 0;
    if (host_is_address(h, len)) return 1;
    size_t dots[8], nd = 0; /* offsets just past the last 8 dots; nd counts all of them */
    for (size_t i = 0; i < len; i++)
        if (h[i] == '.') dots[nd++ % 8] = i + 1;
    /* labels = nd + 1; label t >= 1 starts just past dot t - 1. */
    size_t top = nd + 1 < 5 ? nd + 1 : 5;
    for (size_t j = top; j >= 2; j--) {
        size_t t = nd + 1 - j; /* first label of the suffix of the last j labels */
        if (t) off[n++] = dots[(t - 1) % 8];
    }
    return n;
}

/* Lengths of the path pieces of p[0 .. len) (the path from '/' plus the query): path with
 * query, path alone, then "/" and up to 3 more leading directories; duplicates dropped. */
static size_t path_pieces(const char *p, size_t len, size_t piece[6]) {
    const char *q = memchr(p, '?', len);
    size_t path_len = q ? (size_t)(q - p) : len, n = 0;
    piece[n++] = len;
    if (q) piece[n++] = path_len;
    size_t found = 0;
    for (size_t i = 0; i < path_len && found < 4; i++) {
        if (p[i] != '/') continue;
        found++;
        if (i + 1 != path_len) piece[n++] = i + 1;
    }
    return n;
}

bb_status bb_url_expressions(const char *url, size_t len, char *buf, size_t cap,
                             bb_span exprs[BB_URL_MAX_EXPRESSIONS], size_t *n_exprs) {
    if (n_exprs) *n_exprs = 0;
    if (!exprs || !n_exprs) return BB_E_INVAL;
    size_t c;
    bb_status st = bb_url_canonicalize(url, len, buf, cap, &c);
    if (st != BB_OK) return st;
    const char *e = memchr(buf, ':', c); /* "scheme://" always precedes the host */
    size_t hb = (size_t)(e - buf) + 3, he = hb;
    while (he < c && buf[he] != '/') he++;
    size_t hosts[5], pieces[6];
    size_t nh = host_suffixes(buf + hb, he - hb, hosts), np = path_pieces(buf + he, c - he, pieces);
    size_t n = 0;
    for (size_t i = 0; i < nh; i++)
        for (size_t j = 0; j < np; j++)
            exprs[n++] = (bb_span){hb + hosts[i], he - hb - hosts[i] + pieces[j]};
    *n_exprs = n;
    return BB_OK;
}

/* ---- Batches ----------------------------------------------------------------------------------- */

typedef struct url_ctx {
    const bb_filter *f;
    const char *const *urls;
    const size_t *lens;
    char *buf;
    size_t cap;
} url_ctx;

static bb_status url_keys(void *ctx, size_t i, uint64_t *hashes, size_t *n) {
    url_ctx *c = ctx;
    bb_span ex[BB_URL_MAX_EXPRESSIONS];
    bb_status st = bb_url_expressions(c->urls[i], c->lens[i], c->buf, c->cap, ex, n);
    for (size_t j = 0; j < *n; j++) hashes[j] = bb_hash(c->f, c->buf + ex[j].off, ex[j].len);
    return st;
}

bb_status bb_url_contains_batch(const bb_filter *f, const char *const *urls, const size_t *lens,
                                size_t n, uint8_t *out, size_t *n_present) {
    if (n_present) *n_present = 0;
    if (!f || (n && (!urls || !lens || !out))) return BB_E_INVAL;
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        if (!urls[i] && lens[i]) return BB_E_INVAL;
        if (lens[i] > longest) longest = lens[i];
    }
    if (longest > (SIZE_MAX - 24) / 3) return BB_E_INVAL;
    url_ctx c = {f, urls, lens, malloc(BB_URL_CANON_BOUND(longest)), BB_URL_CANON_BOUND(longest)};
    if (!c.buf) return BB_E_NOMEM;
    bb_status st = bb_net_any_batch(f, n, BB_URL_MAX_EXPRESSIONS, url_keys, &c, out, n_present);
    free(c.buf);
    return st;
}

bb_status bb_url_add(bb_filter *f, const char *url, size_t len, char *buf, size_t cap) {
    bb_span ex[BB_URL_MAX_EXPRESSIONS];
    size_t n;
    bb_status st = bb_url_expressions(url, len, buf, cap, ex, &n);
    return st == BB_OK ? bb_add(f, buf + ex[0].off, ex[0].len) : st;
}

bb_status bb_url_match(const bb_filter *f, const char *url, size_t len, char *buf, size_t cap,
                       bb_span *match, bool *found) {
    if (found) *found = false;
    if (!f || !found) return BB_E_INVAL;
    bb_span ex[BB_URL_MAX_EXPRESSIONS];
    size_t n;
    bb_status st = bb_url_expressions(url, len, buf, cap, ex, &n);
    for (size_t j = 0; st == BB_OK && j < n && !*found; j++)
        if (bb_contains(f, buf + ex[j].off, ex[j].len)) {
            *found = true;
            if (match) *match = ex[j];
        }
    return st;
}
