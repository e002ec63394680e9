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

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* A handle on BB_REDIS_AUTH_URL with a new filter `name` reserved for cap keys at 1%. */
static bb_redis *fresh_filter(const char *name, uint64_t cap) {
    bb_redis *r;
    const char *url = env("BB_REDIS_AUTH_URL");
    cr_assert_eq(bb_redis_open(&r, &url, 1, NULL), BB_OK, "%s", bb_last_error());
    bb_status s = bb_redis_del(r, name);
    cr_assert(s == BB_OK || s == BB_E_NOT_FOUND, "%s", bb_last_error());
    cr_assert_eq(bb_redis_reserve(r, name, 0.01, cap, 0), BB_OK, "%s", bb_last_error());
    return r;
}

/* Every connection is closed by the server between calls; each call reconnects, and the new
 * connection must AUTH (else NOAUTH) and SELECT 3 (else the filter is not found in db 0). */
Test(auth, reconnect_keeps_auth_and_db) {
    bb_redis *r = fresh_filter("rk", 1000);
    redisContext *c0 = raw(0);
    char key[16];
    for (int i = 0; i < 5; i++) {
        redisReply *k = redisCommand(c0, "CLIENT KILL TYPE normal SKIPME yes");
        cr_assert(k && k->type == REDIS_REPLY_INTEGER && k->integer >= 1, "no client killed");
        freeReplyObject(k);
        snprintf(key, sizeof key, "k%d", i);
        bool was_new = false, present = false;
        cr_assert_eq(bb_redis_add(r, "rk", key, strlen(key), &was_new), BB_OK,
                     "add after kill %d: %s", i, bb_last_error());
        cr_assert(was_new, "%s was not new", key);
        cr_assert_eq(bb_redis_exists(r, "rk", key, strlen(key), &present), BB_OK, "%s",
                     bb_last_error());
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
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_OK, "%s", bb_last_error());
    bb_redis_free(r);
    o.password = "wrong"; /* the URL's password wins */
    cr_assert_eq(bb_redis_open(&r, &url, 1, &o), BB_OK, "%s", bb_last_error());
    bb_redis_free(r);
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_E_SERVER);
    cr_assert(strstr(bb_last_error(), "WRONGPASS"), "%s", bb_last_error());
    cr_assert(!strstr(bb_last_error(), "wrong"), "the password is quoted: %s", bb_last_error());
    bb_redis_free(r);
    /* Shorter than the first published layout (0.2.0's): refused before connecting, and
     * the handle is still returned, as for any other error. */
    o.size = offsetof(bb_redis_options, user);
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_E_INVAL);
    cr_assert_not_null(r);
    cr_assert(strstr(bb_last_error(), "bb_redis_options.size") &&
                  strstr(bb_last_error(), "BB_REDIS_OPTIONS_INIT"),
              "%s", bb_last_error());
    bb_redis_free(r);
    o.size = 0;
    cr_assert_eq(bb_redis_open(&r, &b, 1, &o), BB_E_INVAL);
    bb_redis_free(r);
}

/* ---- Deadlines ------------------------------------------------------------------------------------
 * A listening socket that never accepts: the kernel completes the handshake, so the open
 * connects and then waits for a reply that never comes. The status says timeout, not I/O. */
Test(deadline, a_silent_server_is_bb_e_timeout) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0 &&
              getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    char url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", ntohs(a.sin_port));
    const char *u = url;
    bb_redis *r = NULL;
    bb_redis_options o = {.size = sizeof o, .password = "pw", .timeout_ms = 300};
    bb_status s = bb_redis_open(&r, &u, 1, &o);
    cr_expect_eq(s, BB_E_TIMEOUT, "%s: %s", bb_strerror(s), bb_last_error());
    cr_expect(strstr(bb_last_error(), "timed out (0.3 s) waiting for the reply to AUTH"), "%s",
              bb_last_error());
    bb_redis_free(r);
    close(fd);
}

/* ---- Failover ------------------------------------------------------------------------------------
 * scripts/test-redis-failover.sh runs a password-protected cluster of 3 masters with one
 * replica each (BB_FO_SEEDS: three redis://:PASSWORD@HOST:PORT seeds) and gives the pid of a
 * master (BB_FO_KILL_PID). "stream" adds batches with wait_replicas = 1 and kills that master
 * after batch 3, touching BB_FO_MARKER; the script then adds a new node as the replica of the
 * replica that took over, so WAIT 1 can succeed again. Batches must be acknowledged again
 * after the failover (the handle follows the new slot map). The acknowledged batches are
 * listed in BB_FO_MARKER.acked; once the cluster is whole again, "check" finds every one of
 * their keys. */

#define FO_BATCH 500
#define FO_MAX 400

static void fo_keys(int b, char *buf, const void **keys, size_t *lens) {
    for (int i = 0; i < FO_BATCH; i++) {
        keys[i] = buf + 24 * i;
        lens[i] = (size_t)snprintf(buf + 24 * i, 24, "fo:%d:%d", b, i);
    }
}

