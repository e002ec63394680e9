/* SPDX-License-Identifier: MIT */
/*
 * conn.c - connections of the Redis binding and the pipelined command executor, with its
 * own Redis Cluster routing (hiredis 0.14 has none): CRC16 of the hash tag, the slot map from
 * CLUSTER SLOTS, MOVED (the slot moved for good: update the map, resend) and ASK (the slot is
 * migrating: send ASKING then the command to the named node, once, without touching the map),
 * TRYAGAIN (a multi-key operation mid-migration: wait, resend), and reconnects. Everything
 * follows the Redis Cluster specification ("Keys distribution model", "Redirection and
 * resharding"). A batch is sent as one pipeline per node, all nodes' pipelines written
 * before any reply is read, so a batch costs one round trip per node.
 */
#include "redis_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BBR_ROUNDS 8          /* redirections/reconnects a command may go through */
#define BBR_TIMEOUT_MS 10000  /* connect and reply timeout of every node */

bb_redis_status bbr_fail(bb_redis *r, bb_redis_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- Slots ----------------------------------------------------------------------------------
 * CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0, no reflection), the Redis Cluster
 * specification's key hash (its check value: CRC16("123456789") = 0x31C3). Bitwise: a key
 * is hashed once per command, next to a network round trip. */
static uint16_t crc16(const uint8_t *p, size_t len) {
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++) crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

/* The hash tag rule: if the key has a '{' followed later by a '}' with at least one byte
 * between them, only those bytes (after the first '{', up to the first '}' after it) are
 * hashed. */
uint16_t bbr_key_slot(const char *key, size_t len) {
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t rest = len - (size_t)(open + 1 - key);
        const char *close = memchr(open + 1, '}', rest);
        if (close && close > open + 1)
            return crc16((const uint8_t *)open + 1, (size_t)(close - open - 1)) & (BBR_SLOTS - 1);
    }
    return crc16((const uint8_t *)key, len) & (BBR_SLOTS - 1);
}

/* ---- Nodes ------------------------------------------------------------------------------------ */

static int node_find(bb_redis *r, const char *host, int port) {
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].port == port && strcmp(r->nodes[i].host, host) == 0) return (int)i;
    return -1;
}

/* The node host:port, added (not yet connected) if new; -1 when out of memory. */
static int node_get(bb_redis *r, const char *host, int port) {
    int i = node_find(r, host, port);
    if (i >= 0) return i;
    if (r->n_nodes == BBR_NO_NODE) return -1;
    if (r->n_nodes == r->cap_nodes) {
        size_t cap = r->cap_nodes ? 2 * r->cap_nodes : 8;
        bbr_node *n = realloc(r->nodes, cap * sizeof *n);
        if (!n) return -1;
        r->nodes = n;
        r->cap_nodes = cap;
    }
    bbr_node *n = &r->nodes[r->n_nodes];
    memset(n, 0, sizeof *n);
    n->host = strdup(host);
    if (!n->host) return -1;
    n->port = port;
    return (int)r->n_nodes++;
}

static void node_close(bbr_node *n) {
    if (n->ctx) redisFree(n->ctx);
    n->ctx = NULL;
}

static bb_redis_status node_connect(bb_redis *r, int i) {
    bbr_node *n = &r->nodes[i];
    if (n->ctx) return BB_REDIS_OK;
    struct timeval tv = {BBR_TIMEOUT_MS / 1000, (BBR_TIMEOUT_MS % 1000) * 1000};
    n->ctx = redisConnectWithTimeout(n->host, n->port, tv);
    if (!n->ctx) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis %s:%d: out of memory", n->host, n->port);
    if (n->ctx->err) {
        bbr_fail(r, BB_REDIS_E_IO, "redis %s:%d: cannot connect: %s", n->host, n->port,
                 n->ctx->errstr);
        node_close(n);
        return BB_REDIS_E_IO;
    }
    redisSetTimeout(n->ctx, tv);
    return BB_REDIS_OK;
}

