/* SPDX-License-Identifier: MIT */
/*
 * keys.c - the benchmark's keys (the scheme is described in bench.h): real npm package names
 * from data/npm-names.txt when present (scripts/fetch-npm-names.sh writes it), shuffled once
 * with a fixed seed so "the first n names" is a random sample and not an alphabetical run,
 * else generated 20-byte keys. Key sets are materialised into one arena with pointer and
 * length arrays, because that is the shape bb_contains_batch and libbloom's loop read.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYGEN_SHUFFLE_SEED UINT64_C(0x6e706d2d6e616d65) /* fixed: same order every run */

static void *xrealloc(void *p, size_t bytes) {
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "blockbloom-bench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return q;
}

static char *slurp(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    char *buf = NULL;
    size_t cap = 0, used = 0, got;
    do {
        if (cap - used < 1 << 20) buf = xrealloc(buf, cap = cap * 2 + (1 << 20));
        got = fread(buf + used, 1, cap - used, fp);
        used += got;
    } while (got > 0);
    fclose(fp);
    *len = used;
    return buf;
}

/* Split into lines (dropping empty ones and a trailing '\r'), then Fisher-Yates shuffle. */
static void index_names(keygen *g, size_t len) {
    size_t cap = 1024;
    g->offs = xrealloc(NULL, cap * sizeof *g->offs);
    g->lens = xrealloc(NULL, cap * sizeof *g->lens);
    for (size_t i = 0; i < len;) {
        char *nl = memchr(g->names + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - g->names) : len, l = end - i;
        if (l && g->names[end - 1] == '\r') l--;
        if (l) {
            if (g->count == cap) {
                cap *= 2;
                g->offs = xrealloc(g->offs, cap * sizeof *g->offs);
                g->lens = xrealloc(g->lens, cap * sizeof *g->lens);
            }
            g->offs[g->count] = i;
            g->lens[g->count++] = (uint32_t)l;
        }
        i = end + 1;
    }
    uint64_t st = KEYGEN_SHUFFLE_SEED;
    for (size_t i = g->count; i > 1; i--) {
        size_t j = (size_t)(splitmix64(&st) % i);
        uint64_t o = g->offs[i - 1];
        uint32_t l = g->lens[i - 1];
        g->offs[i - 1] = g->offs[j], g->lens[i - 1] = g->lens[j];
        g->offs[j] = o, g->lens[j] = l;
    }
}

bool keygen_open(keygen *g, const char *path) {
    memset(g, 0, sizeof *g);
    snprintf(g->source, sizeof g->source, "generated");
    g->key_bytes = 20;
    size_t len;
    if (!path || !(g->names = slurp(path, &len))) return false;
    index_names(g, len);
    if (g->count == 0) {
        keygen_close(g);
        snprintf(g->source, sizeof g->source, "generated");
        g->key_bytes = 20;
        return false;
    }
    snprintf(g->source, sizeof g->source, "%s", path);
    return true;
}

void keygen_close(keygen *g) {
    free(g->names);
    free(g->offs);
    free(g->lens);
    memset(g, 0, sizeof *g);
}

/* ---- Key sets ---------------------------------------------------------------------------- */

void keyset_init(keyset *s, size_t cap) {
    memset(s, 0, sizeof *s);
    s->cap = cap ? cap : 1;
    s->ptrs = xrealloc(NULL, s->cap * sizeof *s->ptrs);
    s->lens = xrealloc(NULL, s->cap * sizeof *s->lens);
    s->arena_cap = s->cap * 24;
    s->arena = xrealloc(NULL, s->arena_cap);
}

void keyset_free(keyset *s) {
    free(s->arena);
    free(s->ptrs);
    free(s->lens);
    memset(s, 0, sizeof *s);
}

static char *arena_take(keyset *s, size_t bytes) {
    if (s->arena_cap - s->arena_used < bytes)
        s->arena = xrealloc(s->arena, s->arena_cap = (s->arena_cap + bytes) * 2);
    char *p = s->arena + s->arena_used;
    s->arena_used += bytes;
    return p;
}

/* " <decimal>" into buf; returns its length (snprintf is too slow for 10^8 keys). */
static int space_decimal(char *buf, uint64_t v) {
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
    buf[0] = ' ';
    for (int i = 0; i < n; i++) buf[1 + i] = tmp[n - 1 - i];
    return n + 1;
}

/* Appends key `index`; ptrs[] holds arena offsets until seal() (the arena may move). */
static void push(keyset *s, const keygen *g, uint64_t index) {
    static const char hex[] = "0123456789abcdef";
    size_t start = s->arena_used, len;
    if (g->count) {
        uint64_t rep = index / g->count;
        size_t i = (size_t)(index % g->count);
        char suffix[24];
        int sl = rep ? space_decimal(suffix, rep) : 0;
        len = g->lens[i] + (size_t)sl;
        char *p = arena_take(s, len);
        memcpy(p, g->names + g->offs[i], g->lens[i]);
        memcpy(p + g->lens[i], suffix, (size_t)sl);
    } else {
        uint64_t v = mix64(index);
        len = g->key_bytes;
        char *p = arena_take(s, len);
        memcpy(p, "key-", 4);
        for (size_t d = 0; d + 4 < len; d++) p[4 + d] = hex[(v >> (60 - 4 * (d & 15))) & 15];
    }
    if (s->count == s->cap) {
        s->cap *= 2;
        s->ptrs = xrealloc(s->ptrs, s->cap * sizeof *s->ptrs);
        s->lens = xrealloc(s->lens, s->cap * sizeof *s->lens);
    }
    s->ptrs[s->count] = (const void *)(uintptr_t)start;
    s->lens[s->count++] = len;
}

static void seal(keyset *s) {
    for (size_t i = 0; i < s->count; i++) s->ptrs[i] = s->arena + (uintptr_t)s->ptrs[i];
}

void keyset_fill_range(keyset *s, const keygen *g, uint64_t first, size_t count) {
    s->count = s->arena_used = 0;
    for (size_t i = 0; i < count; i++) push(s, g, first + i);
    seal(s);
}

void keyset_fill_list(keyset *s, const keygen *g, const uint64_t *index, size_t count) {
    s->count = s->arena_used = 0;
    for (size_t i = 0; i < count; i++) push(s, g, index[i]);
    seal(s);
}

double keyset_mean_len(const keyset *s) {
    double sum = 0;
    for (size_t i = 0; i < s->count; i++) sum += (double)s->lens[i];
    return s->count ? sum / (double)s->count : 0.0;
}
