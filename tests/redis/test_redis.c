/* SPDX-License-Identifier: MIT */
/*
 * test_redis.c - the Redis binding against real servers (Criterion). Started by
 * scripts/test-redis.sh, which runs one standalone redis-server (BB_REDIS_URL) and a
 * 3-master Redis Cluster (BB_REDIS_CLUSTER="host:port host:port host:port"), all on
 * loopback, and stops them on exit. The expected bytes come from the core library building
 * the same keys locally and from raw hiredis reads of the shard strings, never from the
 * binding's own read path alone. Test order matters only in "cluster_kill", which kills a
 * node and so runs alone, last (scripts/test-redis.sh runs it with --filter).
 */
#include <blockbloom_redis.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Servers and keys --------------------------------------------------------------------------- */

static const char *env_or_skip(const char *name) {
    const char *v = getenv(name);
    cr_assert(v && *v, "%s is not set: run scripts/test-redis.sh, which starts the servers", name);
    return v;
}

static bb_redis *standalone(void) {
    bb_redis *r;
    bb_status s = bb_redis_connect(&r, env_or_skip("BB_REDIS_URL"));
    cr_assert_eq(s, BB_OK, "connect: %s", bb_last_error());
    return r;
}

static char seeds_buf[256];
static const char *seeds[3];

/* A cluster handle whose requests have timeout_ms (0: the default) each. */
static bb_redis *cluster_with(uint32_t timeout_ms) {
    snprintf(seeds_buf, sizeof seeds_buf, "%s", env_or_skip("BB_REDIS_CLUSTER"));
    seeds[0] = strtok(seeds_buf, " ");
    seeds[1] = strtok(NULL, " ");
    seeds[2] = strtok(NULL, " ");
    cr_assert(seeds[2], "BB_REDIS_CLUSTER needs three nodes");
    bb_redis *r;
    bb_redis_options o = {.size = sizeof o, .cluster = true, .timeout_ms = timeout_ms};
    bb_status s = bb_redis_open(&r, seeds, 3, &o);
    cr_assert_eq(s, BB_OK, "cluster connect: %s", bb_last_error());
    return r;
}

static bb_redis *cluster(void) { return cluster_with(0); }

/* A raw hiredis connection to HOST:PORT (the test's own view of the server). */
static redisContext *raw(const char *addr) {
    const char *a = strncmp(addr, "redis://", 8) == 0 ? addr + 8 : addr;
    char host[64];
    const char *colon = strrchr(a, ':');
    snprintf(host, sizeof host, "%.*s", (int)(colon - a), a);
    redisContext *c = redisConnect(host, atoi(colon + 1));
    cr_assert(c && !c->err, "raw connect %s", addr);
    return c;
}

/* Keys "tag:i", i in [first, first + n): pointers into one buffer. */
typedef struct keyset {
    char *buf;
    const void **keys;
    size_t *lens, n;
} keyset;

static keyset keys_make(const char *tag, size_t first, size_t n) {
    keyset k = {malloc(n * 40), malloc(n * sizeof(void *)), malloc(n * sizeof(size_t)), n};
    cr_assert(k.buf && k.keys && k.lens);
    for (size_t i = 0; i < n; i++) {
        char *p = k.buf + i * 40;
        k.lens[i] = (size_t)snprintf(p, 40, "%s:%zu", tag, first + i);
        k.keys[i] = p;
    }
    return k;
}

static void keys_free(keyset *k) {
    free(k->buf);
    free(k->keys);
    free(k->lens);
}

static void must(bb_status s, const char *what) {
    cr_assert_eq(s, BB_OK, "%s: %s (%s)", what, bb_strerror(s), bb_last_error());
}

/* BF.RESERVE ... NONSCALING: one blocked filter, the one bb_create_for(BB_BLOCKED) sizes. */
static bb_status reserve_ns(bb_redis *r, const char *name, double p, uint64_t cap,
                            uint64_t shards) {
    bb_redis_params pa = {.size = sizeof pa, .error_rate = p, .capacity = cap,
                          .nonscaling = true, .shards = shards};
    return bb_redis_reserve_params(r, name, &pa);
}

/* Add key to the local filter L as RedisBloom counts: only if L does not contain it yet (the
 * bits are the same either way; keys_added then counts the adds that answered 1). */
static bool add_new(bb_filter *L, const void *key, size_t len) {
    if (bb_contains(L, key, len)) return false;
    cr_assert_eq(bb_add(L, key, len), BB_OK);
    return true;
}

/* Every key of ks reads as present (no false negative). */
static void assert_all_present(bb_redis *r, const char *name, const keyset *ks) {
    uint8_t *out = malloc(ks->n);
    size_t hits = 0;
    must(bb_redis_mexists(r, name, ks->keys, ks->lens, ks->n, out, &hits), "mexists");
    cr_assert_eq(hits, ks->n, "%s: %zu of %zu added keys found", name, hits, ks->n);
    free(out);
}

/* The local blocked filter of the same keys, serialized: what pull of a NONSCALING or pushed
 * filter must give byte for byte. */
static uint8_t *local_bytes(const keyset *ks, uint64_t cap, double p, size_t *len) {
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, cap, p, 0), BB_OK);
    for (size_t i = 0; i < ks->n; i++) add_new(f, ks->keys[i], ks->lens[i]);
    uint64_t size;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *b = malloc(size);
    cr_assert_eq(bb_serialize(f, b, size, len), BB_OK);
    bb_free(f);
    return b;
}

static uint8_t *pulled_bytes(bb_redis *r, const char *name, size_t *len) {
    bb_filter *f;
    must(bb_redis_pull(r, name, &f), "pull");
    uint64_t size;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *b = malloc(size);
    cr_assert_eq(bb_serialize(f, b, size, len), BB_OK);
    bb_free(f);
    return b;
}

static void assert_pull_equals_local(bb_redis *r, const char *name, const keyset *ks,
                                     uint64_t cap, double p) {
    size_t la, lb;
    uint8_t *a = local_bytes(ks, cap, p, &la), *b = pulled_bytes(r, name, &lb);
    cr_assert_eq(la, lb, "pulled %zu bytes, local %zu", lb, la);
    cr_assert(memcmp(a, b, la) == 0, "pulled filter differs from the local build");
    free(a);
    free(b);
}

/* The local scalable filter (growth `growth`) of the same keys added one by one in order:
 * what pull of a chain must give byte for byte. */
static void assert_pull_equals_scalable(bb_redis *r, const char *name, const keyset *ks,
                                        uint64_t cap, double p, double growth) {
    bb_config cfg = {
        .size = sizeof cfg, .kind = BB_SCALABLE, .capacity = cap, .fpr = p, .growth = growth};
    bb_filter *f;
    cr_assert_eq(bb_create(&f, &cfg), BB_OK);
    for (size_t i = 0; i < ks->n; i++) cr_assert_eq(bb_add(f, ks->keys[i], ks->lens[i]), BB_OK);
    uint64_t size;
    size_t la, lb;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *a = malloc(size), *b = pulled_bytes(r, name, &lb);
    cr_assert_eq(bb_serialize(f, a, size, &la), BB_OK);
    cr_assert_eq(la, lb, "pulled %zu bytes, local scalable %zu", lb, la);
    cr_assert(memcmp(a, b, la) == 0, "pulled chain differs from the local scalable build");
    free(a);
    free(b);
    bb_free(f);
}

static void fresh(bb_redis *r, const char *name) {
    bb_status s = bb_redis_del(r, name);
    cr_assert(s == BB_OK || s == BB_E_NOT_FOUND, "del %s: %s", name, bb_last_error());
}

/* A standalone handle with a new NONSCALING filter `name` holding keys "name:0 .. n-1" (*ks). */
static bb_redis *filled(const char *name, double p, uint64_t cap, uint64_t shards, size_t n,
                        keyset *ks) {
    bb_redis *r = standalone();
    fresh(r, name);
    must(reserve_ns(r, name, p, cap, shards), "reserve NONSCALING");
    *ks = keys_make(name, 0, n);
    must(bb_redis_madd(r, name, ks->keys, ks->lens, ks->n, NULL), "madd");
    return r;
}

/* ---- Standalone: commands ------------------------------------------------------------------------- */

