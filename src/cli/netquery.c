/* SPDX-License-Identifier: MIT */
/*
 * netquery.c - `query --keys url|domain|cidr|5tuple FILTER [FILE]...`: each input line is a
 * URL, a host name, an address or a 5-tuple; the line is printed when one of its keys (URL
 * expressions, the name and its parents above the public suffix, the address at each prefix
 * length of the filter) is possibly in the filter. -v prints the others, -c counts, -o adds a
 * TAB and what matched (the expression, the parent domain, the range; 5-tuples have nothing
 * to add). Lines are trimmed; blank and '#' lines are skipped and never printed.
 *
 * Lines are read with their numbers in chunks of 4096 and tested with one library batch call
 * per chunk (bb_url_contains_batch, bb_domain_contains_batch, bb_cidr_contains_batch,
 * bb_contains_fixed). A line that is not a valid input of its kind is reported as
 * "FILE:LINE: reason" and matches nothing; the exit status is then 1 after all output.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4096u

typedef struct chunk {
    cli_keybuf kb;                 /* the trimmed lines */
    unsigned long long line[CHUNK];
    const char *file[CHUNK];
    const char *ptr[CHUNK];
    size_t len[CHUNK];
    uint8_t key[CHUNK][BB_5TUPLE_KEY_BYTES]; /* cidr: 16-byte addresses; 5tuple: keys */
    const char *why[CHUNK];        /* why line i is malformed, or NULL */
    char why_text[CHUNK][64];      /* copies of bb_cidr_parse's reasons (bb_last_error) */
    uint8_t out[CHUNK];
} chunk;

typedef struct netq {
    const bb_filter *f;
    const cli_netquery_opts *o;
    bb_keys keys;
    bb_prefix_set prefixes;
    cli_netctx ctx;
    unsigned long long bad, count;
} netq;

/* Fill c with up to CHUNK non-blank lines; *done at the end of the inputs. */
static int read_chunk(cli_lines *l, chunk *c, bool *done) {
    *done = false;
    if (!cli_keybuf_reset(&c->kb)) goto nomem;
    while (c->kb.n < CHUNK) {
        const char *s;
        size_t len;
        bool got;
        int st = cli_lines_next(l, &s, &len, &got);
        if (st != BB_EXIT_OK) return st;
        if (!got) {
            *done = true;
            break;
        }
        cli_net_trim(&s, &len, false);
        if (len == 0) continue;
        c->line[c->kb.n] = l->line;
        c->file[c->kb.n] = l->r.name;
        if (!cli_keybuf_append(&c->kb, s, len)) goto nomem;
    }
    for (size_t i = 0; i < c->kb.n; i++) {
        c->ptr[i] = c->kb.data + c->kb.off[i];
        c->len[i] = (size_t)(c->kb.off[i + 1] - c->kb.off[i]);
        c->why[i] = NULL;
    }
    return BB_EXIT_OK;
nomem:
    cli_error("out of memory");
    return BB_EXIT_RUNTIME;
}

/* Parse addresses or 5-tuples into c->key; malformed ones get a reason. */
static void parse_fixed(netq *q, chunk *c) {
    for (size_t i = 0; i < c->kb.n; i++) {
        unsigned plen;
        if (q->keys == BB_KEYS_5TUPLE) {
            c->why[i] = cli_net_5tuple(c->ptr[i], c->len[i], c->key[i]);
        } else if (memchr(c->ptr[i], '/', c->len[i])) {
            c->why[i] = "a single address was expected, not a range";
        } else if (bb_cidr_parse(c->ptr[i], c->len[i], c->key[i], &plen) != BB_OK) {
            c->why[i] = bb_last_error();
            memset(c->key[i], 0, 16);
        }
        if (c->why[i] == bb_last_error()) { /* keep it past the next line's parse */
            snprintf(c->why_text[i], sizeof c->why_text[i], "%s", c->why[i]);
            c->why[i] = c->why_text[i];
        }
    }
}

static bb_status test_chunk(netq *q, chunk *c) {
    size_t n = c->kb.n;
    switch (q->keys) {
    case BB_KEYS_URL: return bb_url_contains_batch(q->f, c->ptr, c->len, n, c->out, NULL);
    case BB_KEYS_DOMAIN:
        return bb_domain_contains_batch(q->f, q->ctx.psl, c->ptr, c->len, n, c->out, NULL);
    case BB_KEYS_CIDR:
        parse_fixed(q, c);
        return bb_cidr_contains_batch(q->f, &q->prefixes, &c->key[0][0], sizeof c->key[0], n,
                                      c->out, NULL);
    case BB_KEYS_5TUPLE:
        parse_fixed(q, c);
        return bb_contains_fixed(q->f, c->key, BB_5TUPLE_KEY_BYTES, sizeof c->key[0], n, c->out,
                                 NULL);
    case BB_KEYS_PLAIN: break;
    }
    return BB_E_INVAL;
}

