/* SPDX-License-Identifier: MIT */
/*
 * test_domain.c - domain names as keys (src/net/domain.c, psl.c): normalisation (case, final
 * dot, length and label rules, IDNA to Punycode with values from RFC 3492-style references:
 * "bücher" is "xn--bcher-kva"), the public suffix algorithm on a small list written here
 * (plain, wildcard and exception rules, the default "*" rule), the same on Debian's installed
 * list (facts of publicsuffix.org's list: co.uk, *.ck with !www.ck, *.kawasaki.jp with
 * !city.kawasaki.jp, github.io, the Unicode rule 公司.cn), the candidates a query tries, and
 * the batch against a filter.
 */
#include <blockbloom.h>

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bb_psl *small_list(void) {
    char path[] = "/tmp/bb_test_psl_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    static const char text[] =
        "// a comment line\n"
        "com\n"
        "uk\n"
        "co.uk\n"
        "\n"
        "*.ck\n"
        "!www.ck\n"
        "github.io   trailing words are ignored\n"
        "公司.cn\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    bb_psl *p = NULL;
    cr_assert_eq(bb_psl_load(&p, path), BB_OK);
    unlink(path);
    return p;
}

/* Candidates of name joined by '|' ("" for none). */
static char *cands(const bb_psl *p, const char *name) {
    char buf[BB_DOMAIN_MAX_LEN + 1];
    static char out[4096];
    bb_span c[BB_DOMAIN_MAX_CANDIDATES];
    size_t n;
    bb_status s = bb_domain_candidates(p, name, strlen(name), buf, sizeof buf, c, &n);
    cr_assert_eq(s, BB_OK, "%s: %s", name, bb_strerror(s));
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(out, "|");
        strncat(out, buf + c[i].off, c[i].len);
    }
    return out;
}

static void check_norm(const char *in, const char *want) {
    char out[BB_DOMAIN_MAX_LEN + 1];
    size_t n;
    bb_status s = bb_domain_normalize(in, strlen(in), out, sizeof out, &n);
    if (!want) {
        cr_expect_eq(s, BB_E_MALFORMED, "%s should be malformed", in);
        return;
    }
    cr_assert_eq(s, BB_OK, "%s: %s", in, bb_strerror(s));
    cr_expect_eq(n, strlen(want), "%s", in);
    cr_expect_eq(memcmp(out, want, n), 0, "%s -> %.*s", in, (int)n, out);
}

Test(domain, normalize) {
    check_norm("Example.COM", "example.com");
    check_norm("  example.com.  ", "example.com");
    check_norm("_dmarc.example.com", "_dmarc.example.com");
    check_norm("bücher.de", "xn--bcher-kva.de");
    check_norm("BÜCHER.de", "xn--bcher-kva.de"); /* UTS #46 maps case */
    check_norm("", NULL);
    check_norm(".", NULL);
    check_norm("a..b", NULL);
    check_norm("a b.com", NULL);
    check_norm("1.2.3.4", NULL);   /* an address */
    check_norm("*.example.com", NULL);
    char label64[80];
    memset(label64, 'a', 64);
    strcpy(label64 + 64, ".com");
    check_norm(label64, NULL);
    label64[63] = '.';
    memcpy(label64 + 64, "com", 4);
    check_norm(label64 + 1, label64 + 1); /* 62 + "." + "com": fine */
    char big[300];
    for (int i = 0; i < 127; i++) memcpy(big + 2 * i, "a.", 2);
    strcpy(big + 254, "bc"); /* 256 bytes */
    check_norm(big, NULL);
    char out[10];
    size_t n;
    cr_expect_eq(bb_domain_normalize("a.com", 5, out, sizeof out, &n), BB_E_INVAL);
}