/* RedisBloom's replies (src/rebloom.c, v8): BF.ADD and BF.MADD create a missing filter with
 * capacity 100, error rate 0.01, expansion 2; EXISTS, MEXISTS and CARD of a missing one
 * answer 0; INFO of one is "ERR not found"; the count is of the adds that answered 1. */
Test(standalone, reserve_add_exists_semantics) {
    bb_redis *r = standalone();
    fresh(r, "sem");
    must(bb_redis_reserve(r, "sem", 0.01, 1000, 0), "reserve");
    cr_assert_eq(bb_redis_reserve(r, "sem", 0.01, 1000, 0), BB_E_EXISTS);
    cr_assert(strstr(bb_last_error(), "ERR item exists"), "message: %s", bb_last_error());
    bool nw, present;
    must(bb_redis_add(r, "sem", "apple", 5, &nw), "add");
    cr_assert(nw, "first add of a key is new (BF.ADD 1)");
    must(bb_redis_add(r, "sem", "apple", 5, &nw), "add again");
    cr_assert(!nw, "second add of a key is not new (BF.ADD 0)");
    must(bb_redis_exists(r, "sem", "apple", 5, &present), "exists");
    cr_assert(present);
    must(bb_redis_exists(r, "sem", "pear", 4, &present), "exists");
    cr_assert(!present, "a never-added key in an almost empty filter");
    bb_redis_info in = BB_REDIS_INFO_INIT;
    must(bb_redis_info_get(r, "sem", &in), "info");
    cr_assert_eq(in.capacity, 1000);
    cr_assert_eq(in.keys_added, 1, "apple twice: one add answered 1");
    cr_assert_eq(in.error_rate, 0.01);
    cr_assert_eq(in.filters, 1);
    cr_assert_eq(in.expansion, 2);
    /* A caller of 0.1.0's bb_redis_info (up to cardinality) gets those fields, not more. */
    struct {
        bb_redis_info in;
        unsigned char after[16];
    } old;
    const size_t v1 = offsetof(bb_redis_info, cardinality) + sizeof(double);
    memset(&old, 0xA5, sizeof old);
    old.in.size = v1;
    must(bb_redis_info_get(r, "sem", &old.in), "info of the 0.1.0 size");
    cr_assert_eq(old.in.size, v1);
    cr_assert_eq(old.in.capacity, in.capacity);
    cr_assert_eq(old.in.keys_added, in.keys_added);
    cr_assert_eq(old.in.cardinality, in.cardinality);
    for (size_t i = v1; i < sizeof old; i++)
        cr_assert_eq(((const unsigned char *)&old)[i], 0xA5, "byte %zu past the 0.1.0 fields", i);
    old.in.size = v1 - 1;
    cr_assert_eq(bb_redis_info_get(r, "sem", &old.in), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "BB_REDIS_INFO_INIT"), "%s", bb_last_error());
    uint64_t bits, card;
    unsigned k;
    cr_assert_eq(bb_size(BB_SCALABLE, 1000, 0.005, &bits, &k), BB_OK); /* p_0 = p / 2 */
    cr_assert_eq(in.bits, bits);
    cr_assert_eq(in.k, k);
    cr_assert(in.bits_set >= 1 && in.bits_set <= k, "one key sets 1..k bits, got %llu",
              (unsigned long long)in.bits_set);

    /* Missing filters. */
    fresh(r, "nosuch");
    must(bb_redis_exists(r, "nosuch", "x", 1, &present), "exists of a missing filter");
    cr_assert(!present);
    must(bb_redis_card(r, "nosuch", &card), "card of a missing filter");
    cr_assert_eq(card, 0);
    cr_assert_eq(bb_redis_info_get(r, "nosuch", &in), BB_E_NOT_FOUND);
    cr_assert(strstr(bb_last_error(), "ERR not found"), "message: %s", bb_last_error());
    const void *keys[5] = {"a", "a", "a", "b", "c"};
    size_t lens[5] = {1, 1, 1, 1, 1};
    uint8_t out[5];
    must(bb_redis_madd(r, "nosuch", keys, lens, 5, out), "madd creates the filter");
    cr_assert(out[0] == 1 && out[1] == 0 && out[2] == 0 && out[3] == 1 && out[4] == 1,
              "a a a b c answered %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
    must(bb_redis_info_get(r, "nosuch", &in), "info");
    cr_assert(in.capacity == 100 && in.error_rate == 0.01 && in.expansion == 2 && in.filters == 1,
              "defaults: capacity %llu, error rate %g, expansion %llu",
              (unsigned long long)in.capacity, in.error_rate, (unsigned long long)in.expansion);
    cr_assert_eq(in.keys_added, 3, "RedisBloom counts 3 for a a a b c, got %llu",
                 (unsigned long long)in.keys_added);
    must(bb_redis_card(r, "nosuch", &card), "card");
    cr_assert_eq(card, 3);
    fresh(r, "nosuch");
    must(bb_redis_add(r, "nosuch", "x", 1, &nw), "add creates the filter");
    cr_assert(nw);

    /* insert: NOCREATE, options of a new filter, ignored for an existing one. */
    fresh(r, "ins");
    bb_redis_params p = {.size = sizeof p, .nocreate = true};
    cr_assert_eq(bb_redis_insert(r, "ins", &p, keys, lens, 5, out), BB_E_NOT_FOUND);
    cr_assert(strstr(bb_last_error(), "ERR not found"), "message: %s", bb_last_error());
    p = (bb_redis_params){.size = sizeof p, .capacity = 7, .error_rate = 0.001, .expansion = 4};
    must(bb_redis_insert(r, "ins", &p, keys, lens, 5, out), "insert creates");
    must(bb_redis_info_get(r, "ins", &in), "info");
    cr_assert(in.capacity == 7 && in.error_rate == 0.001 && in.expansion == 4 && in.keys_added == 3);
    p.capacity = 5000;
    must(bb_redis_insert(r, "ins", &p, keys, lens, 5, out), "insert into an existing filter");
    must(bb_redis_info_get(r, "ins", &in), "info");
    cr_assert_eq(in.capacity, 7, "an existing filter keeps its parameters");

    /* NONSCALING refuses past capacity with RedisBloom's text; present keys still answer 0,
     * and the keys before the first refused one are added. */
    fresh(r, "ns");
    p = (bb_redis_params){.size = sizeof p, .capacity = 3, .nonscaling = true};
    must(bb_redis_reserve_params(r, "ns", &p), "reserve NONSCALING");
    const void *k6[6] = {"k1", "k2", "k1", "k3", "k4", "k5"};
    size_t l6[6] = {2, 2, 2, 2, 2, 2};
    uint8_t o6[6];
    cr_assert_eq(bb_redis_madd(r, "ns", k6, l6, 6, o6), BB_E_FULL);
    cr_assert_str_eq(bb_last_error(), "ERR non scaling filter is full");
    cr_assert(o6[0] == 1 && o6[1] == 1 && o6[2] == 0 && o6[3] == 1 && o6[4] == 2 && o6[5] == 2,
              "answers %d %d %d %d %d %d", o6[0], o6[1], o6[2], o6[3], o6[4], o6[5]);
    must(bb_redis_add(r, "ns", "k2", 2, &nw), "a present key in a full filter");
    cr_assert(!nw);
    cr_assert_eq(bb_redis_add(r, "ns", "k9", 2, &nw), BB_E_FULL);
    must(bb_redis_info_get(r, "ns", &in), "info");
    cr_assert(in.keys_added == 3 && in.expansion == 0 && in.filters == 1);
    must(bb_redis_exists(r, "ns", "k4", 2, &present), "exists");
    cr_assert(!present, "the refused key was not added");

    /* RedisBloom v8's texts for bad parameters; nothing is created. */
    const struct { bb_redis_params p; const char *text; } bad[] = {
        {{.size = sizeof p, .error_rate = 1.0}, "ERR error rate must be in the range (0.000000, 1.000000)"},
        {{.size = sizeof p, .error_rate = -0.1}, "ERR error rate must be in the range (0.000000, 1.000000)"},
        {{.size = sizeof p, .capacity = (1ull << 30) + 1}, "ERR capacity must be in the range [1, 1073741824]"},
        {{.size = sizeof p, .expansion = 32769}, "ERR expansion must be in the range [0, 32768]"},
        {{.size = sizeof p, .expansion = 4, .nonscaling = true}, "Nonscaling filters cannot expand"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fresh(r, "badp");
        cr_assert_eq(bb_redis_reserve_params(r, "badp", &bad[i].p), BB_E_INVAL, "case %zu", i);
        cr_assert_str_eq(bb_last_error(), bad[i].text);
        cr_assert_eq(bb_redis_info_get(r, "badp", &in), BB_E_NOT_FOUND);
    }
    cr_assert_eq(bb_redis_reserve(r, "badp", 0.01, 0, 0), BB_E_INVAL);
    cr_assert_str_eq(bb_last_error(), "ERR capacity must be in the range [1, 1073741824]");
    p = (bb_redis_params){.size = sizeof p, .error_rate = 0.6, .capacity = 10};
    must(bb_redis_reserve_params(r, "badp", &p), "an error rate above 0.25");
    must(bb_redis_info_get(r, "badp", &in), "info");
    cr_assert_eq(in.error_rate, 0.25, "taken as 0.25, as RedisBloom caps it");
    must(bb_redis_del(r, "badp"), "del");
    must(bb_redis_del(r, "sem"), "del");
    cr_assert_eq(bb_redis_del(r, "sem"), BB_E_NOT_FOUND);
    bb_redis_free(r);
}

Test(standalone, madd_mexists_fpr_and_card) {
    bb_redis *r = standalone();
    fresh(r, "bulk");
    must(reserve_ns(r, "bulk", 0.01, 20000, 5), "reserve");
    keyset in = keys_make("in", 0, 20000), out = keys_make("out", 0, 20000);
    uint8_t *nw = malloc(in.n);
    must(bb_redis_madd(r, "bulk", in.keys, in.lens, in.n, nw), "madd");
    size_t fresh_keys = 0;
    for (size_t i = 0; i < in.n; i++) fresh_keys += nw[i];
    /* A key is "not new" only if all its bits were set: a false positive, rate <= ~1%. */
    cr_assert(fresh_keys >= in.n * 97 / 100, "only %zu of %zu keys were new", fresh_keys, in.n);
    assert_all_present(r, "bulk", &in);
    uint8_t *ans = malloc(out.n);
    size_t fp = 0;
    must(bb_redis_mexists(r, "bulk", out.keys, out.lens, out.n, ans, &fp), "mexists");
    /* Binomial(20000, 0.01): mean 200, sd 14; 3.3 sd each side (the model p is <= 0.01). */
    cr_assert(fp <= 247, "false positives %zu of 20000 at p = 0.01", fp);
    uint64_t card;
    must(bb_redis_card(r, "bulk", &card), "card");
    cr_assert_eq(card, fresh_keys, "card %llu, adds that answered 1: %zu", (unsigned long long)card,
                 fresh_keys);
    assert_pull_equals_local(r, "bulk", &in, 20000, 0.01);
    free(nw);
    free(ans);
    keys_free(&in);
    keys_free(&out);
    bb_redis_free(r);
}

/* Capacities above one default shard (65536 blocks), with and without --shards, up to 10^8
 * (124 MB at 1%): every key added is found, the shards are the split the meta promises, and
 * a multi-shard filter pulls byte for byte as the local build. Before the split was evened
 * out, every capacity from 3.5M up was refused ("inconsistent shard count"). */
static void any_capacity(bb_redis *r, const char *name) {
    static const struct { uint64_t cap; double p; uint64_t shards; bool ns; } cases[] = {
        {3000000, 0.01, 0, false}, {3500000, 0.01, 0, false}, {4000000, 0.01, 0, true},
        {8000000, 0.001, 0, false}, {30000000, 0.01, 0, true}, {100000000, 0.01, 0, false},
        {100000000, 0.01, 0, true}, {100000000, 0.5, 0, true}, {3500000, 0.01, 7, true},
        {4000000, 0.02, 64, false}, {1, 0.01, 0, false}, {1, 0.2, 0, true},
    };
    keyset ks = keys_make(name, 0, 5000);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fresh(r, name);
        bb_redis_forget(r, name);
        bb_redis_params pa = {.size = sizeof pa, .error_rate = cases[i].p,
                              .capacity = cases[i].cap, .nonscaling = cases[i].ns,
                              .shards = cases[i].shards};
        cr_assert_eq(bb_redis_reserve_params(r, name, &pa), BB_OK,
                     "reserve %llu at %g in %llu shards: %s", (unsigned long long)cases[i].cap,
                     cases[i].p, (unsigned long long)cases[i].shards, bb_last_error());
        size_t n = cases[i].ns && cases[i].cap < ks.n ? cases[i].cap : ks.n;
        must(bb_redis_madd(r, name, ks.keys, ks.lens, n, NULL), "madd");
        keyset part = ks;
        part.n = n;
        assert_all_present(r, name, &part);
        bb_redis_info in = BB_REDIS_INFO_INIT;
        must(bb_redis_info_get(r, name, &in), "info");
        if (in.filters == 1) {
            uint64_t want = cases[i].shards ? cases[i].shards : (in.blocks + 65535) / 65536;
            cr_assert(in.shards == want || (cases[i].shards && in.shards < want),
                      "%llu shards for %llu blocks", (unsigned long long)in.shards,
                      (unsigned long long)in.blocks);
            cr_assert(in.blocks_per_shard * in.shards >= in.blocks &&
                      in.blocks_per_shard * (in.shards - 1) < in.blocks && in.blocks_per_shard <= 65536,
                      "%llu shards of %llu blocks for %llu", (unsigned long long)in.shards,
                      (unsigned long long)in.blocks_per_shard, (unsigned long long)in.blocks);
        }
        if (cases[i].cap == 3500000 && !cases[i].ns)
            assert_pull_equals_scalable(r, name, &ks, cases[i].cap, cases[i].p, 2.0);
        if (cases[i].cap == 3500000 && cases[i].ns)
            assert_pull_equals_local(r, name, &ks, cases[i].cap, cases[i].p);
        if (cases[i].cap == 1 && !cases[i].ns) /* 5000 keys from capacity 1: 13 sub-filters */
            assert_pull_equals_scalable(r, name, &ks, 1, cases[i].p, 2.0);
    }
    must(bb_redis_del(r, name), "del");
    keys_free(&ks);
}

