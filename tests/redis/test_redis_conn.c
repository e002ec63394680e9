/* SPDX-License-Identifier: MIT */
/*
 * test_redis_conn.c - connections of the Redis binding against a real password-protected
 * redis-server (Criterion), started by scripts/test-redis-conn.sh: BB_REDIS_AUTH_URL is
 * redis://:PASSWORD@HOST:PORT/3, BB_REDIS_AUTH_PASSWORD the password. What the binding wrote
 * is checked with raw hiredis connections that authenticate and select on their own.
 */
#include <blockbloom_redis.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *env(const char *name) {
    const char *v = getenv(name);
    cr_assert(v && *v, "%s is not set: run scripts/test-redis.sh", name);
    return v;
}

/* "redis://:pw@127.0.0.1:PORT/3" -> PORT */
static int url_port(const char *url) {
    const char *colon = strrchr(url, ':');
    return atoi(colon + 1);
}

/* A raw connection to the server, authenticated, on database db. */
static redisContext *raw(int db) {
    redisContext *c = redisConnect("127.0.0.1", url_port(env("BB_REDIS_AUTH_URL")));
    cr_assert(c && !c->err, "raw connect");
    redisReply *a = redisCommand(c, "AUTH %s", env("BB_REDIS_AUTH_PASSWORD"));
    cr_assert(a && a->type == REDIS_REPLY_STATUS, "raw AUTH");
    freeReplyObject(a);
    a = redisCommand(c, "SELECT %d", db);
    cr_assert(a && a->type == REDIS_REPLY_STATUS, "raw SELECT");
    freeReplyObject(a);
    return c;
}

static long long raw_int(redisContext *c, const char *cmd, const char *key) {
    redisReply *rep = redisCommand(c, cmd, key);
    cr_assert(rep && rep->type == REDIS_REPLY_INTEGER, "%s %s", cmd, key);
    long long v = rep->integer;
    freeReplyObject(rep);
    return v;
}

/* Every connection is closed by the server between calls; each call reconnects, and the new
 * connection must AUTH (else NOAUTH) and SELECT 3 (else the filter is not found in db 0). */
Test(auth, reconnect_keeps_auth_and_db) {
    bb_redis *r;
    const char *url = env("BB_REDIS_AUTH_URL");
    cr_assert_eq(bb_redis_open(&r, &url, 1, NULL), BB_REDIS_OK, "%s", bb_redis_error(r));
    bb_redis_status s = bb_redis_del(r, "rk");
    cr_assert(s == BB_REDIS_OK || s == BB_REDIS_E_NOT_FOUND, "%s", bb_redis_error(r));
    cr_assert_eq(bb_redis_reserve(r, "rk", 0.01, 1000, 0), BB_REDIS_OK, "%s", bb_redis_error(r));
    redisContext *c0 = raw(0);
    char key[16];
    for (int i = 0; i < 5; i++) {
        redisReply *k = redisCommand(c0, "CLIENT KILL TYPE normal SKIPME yes");
        cr_assert(k && k->type == REDIS_REPLY_INTEGER && k->integer >= 1, "no client killed");
        freeReplyObject(k);
        snprintf(key, sizeof key, "k%d", i);
        bool was_new = false, present = false;
        cr_assert_eq(bb_redis_add(r, "rk", key, strlen(key), &was_new), BB_REDIS_OK,
                     "add after kill %d: %s", i, bb_redis_error(r));
        cr_assert(was_new, "%s was not new", key);
        cr_assert_eq(bb_redis_exists(r, "rk", key, strlen(key), &present), BB_REDIS_OK, "%s",
                     bb_redis_error(r));
        cr_assert(present);
    }
    redisContext *c3 = raw(3); /* opened after the kills, which would have closed it */
    cr_assert_eq(raw_int(c3, "EXISTS %s", "rk"), 1, "the filter is not in db 3");
    cr_assert_eq(raw_int(c0, "EXISTS %s", "rk"), 0, "the filter leaked into db 0");
    cr_assert_eq(raw_int(c3, "EXISTS %s", "bb:{0:rk}"), 1, "the shard is not in db 3");
    redisFree(c3);
    redisFree(c0);
    bb_redis_free(r);
}

/* The options a caller gives override nothing in the URL, fill in what it lacks, and a
 * caller built against a shorter struct (size up to `cluster`) still connects. */
Test(auth, options_fill_in_and_old_sizes) {
    const char *url = env("BB_REDIS_AUTH_URL"), *pw = env("BB_REDIS_AUTH_PASSWORD");
    char bare[64];
    snprintf(bare, sizeof bare, "127.0.0.1:%d", url_port(url));
    const char *b = bare;
    bb_redis *r;
    bb_redis_options o = {.size = sizeof o, .password = pw, .timeout_ms = 2000};
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_REDIS_OK, "%s", bb_redis_error(r));
    bb_redis_free(r);
    o.password = "wrong"; /* the URL's password wins */
    cr_assert_eq(bb_redis_open(&r, &url, 1, &o), BB_REDIS_OK, "%s", bb_redis_error(r));
    bb_redis_free(r);
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_REDIS_E_SERVER);
    cr_assert(strstr(bb_redis_error(r), "WRONGPASS"), "%s", bb_redis_error(r));
    cr_assert(!strstr(bb_redis_error(r), "wrong"), "the password is quoted: %s", bb_redis_error(r));
    bb_redis_free(r);
    /* An old caller's struct ends before the password: read as none (NOAUTH). */
    o.password = pw;
    o.size = offsetof(bb_redis_options, user);
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_REDIS_E_SERVER);
    cr_assert(strstr(bb_redis_error(r), "NOAUTH"), "%s", bb_redis_error(r));
    bb_redis_free(r);
}
