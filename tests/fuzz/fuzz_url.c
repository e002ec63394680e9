/* SPDX-License-Identifier: MIT */
/*
 * fuzz_url.c - libFuzzer target for the URL canonicaliser and expressions (src/net/url.c).
 * The input is one URL. The output buffer is a heap block of exactly BB_URL_CANON_BOUND(len)
 * bytes, so AddressSanitizer sees any write past the documented bound. Invariants checked:
 *  - the result is BB_OK or BB_E_MALFORMED, never anything else;
 *  - a canonical URL starts with "scheme://", holds no byte <= 0x20 or >= 0x7f and no '#',
 *    and every '%' in it starts a %XX escape with uppercase hex digits;
 *  - canonicalising it again gives it back unchanged (the form is a fixed point);
 *  - there are 1 .. 30 expressions, each a span inside the canonical URL after "://", the
 *    first being everything after "://".
 * Build and run: scripts/fuzz.sh.
 */
#include <blockbloom.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_form(const char *c, size_t n) {
    const char *sep = memchr(c, ':', n);
    if (!sep || (size_t)(sep - c) + 3 > n || memcmp(sep, "://", 3) != 0) abort();
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)c[i];
        if (b <= 0x20 || b >= 0x7f || b == '#') abort();
        if (b == '%') {
            if (i + 2 >= n) abort();
            for (int j = 1; j <= 2; j++) {
                char h = c[i + j];
                if (!((h >= '0' && h <= '9') || (h >= 'A' && h <= 'F'))) abort();
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *url = (const char *)data;
    size_t cap = BB_URL_CANON_BOUND(size), n;
    char *buf = malloc(cap);
    if (!buf) return 0;
    bb_status s = bb_url_canonicalize(url, size, buf, cap, &n);
    if (s != BB_OK && s != BB_E_MALFORMED) abort();
    if (s == BB_OK) {
        check_form(buf, n);
        size_t cap2 = BB_URL_CANON_BOUND(n), n2;
        char *again = malloc(cap2);
        if (!again) abort();
        if (bb_url_canonicalize(buf, n, again, cap2, &n2) != BB_OK || n2 != n ||
            memcmp(again, buf, n) != 0) {
            fprintf(stderr, "not a fixed point: '%.*s' -> '%.*s'\n", (int)n, buf, (int)n2, again);
            abort();
        }
        free(again);
        bb_span ex[BB_URL_MAX_EXPRESSIONS];
        size_t ne;
        if (bb_url_expressions(url, size, buf, cap, ex, &ne) != BB_OK || ne < 1 || ne > 30) abort();
        size_t start = (size_t)((char *)memchr(buf, ':', n) - buf) + 3;
        if (ex[0].off != start || ex[0].len != n - start) abort();
        for (size_t i = 0; i < ne; i++)
            if (ex[i].off < start || ex[i].len == 0 || ex[i].off + ex[i].len > n) abort();
    }
    free(buf);
    return 0;
}