Test(standalone, any_capacity, .timeout = 300) {
    bb_redis *r = standalone();
    any_capacity(r, "anycap");
    bb_redis_free(r);
}

/* The shard strings are the file's payload bytes: read raw, not through the binding. */
Test(standalone, shards_are_file_bytes) {
    keyset ks;
    bb_redis *r = filled("raw", 0.02, 5000, 3, 5000, &ks);
    size_t len;
    uint8_t *local = local_bytes(&ks, 5000, 0.02, &len);
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    size_t off = 128;
    for (int s = 0; s < 3; s++) {
        redisReply *rep = redisCommand(c, "GET bb:{%d:raw}", s);
        cr_assert(rep && rep->type == REDIS_REPLY_STRING, "shard %d missing", s);
        cr_assert(off + rep->len <= len && memcmp(local + off, rep->str, rep->len) == 0,
                  "shard %d differs from bytes %zu.. of the local file", s, off);
        off += rep->len;
        freeReplyObject(rep);
    }
    cr_assert_eq(off, len, "shards cover %zu of %zu payload bytes", off - 128, len - 128);
    redisReply *m = redisCommand(c, "GET raw");
    cr_assert(m && m->len == 192 && memcmp(m->str, local, 16) == 0, "meta = file magic...");
    /* A chain's meta: a scalable header (kind 3) with the file's capacity and p. */
    cr_assert(m->str[16] == 3 && memcmp(m->str + 40, local + 40, 16) == 0, "meta header fields");
    freeReplyObject(m);
    redisFree(c);
    free(local);
    keys_free(&ks);
    bb_redis_free(r);
}