/* "HOST:PORT" (or "redis://HOST:PORT", or HOST alone: 6379) into a node. */
static bb_redis_status parse_address(bb_redis *r, const char *addr, int *node) {
    if (strncmp(addr, "redis://", 8) == 0) addr += 8;
    char host[256];
    const char *colon = strrchr(addr, ':');
    size_t hl = colon ? (size_t)(colon - addr) : strlen(addr);
    long port = 6379;
    if (colon) {
        char *end;
        errno = 0;
        port = strtol(colon + 1, &end, 10);
        if (errno || *end || end == colon + 1) port = -1;
    }
    if (hl == 0 || hl >= sizeof host || port <= 0 || port > 65535)
        return bbr_fail(r, BB_REDIS_E_INVAL, "redis: bad address '%s' (expected HOST:PORT)", addr);
    memcpy(host, addr, hl);
    host[hl] = '\0';
    *node = node_get(r, host, (int)port);
    return *node < 0 ? bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory") : BB_REDIS_OK;
}

/* ---- The slot map ------------------------------------------------------------------------------ */

/* One CLUSTER SLOTS entry: [start, end, [host, port, id...], replicas...]. An empty host
 * means "the node you asked" (Redis 7). */
static bool slots_entry(bb_redis *r, const redisReply *e, int asked) {
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 3) return false;
    const redisReply *lo = e->element[0], *hi = e->element[1], *m = e->element[2];
    if (lo->type != REDIS_REPLY_INTEGER || hi->type != REDIS_REPLY_INTEGER ||
        m->type != REDIS_REPLY_ARRAY || m->elements < 2 ||
        m->element[0]->type != REDIS_REPLY_STRING || m->element[1]->type != REDIS_REPLY_INTEGER)
        return false;
    if (lo->integer < 0 || hi->integer >= BBR_SLOTS || lo->integer > hi->integer) return false;
    const char *host = m->element[0]->len ? m->element[0]->str : r->nodes[asked].host;
    int node = node_get(r, host, (int)m->element[1]->integer);
    if (node < 0) return false;
    for (long long s = lo->integer; s <= hi->integer; s++) r->slot_node[s] = (uint16_t)node;
    return true;
}

