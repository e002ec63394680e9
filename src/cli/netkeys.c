/* SPDX-License-Identifier: MIT */
/*
 * netkeys.c - the network key kinds of `build --keys` and `query --keys`: their names, the
 * numbered line reader both use (file name and line number for every message), the reading
 * of one blocklist line into keys (URL expressions, domains from plain or hosts-file lines,
 * CIDR ranges, 5-tuples), and `build --keys KIND` itself.
 *
 * A line is checked whole before any of its keys is kept, so a bad line never adds half of
 * itself (a hosts line with one bad name adds none of its names). Every bad line is reported
 * as "FILE:LINE: reason: 'text'"; the build then fails (exit 1, no file written) unless
 * --skip-invalid makes those messages warnings. Blank lines and lines starting with '#' are
 * skipped; domain, CIDR and 5-tuple lines may also end in a "# comment" (URL lines may not:
 * '#' starts a fragment there).
 */
#include "cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Messages about bad lines beyond this many are counted, not printed. */
#define MAX_LINE_MESSAGES 20

int cli_parse_keys(const char *cmd, const char *text, bb_keys *out) {
    for (bb_keys k = BB_KEYS_PLAIN; k <= BB_KEYS_5TUPLE; k++)
        if (strcmp(text, bb_keys_name(k)) == 0) {
            *out = k;
            return BB_EXIT_OK;
        }
    return cli_usage_error(cmd, "unknown key kind '%s' (expected url, domain, cidr or 5tuple)",
                           text);
}

void cli_scheme_get(const bb_filter *f, bb_keys *keys, bb_prefix_set *prefixes) {
    bb_key_scheme ks = {0};
    bb_get_key_scheme(f, &ks);
    *keys = ks.keys;
    *prefixes = ks.prefixes;
    if (ks.keys != BB_KEYS_CIDR) /* no record: every length */
        *prefixes = (bb_prefix_set){{UINT64_MAX, UINT64_MAX, 1}, (UINT64_C(1) << 33) - 1};
}

/* ---- Numbered lines ------------------------------------------------------------------------ */

void cli_lines_init(cli_lines *l, char *const *paths, size_t n_paths) {
    memset(l, 0, sizeof *l);
    cli_keyreader_init(&l->r, paths, n_paths, false, false);
}

int cli_lines_next(cli_lines *l, const char **text, size_t *len, bool *got) {
    bool done;
    int st = cli_keyreader_fill(&l->r, &l->one, 1, SIZE_MAX, &done);
    *got = st == BB_EXIT_OK && l->one.n == 1;
    if (!*got) return st;
    l->line = l->r.line;
    *text = l->one.data ? l->one.data : "";
    *len = (size_t)l->one.off[1];
    return BB_EXIT_OK;
}

void cli_lines_close(cli_lines *l) {
    cli_keyreader_close(&l->r);
    cli_keybuf_free(&l->one);
}

void cli_line_error(cli_lines *l, bool warning, const char *why, const char *text, size_t len) {
    if (++l->bad > MAX_LINE_MESSAGES) return;
    int shown = len > 200 ? 200 : (int)len;
    cli_error("%s%s:%llu: %s: '%.*s%s'", warning ? "warning: " : "", l->r.name,
              (unsigned long long)l->line, why, shown, text, len > 200 ? "..." : "");
}

void cli_lines_summary(const cli_lines *l, bool warning) {
    if (l->bad > MAX_LINE_MESSAGES)
        cli_error("%s%llu more bad lines not shown (%llu in all)", warning ? "warning: " : "",
                  (unsigned long long)(l->bad - MAX_LINE_MESSAGES), (unsigned long long)l->bad);
}

/* ---- Text helpers -------------------------------------------------------------------------- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Trim; a line starting with '#' is empty; `inline_comment` also cuts at " #". */
void cli_net_trim(const char **s, size_t *len, bool inline_comment) {
    const char *p = *s;
    size_t n = *len;
    while (n && is_space(*p)) p++, n--;
    if (n && *p == '#') n = 0;
    if (inline_comment)
        for (size_t i = 1; i < n; i++)
            if (p[i] == '#' && is_space(p[i - 1])) {
                n = i;
                break;
            }
    while (n && is_space(p[n - 1])) n--;
    *s = p;
    *len = n;
}