/* A broken connection (CLIENT KILL from another client) is reopened by the next call. */
Test(standalone, reconnects) {
    bb_redis *r = standalone();
    fresh(r, "rc");
    must(bb_redis_reserve(r, "rc", 0.01, 100, 0), "reserve");
    must(bb_redis_add(r, "rc", "a", 1, NULL), "add");
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    redisReply *k = redisCommand(c, "CLIENT KILL TYPE normal SKIPME yes");
    cr_assert(k && k->type == REDIS_REPLY_INTEGER && k->integer >= 1, "no client killed");
    freeReplyObject(k);
    bool present;
    must(bb_redis_exists(r, "rc", "a", 1, &present), "exists after the kill");
    cr_assert(present);
    redisFree(c);
    bb_redis_free(r);
}

/* docs/REDIS.md's recipe, computed here from its text (not the binding's code): the bits of
 * added keys read 1 with raw BITFIELD GET, and a key written with raw BITFIELD SET, as a
 * client in another language would, is found by the binding. */
static void doc_offsets(const bb_filter *hasher, const bb_redis_info *in, const char *key,
                        uint64_t *shard, uint64_t off[BB_MAX_K]) {
    uint64_t h = bb_hash(hasher, key, strlen(key));
    uint64_t b = (uint64_t)(((unsigned __int128)h * in->blocks) >> 64);
    uint64_t o = 64 * (b % in->blocks_per_shard);
    uint32_t x = (uint32_t)h;
    *shard = b / in->blocks_per_shard;
    for (unsigned j = 0; j < in->k; j++) {
        x *= 0x9E3779B9u;
        uint32_t p = x >> 23;
        off[j] = 8 * (o + p / 8) + 7 - p % 8;
    }
}

static redisReply *bitfield(redisContext *c, const char *name, uint64_t shard, unsigned k,
                            const uint64_t *off, bool set) {
    char key[64], nums[BB_MAX_K][24];
    const char *argv[2 + 4 * BB_MAX_K];
    size_t argl[2 + 4 * BB_MAX_K];
    int argc = 0;
    snprintf(key, sizeof key, "bb:{%llu:%s}", (unsigned long long)shard, name);
    argv[argc++] = "BITFIELD";
    argv[argc++] = key;
    for (unsigned j = 0; j < k; j++) {
        snprintf(nums[j], sizeof nums[j], "%llu", (unsigned long long)off[j]);
        argv[argc++] = set ? "SET" : "GET";
        argv[argc++] = "u1";
        argv[argc++] = nums[j];
        if (set) argv[argc++] = "1";
    }
    for (int i = 0; i < argc; i++) argl[i] = strlen(argv[i]);
    redisReply *rep = redisCommandArgv(c, argc, argv, argl);
    cr_assert(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == k, "BITFIELD failed");
    return rep;
}

Test(standalone, documented_bit_offsets) {
    keyset ks;
    bb_redis *r = filled("doc", 0.01, 3000, 3, 200, &ks);
    bb_redis_info in = BB_REDIS_INFO_INIT;
    must(bb_redis_info_get(r, "doc", &in), "info");
    bb_filter *hasher;
    cr_assert_eq(bb_create_for(&hasher, BB_BLOCKED, 1, 0.5, in.seed), BB_OK);
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    uint64_t shard, off[BB_MAX_K];
    for (size_t i = 0; i < ks.n; i++) {
        doc_offsets(hasher, &in, ks.keys[i], &shard, off);
        redisReply *rep = bitfield(c, "doc", shard, in.k, off, false);
        for (size_t j = 0; j < rep->elements; j++)
            cr_assert_eq(rep->element[j]->integer, 1, "key %zu bit %zu not set where documented", i, j);
        freeReplyObject(rep);
    }
    bool present;
    must(bb_redis_exists(r, "doc", "foreign", 7, &present), "exists");
    cr_assert(!present, "'foreign' before it is written");
    doc_offsets(hasher, &in, "foreign", &shard, off);
    freeReplyObject(bitfield(c, "doc", shard, in.k, off, true));
    must(bb_redis_exists(r, "doc", "foreign", 7, &present), "exists");
    cr_assert(present, "a key written by the documented recipe is found");
    redisFree(c);
    bb_free(hasher);
    keys_free(&ks);
    bb_redis_free(r);
}

/* ---- Standalone: bad input leaves everything untouched ---------------------------------------------- */

static redisReply *cmd(redisContext *c, const char *fmt, const char *arg) {
    redisReply *rep = redisCommand(c, fmt, arg);
    cr_assert(rep, "raw command failed");
    return rep;
}

static char *get_all(redisContext *c, const char *key, size_t *len) {
    redisReply *rep = cmd(c, "GET %s", key);
    char *v = rep->type == REDIS_REPLY_STRING ? malloc(rep->len + 1) : NULL;
    *len = v ? rep->len : 0;
    if (v) memcpy(v, rep->str, rep->len);
    freeReplyObject(rep);
    return v;
}

Test(standalone, bad_inputs) {
    bb_redis *r = standalone();
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    freeReplyObject(cmd(c, "SET %s hello", "plain"));
    freeReplyObject(cmd(c, "HSET %s a b", "ahash"));
    cr_assert_eq(bb_redis_reserve(r, "plain", 0.01, 100, 0), BB_E_WRONGTYPE);
    cr_assert_eq(bb_redis_reserve(r, "ahash", 0.01, 100, 0), BB_E_WRONGTYPE);
    cr_assert_eq(bb_redis_add(r, "plain", "x", 1, NULL), BB_E_WRONGTYPE);
    cr_assert_eq(bb_redis_del(r, "ahash"), BB_E_WRONGTYPE);
    redisReply *t = cmd(c, "TYPE %s", "ahash");
    cr_assert_str_eq(t->str, "hash", "del must leave a non-filter key alone");
    freeReplyObject(t);
    fresh(r, "badp");
    double bad_p[] = {0.0, 1.0, -0.5, 1.5, NAN};
    for (size_t i = 0; i < sizeof bad_p / sizeof *bad_p; i++) {
        cr_assert_eq(bb_redis_reserve(r, "badp", bad_p[i], 100, 0), BB_E_INVAL, "p %g", bad_p[i]);
        cr_assert(strstr(bb_last_error(), "error rate"), "message: %s", bb_last_error());
    }
    cr_assert_eq(bb_redis_reserve(r, "badp", 0.01, 0, 0), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "capacity"));
    redisReply *e = cmd(c, "EXISTS %s bb:{0:badp} bb:{n:badp}", "badp");
    cr_assert_eq(e->integer, 0, "refused reserves created keys");
    freeReplyObject(e);

    /* A filter, then damaged meta (a flipped byte, a newer version) and a shard of the
     * wrong length: every call refuses and no shard byte changes. */
    fresh(r, "dmg");
    must(bb_redis_reserve(r, "dmg", 0.01, 2000, 2), "reserve");
    must(bb_redis_add(r, "dmg", "kept", 4, NULL), "add");
    size_t l0;
    char *s0 = get_all(c, "bb:{0:dmg}", &l0);
    size_t ml;
    char *meta = get_all(c, "dmg", &ml);
    const struct { size_t off; const char *bytes; bb_status want; } damage[] = {
        {130, "Z", BB_E_CORRUPT},     /* record magic */
        {8, "\x02", BB_E_CORRUPT},    /* file format version 2 */
        {136, "\x07", BB_E_CORRUPT},  /* layout version 7 */
        {24, "\x01", BB_E_CORRUPT},   /* bits: header checksum no longer matches */
    };
    for (size_t i = 0; i < sizeof damage / sizeof *damage; i++) {
        redisReply *w = redisCommand(c, "SETRANGE dmg %d %b", (int)damage[i].off, damage[i].bytes, (size_t)1);
        freeReplyObject(w);
        bb_redis *r2 = standalone(); /* no cached meta */
        cr_assert_eq(bb_redis_add(r2, "dmg", "new", 3, NULL), damage[i].want, "damage %zu: %s",
                     i, bb_last_error());
        bb_redis_free(r2);
        w = redisCommand(c, "SET dmg %b", meta, ml);
        freeReplyObject(w);
    }
    freeReplyObject(redisCommand(c, "SET dmg %b", meta, (size_t)100));
    bb_redis *r3 = standalone();
    cr_assert_eq(bb_redis_add(r3, "dmg", "new", 3, NULL), BB_E_CORRUPT, "short meta");
    freeReplyObject(redisCommand(c, "SET dmg %b", meta, ml));
    freeReplyObject(cmd(c, "APPEND %s x", "bb:{1:dmg}"));
    bb_redis_forget(r3, NULL);
    cr_assert_eq(bb_redis_add(r3, "dmg", "new", 3, NULL), BB_E_INCONSISTENT, "long shard");
    cr_assert(strstr(bb_last_error(), "bb:{1:dmg}"), "message names the shard: %s", bb_last_error());
    freeReplyObject(cmd(c, "DEL %s", "bb:{1:dmg}"));
    cr_assert_eq(bb_redis_add(r3, "dmg", "new", 3, NULL), BB_E_INCONSISTENT, "missing shard");
    size_t n0;
    char *a0 = get_all(c, "bb:{0:dmg}", &n0);
    cr_assert(n0 == l0 && memcmp(a0, s0, l0) == 0, "shard 0 changed by refused calls");
    free(a0);
    free(s0);
    free(meta);
    bb_redis_free(r3);
    redisFree(c);
    bb_redis_free(r);
}