static bb_redis_status slots_from(bb_redis *r, int i) {
    bb_redis_status s = node_connect(r, i);
    if (s != BB_REDIS_OK) return s;
    bbr_node *n = &r->nodes[i]; /* slots_entry may add nodes: re-read r->nodes[i] after it */
    redisReply *rep = redisCommand(n->ctx, "CLUSTER SLOTS");
    r->round_trips++;
    if (!rep) {
        s = bbr_fail(r, BB_REDIS_E_IO, "redis %s:%d: %s", n->host, n->port, n->ctx->errstr);
        node_close(n);
        return s;
    }
    s = BB_REDIS_OK;
    if (rep->type != REDIS_REPLY_ARRAY) {
        s = bbr_fail(r, BB_REDIS_E_SERVER, "redis %s:%d: CLUSTER SLOTS: %s", n->host, n->port,
                     rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
    } else {
        for (size_t e = 0; e < rep->elements && s == BB_REDIS_OK; e++)
            if (!slots_entry(r, rep->element[e], i))
                s = bbr_fail(r, BB_REDIS_E_SERVER, "redis %s:%d: malformed CLUSTER SLOTS reply",
                             r->nodes[i].host, r->nodes[i].port);
    }
    freeReplyObject(rep);
    return s;
}

/* Reload the slot map from the first node that answers. */
static bb_redis_status slots_refresh(bb_redis *r) {
    bb_redis_status s = BB_REDIS_E_IO;
    for (size_t i = 0; i < r->n_nodes; i++)
        if ((s = slots_from(r, (int)i)) == BB_REDIS_OK) return s;
    return s;
}

/* ---- Handles ------------------------------------------------------------------------------------ */

static bb_redis_status handle_new(bb_redis **out, bool cluster) {
    bb_redis *r = calloc(1, sizeof *r);
    if (!r) return BB_REDIS_E_NOMEM;
    r->cluster = cluster;
    for (size_t s = 0; s < BBR_SLOTS; s++) r->slot_node[s] = cluster ? BBR_NO_NODE : 0;
    bb_config z = {.kind = BB_BLOCKED, .bits = BB_BLOCK_BITS, .k = 1};
    if (bb_create(&r->zero, &z) != BB_OK) {
        free(r);
        return BB_REDIS_E_NOMEM;
    }
    *out = r;
    return BB_REDIS_OK;
}

bb_redis_status bb_redis_connect(bb_redis **out, const char *url) {
    if (!out) return BB_REDIS_E_INVAL;
    *out = NULL;
    bb_redis_status s = handle_new(out, false);
    if (s != BB_REDIS_OK) return s;
    if (!url) return bbr_fail(*out, BB_REDIS_E_INVAL, "redis: no address");
    int node;
    s = parse_address(*out, url, &node);
    return s == BB_REDIS_OK ? node_connect(*out, node) : s;
}

bb_redis_status bb_redis_connect_cluster(bb_redis **out, const char *const *seeds, size_t n) {
    if (!out) return BB_REDIS_E_INVAL;
    *out = NULL;
    bb_redis_status s = handle_new(out, true);
    if (s != BB_REDIS_OK) return s;
    if (!seeds || n == 0) return bbr_fail(*out, BB_REDIS_E_INVAL, "redis: no cluster node given");
    for (size_t i = 0; i < n; i++) {
        int node;
        if (!seeds[i]) return bbr_fail(*out, BB_REDIS_E_INVAL, "redis: NULL cluster node");
        if ((s = parse_address(*out, seeds[i], &node)) != BB_REDIS_OK) return s;
    }
    return slots_refresh(*out);
}

void bbr_handle_free(bb_redis *r) {
    for (size_t i = 0; i < r->n_nodes; i++) {
        node_close(&r->nodes[i]);
        free(r->nodes[i].host);
        free(r->nodes[i].queued);
    }
    free(r->nodes);
    if (r->slab) free(r->slab->cmds);
    free(r->slab);
    bb_free(r->zero);
    free(r);
}

const char *bb_redis_error(const bb_redis *r) { return r ? r->err : "no handle"; }

uint64_t bb_redis_round_trips(const bb_redis *r) { return r ? r->round_trips : 0; }

/* ---- Commands ---------------------------------------------------------------------------------- */

void bbr_arg(bbr_cmd *c, const void *p, size_t len) {
    c->argv[c->argc] = p;
    c->argvlen[c->argc++] = len;
}

void bbr_arg_str(bbr_cmd *c, const char *s) { bbr_arg(c, s, strlen(s)); }

void bbr_arg_u64(bbr_cmd *c, uint64_t v) {
    char *buf = c->num[c->n_num++];
    int len = snprintf(buf, sizeof c->num[0], "%llu", (unsigned long long)v);
    bbr_arg(c, buf, (size_t)len);
}

bbr_cmd *bbr_cmds_get(bb_redis *r, size_t n) {
    if (!r->slab && !(r->slab = calloc(1, sizeof *r->slab))) goto nomem;
    if (n > r->slab->cap) {
        bbr_cmd *c = realloc(r->slab->cmds, n * sizeof *c);
        if (!c) goto nomem;
        r->slab->cmds = c;
        r->slab->cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        r->slab->cmds[i].argc = r->slab->cmds[i].n_num = 0;
        r->slab->cmds[i].reply = NULL;
    }
    return r->slab->cmds;
nomem:
    bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    return NULL;
}

void bbr_cmds_clear(bbr_cmd *cmds, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (cmds[i].reply) freeReplyObject(cmds[i].reply);
        cmds[i].reply = NULL;
    }
}

static bool queue_push(bbr_node *n, long v) {
    if (n->n_queued == n->cap_queued) {
        size_t cap = n->cap_queued ? 2 * n->cap_queued : 64;
        long *q = realloc(n->queued, cap * sizeof *q);
        if (!q) return false;
        n->queued = q;
        n->cap_queued = cap;
    }
    n->queued[n->n_queued++] = v;
    return true;
}

