/* SPDX-License-Identifier: MIT */
/*
 * psl.c - the public suffix list (publicsuffix.org, "Format" and "Algorithm"), read at run
 * time from a file, by default Debian's publicsuffix package's documented
 * /usr/share/publicsuffix/public_suffix_list.dat, and the public suffix of a domain name.
 *
 * Rules are one per line up to the first white space; "//" starts a comment line. A rule is a
 * plain suffix ("co.uk"), a wildcard ("*.ck": every label under ck) or an exception
 * ("!www.ck": www.ck is not a suffix although *.ck says so). Rules in Unicode are stored in
 * their ASCII (Punycode) form when the library has libidn2, and skipped otherwise (names are
 * compared in ASCII). The rules live in one string arena and an open-addressing hash table
 * (FNV-1a 64, linear probing, load <= 1/2), each slot holding a rule text's flags: plain,
 * "wildcard below" and exception. Lookups never allocate.
 *
 * The algorithm: walk the suffixes of the name from the longest; at each one, an exception
 * rule makes its parent the public suffix, a plain rule makes it the public suffix, and a
 * wildcard on its parent does too. The first (longest) hit wins; with none, the default rule
 * "*" makes the last label the public suffix.
 */
#include "netutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RULE_PLAIN = 1, RULE_WILDCARD = 2, RULE_EXCEPTION = 4 };

typedef struct slot {
    uint64_t hash;
    size_t off, len; /* in the arena; len 0 = empty slot */
    unsigned flags;
} slot;

struct bb_psl {
    char *arena;
    size_t arena_len, arena_cap;
    slot *slots;
    size_t mask, used;
};

static uint64_t fnv1a(const char *s, size_t len) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001b3);
    return h;
}

static const slot *find(const bb_psl *p, const char *s, size_t len) {
    uint64_t h = fnv1a(s, len);
    for (size_t i = h & p->mask;; i = (i + 1) & p->mask) {
        const slot *e = &p->slots[i];
        if (!e->len) return NULL;
        if (e->hash == h && e->len == len && memcmp(p->arena + e->off, s, len) == 0) return e;
    }
}

static bool grow_table(bb_psl *p) {
    size_t cap = p->slots ? (p->mask + 1) * 2 : 4096;
    slot *old = p->slots, *ns = calloc(cap, sizeof *ns);
    if (!ns) return false;
    size_t old_cap = old ? p->mask + 1 : 0;
    p->slots = ns;
    p->mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].len) continue;
        size_t j = old[i].hash & p->mask;
        while (ns[j].len) j = (j + 1) & p->mask;
        ns[j] = old[i];
    }
    free(old);
    return true;
}

static bool insert(bb_psl *p, const char *s, size_t len, unsigned flag) {
    slot *e = (slot *)find(p, s, len);
    if (e) {
        e->flags |= flag;
        return true;
    }
    if ((p->used + 1) * 2 > p->mask + 1 && !grow_table(p)) return false;
    if (p->arena_len + len > p->arena_cap) {
        size_t cap = p->arena_cap ? p->arena_cap * 2 : 65536;
        while (cap < p->arena_len + len) cap *= 2;
        char *a = realloc(p->arena, cap);
        if (!a) return false;
        p->arena = a;
        p->arena_cap = cap;
    }
    memcpy(p->arena + p->arena_len, s, len);
    uint64_t h = fnv1a(s, len);
    size_t j = h & p->mask;
    while (p->slots[j].len) j = (j + 1) & p->mask;
    p->slots[j] = (slot){h, p->arena_len, len, flag};
    p->arena_len += len;
    p->used++;
    return true;
}

/* One line of the list: its rule, if any, into p. false only when out of memory. */
static bool add_line(bb_psl *p, char *line, size_t len) {
    size_t e = 0;
    while (e < len && line[e] != ' ' && line[e] != '\t' && line[e] != '\r' && line[e] != '\n') e++;
    if (e == 0 || (e >= 2 && line[0] == '/' && line[1] == '/')) return true;
    unsigned flag = RULE_PLAIN;
    char *r = line;
    if (r[0] == '!') {
        flag = RULE_EXCEPTION;
        r++, e--;
    } else if (e >= 2 && r[0] == '*' && r[1] == '.') {
        flag = RULE_WILDCARD;
        r += 2, e -= 2;
    }
    char ascii[BB_DOMAIN_MAX_LEN + 1];
    size_t n;
    if (bb_net_domain_ascii(r, e, ascii, &n) != BB_OK) return true; /* no IDNA here, or bad */
    return insert(p, ascii, n, flag);
}

bb_status bb_psl_load(bb_psl **out, const char *path) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    FILE *in = fopen(path ? path : BB_PSL_DEFAULT_PATH, "r");
    if (!in) return BB_E_IO;
    bb_psl *p = calloc(1, sizeof *p);
    bb_status st = p && grow_table(p) ? BB_OK : BB_E_NOMEM;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while (st == BB_OK && (got = getline(&line, &cap, in)) >= 0)
        if (!add_line(p, line, (size_t)got)) st = BB_E_NOMEM;
    int err = errno;
    if (st == BB_OK && ferror(in)) st = BB_E_IO;
    if (st == BB_OK && p->used == 0) st = BB_E_MALFORMED; /* not a suffix list at all */
    free(line);
    fclose(in);
    if (st != BB_OK) {
        bb_psl_free(p);
        errno = err;
        return st;
    }
    *out = p;
    return BB_OK;
}

void bb_psl_free(bb_psl *p) {
    if (!p) return;
    free(p->arena);
    free(p->slots);
    free(p);
}

size_t bb_psl_rules(const bb_psl *p) { return p ? p->used : 0; }

static unsigned flags_of(const bb_psl *p, const char *s, size_t len) {
    const slot *e = find(p, s, len);
    return e ? e->flags : 0;
}

/* Offset in d of the public suffix of the normalised name d[0 .. len). */
size_t bb_net_public_suffix(const bb_psl *p, const char *d, size_t len) {
    size_t last = 0;
    for (size_t o = 0; o < len;) {
        const char *dot = memchr(d + o, '.', len - o);
        size_t parent = dot ? (size_t)(dot - d) + 1 : len;
        unsigned f = flags_of(p, d + o, len - o);
        if (f & RULE_EXCEPTION) return parent;
        if (f & RULE_PLAIN) return o;
        if (parent < len && (flags_of(p, d + parent, len - parent) & RULE_WILDCARD)) return o;
        last = o;
        o = parent;
    }
    return last; /* the default rule "*": the last label */
}