/* A name in the binding's key space ("bb:{S:NAME}" is NAME's shard S) is refused before
 * any key is written: a filter "bb:{0:nk}" would have its meta key at filter nk's shard 0,
 * so reserving, pushing or deleting one would destroy the other. */
Test(standalone, names_in_the_shard_key_space) {
    bb_redis *r = standalone();
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    const char *theirs = "EXISTS bb:{0:bb:{0:nk}} bb:{n:bb:{0:nk}} %s";
    freeReplyObject(cmd(c, "DEL bb:{0:bb:{0:nk}} bb:{n:bb:{0:nk}} %s", "bb:{0:nk}"));
    fresh(r, "nk");
    cr_assert_eq(bb_redis_reserve(r, "bb:{0:nk}", 0.01, 1000, 1), BB_E_INVAL, "%s",
                 bb_last_error());
    cr_assert(strstr(bb_last_error(), "bb:{"), "message: %s", bb_last_error());
    redisReply *e = cmd(c, theirs, "bb:{0:nk}");
    cr_assert_eq(e->integer, 0, "the refused reserve created keys");
    freeReplyObject(e);
    must(bb_redis_reserve(r, "nk", 0.01, 1000, 1), "reserve nk");
    must(bb_redis_add(r, "nk", "kept", 4, NULL), "add");
    size_t l0, l1;
    char *s0 = get_all(c, "bb:{0:nk}", &l0);
    cr_assert_eq(bb_redis_reserve(r, "bb:{0:nk}", 0.01, 1000, 1), BB_E_INVAL);
    cr_assert_eq(bb_redis_del(r, "bb:{0:nk}"), BB_E_INVAL);
    cr_assert_eq(bb_redis_add(r, "bb:{0:nk}", "x", 1, NULL), BB_E_INVAL);
    char *s1 = get_all(c, "bb:{0:nk}", &l1);
    cr_assert(l0 == l1 && memcmp(s0, s1, l0) == 0, "nk's shard 0 changed by refused calls");
    bool found = false;
    must(bb_redis_exists(r, "nk", "kept", 4, &found), "exists");
    cr_assert(found, "nk lost its key");
    free(s0);
    free(s1);
    redisFree(c);
    bb_redis_free(r);
}

/* The meta key has no key scheme: a filter of CIDR ranges pushed as it is would be read
 * back (pull, query) as plain keys and miss every address in its ranges. */
Test(standalone, push_refuses_key_schemes) {
    bb_redis *r = standalone();
    fresh(r, "ranges");
    bb_filter *f;
    cr_assert_eq(bb_create_for(&f, BB_BLOCKED, 1000, 0.01, 0), BB_OK);
    uint8_t a[16];
    unsigned len;
    cr_assert_eq(bb_cidr_parse("10.0.0.0/8", 10, a, &len), BB_OK);
    cr_assert_eq(bb_cidr_add(f, NULL, a, len), BB_OK);
    cr_assert_eq(bb_redis_push(r, f, "ranges", 0), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "--keys cidr"), "message: %s", bb_last_error());
    bool found = true;
    must(bb_redis_exists(r, "ranges", "x", 1, &found), "exists of a filter never pushed");
    cr_assert(!found, "a missing filter answers 0");
    bb_redis_info in = BB_REDIS_INFO_INIT;
    cr_assert_eq(bb_redis_info_get(r, "ranges", &in), BB_E_NOT_FOUND, "nothing was pushed");
    bb_free(f);
    bb_redis_free(r);
}

/* EXPANSION 1 makes a deep chain (here 20 sub-filters of 50 keys for 1000 keys): probing a
 * batch against all of them takes several pipelines (PROBE_ROUND), and the answers, the
 * count and the pulled file are still the local scalable filter's. */
Test(standalone, deep_chain) {
    bb_redis *r = standalone();
    fresh(r, "deep");
    bb_redis_params p = {.size = sizeof p, .capacity = 50, .error_rate = 0.01, .expansion = 1};
    must(bb_redis_reserve_params(r, "deep", &p), "reserve EXPANSION 1");
    keyset ks = keys_make("deep", 0, 1000);
    uint8_t *nw = malloc(ks.n);
    must(bb_redis_madd(r, "deep", ks.keys, ks.lens, ks.n, nw), "madd");
    size_t fresh_keys = 0;
    for (size_t i = 0; i < ks.n; i++) fresh_keys += nw[i];
    bb_redis_info in = BB_REDIS_INFO_INIT;
    must(bb_redis_info_get(r, "deep", &in), "info");
    cr_assert(in.filters >= 19 && in.keys_added == fresh_keys && in.expansion == 1,
              "%llu sub-filters, count %llu of %zu new", (unsigned long long)in.filters,
              (unsigned long long)in.keys_added, fresh_keys);
    assert_all_present(r, "deep", &ks);
    must(bb_redis_madd(r, "deep", ks.keys, ks.lens, ks.n, nw), "madd again");
    for (size_t i = 0; i < ks.n; i++) cr_assert_eq(nw[i], 0, "key %zu new twice", i);
    assert_pull_equals_scalable(r, "deep", &ks, 50, 0.01, 1.0);
    free(nw);
    keys_free(&ks);
    bb_redis_free(r);
}

/* A counter set by hand to something that is not a count is an error, not 2^64 - 5: the
 * counter string of a pushed filter, and a field of a chain's state hash. */
Test(standalone, damaged_counter) {
    bb_redis *r = standalone();
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    fresh(r, "cnt");
    bb_filter *L;
    cr_assert_eq(bb_create_for(&L, BB_BLOCKED, 1000, 0.01, 0), BB_OK);
    must(bb_redis_push(r, L, "cnt", 1), "push");
    bb_free(L);
    const char *bad[] = {"-5", "99999999999999999999", " 7", "7x", ""};
    bb_redis_info in = BB_REDIS_INFO_INIT;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        freeReplyObject(redisCommand(c, "SET bb:{n:cnt} %s", bad[i]));
        cr_assert_eq(bb_redis_info_get(r, "cnt", &in), BB_E_SERVER, "counter '%s' read as %llu",
                     bad[i], (unsigned long long)in.keys_added);
        cr_assert(strstr(bb_last_error(), "bb:{n:cnt}"), "message: %s", bb_last_error());
    }
    freeReplyObject(cmd(c, "SET bb:{n:cnt} %s", "18446744073709551615"));
    must(bb_redis_info_get(r, "cnt", &in), "info");
    cr_assert_eq(in.keys_added, UINT64_MAX);
    fresh(r, "cnt2");
    must(bb_redis_reserve(r, "cnt2", 0.01, 1000, 1), "reserve");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        freeReplyObject(redisCommand(c, "HSET bb:{n:cnt2} c0 %s", bad[i]));
        cr_assert_eq(bb_redis_info_get(r, "cnt2", &in), BB_E_SERVER, "count '%s' read as %llu",
                     bad[i], (unsigned long long)in.keys_added);
        cr_assert(strstr(bb_last_error(), "bb:{n:cnt2}"), "message: %s", bb_last_error());
    }
    redisFree(c);
    bb_redis_free(r);
}

/* ---- Standalone: concurrent writers, push, slices ---------------------------------------------------- */

