/* SPDX-License-Identifier: MIT */
/*
 * test_url.c - URL canonicalisation and expressions (src/net/url.c) against the published
 * facts: every canonicalisation example of Google's Safe Browsing v4 "URLs and Hashing"
 * document (section "Canonicalization"), its suffix/prefix expression examples (section
 * "Suffix/Prefix Expressions"), and cases worked out by hand from its rules (inet_aton forms
 * of IPv4 hosts, errors, buffer bounds). Expected strings are literals, never computed by the
 * library. The batch helpers are checked against single-URL matching on a real filter.
 */
#include <blockbloom.h>

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Canonicalise `in` (may hold NUL bytes when len is given) into a fresh string. */
static char *canon_n(const char *in, size_t len) {
    size_t cap = BB_URL_CANON_BOUND(len), n = 0;
    char *buf = malloc(cap + 1);
    cr_assert_not_null(buf);
    bb_status s = bb_url_canonicalize(in, len, buf, cap, &n);
    cr_assert_eq(s, BB_OK, "canonicalize(%s): %s", in, bb_strerror(s));
    buf[n] = '\0';
    return buf;
}

static void check_canon(const char *in, const char *want) {
    char *got = canon_n(in, strlen(in));
    cr_expect_str_eq(got, want, "Canonicalize(\"%s\")", in);
    free(got);
}

/* The document's list, all 33 examples, in its order (checked entry by entry against the
 * published list, which Google's Web Risk "URLs and Hashing" page repeats unchanged). */