static bb_redis *fo_open(unsigned wait) {
    static char seeds_buf[512];
    static const char *seeds[3];
    snprintf(seeds_buf, sizeof seeds_buf, "%s", env("BB_FO_SEEDS"));
    seeds[0] = strtok(seeds_buf, " ");
    seeds[1] = strtok(NULL, " ");
    seeds[2] = strtok(NULL, " ");
    cr_assert(seeds[2], "BB_FO_SEEDS needs three seeds");
    bb_redis_options o = {.size = sizeof o, .cluster = true, .timeout_ms = 4000,
                          .wait_replicas = wait};
    bb_redis *r;
    cr_assert_eq(bb_redis_open(&r, seeds, 3, &o), BB_OK, "%s", bb_last_error());
    return r;
}

static char *fo_acked_path(void) {
    static char path[512];
    snprintf(path, sizeof path, "%s.acked", env("BB_FO_MARKER"));
    return path;
}

Test(failover, stream, .timeout = 120) {
    pid_t victim = (pid_t)atol(env("BB_FO_KILL_PID"));
    bb_redis *r = fo_open(1);
    cr_assert_eq(bb_redis_reserve(r, "fo", 0.01, 200000, 12), BB_OK, "%s", bb_last_error());
    static char buf[FO_BATCH * 24];
    const void *keys[FO_BATCH];
    size_t lens[FO_BATCH];
    FILE *acked = fopen(fo_acked_path(), "w");
    cr_assert(acked);
    int b = 0, ok_before = 0, ok_after = 0, failed = 0, short_waits = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (; b < FO_MAX && ok_after < 3; b++) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        cr_assert(t.tv_sec - t0.tv_sec < 90, "no batch acknowledged after the failover in 90 s "
                  "(%d before, %d failed): %s", ok_before, failed, bb_last_error());
        if (b == 4) { /* the master dies between batches 3 and 4: batch 4 meets it dead */
            cr_assert_eq(kill(victim, SIGKILL), 0, "kill the master");
            FILE *m = fopen(env("BB_FO_MARKER"), "w");
            cr_assert(m);
            fclose(m);
        }
        fo_keys(b, buf, keys, lens);
        bb_status s = bb_redis_madd(r, "fo", keys, lens, FO_BATCH, NULL);
        if (s == BB_OK) {
            fprintf(acked, "%d\n", b);
            fflush(acked);
            if (b < 4) ok_before++;
            else ok_after++;
            continue;
        }
        cr_assert(b >= 4, "batch %d before the kill: %s", b, bb_last_error());
        cr_assert(strstr(bb_last_error(), "127.0.0.1:"), "no node named: %s", bb_last_error());
        if (failed++ < 3) fprintf(stderr, "failover: batch %d: %s\n", b, bb_last_error());
        short_waits += strstr(bb_last_error(), "replicas acknowledged") != NULL;
    }
    fclose(acked);
    fprintf(stderr, "failover: %d batches, %d acknowledged before the kill, %d after, %d not "
            "(%d of them WAIT fell short)\n", b, ok_before, ok_after, failed, short_waits);
    cr_assert_geq(failed, 1, "the kill failed no batch: was the master killed?");
    cr_assert_eq(ok_after, 3, "fewer than 3 batches acknowledged after the failover");
    bb_redis_free(r);
}

Test(failover, check, .timeout = 60) {
    bb_redis *r = fo_open(0);
    FILE *acked = fopen(fo_acked_path(), "r");
    cr_assert(acked, "no list of acknowledged batches: run failover/stream first");
    static char buf[FO_BATCH * 24];
    const void *keys[FO_BATCH];
    size_t lens[FO_BATCH];
    uint8_t out[FO_BATCH];
    int b, n = 0;
    while (fscanf(acked, "%d", &b) == 1) {
        size_t hits = 0;
        fo_keys(b, buf, keys, lens);
        cr_assert_eq(bb_redis_mexists(r, "fo", keys, lens, FO_BATCH, out, &hits), BB_OK,
                     "%s", bb_last_error());
        cr_assert_eq(hits, FO_BATCH, "batch %d was acknowledged, %zu of %d keys are left", b,
                     hits, FO_BATCH);
        n++;
    }
    fclose(acked);
    cr_assert_geq(n, 7, "only %d batches acknowledged", n);
    bb_redis_free(r);
}

/* A call of more than 4096 commands goes as consecutive requests, each with its own deadline:
 * a mexists of 10000 keys (10000 GETRANGEs) takes 3 round trips, and finds every key. */
Test(auth, large_calls_are_several_requests) {
    bb_redis *r = fresh_filter("big", 20000);
    enum { N = 10000 };
    static char buf[N][16];
    static const void *keys[N];
    static size_t lens[N];
    static uint8_t out[N];
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)snprintf(buf[i], sizeof buf[i], "big%d", i);
        keys[i] = buf[i];
    }
    cr_assert_eq(bb_redis_madd(r, "big", keys, lens, N, NULL), BB_OK, "%s", bb_last_error());
    size_t hits = 0;
    uint64_t t0 = bb_redis_round_trips(r);
    cr_assert_eq(bb_redis_mexists(r, "big", keys, lens, N, out, &hits), BB_OK);
    uint64_t trips = bb_redis_round_trips(r) - t0;
    cr_assert_eq(hits, N);
    cr_assert_eq(trips, 3, "10000 GETRANGEs in %llu round trips, not 3 requests of <= 4096",
                 (unsigned long long)trips);
    bb_redis_free(r);
}