/* Writers in several processes add to one scalable filter, so that they cross each growth
 * threshold at once: reserved for 1000 keys (7 sub-filters for 40000 keys), or, with
 * `create`, missing, so that every writer's first batch also races to create it with
 * RedisBloom's defaults (capacity 100: 10 sub-filters). No key is lost, every sub-filter holds
 * at most its capacity and all but the newest (about) it (they agreed when to grow), the
 * count is exactly the number of adds that answered 1, and the filter stays below 1%. */
static void concurrent_writers(bb_redis *(*connect)(void), const char *name, bool create) {
    bb_redis *r = connect();
    fresh(r, name);
    if (!create) must(bb_redis_reserve(r, name, 0.01, 1000, 0), "reserve");
    enum { WRITERS = 4, PER = 10000 };
    uint64_t *ones = mmap(NULL, WRITERS * sizeof *ones, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(ones != MAP_FAILED);
    pid_t pid[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        if ((pid[w] = fork()) == 0) {
            bb_redis *c = connect();
            char tag[8];
            snprintf(tag, sizeof tag, "w%d", w);
            keyset ks = keys_make(tag, 0, PER);
            uint8_t nw[500];
            int rc = 0;
            for (size_t i = 0; i < PER && !rc; i += 500) { /* batches interleave between writers */
                rc = bb_redis_madd(c, name, ks.keys + i, ks.lens + i, 500, nw) != BB_OK;
                if (rc) fprintf(stderr, "writer %d: %s\n", w, bb_last_error());
                for (size_t j = 0; j < 500; j++) ones[w] += nw[j];
            }
            _exit(rc);
        }
    }
    uint64_t answered_1 = 0;
    for (int w = 0; w < WRITERS; w++) {
        int st;
        waitpid(pid[w], &st, 0);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", w);
        answered_1 += ones[w];
    }
    for (int w = 0; w < WRITERS; w++) {
        char tag[8];
        snprintf(tag, sizeof tag, "w%d", w);
        keyset ks = keys_make(tag, 0, PER);
        assert_all_present(r, name, &ks);
        keys_free(&ks);
    }
    bb_redis_info in = BB_REDIS_INFO_INIT;
    must(bb_redis_info_get(r, name, &in), "info");
    cr_assert_eq(in.keys_added, answered_1, "count %llu, adds that answered 1 %llu",
                 (unsigned long long)in.keys_added, (unsigned long long)answered_1);
    cr_assert(answered_1 > WRITERS * PER * 99 / 100, "only %llu new", (unsigned long long)answered_1);
    cr_assert_geq(in.filters, create ? 9 : 6, "%llu sub-filters for 40000 keys",
                  (unsigned long long)in.filters);
    bb_filter *f;
    must(bb_redis_pull(r, name, &f), "pull");
    for (size_t i = 0; i < in.filters; i++) {
        bb_info si = BB_INFO_INIT;
        cr_assert_eq(bb_subfilter_info(f, i, &si), BB_OK);
        cr_assert(si.keys_added <= si.capacity, "sub-filter %zu holds %llu keys, capacity %llu", i,
                  (unsigned long long)si.keys_added, (unsigned long long)si.capacity);
        /* Full when it grew: exactly, unless a writer held room past the wait (2 s). */
        if (i + 1 < in.filters)
            cr_assert(si.keys_added >= si.capacity * 9 / 10, "sub-filter %zu grew at %llu of %llu",
                      i, (unsigned long long)si.keys_added, (unsigned long long)si.capacity);
    }
    keyset out = keys_make("absent", 0, 50000);
    size_t fp = 0;
    uint8_t *ans = malloc(out.n);
    must(bb_redis_mexists(r, name, out.keys, out.lens, out.n, ans, &fp), "mexists");
    /* Binomial(50000, <= 0.01): <= 500 + 3.3 sd (70). */
    cr_assert(fp <= 570, "%zu false positives of 50000 at 1%%", fp);
    free(ans);
    keys_free(&out);
    bb_free(f);
    munmap(ones, WRITERS * sizeof *ones);
    bb_redis_free(r);
}

Test(standalone, concurrent_writers_lose_nothing) {
    concurrent_writers(standalone, "conc", false);
}

Test(standalone, concurrent_creators_lose_nothing) {
    concurrent_writers(standalone, "concnew", true);
}

/* Creators racing for one name: each reserves it (each with another capacity) and, if it
 * won, adds its keys. One wins; a loser must not DEL or re-zero the winner's shards, before
 * or after the winner's meta key is written (it used to, whenever it had found the name
 * free: the winner's keys vanished or its shards took a loser's length). */
Test(standalone, racing_reserves_lose_nothing) {
    enum { CREATORS = 6, ROUNDS = 8, PER = 2000 };
    bb_redis *r = standalone();
    for (int round = 0; round < ROUNDS; round++) {
        fresh(r, "race");
        pid_t pid[CREATORS];
        for (int w = 0; w < CREATORS; w++) {
            if ((pid[w] = fork()) == 0) {
                bb_redis *c = standalone();
                bb_status s = bb_redis_reserve(c, "race", 0.01, PER * (uint64_t)(w + 1), 0);
                if (s == BB_E_EXISTS) _exit(10); /* lost the race: fine */
                char tag[8];
                snprintf(tag, sizeof tag, "c%d", w);
                keyset ks = keys_make(tag, 0, PER);
                _exit(s == BB_OK &&
                      bb_redis_madd(c, "race", ks.keys, ks.lens, ks.n, NULL) == BB_OK ? 0 : 1);
            }
        }
        int winner = -1;
        for (int w = 0; w < CREATORS; w++) {
            int st;
            waitpid(pid[w], &st, 0);
            cr_assert(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 10),
                      "round %d: creator %d failed", round, w);
            if (WEXITSTATUS(st) == 0) {
                cr_assert_eq(winner, -1, "round %d: creators %d and %d both won", round, winner, w);
                winner = w;
            }
        }
        cr_assert_neq(winner, -1, "round %d: no creator won", round);
        char tag[16];
        snprintf(tag, sizeof tag, "c%d", winner);
        keyset ks = keys_make(tag, 0, PER);
        bb_redis_forget(r, NULL);
        assert_all_present(r, "race", &ks);
        keys_free(&ks);
    }
    bb_redis_free(r);
}

Test(standalone, push_then_pull_and_slices) {
    bb_redis *r = standalone();
    keyset ks = keys_make("push", 0, 30000);
    size_t len;
    uint8_t *local = local_bytes(&ks, 30000, 0.001, &len);
    bb_filter *f;
    cr_assert_eq(bb_deserialize(&f, local, len), BB_OK);
    fresh(r, "pushed");
    must(bb_redis_push(r, f, "pushed", 4), "push");
    cr_assert_eq(bb_redis_push(r, f, "pushed", 4), BB_E_EXISTS);
    assert_all_present(r, "pushed", &ks);
    assert_pull_equals_local(r, "pushed", &ks, 30000, 0.001);

    /* Slices 0..3 of the same filter, pushed in a scrambled order: the filter appears only
     * with the last one, and then equals the local build. */
    fresh(r, "sliced");
    bb_config cfg = {
        .size = sizeof(bb_config), .kind = BB_BLOCKED, .capacity = 30000, .fpr = 0.001};
    const uint64_t order[4] = {2, 0, 3, 1};
    for (int j = 0; j < 4; j++) {
        bb_slice *s;
        cr_assert_eq(bb_slice_create(&s, &cfg, order[j], 4), BB_OK);
        int64_t *off = malloc((ks.n + 1) * sizeof *off);
        char *data = malloc(ks.n * 40);
        off[0] = 0;
        for (size_t i = 0; i < ks.n; i++) {
            memcpy(data + off[i], ks.keys[i], ks.lens[i]);
            off[i + 1] = off[i] + (int64_t)ks.lens[i];
        }
        cr_assert_eq(bb_slice_add_arrow64(s, data, off, ks.n), BB_OK);
        bb_slice_info in = BB_SLICE_INFO_INIT;
        bb_slice_get_info(s, &in);
        bb_info fi = BB_INFO_INIT;
        bb_get_info(f, &fi);
        in.keys_added = fi.keys_added; /* the adds that were new, as --keys N says it */
        uint64_t bytes;
        const void *p = bb_slice_data(s, &bytes);
        bool published, present;
        if (j == 1) { /* a slice of another geometry is refused */
            bb_slice_info other = in;
            other.k++;
            cr_assert_eq(bb_redis_push_slice(r, &other, p, bytes, "sliced", &published),
                         BB_E_MISMATCH);
        }
        must(bb_redis_push_slice(r, &in, p, bytes, "sliced", &published), "push_slice");
        cr_assert_eq(published, j == 3, "published after slice %d of 4", j + 1);
        must(bb_redis_exists(r, "sliced", ks.keys[0], ks.lens[0], &present), "exists");
        cr_assert_eq(present, j == 3, "readers see no half filter (a missing one answers 0)");
        free(off);
        free(data);
        bb_slice_free(s);
    }
    assert_pull_equals_local(r, "sliced", &ks, 30000, 0.001);
    bb_free(f);
    free(local);
    keys_free(&ks);
    bb_redis_free(r);
}