/* -o: what line i matched, after a TAB. */
static void print_match(netq *q, const chunk *c, size_t i) {
    char buf[BB_DOMAIN_MAX_LEN + 1], text[CLI_ADDR_TEXT];
    bb_span sp[BB_DOMAIN_MAX_CANDIDATES];
    size_t n = 0;
    bool found = false;
    if (q->keys == BB_KEYS_URL && cli_net_reserve(&q->ctx, BB_URL_CANON_BOUND(c->len[i])) &&
        bb_url_match(q->f, c->ptr[i], c->len[i], q->ctx.buf, q->ctx.cap, sp, &found) == BB_OK &&
        found)
        printf("\t%.*s", (int)sp[0].len, q->ctx.buf + sp[0].off);
    if (q->keys == BB_KEYS_DOMAIN &&
        bb_domain_candidates(q->ctx.psl, c->ptr[i], c->len[i], buf, sizeof buf, sp, &n) == BB_OK)
        for (size_t j = 0; j < n && !found; j++)
            if ((found = bb_contains(q->f, buf + sp[j].off, sp[j].len)))
                printf("\t%.*s", (int)sp[j].len, buf + sp[j].off);
    bool v4 = bb_addr_is_ipv4(c->key[i]);
    for (int l = 128; q->keys == BB_KEYS_CIDR && l >= 0 && !found; l--) { /* the longest */
        uint8_t key[BB_CIDR_KEY_BYTES];
        bool has = v4 ? l >= 96 && (q->prefixes.ipv4 >> (l - 96) & 1)
                      : (q->prefixes.words[l >> 6] >> (l & 63) & 1);
        if (!has) continue;
        uint8_t masked[16];
        size_t kl = bb_cidr_key(c->key[i], (unsigned)l, key);
        if ((found = bb_contains(q->f, key, kl))) {
            bb_cidr_mask(c->key[i], (unsigned)l, masked);
            cli_net_format_addr(masked, text);
            printf("\t%s/%d", text, v4 ? l - 96 : l);
        }
    }
}

static void report(netq *q, chunk *c) {
    uint8_t want = q->o->invert ? 0 : 1;
    for (size_t i = 0; i < c->kb.n; i++) {
        if (c->why[i] || c->out[i] == BB_NET_MALFORMED) {
            if (++q->bad <= 20)
                cli_error("%s:%llu: %s: '%.*s'", c->file[i], c->line[i],
                          c->why[i] ? c->why[i]
                          : q->keys == BB_KEYS_URL ? "not a valid URL" : "not a valid domain name",
                          (int)(c->len[i] > 200 ? 200 : c->len[i]), c->ptr[i]);
            continue;
        }
        if (c->out[i] != want) continue;
        q->count++;
        if (q->o->count) continue;
        fwrite(c->ptr[i], 1, c->len[i], stdout);
        if (q->o->show_match && want) print_match(q, c, i);
        putchar('\n');
    }
}

/* The key kind to use: the filter's, checked against --keys. */
static int choose_keys(netq *q) {
    bb_keys fk;
    cli_scheme_get(q->f, &fk, &q->prefixes);
    q->keys = q->o->keys ? q->o->keys : fk;
    if (q->keys == BB_KEYS_PLAIN)
        return cli_usage_error("query", "the filter records no key kind: give --keys");
    if (fk != BB_KEYS_PLAIN && fk != q->keys) {
        cli_error("the filter was built with --keys %s, not %s", bb_keys_name(fk),
                  bb_keys_name(q->keys));
        return BB_EXIT_USAGE;
    }
    return BB_EXIT_OK;
}

bool cli_uses_net_keys(const bb_filter *f, const cli_netquery_opts *o) {
    bb_keys fk;
    bb_prefix_set p;
    cli_scheme_get(f, &fk, &p);
    return o->keys || o->show_match || o->match || fk != BB_KEYS_PLAIN;
}

int cli_net_query(const bb_filter *f, const cli_netquery_opts *o, char *const *paths,
                  size_t n_paths) {
    netq q = {.f = f, .o = o};
    if (o->match) return cli_usage_error("query", "--match needs --pcap");
    int st = choose_keys(&q);
    if (st == BB_EXIT_OK && q.keys == BB_KEYS_DOMAIN) st = cli_load_psl(&q.ctx.psl);
    chunk *c = st == BB_EXIT_OK ? calloc(1, sizeof *c) : NULL;
    if (st == BB_EXIT_OK && !c) {
        cli_error("out of memory");
        st = BB_EXIT_RUNTIME;
    }
    cli_lines l;
    cli_lines_init(&l, paths, n_paths);
    bool done = false;
    while (st == BB_EXIT_OK && !done && !ferror(stdout)) {
        st = read_chunk(&l, c, &done);
        bb_status s = st == BB_EXIT_OK ? test_chunk(&q, c) : BB_OK;
        if (s != BB_OK) {
            cli_error("cannot query: %s", bb_strerror(s));
            st = BB_EXIT_RUNTIME;
        }
        if (st == BB_EXIT_OK) report(&q, c);
    }
    cli_lines_close(&l);
    if (c) cli_keybuf_free(&c->kb);
    free(c);
    cli_netctx_free(&q.ctx);
    if (st == BB_EXIT_OK && o->count) printf("%llu\n", q.count);
    if (st == BB_EXIT_OK && q.bad) {
        if (q.bad > 20) cli_error("%llu bad lines in all", q.bad);
        st = BB_EXIT_RUNTIME;
    }
    return st;
}
