/* SPDX-License-Identifier: MIT */
/*
 * redis-bench.c - the Redis benchmark (run by hand: scripts/bench-redis.sh, which starts its
 * own redis-server; never in CI). On one server, for N keys in pipelined batches of 1000,
 * it measures keys per second (median of R runs) and round trips per key of
 *   - blockbloom's madd / mexists (libblockbloom_redis: one BITFIELD per added key, one
 *     GETRANGE of the key's 64-byte block per sub-filter per query), on a filter reserved for
 *     N keys and on one reserved for CAP keys (default 10^8: a 145 MB filter, far beyond the
 *     server's caches, with N keys in it),
 *   - the classic layout people write by hand on stock Redis: one big string of m bits and k
 *     positions per key over all of it (double hashing, Kirsch-Mitzenmacher 2006), added with
 *     BITFIELD SET u1 x k and queried with BITFIELD_RO GET u1 x k,
 *   - plain SADD / SMISMEMBER of the keys in one set (1000 members per command), the
 *     exact-set baseline,
 * and the memory per key of each: MEMORY USAGE of a filter's keys (used_memory moves with
 * client buffers by more than a small filter's size) and of the set.
 *   redis-bench URL [N [RUNS [CAP]]]      (default 200000 keys, 3 runs, CAP 10^8)
 */
#include <blockbloom.h>
#include <blockbloom_redis.h>
#include <hiredis/hiredis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 1000
#define FPR 0.01

typedef struct keys {
    char *buf;
    const void **ptr;
    size_t *len, n;
} keys;

static keys make_keys(const char *tag, size_t n) {
    keys k = {malloc(n * 32), malloc(n * sizeof(void *)), malloc(n * sizeof(size_t)), n};
    if (!k.buf || !k.ptr || !k.len) exit(1);
    for (size_t i = 0; i < n; i++) {
        k.ptr[i] = k.buf + i * 32;
        k.len[i] = (size_t)snprintf(k.buf + i * 32, 32, "%s:%zu", tag, i);
    }
    return k;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "redis-bench: %s: %s\n", what, detail);
    exit(1);
}

static long long used_memory(redisContext *c) {
    redisReply *r = redisCommand(c, "INFO memory");
    if (!r || r->type != REDIS_REPLY_STRING) die("INFO memory", c->errstr);
    const char *p = strstr(r->str, "used_memory:");
    long long v = p ? atoll(p + 12) : -1;
    freeReplyObject(r);
    return v;
}