/* ---- Cluster ------------------------------------------------------------------------------------- */

Test(cluster, commands_and_pull) {
    bb_redis *r = cluster();
    fresh(r, "cf");
    must(reserve_ns(r, "cf", 0.01, 50000, 12), "reserve");
    keyset ks = keys_make("c", 0, 50000);
    uint64_t before = bb_redis_round_trips(r);
    for (size_t i = 0; i < ks.n; i += 1000)
        must(bb_redis_madd(r, "cf", ks.keys + i, ks.lens + i, 1000, NULL), "madd");
    uint64_t trips = bb_redis_round_trips(r) - before;
    /* Per batch of 1000: the reservation (one node), the bits (one round trip per node) and
     * the count (one node), at most 5 x 50 (no redirections here), plus opening the filter:
     * one GET of the meta key, one HGET of the state, one STRLEN pipeline per node. */
    cr_assert(trips <= 250 + 5, "%llu round trips for 50 batches on 3 nodes", (unsigned long long)trips);
    assert_all_present(r, "cf", &ks);
    assert_pull_equals_local(r, "cf", &ks, 50000, 0.01);
    keys_free(&ks);
    bb_redis_free(r);
}

Test(cluster, any_capacity, .timeout = 300) {
    bb_redis *r = cluster();
    any_capacity(r, "anycapc");
    bb_redis_free(r);
}

Test(cluster, concurrent_creators_lose_nothing) {
    concurrent_writers(cluster, "concnewc", true);
}

/* The node that owns `key`'s slot: the one that answers without a redirection. */
static int owner_of(redisContext **n, const char *key) {
    for (int i = 0; i < 3; i++) {
        redisReply *rep = redisCommand(n[i], "STRLEN %s", key);
        bool mine = rep && rep->type == REDIS_REPLY_INTEGER;
        freeReplyObject(rep);
        if (mine) return i;
    }
    cr_assert_fail("no node owns %s", key);
    return -1;
}

static char *node_id(redisContext *c) {
    redisReply *rep = redisCommand(c, "CLUSTER MYID");
    cr_assert(rep && rep->type == REDIS_REPLY_STRING);
    char *id = strdup(rep->str);
    freeReplyObject(rep);
    return id;
}

static void ok(redisReply *rep, const char *what) {
    cr_assert(rep && rep->type != REDIS_REPLY_ERROR, "%s: %s", what, rep ? rep->str : "no reply");
    freeReplyObject(rep);
}

/* The source node's reply to a raw GETRANGE of `key`: "ASK ..." or "MOVED ..." expected. */
static void assert_redirects(redisContext *c, const char *key, const char *prefix) {
    redisReply *rep = redisCommand(c, "GETRANGE %s 0 63", key);
    cr_assert(rep && rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, prefix, strlen(prefix)) == 0,
              "the source should answer %s for %s: %s", prefix, key, rep && rep->str ? rep->str : "?");
    freeReplyObject(rep);
}

/* madd of ks through r in one call (one pipeline), checking every BF.MADD reply against the
 * local filter L: a key is new exactly when L did not contain it before it was added. */
static void madd_like_local(bb_redis *r, bb_filter *L, const keyset *ks, const char *what) {
    uint8_t *nw = malloc(ks->n);
    must(bb_redis_madd(r, "mig", ks->keys, ks->lens, ks->n, nw), what);
    for (size_t i = 0; i < ks->n; i++) {
        bool was_new = add_new(L, ks->keys[i], ks->lens[i]);
        cr_assert_eq(nw[i], was_new, "%s: key %zu new %d, local %d", what, i, nw[i], was_new);
    }
    free(nw);
}

/* mexists of ks through r in one call, every answer equal to the local filter's. */
static void mexists_like_local(bb_redis *r, const bb_filter *L, const keyset *ks, const char *what) {
    uint8_t *out = malloc(ks->n);
    size_t hits = 0, want = 0;
    must(bb_redis_mexists(r, "mig", ks->keys, ks->lens, ks->n, out, &hits), what);
    for (size_t i = 0; i < ks->n; i++) {
        bool in = bb_contains(L, ks->keys[i], ks->lens[i]);
        want += in;
        cr_assert_eq(out[i], in, "%s: key %zu answered %d, local %d", what, i, out[i], in);
    }
    cr_assert_eq(hits, want);
    free(out);
}

/* Shard 0's slot is resharded while one pipelined batch runs on it. Deterministically: the
 * slot is put in MIGRATING (source) / IMPORTING (target) state and its key MIGRATEd before
 * the batch, so inside each madd/mexists pipeline every command on shard 0 is answered
 * -ASK by the source (checked with a raw GETRANGE) and must be resent with ASKING to the
 * target, while the commands on the other shards are answered directly. After SETSLOT NODE
 * on every node, handles that still hold the old map get -MOVED inside their next batch.
 * Every BF.MADD / BF.MEXISTS reply must equal a local filter's, and pull its bytes. */
Test(cluster, resharding_mid_batch) {
    bb_redis *r = cluster(), *stale = NULL;
    fresh(r, "mig");
    must(reserve_ns(r, "mig", 0.01, 30000, 3), "reserve");
    bb_filter *L;
    cr_assert_eq(bb_create_for(&L, BB_BLOCKED, 30000, 0.01, 0), BB_OK);
    keyset a = keys_make("a", 0, 8000), b = keys_make("b", 0, 8000), c = keys_make("c2", 0, 8000);
    keyset probe = keys_make("a", 4000, 20000); /* half of a, 16000 never added */
    madd_like_local(r, L, &a, "madd before");
    stale = cluster();
    mexists_like_local(stale, L, &a, "mexists before (caches the map)");
    redisContext *n[3];
    for (int i = 0; i < 3; i++) n[i] = raw(seeds[i]);
    const char *key = "bb:{0:mig}";
    int src = owner_of(n, key), dst = (src + 1) % 3;
    char *src_id = node_id(n[src]), *dst_id = node_id(n[dst]);
    redisReply *sl = redisCommand(n[src], "CLUSTER KEYSLOT %s", key);
    long long slot = sl->integer;
    freeReplyObject(sl);
    ok(redisCommand(n[dst], "CLUSTER SETSLOT %lld IMPORTING %s", slot, src_id), "importing");
    ok(redisCommand(n[src], "CLUSTER SETSLOT %lld MIGRATING %s", slot, dst_id), "migrating");
    const char *dport = strrchr(seeds[dst], ':') + 1;
    ok(redisCommand(n[src], "MIGRATE 127.0.0.1 %s %b 0 5000 KEYS %s", dport, "", (size_t)0, key),
       "migrate");
    assert_redirects(n[src], key, "ASK ");
    uint64_t t0 = bb_redis_round_trips(r);
    madd_like_local(r, L, &b, "madd while the slot migrates (ASK)");
    /* Round 1 reaches at most the 3 nodes; the ASKed commands need a second round. */
    cr_assert_geq(bb_redis_round_trips(r) - t0, 2, "no second round: ASK not followed?");
    mexists_like_local(r, L, &probe, "mexists while the slot migrates (ASK)");
    for (int i = 0; i < 3; i++)
        ok(redisCommand(n[i], "CLUSTER SETSLOT %lld NODE %s", slot, dst_id), "setslot node");
    assert_redirects(n[src], key, "MOVED ");
    madd_like_local(r, L, &c, "madd after the migration (MOVED)");
    mexists_like_local(stale, L, &probe, "mexists after the migration (MOVED)");
    bb_redis *other = cluster(); /* a new handle with the new map agrees */
    assert_all_present(other, "mig", &a);
    assert_all_present(other, "mig", &b);
    assert_all_present(other, "mig", &c);
    uint64_t size;
    size_t la, lb;
    cr_assert_eq(bb_serialized_size(L, &size), BB_OK);
    uint8_t *want = malloc(size), *got = pulled_bytes(other, "mig", &lb);
    cr_assert_eq(bb_serialize(L, want, size, &la), BB_OK);
    cr_assert(la == lb && memcmp(want, got, la) == 0, "pulled filter differs from the local one");
    redisReply *len = redisCommand(n[dst], "STRLEN %s", key);
    cr_assert(len && len->type == REDIS_REPLY_INTEGER && len->integer > 0, "shard now on the target");
    freeReplyObject(len);
    for (int i = 0; i < 3; i++) redisFree(n[i]);
    free(want);
    free(got);
    free(src_id);
    free(dst_id);
    keys_free(&a);
    keys_free(&b);
    keys_free(&c);
    keys_free(&probe);
    bb_free(L);
    bb_redis_free(other);
    bb_redis_free(stale);
    bb_redis_free(r);
}