Test(url, safe_browsing_canonicalization_examples) {
    static const char *const table[][2] = {
        {"http://host/%25%32%35", "http://host/%25"},
        {"http://host/%25%32%35%25%32%35", "http://host/%25%25"},
        {"http://host/%2525252525252525", "http://host/%25"},
        {"http://host/asdf%25%32%35asd", "http://host/asdf%25asd"},
        {"http://host/%%%25%32%35asd%%", "http://host/%25%25%25asd%25%25"},
        {"http://www.google.com/", "http://www.google.com/"},
        {"http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62"
         "%61%79%2E%63%6F%6D/",
         "http://168.188.99.26/.secure/www.ebay.com/"},
        {"http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-"
         "xplmvalidateinfoswqpcmlx=hgplmcx/",
         "http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-"
         "xplmvalidateinfoswqpcmlx=hgplmcx/"},
        {"http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_"
         "55%252B",
         "http://host%23.com/~a!b@c%23d$e%25f^00&11*22(33)44_55+"},
        {"http://3279880203/blah", "http://195.127.0.11/blah"},
        {"http://www.google.com/blah/..", "http://www.google.com/"},
        {"www.google.com/", "http://www.google.com/"},
        {"www.google.com", "http://www.google.com/"},
        {"http://www.evil.com/blah#frag", "http://www.evil.com/blah"},
        {"http://www.GOOgle.com/", "http://www.google.com/"},
        {"http://www.google.com.../", "http://www.google.com/"},
        {"http://www.google.com/foo\tbar\rbaz\n2", "http://www.google.com/foobarbaz2"},
        {"http://www.google.com/q?", "http://www.google.com/q?"},
        {"http://www.google.com/q?r?", "http://www.google.com/q?r?"},
        {"http://www.google.com/q?r?s", "http://www.google.com/q?r?s"},
        {"http://evil.com/foo#bar#baz", "http://evil.com/foo"},
        {"http://evil.com/foo;", "http://evil.com/foo;"},
        {"http://evil.com/foo?bar;", "http://evil.com/foo?bar;"},
        {"http://\x01\x80.com/", "http://%01%80.com/"},
        {"http://notrailingslash.com", "http://notrailingslash.com/"},
        {"http://www.gotaport.com:1234/", "http://www.gotaport.com/"},
        {"  http://www.google.com/  ", "http://www.google.com/"},
        {"http:// leadingspace.com/", "http://%20leadingspace.com/"},
        {"http://%20leadingspace.com/", "http://%20leadingspace.com/"},
        {"%20leadingspace.com/", "http://%20leadingspace.com/"},
        {"https://www.securesite.com/", "https://www.securesite.com/"},
        {"http://host.com/ab%23cd", "http://host.com/ab%23cd"},
        {"http://host.com//twoslashes?more//slashes", "http://host.com/twoslashes?more//slashes"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) check_canon(table[i][0], table[i][1]);
}

/* The rules, on cases worked out by hand. */
Test(url, host_rules) {
    check_canon("http://0x7f.1/", "http://127.0.0.1/");          /* hex, 2 parts */
    check_canon("http://0177.0.0.01/x", "http://127.0.0.1/x");   /* octal */
    check_canon("http://10.1.258/", "http://10.1.1.2/");          /* 3 parts: last fills 16 bits */
    check_canon("http://0xC0A80001/", "http://192.168.0.1/");
    check_canon("http://4294967296/", "http://4294967296/");      /* > 32 bits: not an address */
    check_canon("http://1.2.3.256/", "http://1.2.3.256/");        /* part > 255: a name */
    check_canon("http://09.1.1.1/", "http://09.1.1.1/");          /* 9 is not octal */
    check_canon("http://..A..B..com../", "http://a.b.com/");
    check_canon("HTTP://user:pw@Host.COM:8080/p", "http://host.com/p");
    check_canon("http://[2001:DB8::1]:80/", "http://[2001:db8::1]/");
    check_canon("http://Bücher.de/ü", "http://xn--bcher-kva.de/%C3%BC"); /* IDNA: host only */
    check_canon("http://b%C3%BCcher.de/", "http://xn--bcher-kva.de/");    /* after unescaping */
}

Test(url, path_rules) {
    check_canon("http://h/a/./b/../c", "http://h/a/c");
    check_canon("http://h/a/b/../../..//c/", "http://h/c/");
    check_canon("http://h/a/.", "http://h/a/");
    check_canon("http://h/a%2fb%2F..", "http://h/a/");           /* %2f is a '/' once unescaped */
    check_canon("http://h?q/../x", "http://h/?q/../x");          /* the query is not a path */
    check_canon("http://h/%00%7F%FF", "http://h/%00%7F%FF");
    check_canon("http://h/%4", "http://h/%254");                 /* not an escape: '%' escaped */
}

/* ---- Nested escapes --------------------------------------------------------------------------
 * The document's rule is "repeatedly percent-unescape the URL until it has no more
 * percent-escapes". The reference below does exactly that, pass after pass, and a URL already
 * free of escapes canonicalises without being changed by step 2, so canonicalising the
 * reference's result must give what canonicalising the raw URL gives. Random URLs over an
 * alphabet dense in '%', hex digits and near-misses (fixed seed). */
static size_t ref_unescape_pass(char *s, size_t len) {
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned hi, lo;
        if (s[i] == '%' && i + 2 < len && sscanf((char[3]){s[i + 1], 0, 0}, "%1x", &hi) == 1 &&
            sscanf((char[3]){s[i + 2], 0, 0}, "%1x", &lo) == 1) {
            s[w++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            s[w++] = s[i];
        }
    }
    return w;
}

Test(url, nested_escapes_decode_as_repeated_passes) {
    static const char alphabet[] = "%%%%2255411aAfFg/.";
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int t = 0; t < 20000; t++) {
        char url[64] = "http://h/", ref[64];
        size_t len = 9, extra = 1 + t % 40;
        for (size_t i = 0; i < extra; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            url[len++] = alphabet[x % (sizeof alphabet - 1)];
        }
        memcpy(ref, url, len);
        size_t rlen = len, prev;
        do prev = rlen, rlen = ref_unescape_pass(ref, rlen); while (rlen != prev);
        char *got = canon_n(url, len), *want = canon_n(ref, rlen);
        cr_assert_str_eq(got, want, "%.*s", (int)len, url);
        free(got);
        free(want);
    }
    check_canon("http://h/%252541", "http://h/A");
    check_canon("http://h/%%34%31", "http://h/A");   /* -> "%41" -> "A" */
    check_canon("http://h/%2%34%31", "http://h/$1"); /* -> "%241" -> "$1" */
}

/* "%" + "25" x 10^6 + "41" (2 MB, about a browser's URL limit) unescapes level by level to
 * "A". Repeated whole passes remove one level each, quadratic: 9.2 s at 80,000 levels, hours
 * here; the timeout only tells linear from quadratic, it is no timing. */