static long long memory_usage(redisContext *c, const char *key) {
    redisReply *r = redisCommand(c, "MEMORY USAGE %s", key);
    if (!r || r->type != REDIS_REPLY_INTEGER) die("MEMORY USAGE", key);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

static void command(redisContext *c, const char *fmt, const char *arg) {
    redisReply *r = redisCommand(c, fmt, arg);
    if (!r || r->type == REDIS_REPLY_ERROR) die(fmt, r ? r->str : c->errstr);
    freeReplyObject(r);
}

/* ---- One series: R runs of (add all, query present, query absent) -------------------------- */

typedef struct series {
    const char *name;
    void *ctx;
    void (*reset)(void *ctx);
    /* add or query keys [i, i + n) of ks: returns round trips used. */
    unsigned long (*add)(void *ctx, const keys *ks, size_t i, size_t n);
    unsigned long (*query)(void *ctx, const keys *ks, size_t i, size_t n, size_t *hits);
    /* bytes the series' keys use (MEMORY USAGE); NULL = the used_memory delta */
    long long (*mem)(void *ctx, redisContext *c);
    uint64_t capacity; /* keys the series is sized for (memory per key of capacity); 0 = N */
} series;

typedef struct result {
    double add_kps, present_kps, absent_kps, trips_add, trips_query, fp_rate, bytes_per_key,
        bytes_per_cap;
} result;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double timed(const series *s, bool add, const keys *ks, unsigned long *trips, size_t *hits) {
    double t0 = now();
    *trips = 0;
    *hits = 0;
    for (size_t i = 0; i < ks->n; i += BATCH) {
        size_t m = ks->n - i < BATCH ? ks->n - i : BATCH, h = 0;
        *trips += add ? s->add(s->ctx, ks, i, m) : s->query(s->ctx, ks, i, m, &h);
        *hits += h;
    }
    return (double)ks->n / (now() - t0);
}

static result run_series(const series *s, redisContext *mem, const keys *in, const keys *out,
                         int runs) {
    double a[16], p[16], q[16];
    result r = {0};
    for (int i = 0; i < runs; i++) {
        unsigned long trips;
        size_t hits;
        long long m0 = used_memory(mem); /* before reset: reserve allocates the shards */
        s->reset(s->ctx);
        a[i] = timed(s, true, in, &trips, &hits);
        r.trips_add = (double)trips / (double)in->n;
        if (i == 0) { /* later runs start with the previous run's data in place */
            double bytes = (double)(s->mem ? s->mem(s->ctx, mem) : used_memory(mem) - m0);
            r.bytes_per_key = bytes / (double)in->n;
            r.bytes_per_cap = bytes / (double)(s->capacity ? s->capacity : in->n);
        }
        p[i] = timed(s, false, in, &trips, &hits);
        if (hits != in->n) fprintf(stderr, "redis-bench: %s: %zu of %zu keys found!\n", s->name, hits, in->n);
        q[i] = timed(s, false, out, &trips, &hits);
        r.trips_query = (double)trips / (double)out->n;
        r.fp_rate = (double)hits / (double)out->n;
    }
    s->reset(s->ctx);
    r.add_kps = median(a, runs);
    r.present_kps = median(p, runs);
    r.absent_kps = median(q, runs);
    return r;
}

/* ---- blockbloom ------------------------------------------------------------------------------------- */

typedef struct bbs_ctx {
    bb_redis *r;
    uint64_t capacity;
} bbs_ctx;

static void bbs_reset(void *v) {
    bbs_ctx *c = v;
    bb_redis_del(c->r, "bench:bb");
    if (bb_redis_reserve(c->r, "bench:bb", FPR, c->capacity, 0) != BB_OK)
        die("reserve", bb_last_error());
}

static unsigned long bbs_add(void *v, const keys *ks, size_t i, size_t n) {
    bbs_ctx *c = v;
    uint64_t t = bb_redis_round_trips(c->r);
    if (bb_redis_madd(c->r, "bench:bb", ks->ptr + i, ks->len + i, n, NULL) != BB_OK)
        die("madd", bb_last_error());
    return (unsigned long)(bb_redis_round_trips(c->r) - t);
}

static unsigned long bbs_query(void *v, const keys *ks, size_t i, size_t n, size_t *hits) {
    bbs_ctx *c = v;
    uint8_t out[BATCH];
    uint64_t t = bb_redis_round_trips(c->r);
    if (bb_redis_mexists(c->r, "bench:bb", ks->ptr + i, ks->len + i, n, out, hits) != BB_OK)
        die("mexists", bb_last_error());
    return (unsigned long)(bb_redis_round_trips(c->r) - t);
}

/* Meta key, state and every shard of every sub-filter (names as docs/REDIS.md: all of
 * them end in ":bench:bb}"). */
static long long bbs_mem(void *v, redisContext *c) {
    (void)v;
    long long total = memory_usage(c, "bench:bb");
    char cursor[32] = "0";
    do {
        redisReply *r = redisCommand(c, "SCAN %s MATCH bb:{*:bench:bb} COUNT 1000", cursor);
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) die("SCAN", c->errstr);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++)
            total += memory_usage(c, r->element[1]->element[i]->str);
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    return total;
}

/* ---- Classic bits over one string, by hand ---------------------------------------------------------- */

typedef struct classic_ctx {
    redisContext *c;
    bb_filter *hasher;   /* seed-0 XXH3 through the public API */
    uint64_t bits;
    unsigned k;
} classic_ctx;