/* The next white-space separated field of s[*pos .. len), or false at the end. */
static bool next_field(const char *s, size_t len, size_t *pos, const char **f, size_t *flen) {
    size_t i = *pos;
    while (i < len && is_space(s[i])) i++;
    if (i == len) return false;
    size_t b = i;
    while (i < len && !is_space(s[i])) i++;
    *f = s + b;
    *flen = i - b;
    *pos = i;
    return true;
}

/* ---- One line into keys -------------------------------------------------------------------- */

/* A whole decimal field of at most 5 digits, 0 .. max. */
static bool field_u64(const char *s, size_t len, uint64_t max, uint64_t *v) {
    char buf[8];
    if (len == 0 || len > 5) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return cli_parse_u64(buf, 0, max, false, v);
}

static bool parse_port(const char *s, size_t len, uint16_t *out) {
    uint64_t v;
    if (!field_u64(s, len, 65535, &v)) return false;
    *out = (uint16_t)v;
    return true;
}

static bool parse_proto(const char *s, size_t len, uint8_t *out) {
    uint64_t v = len == 3 && memcmp(s, "tcp", 3) == 0 ? 6 : 17;
    if (!(len == 3 && (memcmp(s, "tcp", 3) == 0 || memcmp(s, "udp", 3) == 0)) &&
        !field_u64(s, len, 255, &v))
        return false;
    *out = (uint8_t)v;
    return true;
}

/* A single address (no prefix length) into a[16]. */
static const char *parse_addr(const char *s, size_t len, uint8_t a[16]) {
    unsigned plen;
    if (memchr(s, '/', len)) return "a single address was expected, not a range";
    return bb_cidr_parse(s, len, a, &plen) == BB_OK ? NULL : bb_last_error();
}

const char *cli_net_5tuple(const char *s, size_t len, uint8_t key[BB_5TUPLE_KEY_BYTES]) {
    const char *f[6];
    size_t fl[6], pos = 0, n = 0;
    while (n < 6 && next_field(s, len, &pos, &f[n], &fl[n])) n++;
    if (n != 5) return "expected 5 fields: PROTO SRC SRC_PORT DST DST_PORT";
    bb_5tuple t;
    const char *why;
    if (!parse_proto(f[0], fl[0], &t.proto)) return "protocol is not tcp, udp or 0..255";
    if ((why = parse_addr(f[1], fl[1], t.src)) || (why = parse_addr(f[3], fl[3], t.dst)))
        return why;
    if (!parse_port(f[2], fl[2], &t.src_port) || !parse_port(f[4], fl[4], &t.dst_port))
        return "port is not 0..65535";
    bb_5tuple_key(&t, key);
    return NULL;
}

/* Names that every hosts file maps and no blocklist means, in any letter case and with or
 * without the root's trailing dot, as DNS compares names (RFC 4343): "LocalHost" and
 * "localhost." are localhost too, and adding them would make localhost a match. */
static bool hosts_builtin(const char *s, size_t len) {
    static const char *const names[] = {"localhost", "localhost.localdomain", "local",
                                        "broadcasthost", "ip6-localhost", "ip6-loopback",
                                        "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes",
                                        "ip6-allrouters", "ip6-allhosts", "0.0.0.0"};
    if (len > 1 && s[len - 1] == '.') len--;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], s, len) == 0) return true;
    return false;
}

const char cli_net_no_memory[] = "out of memory";

/* One name of a domain line, normalised, into kb; the reason names the bad name. */
static const char *add_domain(cli_netctx *c, const char *f, size_t fl, cli_keybuf *kb) {
    char buf[BB_DOMAIN_MAX_LEN + 1];
    size_t n;
    bb_span ps;
    const char *why = NULL;
    bb_status st = bb_domain_normalize(f, fl, buf, sizeof buf, &n);
    if (st == BB_E_UNSUPPORTED) why = "internationalised, and this build has no libidn2";
    else if (st != BB_OK) why = "not a valid domain name";
    else if (bb_domain_public_suffix(c->psl, buf, n, &ps) == BB_OK && ps.off == 0)
        why = "a public suffix (it would match every name under it)";
    else if (!cli_keybuf_append(kb, buf, n)) return cli_net_no_memory;
    if (!why) return NULL;
    snprintf(c->why, sizeof c->why, "'%.*s' is %s", (int)(fl > 100 ? 100 : fl), f,
             why);
    return c->why;
}