Test(url, deeply_nested_escapes_take_linear_time, .timeout = 60) {
    size_t levels = 1000000, len = strlen("http://evil.com/%") + 2 * levels + 2;
    char *url = malloc(len + 1);
    cr_assert_not_null(url);
    size_t w = (size_t)sprintf(url, "http://evil.com/%%");
    for (size_t i = 0; i < levels; i++) url[w++] = '2', url[w++] = '5';
    url[w++] = '4', url[w++] = '1';
    cr_assert_eq(w, len);
    char *got = canon_n(url, len);
    cr_assert_str_eq(got, "http://evil.com/A");
    free(got);
    free(url);
}

Test(url, errors_and_bounds) {
    char buf[256];
    size_t n = 99;
    cr_expect_eq(bb_url_canonicalize("", 0, buf, sizeof buf, &n), BB_E_MALFORMED);
    cr_expect_eq(n, 0);
    cr_expect_eq(bb_url_canonicalize(" \t\n", 3, buf, sizeof buf, &n), BB_E_MALFORMED);
    cr_expect_eq(bb_url_canonicalize("http:///path", 12, buf, sizeof buf, &n), BB_E_MALFORMED);
    cr_expect_eq(bb_url_canonicalize("http://...", 10, buf, sizeof buf, &n), BB_E_MALFORMED);
    cr_expect_eq(bb_url_canonicalize("http://h:8x/", 12, buf, sizeof buf, &n), BB_E_MALFORMED);
    cr_expect_eq(bb_url_canonicalize("http://[::1/", 12, buf, sizeof buf, &n), BB_E_MALFORMED);
    cr_expect_eq(bb_url_canonicalize("a.com", 5, buf, BB_URL_CANON_BOUND(5) - 1, &n), BB_E_INVAL);
    cr_expect_eq(bb_url_canonicalize(NULL, 1, buf, sizeof buf, &n), BB_E_INVAL);
    cr_expect_eq(bb_url_canonicalize("a", 1, buf, sizeof buf, NULL), BB_E_INVAL);
    /* The worst growth: "1" -> "http://0.0.0.1/" (15 bytes) fits 3 + 24. */
    char small[BB_URL_CANON_BOUND(1)];
    cr_expect_eq(bb_url_canonicalize("1", 1, small, sizeof small, &n), BB_OK);
    cr_expect_eq(n, 15);
    cr_expect_eq(memcmp(small, "http://0.0.0.1/", 15), 0);
    /* Every byte escaped, at the exact bound. */
    char big_in[64], big_out[BB_URL_CANON_BOUND(64)];
    memcpy(big_in, "h/", 2);
    memset(big_in + 2, 0x01, 62); /* not trimmed, unlike spaces */
    cr_expect_eq(bb_url_canonicalize(big_in, 64, big_out, sizeof big_out, &n), BB_OK);
    cr_expect_eq(n, strlen("http://h/") + 62 * 3);
}

/* Expressions as strings joined by '|'. */
static void check_exprs(const char *url, const char *want) {
    char buf[1024], got[4096] = "";
    bb_span ex[BB_URL_MAX_EXPRESSIONS];
    size_t n = 0;
    cr_assert_eq(bb_url_expressions(url, strlen(url), buf, sizeof buf, ex, &n), BB_OK);
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(got, "|");
        strncat(got, buf + ex[i].off, ex[i].len);
    }
    cr_expect_str_eq(got, want, "expressions of %s", url);
}

Test(url, safe_browsing_expression_examples) {
    check_exprs("http://a.b.c/1/2.html?param=1",
                "a.b.c/1/2.html?param=1|a.b.c/1/2.html|a.b.c/|a.b.c/1/|"
                "b.c/1/2.html?param=1|b.c/1/2.html|b.c/|b.c/1/");
    check_exprs("http://a.b.c.d.e.f.g/1.html",
                "a.b.c.d.e.f.g/1.html|a.b.c.d.e.f.g/|c.d.e.f.g/1.html|c.d.e.f.g/|"
                "d.e.f.g/1.html|d.e.f.g/|e.f.g/1.html|e.f.g/|f.g/1.html|f.g/");
    check_exprs("http://1.2.3.4/1/", "1.2.3.4/1/|1.2.3.4/");
}