/* Where command c goes now; -1 when its slot has no known owner. */
static int route(const bb_redis *r, const bbr_cmd *c) {
    if (c->ask_node >= 0) return c->ask_node;
    if (!r->cluster || c->argc < 2) return 0;
    uint16_t node = r->slot_node[bbr_key_slot(c->argv[1], c->argvlen[1])];
    return node == BBR_NO_NODE ? -1 : node;
}

/* "MOVED 3999 127.0.0.1:6381" / "ASK ...": the slot and the node; false if malformed. */
static bool parse_redirect(bb_redis *r, const char *msg, long *slot, int *node) {
    const char *sp = strchr(msg, ' ');
    if (!sp) return false;
    char *end;
    *slot = strtol(sp + 1, &end, 10);
    if (*end != ' ' || *slot < 0 || *slot >= BBR_SLOTS) return false;
    char addr[300];
    snprintf(addr, sizeof addr, "%s", end + 1);
    return parse_address(r, addr, node) == BB_REDIS_OK;
}

typedef struct round_state {
    bool *pending;
    size_t n_pending;
    bool retry_wait;    /* TRYAGAIN or a broken node seen: pause before the next round */
    bool refresh_slots; /* a broken node: reload the map before the next round */
    bool io_failed;     /* a node failed: r->err names it */
    int last_node;      /* the node of the last redirection or TRYAGAIN, -1 if none */
    size_t n_down;      /* commands answered CLUSTERDOWN: the batch failed */
    char down[160];     /* "HOST:PORT: CLUSTERDOWN ..." of the first of them */
} round_state;

/* Read node i's replies for its queue. A broken connection leaves its commands pending
 * (st->io_failed, r->err naming the node). */
static void read_node(bb_redis *r, int i, bbr_cmd *cmds, round_state *st) {
    bbr_node *n;
    for (size_t q = 0; q < (n = &r->nodes[i])->n_queued; q++) { /* a redirection may add a
                                                                    node and move the array */
        long ci = n->queued[q];
        void *rep = NULL;
        if (!n->ctx || redisGetReply(n->ctx, &rep) != REDIS_OK || !rep) {
            bbr_fail(r, BB_REDIS_E_IO, "redis %s:%d: %s", n->host, n->port,
                         n->ctx && n->ctx->errstr[0] ? n->ctx->errstr : "connection lost");
            node_close(n);
            st->refresh_slots = st->retry_wait = st->io_failed = true;
            break; /* the rest of this node's queue stays pending */
        }
        redisReply *reply = rep;
        if (ci < 0) { /* our ASKING */
            freeReplyObject(reply);
            continue;
        }
        bbr_cmd *c = &cmds[ci];
        c->ask_node = -1;
        long slot;
        int to;
        if (reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "MOVED ", 6) == 0 &&
            parse_redirect(r, reply->str, &slot, &to)) {
            r->slot_node[slot] = (uint16_t)to;
        } else if (reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "ASK ", 4) == 0 &&
                   parse_redirect(r, reply->str, &slot, &to)) {
            c->ask_node = to;
        } else if (reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "TRYAGAIN", 8) == 0) {
            st->retry_wait = true;
        } else {
            /* The node is up but its cluster is not (a master failed): no retry helps
             * before a failover; the batch fails naming the node that said so. */
            if (reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "CLUSTERDOWN", 11) == 0 &&
                !st->n_down++)
                snprintf(st->down, sizeof st->down, "%s:%d: %s", n->host, n->port, reply->str);
            if (c->reply) freeReplyObject(c->reply);
            c->reply = reply;
            st->pending[ci] = false;
            st->n_pending--;
            continue;
        }
        st->last_node = i; /* redirected or told to retry */
        freeReplyObject(reply);
    }
    r->nodes[i].n_queued = 0;
}