Test(domain, small_list_rules) {
    bb_psl *p = small_list();
    cr_expect_eq(bb_psl_rules(p), 7); /* one slot per rule text: ck for *.ck, www.ck for !www.ck */
    cr_expect_str_eq(cands(p, "a.b.example.com"), "a.b.example.com|b.example.com|example.com");
    cr_expect_str_eq(cands(p, "com"), "");
    cr_expect_str_eq(cands(p, "example.co.uk"), "example.co.uk");
    cr_expect_str_eq(cands(p, "co.uk"), "");
    cr_expect_str_eq(cands(p, "x.y.ck"), "x.y.ck");   /* *.ck: y.ck is a suffix */
    cr_expect_str_eq(cands(p, "a.www.ck"), "a.www.ck|www.ck"); /* !www.ck */
    cr_expect_str_eq(cands(p, "me.github.io"), "me.github.io");
    cr_expect_str_eq(cands(p, "a.b.example"), "a.b.example|b.example"); /* default rule */
    cr_expect_str_eq(cands(p, "shop.公司.cn"), "shop.xn--55qx5d.cn");
    bb_span s;
    cr_assert_eq(bb_domain_public_suffix(p, "a.www.ck", 8, &s), BB_OK);
    cr_expect_eq(s.off, 6);
    cr_expect_eq(s.len, 2);
    bb_psl_free(p);
}

Test(domain, load_errors) {
    bb_psl *p = (bb_psl *)1;
    cr_expect_eq(bb_psl_load(&p, "/nonexistent/psl.dat"), BB_E_IO);
    cr_expect_null(p);
    cr_expect_eq(bb_psl_load(&p, "/dev/null"), BB_E_MALFORMED);
    cr_expect_eq(bb_psl_load(NULL, NULL), BB_E_INVAL);
}

Test(domain, debian_list) {
    bb_psl *p = NULL;
    bb_status s = bb_psl_load(&p, NULL);
    cr_assert_eq(s, BB_OK, "%s: %s (install Debian's publicsuffix: scripts/setup.sh)",
                 BB_PSL_DEFAULT_PATH, bb_strerror(s));
    cr_expect_gt(bb_psl_rules(p), 5000);
    cr_expect_str_eq(cands(p, "www.bbc.co.uk"), "www.bbc.co.uk|bbc.co.uk");
    cr_expect_str_eq(cands(p, "a.b.c.ck"), "a.b.c.ck|b.c.ck"); /* *.ck: c.ck is a suffix */
    cr_expect_str_eq(cands(p, "www.ck"), "www.ck");
    cr_expect_str_eq(cands(p, "x.city.kawasaki.jp"), "x.city.kawasaki.jp|city.kawasaki.jp");
    cr_expect_str_eq(cands(p, "x.other.kawasaki.jp"), "x.other.kawasaki.jp");
    cr_expect_str_eq(cands(p, "user.github.io"), "user.github.io");
    cr_expect_str_eq(cands(p, "github.io"), "");
    cr_expect_str_eq(cands(p, "a.公司.cn"), "a.xn--55qx5d.cn");
    bb_psl_free(p);
}

Test(domain, batch) {
    bb_psl *p = small_list();
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 100, 1e-6, 3), BB_OK);
    static const char *const set[] = {"example.com", "www.ck", "xn--bcher-kva.de"};
    for (size_t i = 0; i < 3; i++) cr_assert_eq(bb_add(f, set[i], strlen(set[i])), BB_OK);
    static const char *const q[] = {"a.b.Example.com.", "example.org", "com", "x.www.ck",
                                    "bücher.de", "notexample.com", "bad..name"};
    static const uint8_t want[] = {1, 0, 0, 1, 1, 0, BB_NET_MALFORMED};
    size_t lens[7];
    uint8_t out[7];
    for (size_t i = 0; i < 7; i++) lens[i] = strlen(q[i]);
    size_t present;
    cr_assert_eq(bb_domain_contains_batch(f, p, q, lens, 7, out, &present), BB_OK);
    for (size_t i = 0; i < 7; i++) cr_expect_eq(out[i], want[i], "%s", q[i]);
    cr_expect_eq(present, 3);
    cr_expect_eq(bb_domain_contains_batch(f, NULL, q, lens, 7, out, &present), BB_E_INVAL);
    bb_free(f);
    bb_psl_free(p);
}