Test(url, expression_limits) {
    /* 5 hosts x 6 paths: the most there can be. */
    check_exprs("http://a.b.c.d.e.f/1/2/3/4/5?q",
                "a.b.c.d.e.f/1/2/3/4/5?q|a.b.c.d.e.f/1/2/3/4/5|a.b.c.d.e.f/|a.b.c.d.e.f/1/|"
                "a.b.c.d.e.f/1/2/|a.b.c.d.e.f/1/2/3/|"
                "b.c.d.e.f/1/2/3/4/5?q|b.c.d.e.f/1/2/3/4/5|b.c.d.e.f/|b.c.d.e.f/1/|"
                "b.c.d.e.f/1/2/|b.c.d.e.f/1/2/3/|"
                "c.d.e.f/1/2/3/4/5?q|c.d.e.f/1/2/3/4/5|c.d.e.f/|c.d.e.f/1/|c.d.e.f/1/2/|"
                "c.d.e.f/1/2/3/|"
                "d.e.f/1/2/3/4/5?q|d.e.f/1/2/3/4/5|d.e.f/|d.e.f/1/|d.e.f/1/2/|d.e.f/1/2/3/|"
                "e.f/1/2/3/4/5?q|e.f/1/2/3/4/5|e.f/|e.f/1/|e.f/1/2/|e.f/1/2/3/");
    check_exprs("com", "com/");
    check_exprs("http://[::1]/a", "[::1]/a|[::1]/");
}

/* A filter of blocklist entries, queried one by one and in a batch. */
Test(url, batch_agrees_with_single) {
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 100, 1e-6, 7), BB_OK);
    static const char *const block[] = {"evil.com/", "b.c/1/", "1.2.3.4/x?y"};
    char buf[256];
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(bb_url_add(f, block[i], strlen(block[i]), buf, sizeof buf), BB_OK);
    static const char *const urls[] = {
        "http://www.evil.com/anything/here?x",  /* evil.com/ */
        "https://EVIL.com",                     /* evil.com/ */
        "http://notevil.com/",                  /* no */
        "http://a.b.c/1/2.html",                /* b.c/1/ */
        "http://a.b.c/2/1/",                    /* no: /2/ is not /1/ */
        "http://1.2.3.4/x?y#frag",              /* exact */
        "http://1.2.3.4/x",                     /* the query is part of the entry */
        "http://h:bad/",                        /* malformed */
    };
    static const uint8_t want[] = {1, 1, 0, 1, 0, 1, 0, BB_NET_MALFORMED};
    size_t lens[8];
    for (size_t i = 0; i < 8; i++) lens[i] = strlen(urls[i]);
    uint8_t out[8];
    size_t present = 99;
    cr_assert_eq(bb_url_contains_batch(f, urls, lens, 8, out, &present), BB_OK);
    cr_expect_eq(present, 4);
    for (size_t i = 0; i < 8; i++) {
        cr_expect_eq(out[i], want[i], "%s", urls[i]);
        bool found;
        bb_span m;
        bb_status s = bb_url_match(f, urls[i], lens[i], buf, sizeof buf, &m, &found);
        cr_expect_eq(s, want[i] == BB_NET_MALFORMED ? BB_E_MALFORMED : BB_OK);
        cr_expect_eq(found, want[i] == 1);
    }
    bool found;
    bb_span m;
    cr_assert_eq(bb_url_match(f, urls[3], lens[3], buf, sizeof buf, &m, &found), BB_OK);
    cr_expect_eq(m.len, 6);
    cr_expect_eq(memcmp(buf + m.off, "b.c/1/", 6), 0);
    /* More than one group of 64, and n = 0. */
    const char *many[200];
    size_t many_lens[200];
    uint8_t many_out[200];
    for (size_t i = 0; i < 200; i++) {
        many[i] = urls[i % 8];
        many_lens[i] = lens[i % 8];
    }
    cr_assert_eq(bb_url_contains_batch(f, many, many_lens, 200, many_out, &present), BB_OK);
    for (size_t i = 0; i < 200; i++) cr_expect_eq(many_out[i], want[i % 8]);
    cr_expect_eq(bb_url_contains_batch(f, NULL, NULL, 0, NULL, &present), BB_OK);
    cr_expect_eq(present, 0);
    cr_expect_eq(bb_url_contains_batch(f, NULL, lens, 1, out, NULL), BB_E_INVAL);
    bb_free(f);
}