/* Append every pending command to its node's output buffer (ASKING first where asked). */
static bb_redis_status send_round(bb_redis *r, bbr_cmd *cmds, size_t n, round_state *st) {
    bb_redis_status last = BB_REDIS_OK;
    for (size_t i = 0; i < n; i++) {
        if (!st->pending[i]) continue;
        int node = route(r, &cmds[i]);
        if (node < 0) {
            st->refresh_slots = true;
            continue;
        }
        if (node_connect(r, node) != BB_REDIS_OK) {
            last = BB_REDIS_E_IO;
            st->refresh_slots = st->retry_wait = st->io_failed = true;
            continue;
        }
        bbr_node *nd = &r->nodes[node];
        bool ask = cmds[i].ask_node >= 0;
        if (ask && (redisAppendCommand(nd->ctx, "ASKING") != REDIS_OK || !queue_push(nd, -1)))
            return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
        if (redisAppendCommandArgv(nd->ctx, cmds[i].argc, cmds[i].argv, cmds[i].argvlen) !=
                REDIS_OK ||
            !queue_push(nd, (long)i))
            return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    }
    return last;
}

static void pause_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Write every node's pipeline before reading any reply, so the nodes work in parallel
 * (redisGetReply would only write a node's buffer when its replies are first wanted). A
 * write error is left in the context for read_node to report. */
static void flush_all(bb_redis *r) {
    for (size_t i = 0; i < r->n_nodes; i++) {
        redisContext *c = r->nodes[i].ctx;
        int done = 0;
        if (!c || !r->nodes[i].n_queued) continue;
        while (!done && redisBufferWrite(c, &done) == REDIS_OK) {}
    }
}

static bb_redis_status exec_rounds(bb_redis *r, bbr_cmd *cmds, size_t n, round_state *st) {
    for (int round = 0; st->n_pending && round < BBR_ROUNDS; round++) {
        if (st->retry_wait) pause_ms(50L << (round < 4 ? round : 4));
        if (st->refresh_slots && r->cluster) slots_refresh(r);
        st->retry_wait = st->refresh_slots = false;
        if (send_round(r, cmds, n, st) == BB_REDIS_E_NOMEM) return BB_REDIS_E_NOMEM;
        flush_all(r);
        for (size_t i = 0; i < r->n_nodes; i++) {
            if (!r->nodes[i].n_queued) continue;
            r->round_trips++;
            read_node(r, (int)i, cmds, st);
        }
    }
    if (!st->n_pending && !st->n_down) return BB_REDIS_OK;
    size_t not_done = st->n_pending + st->n_down;
    if (!st->n_pending)
        return bbr_fail(r, BB_REDIS_E_SERVER, "redis %s (%zu of %zu commands not done)",
                        st->down, not_done, n);
    if (st->io_failed) { /* r->err names the node of the last failure */
        size_t len = strlen(r->err);
        snprintf(r->err + len, sizeof r->err - len, " (%zu of %zu commands not done)", not_done, n);
        return BB_REDIS_E_IO;
    }
    if (st->last_node >= 0)
        return bbr_fail(r, BB_REDIS_E_IO, "redis %s:%d: still redirecting after %d rounds "
                        "(cluster resharding or down?) (%zu of %zu commands not done)",
                        r->nodes[st->last_node].host, r->nodes[st->last_node].port, BBR_ROUNDS,
                        not_done, n);
    size_t i = 0;
    while (!st->pending[i]) i++;
    return bbr_fail(r, BB_REDIS_E_IO, "redis: no node serves the slot of '%.*s' (cluster down?) "
                    "(%zu of %zu commands not done)", (int)cmds[i].argvlen[1],
                    (const char *)cmds[i].argv[1], not_done, n);
}

bb_redis_status bbr_exec(bb_redis *r, bbr_cmd *cmds, size_t n) {
    r->err[0] = '\0';
    if (n == 0) return BB_REDIS_OK;
    round_state st = {.pending = malloc(n), .n_pending = n, .last_node = -1};
    if (!st.pending) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    memset(st.pending, 1, n);
    for (size_t i = 0; i < n; i++) cmds[i].ask_node = -1;
    bb_redis_status s = exec_rounds(r, cmds, n, &st);
    free(st.pending);
    if (s != BB_REDIS_OK) {
        for (size_t i = 0; i < r->n_nodes; i++) { /* replies never read: drop the connection */
            if (r->nodes[i].n_queued) node_close(&r->nodes[i]);
            r->nodes[i].n_queued = 0;
        }
    }
    return s;
}

bb_redis_status bbr_exec1(bb_redis *r, bbr_cmd *c) { return bbr_exec(r, c, 1); }