static void classic_reset(void *v) {
    classic_ctx *c = v;
    char last[32];
    snprintf(last, sizeof last, "%llu", (unsigned long long)(c->bits - 1));
    command(c->c, "DEL bench:classic", NULL);
    command(c->c, "SETBIT bench:classic %s 0", last);
}

/* BITFIELD[_RO] bench:classic (SET u1 x 1 | GET u1 x) for the key's k positions. */
static void classic_append(classic_ctx *c, const void *key, size_t len, bool add) {
    const char *argv[2 + 4 * BB_MAX_K];
    size_t argl[2 + 4 * BB_MAX_K];
    char num[BB_MAX_K][24];
    int argc = 0;
    uint64_t h = bb_hash(c->hasher, key, len), h1 = (uint32_t)h, h2 = h >> 32;
    argv[argc] = add ? "BITFIELD" : "BITFIELD_RO", argl[argc] = strlen(argv[argc]), argc++;
    argv[argc] = "bench:classic", argl[argc] = 13, argc++;
    for (unsigned j = 0; j < c->k; j++) {
        snprintf(num[j], sizeof num[j], "%llu", (unsigned long long)((h1 + j * h2) % c->bits));
        argv[argc] = add ? "SET" : "GET", argl[argc] = 3, argc++;
        argv[argc] = "u1", argl[argc] = 2, argc++;
        argv[argc] = num[j], argl[argc] = strlen(num[j]), argc++;
        if (add) argv[argc] = "1", argl[argc] = 1, argc++;
    }
    redisAppendCommandArgv(c->c, argc, argv, argl);
}

static unsigned long classic_batch(classic_ctx *c, const keys *ks, size_t i, size_t n, bool add,
                                   size_t *hits) {
    for (size_t j = 0; j < n; j++) classic_append(c, ks->ptr[i + j], ks->len[i + j], add);
    for (size_t j = 0; j < n; j++) {
        void *rep;
        if (redisGetReply(c->c, &rep) != REDIS_OK) die("classic", c->c->errstr);
        redisReply *r = rep;
        bool all = r->type == REDIS_REPLY_ARRAY;
        for (size_t e = 0; all && e < r->elements; e++) all = r->element[e]->integer == 1;
        if (hits) *hits += all;
        freeReplyObject(r);
    }
    return 1;
}

static long long classic_mem(void *v, redisContext *c) {
    (void)v;
    return memory_usage(c, "bench:classic");
}

static unsigned long classic_add(void *v, const keys *ks, size_t i, size_t n) {
    return classic_batch(v, ks, i, n, true, NULL);
}

static unsigned long classic_query(void *v, const keys *ks, size_t i, size_t n, size_t *hits) {
    return classic_batch(v, ks, i, n, false, hits);
}

/* ---- SADD / SMISMEMBER of the keys in one set ------------------------------------------------------ */

typedef struct set_ctx {
    redisContext *c;
} set_ctx;

/* One command: VERB bench:set key_i .. key_{i+n-1}. */
static unsigned long set_batch(redisContext *c, const keys *ks, size_t i, size_t n, const char *verb,
                               size_t *hits) {
    const char *argv[2 + BATCH];
    size_t argl[2 + BATCH];
    argv[0] = verb, argl[0] = strlen(verb), argv[1] = "bench:set", argl[1] = 9;
    for (size_t j = 0; j < n; j++) argv[2 + j] = ks->ptr[i + j], argl[2 + j] = ks->len[i + j];
    redisReply *r = redisCommandArgv(c, (int)(2 + n), argv, argl);
    if (!r || r->type == REDIS_REPLY_ERROR) die(verb, r ? r->str : c->errstr);
    for (size_t e = 0; hits && r->type == REDIS_REPLY_ARRAY && e < r->elements; e++)
        *hits += (size_t)r->element[e]->integer;
    freeReplyObject(r);
    return 1;
}

static void set_reset(void *v) { command(((set_ctx *)v)->c, "DEL bench:set", NULL); }