/* A domain line: "name" or a hosts-file line "ADDR name..." into kb (all names or none). */
static const char *domain_entry(cli_netctx *c, const char *s, size_t len, cli_keybuf *kb) {
    const char *f;
    size_t fl, pos = 0, names = 0;
    if (!next_field(s, len, &pos, &f, &fl)) return NULL;
    uint8_t a[16];
    bool hosts = parse_addr(f, fl, a) == NULL;
    if (!hosts) pos = 0; /* the first field is the name itself */
    size_t mark_n = kb->n, mark_len = kb->len;
    const char *why = NULL;
    while (!why && next_field(s, len, &pos, &f, &fl)) {
        if (++names > 1 && !hosts) why = "more than one name on a line";
        else if (!(hosts && hosts_builtin(f, fl))) why = add_domain(c, f, fl, kb);
    }
    if (!why && hosts && names == 0) why = "a hosts-file line without a name";
    if (why) { /* drop what this line added */
        kb->n = mark_n;
        kb->len = mark_len;
    }
    return why;
}

const char *cli_net_entry(cli_netctx *c, const char *s, size_t len, cli_keybuf *kb) {
    uint8_t key[BB_5TUPLE_KEY_BYTES], ranges[2][BB_CIDR_KEY_BYTES];
    size_t lens[2];
    uint8_t a[16];
    unsigned plen;
    const char *why = NULL;
    bb_span ex[BB_URL_MAX_EXPRESSIONS];
    size_t n;
    switch (c->keys) {
    case BB_KEYS_URL:
        if (!cli_net_reserve(c, BB_URL_CANON_BOUND(len))) return cli_net_no_memory;
        if (bb_url_expressions(s, len, c->buf, c->cap, ex, &n) != BB_OK) return "not a valid URL";
        return cli_keybuf_append(kb, c->buf + ex[0].off, ex[0].len) ? NULL : cli_net_no_memory;
    case BB_KEYS_DOMAIN: return domain_entry(c, s, len, kb);
    case BB_KEYS_CIDR:
        if (bb_cidr_parse(s, len, a, &plen) != BB_OK) return bb_last_error();
        bb_cidr_range_keys(a, plen, c->prefixes, ranges, lens, &n);
        for (size_t i = 0; i < n; i++)
            if (!cli_keybuf_append(kb, (char *)ranges[i], lens[i])) return cli_net_no_memory;
        return NULL;
    case BB_KEYS_5TUPLE:
        if ((why = cli_net_5tuple(s, len, key))) return why;
        return cli_keybuf_append(kb, (char *)key, BB_5TUPLE_KEY_BYTES) ? NULL : cli_net_no_memory;
    case BB_KEYS_PLAIN: break;
    }
    return "internal error: no key kind";
}

bool cli_net_reserve(cli_netctx *c, size_t bytes) {
    if (bytes <= c->cap) return true;
    char *b = realloc(c->buf, bytes);
    if (!b) return false;
    c->buf = b;
    c->cap = bytes;
    return true;
}

void cli_netctx_free(cli_netctx *c) {
    free(c->buf);
    bb_psl_free(c->psl);
    c->buf = NULL;
    c->psl = NULL;
}

void cli_net_format_addr(const uint8_t a[16], char out[CLI_ADDR_TEXT]) {
    if (!inet_ntop(bb_addr_is_ipv4(a) ? AF_INET : AF_INET6, bb_addr_is_ipv4(a) ? a + 12 : a, out,
                   CLI_ADDR_TEXT))
        strcpy(out, "?");
}

/* ---- The public suffix list ------------------------------------------------------------- */

int cli_load_psl(bb_psl **out) {
    const char *path = getenv("BB_PSL_FILE");
    if (!path || !*path) path = BB_PSL_DEFAULT_PATH;
    bb_status s = bb_psl_load(out, path);
    if (s == BB_OK) return BB_EXIT_OK;
    int err = errno;
    cli_lib_error("cannot read the public suffix list", path, s, err);
    if (s == BB_E_IO && err == ENOENT)
        cli_error("install Debian's publicsuffix package (scripts/setup.sh does), or name a list "
                  "in BB_PSL_FILE");
    return BB_EXIT_RUNTIME;
}