/* Kill a master (BB_REDIS_KILL_PID, port BB_REDIS_KILL_PORT) from a child process 50 ms
 * into one madd of 60000 keys (a pipeline of 60000 commands, well over 50 ms here): the call
 * must fail with BB_E_IO naming host:port, never report success. Should the call have
 * finished before the kill, the next call must fail the same way (said on stderr). A request
 * retries a refused node until its deadline, so the deadline (1.5 s) must end before the
 * cluster notices (node timeout 2 s): after that the live nodes answer CLUSTERDOWN, which a
 * slow run (a sanitizer build on a loaded machine) may still meet, and which must then be
 * named instead. */
Test(cluster_kill, node_killed_mid_batch) {
    bb_redis *r = cluster_with(1500);
    pid_t victim = (pid_t)atol(env_or_skip("BB_REDIS_KILL_PID"));
    const char *victim_port = env_or_skip("BB_REDIS_KILL_PORT");
    fresh(r, "kill");
    must(reserve_ns(r, "kill", 0.01, 200000, 12), "reserve");
    keyset ks = keys_make("k", 0, 60000);
    must(bb_redis_madd(r, "kill", ks.keys, ks.lens, 1000, NULL), "madd before the kill");
    pid_t killer = fork();
    if (killer == 0) {
        usleep(50000);
        _exit(kill(victim, SIGKILL) != 0);
    }
    bb_status s = bb_redis_madd(r, "kill", ks.keys, ks.lens, ks.n, NULL);
    int st;
    waitpid(killer, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the kill failed");
    if (s == BB_OK) {
        fprintf(stderr, "[NOTE] the batch finished before the kill; checking the next one\n");
        s = bb_redis_madd(r, "kill", ks.keys, ks.lens, ks.n, NULL);
    }
    char want[64];
    snprintf(want, sizeof want, "127.0.0.1:%s", victim_port);
    if (s == BB_E_SERVER && strstr(bb_last_error(), "CLUSTERDOWN")) {
        fprintf(stderr, "[NOTE] the cluster noticed first: %s\n", bb_last_error());
        cr_assert(strstr(bb_last_error(), "127.0.0.1:"), "names a node: %s", bb_last_error());
    } else {
        cr_assert_eq(s, BB_E_IO, "status %d: %s", s, bb_last_error());
        cr_assert(strstr(bb_last_error(), want), "error names %s: %s", want, bb_last_error());
    }
    cr_assert(strstr(bb_last_error(), "commands not done"), "says the batch is incomplete: %s",
              bb_last_error());
    keys_free(&ks);
    bb_redis_free(r);
}

/* ---- Claims beyond the bound of a filter --------------------------------------------------------- */

static void put64(char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (char)(v >> (8 * i));
}

/* Every call on `name` refused as damaged, naming it, in a child whose address space may grow
 * by only 64 MiB (naming the ~10^9 shards of such a claim takes 3.3 GB and more) and which an
 * alarm ends if it hangs; then del removes every key of it. */
static void refused_in_small_memory(const char *name, const char *const *keys, size_t n_keys) {
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (!statm || fscanf(statm, "%ld", &pages) != 1) _exit(3);
        fclose(statm);
        struct rlimit lim = {(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (64u << 20), RLIM_INFINITY};
        lim.rlim_max = lim.rlim_cur;
        if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
        alarm(20);
        bb_redis *r;
        if (bb_redis_connect(&r, getenv("BB_REDIS_URL")) != BB_OK) _exit(3);
        bb_redis_info in = BB_REDIS_INFO_INIT;
        uint64_t card;
        bool present;
        bb_filter *f = NULL;
        int bad = 0;
        bb_status st[] = {bb_redis_info_get(r, name, &in), bb_redis_card(r, name, &card),
                          bb_redis_exists(r, name, "k", 1, &present),
                          bb_redis_add(r, name, "k", 1, NULL), bb_redis_pull(r, name, &f)};
        for (size_t i = 0; i < sizeof st / sizeof *st; i++)
            if (st[i] != BB_E_CORRUPT || !strstr(bb_last_error(), "refused as damaged") ||
                !strstr(bb_last_error(), name)) {
                fprintf(stderr, "call %zu on '%s': %s (%s)\n", i, name, bb_strerror(st[i]), bb_last_error());
                bad = 1;
            }
        bb_free(f);
        if (bb_redis_del(r, name) != BB_OK) {
            fprintf(stderr, "del '%s': %s\n", name, bb_last_error());
            bad = 1;
        }
        bb_redis_free(r);
        _exit(bad);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "'%s' not refused in 64 MiB (status %d)",
              name, status);
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    for (size_t i = 0; i < n_keys; i++) {
        redisReply *e = cmd(c, "EXISTS %s", keys[i]);
        cr_assert_eq(e->integer, 0, "del left %s", keys[i]);
        freeReplyObject(e);
    }
    redisFree(c);
}

/* A chain's state claiming 40 sub-filters (EXPANSION 2 from 100 keys: 2^55 bits in ~10^9
 * shards), and a fixed meta with valid checksums claiming 2^56 bits in one shard per block. */
Test(standalone, claims_beyond_the_bound) {
    bb_redis *r = standalone();
    redisContext *c = raw(getenv("BB_REDIS_URL"));
    fresh(r, "huge2");
    must(bb_redis_reserve(r, "huge2", 0.01, 100, 2), "reserve");
    freeReplyObject(cmd(c, "HSET bb:{n:huge2} subs %s", "40"));
    const char *chain_keys[] = {"huge2", "bb:{n:huge2}", "bb:{0:huge2}"};
    refused_in_small_memory("huge2", chain_keys, 3);

    fresh(r, "lie");
    bb_filter *L, *zero;
    cr_assert_eq(bb_create_for(&L, BB_BLOCKED, 100000, 0.01, 0), BB_OK);
    must(bb_redis_push(r, L, "lie", 2), "push");
    bb_free(L);
    bb_config zc = {.size = sizeof zc, .kind = BB_BLOCKED, .bits = 512, .k = 1, .seed = 0};
    cr_assert_eq(bb_create(&zero, &zc), BB_OK);
    size_t ml;
    char *m = get_all(c, "lie", &ml);
    cr_assert_eq(ml, 192u);
    uint64_t bits = UINT64_C(1) << 56, blocks = bits / 512;
    put64(m + 24, bits);
    put64(m + 32, blocks);
    put64(m + 72, bits / 8);
    put64(m + 120, bb_hash(zero, m, 120));
    put64(m + 128 + 16, blocks); /* one shard per block */
    put64(m + 128 + 24, 1);
    put64(m + 184, bb_hash(zero, m, 184));
    freeReplyObject(redisCommand(c, "SET lie %b", m, ml));
    free(m);
    bb_free(zero);
    const char *fixed_keys[] = {"lie", "bb:{n:lie}", "bb:{0:lie}", "bb:{1:lie}"};
    refused_in_small_memory("lie", fixed_keys, 4);
    redisFree(c);
    bb_redis_free(r);
}