static unsigned long set_add(void *v, const keys *ks, size_t i, size_t n) {
    return set_batch(((set_ctx *)v)->c, ks, i, n, "SADD", NULL);
}

static unsigned long set_query(void *v, const keys *ks, size_t i, size_t n, size_t *hits) {
    return set_batch(((set_ctx *)v)->c, ks, i, n, "SMISMEMBER", hits);
}

static long long set_mem(void *v, redisContext *c) {
    (void)v;
    return memory_usage(c, "bench:set");
}

/* ---- Main ------------------------------------------------------------------------------------------- */

static redisContext *connect_raw(const char *url) {
    const char *a = strncmp(url, "redis://", 8) == 0 ? url + 8 : url, *colon = strrchr(a, ':');
    char host[128];
    if (!colon) die("address", url);
    snprintf(host, sizeof host, "%.*s", (int)(colon - a), a);
    redisContext *c = redisConnect(host, atoi(colon + 1));
    if (!c || c->err) die("connect", c ? c->errstr : "out of memory");
    return c;
}

static void print_row(const char *name, const result *r) {
    printf("%-28s %10.0f %10.0f %10.0f %9.4f %9.4f %9.2f %9.2f %8.4f\n", name, r->add_kps,
           r->present_kps, r->absent_kps, r->trips_add, r->trips_query, r->bytes_per_key,
           r->bytes_per_cap, r->fp_rate);
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage", "redis-bench URL [N [RUNS]]");
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    uint64_t cap = argc > 4 ? strtoull(argv[4], NULL, 10) : 100000000;
    if (n == 0 || runs < 1 || runs > 16 || cap == 0) die("usage", "N >= 1, 1 <= RUNS <= 16, CAP >= 1");
    setvbuf(stdout, NULL, _IOLBF, 0); /* one row at a time, also into a file */
    keys in = make_keys("in", n), out = make_keys("out", n);
    redisContext *mem = connect_raw(argv[1]);

    bbs_ctx bc = {NULL, n}, big = {NULL, cap};
    if (bb_redis_connect(&bc.r, argv[1]) != BB_OK) die("connect", bb_last_error());
    if (bb_redis_connect(&big.r, argv[1]) != BB_OK) die("connect", bb_last_error());
    char big_name[64];
    snprintf(big_name, sizeof big_name, "blockbloom, reserved %.0e", (double)cap);
    classic_ctx cc = {connect_raw(argv[1]), NULL, 0, 0};
    bb_config z = {.size = sizeof z, .kind = BB_BLOCKED, .bits = 512, .k = 1};
    if (bb_create(&cc.hasher, &z) != BB_OK ||
        bb_size(BB_CLASSIC, n, FPR, &cc.bits, &cc.k) != BB_OK)
        die("sizing", "bb_size");
    set_ctx sc = {connect_raw(argv[1])};
    series all[] = {
        {"blockbloom madd/mexists", &bc, bbs_reset, bbs_add, bbs_query, bbs_mem, 0},
        {big_name, &big, bbs_reset, bbs_add, bbs_query, bbs_mem, cap},
        {"classic BITFIELD, 1 string", &cc, classic_reset, classic_add, classic_query, classic_mem, 0},
        {"SADD / SMISMEMBER (a set)", &sc, set_reset, set_add, set_query, set_mem, 0},
    };
    printf("redis-bench: %zu keys, batches of %d, p = %g, median of %d runs; "
           "classic m = %llu bits, k = %u\n\n", n, BATCH, FPR, runs,
           (unsigned long long)cc.bits, cc.k);
    printf("%-28s %10s %10s %10s %9s %9s %9s %9s %8s\n", "series", "add/s", "present/s",
           "absent/s", "RT/add", "RT/query", "B/key", "B/capkey", "FP rate");
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        result r = run_series(&all[i], mem, &in, &out, runs);
        print_row(all[i].name, &r);
    }
    bb_redis_free(bc.r);
    bb_redis_free(big.r);
    bb_free(cc.hasher);
    redisFree(cc.c);
    redisFree(sc.c);
    redisFree(mem);
    return 0;
}