/* ---- build --keys ------------------------------------------------------------------------ */

/* Read every line of the inputs into keys. */
static int read_entries(cli_netctx *c, cli_lines *l, cli_keybuf *kb, bool skip_invalid) {
    const char *s;
    size_t len;
    bool got;
    int st;
    while ((st = cli_lines_next(l, &s, &len, &got)) == BB_EXIT_OK && got) {
        const char *t = s;
        size_t tl = len;
        cli_net_trim(&t, &tl, c->keys != BB_KEYS_URL);
        if (tl == 0) continue;
        const char *why = cli_net_entry(c, t, tl, kb);
        if (why == cli_net_no_memory) { /* not a bad line: skipping it would lose an entry */
            cli_error("%s:%llu: out of memory holding the entries read so far: nothing written",
                      l->r.name, l->line);
            return BB_EXIT_RUNTIME;
        }
        if (why) cli_line_error(l, skip_invalid, why, t, tl);
        if (cli_keybuf_over_budget(kb)) { /* entries are all held, with or without -n */
            cli_held_keys_error("the entries", "");
            return BB_EXIT_RUNTIME;
        }
    }
    cli_lines_summary(l, skip_invalid);
    if (st == BB_EXIT_OK && l->bad && !skip_invalid) {
        cli_error("%llu bad line%s: nothing written (--skip-invalid skips them)",
                  (unsigned long long)l->bad, l->bad == 1 ? "" : "s");
        st = BB_EXIT_RUNTIME;
    }
    return st;
}

/* Read the entries of the inputs into kb (reset first), prefix lengths into *prefixes. */
static int read_all_entries(cli_netctx *c, cli_keybuf *kb, bool skip_invalid, char *const *paths,
                            size_t n_paths) {
    if (c->keys == BB_KEYS_DOMAIN && cli_load_psl(&c->psl) != BB_EXIT_OK) return BB_EXIT_RUNTIME;
    if (!cli_keybuf_reset(kb)) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    cli_lines l;
    cli_lines_init(&l, paths, n_paths);
    int st = read_entries(c, &l, kb, skip_invalid);
    cli_lines_close(&l);
    return st;
}

int cli_net_add(bb_filter *f, char *const *paths, size_t n_paths) {
    bb_key_scheme ks;
    bb_get_key_scheme(f, &ks);
    cli_netctx c = {.keys = ks.keys, .prefixes = &ks.prefixes};
    cli_keybuf kb = {0};
    int st = read_all_entries(&c, &kb, false, paths, n_paths);
    bb_status s = st == BB_EXIT_OK ? bb_add_arrow64(f, kb.data, kb.off, kb.n) : BB_OK;
    if (s == BB_OK && st == BB_EXIT_OK) s = bb_set_key_scheme(f, &ks);
    if (s != BB_OK) {
        cli_error("cannot add keys: %s", bb_strerror(s));
        st = BB_EXIT_RUNTIME;
    }
    cli_keybuf_free(&kb);
    cli_netctx_free(&c);
    return st;
}

int cli_net_build(bb_config *cfg, bb_keys keys, const char *out, bool skip_invalid,
                  char *const *paths, size_t n_paths) {
    cli_netctx c = {.keys = keys};
    bb_prefix_set prefixes = {{0}, 0};
    c.prefixes = &prefixes;
    cli_keybuf kb = {0};
    int st = read_all_entries(&c, &kb, skip_invalid, paths, n_paths);
    bb_filter *f = NULL;
    if (st == BB_EXIT_OK) {
        if (!cfg->capacity) cfg->capacity = kb.n ? kb.n : 1;
        bb_status s = bb_create(&f, cfg);
        if (s == BB_OK) s = bb_add_arrow64(f, kb.data, kb.off, kb.n);
        bb_key_scheme ks = {.keys = keys, .prefixes = prefixes};
        if (s == BB_OK) s = bb_set_key_scheme(f, &ks);
        if (s != BB_OK) {
            cli_error("cannot build the filter: %s", bb_strerror(s));
            st = s == BB_E_NOMEM ? BB_EXIT_RUNTIME : BB_EXIT_USAGE;
        }
    }
    if (st == BB_EXIT_OK) st = cli_save_output(f, out);
    bb_free(f);
    cli_keybuf_free(&kb);
    cli_netctx_free(&c);
    return st;
}
