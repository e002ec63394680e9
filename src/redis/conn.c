/* SPDX-License-Identifier: MIT */
/*
 * conn.c - connections of the Redis binding and the pipelined command executor, with its
 * own Redis Cluster routing (hiredis 0.14 has none): CRC16 of the hash tag, the slot map from
 * CLUSTER SLOTS, MOVED (the slot moved for good: update the map, resend) and ASK (the slot is
 * migrating: send ASKING then the command to the named node, once, without touching the map),
 * TRYAGAIN, CLUSTERDOWN and LOADING (wait, resend), and reconnects. Everything follows the
 * Redis Cluster specification ("Keys distribution model", "Redirection and resharding"). A
 * batch is sent as one pipeline per node, all nodes' pipelines written before any reply is
 * read, so a batch costs one round trip per node.
 *
 * Invariants:
 * - Every connection starts with AUTH and SELECT when the handle has them (queued ahead of
 *   the first command, in the same pipeline), so no command runs unauthenticated or on db 0
 *   by mistake, on any node or after any reconnect.
 * - One deadline per bbr_exec (r->timeout_ms): sockets are non-blocking and every wait is a
 *   poll() bounded by the time left, so a server that stalls, trickles bytes or never
 *   accepts ends the call on time, naming the node and the command waited for, with
 *   BB_E_TIMEOUT. A host name is resolved on a thread waited for until the deadline, since
 *   getaddrinfo takes no timeout (a silent DNS server costs glibc 5 s per try and server).
 * - A reply is buffered only up to a bound (reply_cap), and its arrays to BBR_MAX_ELEMENTS
 *   elements, checked as bytes arrive: a claimed "$9999999999999" fails at once.
 * - After a broken connection, a command whose reply was not read is resent only if running
 *   it twice is harmless (resend_safe); otherwise the call fails naming it.
 */
#include "../abi.h"
#include "redis_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define BBR_MAX_ROUNDS 64 /* redirection rounds of one request, within its deadline */
/* Commands per request: a call with more is sent as consecutive requests, each with its own
 * deadline, so that a deadline bounds a known amount of work (one madd of 60000 keys, as one
 * request, took over 10 s under ASan on a loaded 2-core VM). 4096 is four CLI batches. */
#define BBR_REQUEST_CMDS 4096
/* A string reply may be this large unless a filter's shard is larger (pull GETs whole
 * shards): 4x the default 4 MiB shard. */
#define BBR_REPLY_MIN (UINT64_C(16) << 20)
/* Array elements in one reply: BITFIELD answers k <= 32, CLUSTER SLOTS a few per range. */
#define BBR_MAX_ELEMENTS 65536

/* conn.c's own commands in a node's queue (batch commands are indexes >= 0). */
#define Q_ASKING (-1)
#define Q_AUTH (-2)
#define Q_SELECT (-3)
#define Q_WAIT (-4)
#define Q_PING (-5)

bb_status bbr_fail(bb_redis *r, bb_status s, const char *fmt, ...) {
    (void)r; /* the text is the thread's (bb_last_error), not the handle's */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bb_error_buffer(), BB_LAST_ERROR_CAP, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- Time ----------------------------------------------------------------------------------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Milliseconds left before the deadline (0 once it has passed), rounded up. */
static long left_ms(const bb_redis *r) {
    uint64_t t = now_ns();
    return t >= r->deadline_ns ? 0 : (long)((r->deadline_ns - t + 999999u) / 1000000u);
}

static void pause_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
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
    n->n_queued = n->q_read = 0;
    n->out_pending = n->wrote = false;
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

/* Append one command to node n's output and queue; false when out of memory. */
static bool node_append(bbr_node *n, long v, int argc, const char **argv, const size_t *lens) {
    if (redisAppendCommandArgv(n->ctx, argc, argv, lens) != REDIS_OK || !queue_push(n, v))
        return false;
    n->out_pending = true;
    return true;
}

/* An idle connection the server has closed (its timeout, a restart, CLIENT KILL) reads as
 * end of file: found here, before a command is written to it, rather than after, when a
 * command that is not safe to resend could not be resent. */
static bool node_alive(const bbr_node *n) {
    struct pollfd pf = {.fd = n->ctx->fd, .events = POLLIN};
    if (poll(&pf, 1, 0) == 0) return true;
    char b;
    return recv(n->ctx->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

/* Elements of the reply being read, counted as the reader creates arrays. */
static void *create_array(const redisReadTask *t, int elements) {
    bb_redis *r = t->privdata;
    r->reply_elems += (size_t)elements;
    if (r->reply_elems > BBR_MAX_ELEMENTS) {
        r->too_many = true;
        return NULL; /* the reader stops with an out-of-memory error */
    }
    return r->base_fns.createArray(t, elements);
}

/* ---- Resolving -------------------------------------------------------------------------------
 * getaddrinfo has no timeout, so a name goes to a detached thread that the caller waits for
 * until the deadline. Whoever finishes last (the thread, or a caller that gave up) frees the
 * request, so a caller never waits past its deadline and nothing is freed twice. */

typedef struct resolve_req {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC, the deadline's clock */
    int refs;
    bool done;
    int err;
    struct addrinfo *res;
    char host[];
} resolve_req;

static void resolve_unref(resolve_req *q) {
    pthread_mutex_lock(&q->mu);
    int left = --q->refs;
    pthread_mutex_unlock(&q->mu);
    if (left) return;
    if (q->res) freeaddrinfo(q->res);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q);
}

static void *resolve_run(void *arg) {
    resolve_req *q = arg;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int err = getaddrinfo(q->host, NULL, &hints, &res);
    pthread_mutex_lock(&q->mu);
    q->res = err ? NULL : res;
    q->err = err;
    q->done = true;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    resolve_unref(q);
    return NULL;
}

/* The addresses of node n's host by the deadline into *out (freeaddrinfo), NULL for a numeric
 * host (hiredis then resolves it without asking DNS). */
static bb_status resolve(bb_redis *r, const bbr_node *n, struct addrinfo **out) {
    *out = NULL;
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *num;
    if (getaddrinfo(n->host, NULL, &hints, &num) == 0) {
        freeaddrinfo(num);
        return BB_OK;
    }
    size_t len = strlen(n->host);
    resolve_req *q = calloc(1, sizeof *q + len + 1);
    pthread_condattr_t ca;
    bool ok = q && pthread_condattr_init(&ca) == 0;
    if (ok) {
        ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&q->cv, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    if (!ok || pthread_mutex_init(&q->mu, NULL) != 0) {
        if (ok) pthread_cond_destroy(&q->cv);
        free(q);
        return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    }
    memcpy(q->host, n->host, len + 1);
    q->refs = 2;
    pthread_attr_t ta;
    pthread_t t;
    ok = pthread_attr_init(&ta) == 0;
    if (ok) {
        ok = pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED) == 0 &&
             pthread_create(&t, &ta, resolve_run, q) == 0;
        pthread_attr_destroy(&ta);
    }
    if (!ok) {
        q->refs = 1;
        resolve_unref(q);
        return bbr_fail(r, BB_E_NOMEM, "redis %s:%d: cannot start a thread to resolve the "
                        "host name", n->host, n->port);
    }
    struct timespec until = {(time_t)(r->deadline_ns / 1000000000u),
                             (long)(r->deadline_ns % 1000000000u)};
    pthread_mutex_lock(&q->mu);
    while (!q->done && pthread_cond_timedwait(&q->cv, &q->mu, &until) != ETIMEDOUT) {}
    bool done = q->done;
    int err = q->err;
    *out = q->res;
    q->res = NULL;
    pthread_mutex_unlock(&q->mu);
    resolve_unref(q);
    if (!done)
        return bbr_fail(r, BB_E_TIMEOUT, "redis %s:%d: timed out (%.1f s) resolving the host "
                        "name", n->host, n->port, r->timeout_ms / 1000.0);
    if (err)
        return bbr_fail(r, BB_E_IO, "redis %s:%d: cannot resolve the host name: %s", n->host,
                        n->port, err == EAI_SYSTEM ? strerror(errno) : gai_strerror(err));
    return BB_OK;
}

/* One connection to `host` (numeric, or n's own name) within the time left; BB_OK with n->ctx,
 * else the status with a message. */
static bb_status connect_to(bb_redis *r, bbr_node *n, const char *host) {
    long ms = left_ms(r);
    if (ms == 0)
        return bbr_fail(r, BB_E_TIMEOUT, "redis %s:%d: timed out (%.1f s) before connecting",
                        n->host, n->port, r->timeout_ms / 1000.0);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    errno = 0;
    n->ctx = redisConnectWithTimeout(host, n->port, tv);
    int e = errno;
    if (!n->ctx) return bbr_fail(r, BB_E_NOMEM, "redis %s:%d: out of memory", n->host, n->port);
    if (!n->ctx->err) return BB_OK;
    /* hiredis reports its poll running out as ETIMEDOUT ("Connection timed out"). */
    bb_status s = e == ETIMEDOUT || left_ms(r) == 0 ? BB_E_TIMEOUT : BB_E_IO;
    if (s == BB_E_TIMEOUT)
        bbr_fail(r, s, "redis %s:%d: timed out (%.1f s) connecting", n->host, n->port,
                 r->timeout_ms / 1000.0);
    else
        bbr_fail(r, s, "redis %s:%d: cannot connect: %s", n->host, n->port, n->ctx->errstr);
    node_close(n);
    return s;
}

/* Connect node n to one of its host's addresses, IPv4 ones first (as hiredis orders them). */
static bb_status node_open(bb_redis *r, bbr_node *n) {
    struct addrinfo *ais;
    bb_status s = resolve(r, n, &ais);
    if (s != BB_OK || !ais) return s == BB_OK ? connect_to(r, n, n->host) : s;
    s = BB_E_IO;
    for (int pass = 0; pass < 2 && s != BB_OK && s != BB_E_TIMEOUT && s != BB_E_NOMEM; pass++)
        for (struct addrinfo *a = ais; a && s != BB_OK && s != BB_E_TIMEOUT && s != BB_E_NOMEM;
             a = a->ai_next) {
            char num[NI_MAXHOST];
            if ((a->ai_family == AF_INET) != (pass == 0) ||
                getnameinfo(a->ai_addr, a->ai_addrlen, num, sizeof num, NULL, 0, NI_NUMERICHOST))
                continue;
            s = connect_to(r, n, num);
        }
    freeaddrinfo(ais);
    if (s == BB_E_IO && !bb_error_buffer()[0])
        bbr_fail(r, s, "redis %s:%d: cannot connect: no usable address", n->host, n->port);
    return s;
}

/* Open node i (if closed) within the deadline and queue AUTH and SELECT ahead of anything
 * else. The socket is made non-blocking: every wait is exec's poll. */
static bb_status node_connect(bb_redis *r, int i) {
    bbr_node *n = &r->nodes[i];
    if (n->ctx && (n->n_queued || node_alive(n))) return BB_OK;
    node_close(n);
    bb_status s = node_open(r, n);
    if (s != BB_OK) return s;
    int fl = fcntl(n->ctx->fd, F_GETFL);
    if (fl < 0 || fcntl(n->ctx->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        bbr_fail(r, BB_E_IO, "redis %s:%d: %s", n->host, n->port, strerror(errno));
        node_close(n);
        return BB_E_IO;
    }
    n->ctx->flags &= ~REDIS_BLOCK; /* hiredis then takes EAGAIN as "later", not an error */
    if (!r->fns.createArray) {
        r->base_fns = *n->ctx->reader->fn;
        r->fns = r->base_fns;
        r->fns.createArray = create_array;
    }
    n->ctx->reader->fn = &r->fns;
    n->ctx->reader->privdata = r;
    const char *argv[3];
    size_t lens[3];
    int argc = 0;
    char db[16];
    if (r->user || r->password) {
        argv[argc++] = "AUTH";
        if (r->user) argv[argc++] = r->user;
        argv[argc++] = r->password ? r->password : "";
        for (int a = 0; a < argc; a++) lens[a] = strlen(argv[a]);
        if (!node_append(n, Q_AUTH, argc, argv, lens)) goto nomem;
    }
    if (r->db > 0) {
        argv[0] = "SELECT";
        argv[1] = db;
        lens[0] = 6;
        lens[1] = (size_t)snprintf(db, sizeof db, "%d", r->db);
        if (!node_append(n, Q_SELECT, 2, argv, lens)) goto nomem;
    }
    return BB_OK;
nomem:
    node_close(n);
    return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
}

/* "HOST:PORT" of a redirection or CLUSTER SLOTS (no userinfo: the handle's is used) into a
 * node. */
static bb_status node_of_address(bb_redis *r, const char *addr, int *node) {
    bbr_url u;
    bb_status s = bbr_addr_parse(r, addr, &u);
    if (s != BB_OK) return s;
    bbr_url_free(&u);
    *node = node_get(r, u.host, u.port);
    return *node < 0 ? bbr_fail(r, BB_E_NOMEM, "redis: out of memory") : BB_OK;
}

/* ---- The slot map ------------------------------------------------------------------------------ */

static bb_status exec_rounds(bb_redis *r, bbr_cmd *cmds, size_t n, int max_rounds);

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
    if (m->element[1]->integer < 1 || m->element[1]->integer > 65535) return false;
    const char *host = m->element[0]->len ? m->element[0]->str : r->nodes[asked].host;
    if (strlen(host) >= sizeof ((bbr_url *)0)->host) return false;
    int node = node_get(r, host, (int)m->element[1]->integer);
    if (node < 0) return false;
    for (long long s = lo->integer; s <= hi->integer; s++) r->slot_node[s] = (uint16_t)node;
    return true;
}

/* CLUSTER SLOTS of node i, in one round (a node that does not answer is not waited for). */
static bb_status slots_from(bb_redis *r, int i) {
    bbr_cmd c = {.pin = i + 1};
    bbr_arg_str(&c, "CLUSTER");
    bbr_arg_str(&c, "SLOTS");
    bb_status s = exec_rounds(r, &c, 1, 1);
    if (s != BB_OK) return s;
    const redisReply *rep = c.reply;
    if (rep->type != REDIS_REPLY_ARRAY) {
        s = bbr_fail(r, BB_E_SERVER, "redis %s:%d: CLUSTER SLOTS: %s", r->nodes[i].host,
                     r->nodes[i].port, rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
    } else {
        for (size_t e = 0; e < rep->elements && s == BB_OK; e++)
            if (!slots_entry(r, rep->element[e], i)) /* may add nodes: r->nodes moves */
                s = bbr_fail(r, BB_E_SERVER, "redis %s:%d: malformed CLUSTER SLOTS reply",
                             r->nodes[i].host, r->nodes[i].port);
    }
    bbr_cmds_clear(&c, 1);
    return s;
}

/* Reload the slot map from the first node that answers. */
static bb_status slots_refresh(bb_redis *r) {
    bb_status s = BB_E_IO;
    for (size_t i = 0; i < r->n_nodes; i++)
        if ((s = slots_from(r, (int)i)) == BB_OK) return s;
    return s;
}

/* ---- Handles ------------------------------------------------------------------------------------ */

static bb_status handle_new(bb_redis **out) {
    bb_redis *r = calloc(1, sizeof *r);
    if (!r) return BB_E_NOMEM;
    bb_config z = {.size = sizeof z, .kind = BB_BLOCKED, .bits = BB_BLOCK_BITS, .k = 1};
    if (bb_create(&r->zero, &z) != BB_OK) {
        free(r);
        return BB_E_NOMEM;
    }
    r->timeout_ms = BB_REDIS_TIMEOUT_MS;
    *out = r;
    return BB_OK;
}

/* Credentials of one URL into the handle: the first URL that has them sets them, and
 * every other must agree (one cluster, one user). */
static bb_status take_credentials(bb_redis *r, const bbr_url *u, const char *url) {
    char shown[300];
    bbr_url_redact(url, shown, sizeof shown);
    if (u->db > 0 && r->cluster)
        return bbr_fail(r, BB_E_INVAL, "redis: '%s' asks for database %d, but Redis "
                        "Cluster has only database 0", shown, u->db);
    if (u->db >= 0) r->db = u->db;
    if (!u->user && !u->password) return BB_OK;
    bool same_user = !r->user == !u->user && (!u->user || strcmp(r->user, u->user) == 0);
    bool same_pw = !r->password == !u->password &&
                   (!u->password || strcmp(r->password, u->password) == 0);
    if (r->user || r->password) {
        if (same_user && same_pw) return BB_OK;
        return bbr_fail(r, BB_E_INVAL, "redis: the cluster seeds carry different users "
                        "or passwords ('%s')", shown);
    }
    if ((u->user && !(r->user = strdup(u->user))) ||
        (u->password && !(r->password = strdup(u->password))))
        return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    return BB_OK;
}

static bb_status set_secret(bb_redis *r, char **dst, const char *v) {
    if (*dst) memset(*dst, 0, strlen(*dst));
    free(*dst);
    *dst = strdup(v);
    return *dst ? BB_OK : bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
}

/* o: the caller's options read up to their size, defaults (zeros) past it (abi.h). */
static bb_status open_handle(bb_redis *r, const char *const *urls, size_t n,
                             const bb_redis_options *o) {
    r->cluster = o->cluster;
    for (size_t s = 0; s < BBR_SLOTS; s++) r->slot_node[s] = r->cluster ? BBR_NO_NODE : 0;
    if (o->timeout_ms) r->timeout_ms = o->timeout_ms;
    r->wait_replicas = o->wait_replicas;
    if (!urls || n == 0) return bbr_fail(r, BB_E_INVAL, "redis: no address");
    if (!r->cluster && n != 1)
        return bbr_fail(r, BB_E_INVAL, "redis: a standalone server takes one address, "
                        "not %zu (Redis Cluster: set cluster)", n);
    bb_status s = BB_OK;
    for (size_t i = 0; i < n && s == BB_OK; i++) {
        bbr_url u;
        if (!urls[i]) return bbr_fail(r, BB_E_INVAL, "redis: NULL address");
        if ((s = bbr_url_parse(r, urls[i], &u)) != BB_OK) return s;
        s = take_credentials(r, &u, urls[i]);
        if (s == BB_OK && node_get(r, u.host, u.port) < 0)
            s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
        bbr_url_free(&u);
    }
    if (s == BB_OK && !r->user && o->user) s = set_secret(r, &r->user, o->user);
    if (s == BB_OK && !r->password && o->password) s = set_secret(r, &r->password, o->password);
    if (s != BB_OK) return s;
    r->deadline_ns = now_ns() + (uint64_t)r->timeout_ms * 1000000u;
    if (r->cluster) return slots_refresh(r);
    /* A PING now, so a wrong address or password is reported by the connect call. */
    bbr_cmd c = {.pin = 1};
    bbr_arg_str(&c, "PING");
    s = exec_rounds(r, &c, 1, 1);
    bbr_cmds_clear(&c, 1);
    return s;
}

bb_status bb_redis_open(bb_redis **out, const char *const *urls, size_t n_urls,
                        const bb_redis_options *opts) {
    bb_error_clear();
    if (!out) return BB_E_INVAL;
    *out = NULL;
    bb_status s = handle_new(out);
    if (s != BB_OK) return s;
    bb_redis_options o = BB_REDIS_OPTIONS_INIT;
    if (opts) s = BB_ABI_READ(&o, opts, bb_redis_options, wait_replicas, "BB_REDIS_OPTIONS_INIT");
    return s == BB_OK ? open_handle(*out, urls, n_urls, &o) : s;
}

bb_status bb_redis_connect(bb_redis **out, const char *url) {
    return bb_redis_open(out, &url, 1, NULL);
}

bb_status bb_redis_connect_cluster(bb_redis **out, const char *const *seeds, size_t n) {
    bb_redis_options o = {.size = sizeof o, .cluster = true};
    return bb_redis_open(out, seeds, n, &o);
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
    free(r->user);
    if (r->password) memset(r->password, 0, strlen(r->password));
    free(r->password);
    free(r);
}


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
        r->slab->cmds[i].pin = r->slab->cmds[i].key_arg = 0;
    }
    return r->slab->cmds;
nomem:
    bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    return NULL;
}

void bbr_cmds_clear(bbr_cmd *cmds, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (cmds[i].reply) freeReplyObject(cmds[i].reply);
        cmds[i].reply = NULL;
    }
}

/* ---- The executor -------------------------------------------------------------------------------- */

static bool arg_is(const bbr_cmd *c, int a, const char *word) {
    return strlen(word) == c->argvlen[a] && strncasecmp(c->argv[a], word, c->argvlen[a]) == 0;
}

static bool name_in(const bbr_cmd *c, const char *const *names) {
    for (; *names; names++)
        if (arg_is(c, 0, *names)) return true;
    return false;
}

static const char *const read_cmds[] = {"GET", "GETRANGE", "STRLEN", "BITCOUNT", "EXISTS",
                                        "TYPE", "MGET", "BITFIELD_RO", "PTTL", "TTL", "CLUSTER",
                                        "PING", "HGET", "HGETALL", NULL};

/* Whether c changes data (so that --wait follows it): every command not known to read. */
static bool is_write(const bbr_cmd *c) { return !name_in(c, read_cmds); }

/* Whether running c a second time leaves the data as running it once: reads; BITFIELD with
 * only GET and SET (bits, not counters); SETBIT, SETRANGE; DEL; SET without NX, XX or GET.
 * A resent one may answer differently (BITFIELD then finds its bits set, DEL nothing to
 * delete), which the callers accept; a counter (INCRBY), SET NX (a lock, a meta key) or
 * RENAME would be applied twice or fail, so after a broken connection they are not resent. */
static bool resend_safe(const bbr_cmd *c) {
    static const char *const idem[] = {"SETBIT", "SETRANGE", "DEL", "UNLINK", NULL};
    if (name_in(c, read_cmds) || name_in(c, idem)) return true;
    bool bitfield = arg_is(c, 0, "BITFIELD"), set = arg_is(c, 0, "SET");
    if (!bitfield && !set) return false;
    for (int a = bitfield ? 2 : 3; a < c->argc; a++) {
        if (bitfield && (arg_is(c, a, "INCRBY") || arg_is(c, a, "OVERFLOW"))) return false;
        if (set && (arg_is(c, a, "NX") || arg_is(c, a, "XX") || arg_is(c, a, "GET"))) return false;
    }
    return true;
}

/* The largest string reply this handle accepts: BBR_REPLY_MIN, or a cached filter's shard. */
static uint64_t reply_cap(const bb_redis *r) {
    uint64_t cap = BBR_REPLY_MIN;
    for (const bbr_filter *f = r->filters; f; f = f->next)
        for (size_t i = 0; i < f->n_subs; i++)
            if (f->subs[i].per_shard * BBR_BLOCK_BYTES + 64 > cap)
                cap = f->subs[i].per_shard * BBR_BLOCK_BYTES + 64;
    return cap;
}

typedef struct round_state {
    bool *pending;
    size_t n, n_pending;
    size_t total, unsent; /* commands of the whole call, and those after this request */
    bool retry_wait;    /* TRYAGAIN, CLUSTERDOWN, LOADING or a broken node: pause */
    bool refresh_slots; /* a broken node: reload the map before the next round */
    bool io_failed;     /* a node failed or timed out: bb_error_buffer() names it */
    bb_status io_status; /* and which: BB_E_IO or BB_E_TIMEOUT */
    bool fatal;         /* AUTH, SELECT or NOAUTH: no retry helps; bb_error_buffer() says why */
    int last_node;      /* the node of the last redirection, -1 if none */
    size_t n_unsure;    /* commands not safe to resend, lost with their connection */
    char unsure[320];   /* the first of them, naming the node */
    size_t n_short;     /* WAITs answered by fewer replicas than asked */
    char short_msg[200];
    char down[200];     /* "HOST:PORT: CLUSTERDOWN ..." or LOADING: the last such reply */
} round_state;

/* "CMD 'key'" of the command node n waits for (its next unread reply). */
static void waited_for(const bbr_node *n, const bbr_cmd *cmds, char *out, size_t cap) {
    long v = n->q_read < n->n_queued ? n->queued[n->q_read] : Q_PING;
    static const char *const own[] = {"", "ASKING", "AUTH", "SELECT", "WAIT", "PING"};
    if (v < 0) snprintf(out, cap, "%s", own[-v]);
    else if (cmds[v].argc < 2) snprintf(out, cap, "%.*s", (int)cmds[v].argvlen[0], cmds[v].argv[0]);
    else {
        int key = cmds[v].key_arg ? cmds[v].key_arg : 1; /* an EVAL is named by its key */
        snprintf(out, cap, "%.*s '%.*s'", (int)cmds[v].argvlen[0], cmds[v].argv[0],
                 (int)(cmds[v].argvlen[key] < 120 ? cmds[v].argvlen[key] : 120), cmds[v].argv[key]);
    }
}

/* Node i broke (why: the message, naming it): the commands whose replies were not read stay
 * pending if safe to resend, else they fail the call. */
static void node_broken(bb_redis *r, int i, const bbr_cmd *cmds, round_state *st, const char *why,
                        bb_status s) {
    bbr_node *n = &r->nodes[i];
    for (size_t q = n->q_read; q < n->n_queued; q++) {
        long v = n->queued[q];
        if (v < 0 || !st->pending[v] || resend_safe(&cmds[v])) continue;
        st->pending[v] = false;
        st->n_pending--;
        if (!st->n_unsure++) {
            char what[160];
            size_t keep = n->q_read;
            n->q_read = q;
            waited_for(n, cmds, what, sizeof what);
            n->q_read = keep;
            snprintf(st->unsure, sizeof st->unsure, "redis %s:%d: the connection broke after "
                     "%s was sent; not sent again, as it may have been applied", n->host,
                     n->port, what);
        }
    }
    st->io_status = bbr_fail(r, s, "%s", why);
    node_close(n);
    st->refresh_slots = st->retry_wait = st->io_failed = true;
}

static void broken_io(bb_redis *r, int i, const bbr_cmd *cmds, round_state *st) {
    bbr_node *n = &r->nodes[i];
    char why[400], what[160];
    waited_for(n, cmds, what, sizeof what);
    if (r->too_many)
        snprintf(why, sizeof why, "redis %s:%d: the reply to %s has more than %d elements",
                 n->host, n->port, what, BBR_MAX_ELEMENTS);
    else
        snprintf(why, sizeof why, "redis %s:%d: %s (waiting for the reply to %s)", n->host,
                 n->port, n->ctx->errstr[0] ? n->ctx->errstr : "connection lost", what);
    r->too_many = false;
    node_broken(r, i, cmds, st, why, BB_E_IO);
}

/* The reply of one of conn.c's own commands (st->fatal when the call cannot go on). */
static void own_reply(bb_redis *r, const bbr_node *n, long v, const redisReply *rep,
                      round_state *st) {
    bool err = rep->type == REDIS_REPLY_ERROR;
    if (v == Q_AUTH && err) {
        bool nopw = strstr(rep->str, "without any password") != NULL;
        bbr_fail(r, BB_E_SERVER, "redis %s:%d: AUTH failed: %s (%s)", n->host, n->port,
                 rep->str, nopw ? "the server has no password: give none"
                                : "check the user and password: URL, --password-file or REDISCLI_AUTH");
        st->fatal = true;
    } else if (v == Q_SELECT && err) {
        bbr_fail(r, BB_E_SERVER, "redis %s:%d: SELECT %d failed: %s", n->host, n->port,
                 r->db, rep->str);
        st->fatal = true;
    } else if (v == Q_WAIT) {
        long long acks = rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
        if (acks < (long long)r->wait_replicas && !st->n_short++)
            snprintf(st->short_msg, sizeof st->short_msg, "redis %s:%d: the writes are done, "
                     "but %s%lld of %u replicas acknowledged them in time (WAIT)", n->host,
                     n->port, acks < 0 ? "WAIT failed: " : "only ", acks < 0 ? 0 : acks,
                     r->wait_replicas);
    }
}

/* "MOVED 3999 127.0.0.1:6381" / "ASK ...": the slot and the node; false if malformed. */
static bool parse_redirect(bb_redis *r, const char *msg, long *slot, int *node) {
    const char *sp = strchr(msg, ' ');
    if (!sp) return false;
    char *end;
    *slot = strtol(sp + 1, &end, 10);
    if (*end != ' ' || *slot < 0 || *slot >= BBR_SLOTS) return false;
    char keep[BB_LAST_ERROR_CAP];
    memcpy(keep, bb_error_buffer(), sizeof keep);
    bool ok = node_of_address(r, end + 1, node) == BB_OK;
    memcpy(bb_error_buffer(), keep, sizeof keep);
    return ok;
}

/* Handle the reply of queue entry v of node i. */
static void take_reply(bb_redis *r, int i, long v, redisReply *reply, bbr_cmd *cmds,
                       round_state *st) {
    bbr_node *n = &r->nodes[i];
    if (v < 0) {
        own_reply(r, n, v, reply, st);
        freeReplyObject(reply);
        return;
    }
    bbr_cmd *c = &cmds[v];
    c->ask_node = -1;
    const char *e = reply->type == REDIS_REPLY_ERROR ? reply->str : "";
    long slot;
    int to;
    if (strncmp(e, "NOAUTH", 6) == 0) {
        bbr_fail(r, BB_E_SERVER, "redis %s:%d: %s: the server needs a password "
                 "(redis://:PASSWORD@HOST, --password-file or REDISCLI_AUTH)", n->host, n->port, e);
        st->fatal = true;
    } else if (strncmp(e, "MOVED ", 6) == 0 && parse_redirect(r, e, &slot, &to)) {
        r->slot_node[slot] = (uint16_t)to;
        st->last_node = i;
    } else if (strncmp(e, "ASK ", 4) == 0 && parse_redirect(r, e, &slot, &to)) {
        c->ask_node = to;
        st->last_node = i;
    } else if (strncmp(e, "TRYAGAIN", 8) == 0 || strncmp(e, "CLUSTERDOWN", 11) == 0 ||
               strncmp(e, "LOADING", 7) == 0) {
        /* A slot mid-migration, a cluster waiting for a failover, a server reading its data
         * from disk: each passes, so the command is resent until the deadline. */
        if (e[0] != 'T') snprintf(st->down, sizeof st->down, "%s:%d: %s", n->host, n->port, e);
        st->retry_wait = true;
        st->refresh_slots |= e[0] == 'C';
    } else {
        if (c->reply) freeReplyObject(c->reply);
        c->reply = reply;
        st->pending[v] = false;
        st->n_pending--;
        return;
    }
    freeReplyObject(reply);
}

/* Whether node n's reader holds more than the handle accepts: a string claimed larger than
 * cap (seen in its "$LEN" line, before its bytes arrive; *claim), or a reply grown past it. */
static bool reply_too_big(const bbr_node *n, uint64_t cap, uint64_t *claim) {
    const redisReader *rd = n->ctx->reader;
    *claim = 0;
    if (n->reply_bytes > cap + (UINT64_C(1) << 20)) return true;
    /* The reader takes an item's type byte before its length line: '$' at pos, or read. */
    size_t p = rd->pos;
    if (p < rd->len && rd->buf[p] == '$') p++;
    else if (rd->ridx < 0 || rd->rstack[rd->ridx].type != REDIS_REPLY_STRING) return false;
    uint64_t len = 0;
    for (; p < rd->len && rd->buf[p] >= '0' && rd->buf[p] <= '9'; p++)
        len = len > UINT64_MAX / 20 ? UINT64_MAX : len * 10 + (uint64_t)(rd->buf[p] - '0');
    if (len <= cap) return false;
    *claim = len;
    return true;
}

/* Read what node i has sent and take every whole reply. */
static void node_read(bb_redis *r, int i, bbr_cmd *cmds, round_state *st, uint64_t cap) {
    bbr_node *n = &r->nodes[i];
    size_t before = n->ctx->reader->len;
    if (redisBufferRead(n->ctx) != REDIS_OK) return broken_io(r, i, cmds, st);
    size_t after = n->ctx->reader->len;
    n->reply_bytes += after >= before ? after - before : after;
    while (n->ctx && n->q_read < n->n_queued && !st->fatal) {
        void *rep = NULL;
        if (redisGetReplyFromReader(n->ctx, &rep) != REDIS_OK) return broken_io(r, i, cmds, st);
        if (!rep) break;
        r->reply_elems = 0;
        n->reply_bytes = n->ctx->reader->len - n->ctx->reader->pos;
        take_reply(r, i, n->queued[n->q_read++], rep, cmds, st);
        n = &r->nodes[i]; /* a redirection may have added a node and moved the array */
    }
    uint64_t claim;
    if (n->ctx && n->q_read < n->n_queued && !st->fatal && reply_too_big(n, cap, &claim)) {
        char why[400], what[160];
        waited_for(n, cmds, what, sizeof what);
        if (claim)
            snprintf(why, sizeof why, "redis %s:%d: the reply to %s claims %llu bytes, more "
                     "than the %llu accepted", n->host, n->port, what,
                     (unsigned long long)claim, (unsigned long long)cap);
        else
            snprintf(why, sizeof why, "redis %s:%d: the reply to %s is over %llu bytes", n->host,
                     n->port, what, (unsigned long long)cap);
        node_broken(r, i, cmds, st, why, BB_E_IO);
    }
}

static void timed_out(bb_redis *r, int i, const bbr_cmd *cmds, round_state *st) {
    bbr_node *n = &r->nodes[i];
    char why[400], what[160];
    waited_for(n, cmds, what, sizeof what);
    snprintf(why, sizeof why, "redis %s:%d: timed out (%.1f s) %s %s", n->host, n->port,
             r->timeout_ms / 1000.0,
             n->out_pending ? "sending, then waiting for the reply to" : "waiting for the reply to",
             what);
    node_broken(r, i, cmds, st, why, BB_E_TIMEOUT);
}

/* Write and read every node's pipeline until each is answered, broken or the deadline. */
static void exchange(bb_redis *r, bbr_cmd *cmds, round_state *st) {
    uint64_t cap = reply_cap(r);
    size_t slots = r->n_nodes ? r->n_nodes : 1;
    struct pollfd *pf = malloc(slots * sizeof *pf);
    int *which = malloc(slots * sizeof *which);
    for (;;) {
        nfds_t m = 0;
        for (size_t i = 0; i < r->n_nodes; i++) {
            bbr_node *n = &r->nodes[i];
            if (!n->ctx || n->q_read == n->n_queued) continue;
            if (!pf || !which || m == slots) { /* out of memory, or nodes added mid-round */
                node_broken(r, (int)i, cmds, st, "redis: out of memory", BB_E_NOMEM);
                continue;
            }
            pf[m] = (struct pollfd){n->ctx->fd, (short)(POLLIN | (n->out_pending ? POLLOUT : 0)), 0};
            which[m++] = (int)i;
        }
        if (m == 0 || st->fatal) break;
        long ms = left_ms(r);
        int ready = ms > 0 ? poll(pf, m, ms > 60000 ? 60000 : (int)ms) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0 && left_ms(r) == 0) {
            for (nfds_t j = 0; j < m; j++) timed_out(r, which[j], cmds, st);
            break;
        }
        for (nfds_t j = 0; j < m && !st->fatal; j++) {
            bbr_node *n = &r->nodes[which[j]];
            if (!pf[j].revents || !n->ctx) continue;
            if (n->out_pending) {
                int done = 0;
                if (redisBufferWrite(n->ctx, &done) != REDIS_OK) {
                    broken_io(r, which[j], cmds, st);
                    continue;
                }
                n->out_pending = !done;
            }
            if (pf[j].revents & (POLLIN | POLLHUP | POLLERR)) node_read(r, which[j], cmds, st, cap);
        }
    }
    free(pf);
    free(which);
}

/* Queue every pending command on its node (ASKING first where asked), then WAIT after the
 * writes when the handle asks for replicas. */
static bb_status send_round(bb_redis *r, bbr_cmd *cmds, size_t n, round_state *st) {
    for (size_t i = 0; i < n; i++) {
        if (!st->pending[i]) continue;
        int node = cmds[i].pin ? cmds[i].pin - 1 : cmds[i].ask_node;
        if (node < 0) {
            int key = cmds[i].key_arg ? cmds[i].key_arg : 1;
            uint16_t s = r->cluster && cmds[i].argc > key
                             ? r->slot_node[bbr_key_slot(cmds[i].argv[key], cmds[i].argvlen[key])]
                             : 0;
            if (s == BBR_NO_NODE) {
                st->refresh_slots = st->retry_wait = true;
                continue;
            }
            node = s;
        }
        bb_status s = node_connect(r, node);
        if (s == BB_E_NOMEM) return s;
        if (s != BB_OK) {
            st->refresh_slots = st->retry_wait = st->io_failed = true;
            st->io_status = s;
            continue;
        }
        bbr_node *nd = &r->nodes[node];
        const char *asking = "ASKING";
        size_t asking_len = 6;
        if ((cmds[i].ask_node >= 0 && !node_append(nd, Q_ASKING, 1, &asking, &asking_len)) ||
            !node_append(nd, (long)i, cmds[i].argc, cmds[i].argv, cmds[i].argvlen))
            return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
        nd->wrote |= is_write(&cmds[i]);
    }
    long ms = left_ms(r);
    for (size_t i = 0; r->wait_replicas && i < r->n_nodes; i++) {
        bbr_node *nd = &r->nodes[i];
        if (!nd->wrote) continue;
        nd->wrote = false;
        /* WAIT's own timeout ends before ours, so that its answer (how many replicas) can
         * still be read; 0 would mean "forever". */
        char num[2][24];
        const char *argv[3] = {"WAIT", num[0], num[1]};
        size_t lens[3] = {4, (size_t)snprintf(num[0], sizeof num[0], "%u", r->wait_replicas),
                          (size_t)snprintf(num[1], sizeof num[1], "%ld", ms > 4 ? ms * 3 / 4 : 1)};
        if (!node_append(nd, Q_WAIT, 3, argv, lens))
            return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    }
    return BB_OK;
}

/* The call's failure, most telling first: what cannot be retried, a command that could not be
 * resent, the node that broke or timed out last, CLUSTERDOWN, the redirections. */
static bb_status failure(bb_redis *r, bbr_cmd *cmds, const round_state *st) {
    size_t not_done = st->n_pending + st->n_unsure, len;
    bb_status s = BB_E_IO;
    if (st->fatal) return BB_E_SERVER;
    if (st->n_unsure) bbr_fail(r, s, "%s", st->unsure);
    else if (st->io_failed) s = st->io_status; /* bb_error_buffer() names the node */
    else if (st->down[0]) s = bbr_fail(r, BB_E_SERVER, "redis %s", st->down);
    else if (st->last_node >= 0)
        bbr_fail(r, s, "redis %s:%d: still redirecting after %.1f s (cluster resharding or "
                 "down?)", r->nodes[st->last_node].host, r->nodes[st->last_node].port,
                 r->timeout_ms / 1000.0);
    else if (st->n_pending) {
        size_t i = 0;
        while (!st->pending[i]) i++;
        int key = cmds[i].key_arg ? cmds[i].key_arg : 1;
        bbr_fail(r, s, "redis: no node serves the slot of '%.*s' (cluster down?)",
                 (int)cmds[i].argvlen[key], (const char *)cmds[i].argv[key]);
    }
    if (!not_done) return bbr_fail(r, s, "%s", st->short_msg); /* only WAIT fell short */
    len = strlen(bb_error_buffer());
    snprintf(bb_error_buffer() + len, BB_LAST_ERROR_CAP - len, " (%zu of %zu commands not done)",
             not_done + st->unsent, st->total);
    return s;
}

/* Rounds until every command is answered, the deadline passes or max_rounds are done; the
 * request is part of a call of `total` commands with `unsent` after it (for the message). */
static bb_status exec_part(bb_redis *r, bbr_cmd *cmds, size_t n, int max_rounds,
                           size_t total, size_t unsent) {
    bb_error_buffer()[0] = '\0';
    if (n == 0) return BB_OK;
    round_state st = {.pending = malloc(n), .n = n, .n_pending = n, .last_node = -1,
                      .total = total, .unsent = unsent};
    if (!st.pending) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    memset(st.pending, 1, n);
    for (size_t i = 0; i < n; i++) cmds[i].ask_node = -1;
    r->reply_elems = 0;
    bb_status s = BB_OK;
    for (int round = 0; st.n_pending && round < max_rounds && !st.fatal; round++) {
        if (st.retry_wait) {
            long ms = left_ms(r), want = 20L << (round < 5 ? round : 5);
            pause_ms(want < ms ? want : ms);
        }
        if (left_ms(r) == 0) break;
        if (st.refresh_slots && r->cluster && max_rounds > 1) {
            char keep[BB_LAST_ERROR_CAP];
            memcpy(keep, bb_error_buffer(), sizeof keep);
            slots_refresh(r);
            memcpy(bb_error_buffer(), keep, sizeof keep); /* the batch's failure is the one to report */
        }
        st.retry_wait = st.refresh_slots = false;
        if ((s = send_round(r, cmds, n, &st)) != BB_OK) break;
        for (size_t i = 0; i < r->n_nodes; i++) r->round_trips += r->nodes[i].n_queued > 0;
        exchange(r, cmds, &st);
        for (size_t i = 0; i < r->n_nodes; i++) { /* replies left unread (a fatal error) would */
            bbr_node *nd = &r->nodes[i];           /* answer the next call: drop them */
            if (nd->q_read < nd->n_queued) node_close(nd);
            nd->n_queued = nd->q_read = 0;
        }
    }
    if (s == BB_OK && (st.n_pending || st.n_unsure || st.n_short || st.fatal))
        s = failure(r, cmds, &st);
    free(st.pending);
    if (s != BB_OK) {
        for (size_t i = 0; i < r->n_nodes; i++) /* replies never read: drop the connection */
            if (r->nodes[i].ctx && r->nodes[i].out_pending) node_close(&r->nodes[i]);
    }
    return s;
}

static bb_status exec_rounds(bb_redis *r, bbr_cmd *cmds, size_t n, int max_rounds) {
    return exec_part(r, cmds, n, max_rounds, n, 0);
}

bb_status bbr_exec(bb_redis *r, bbr_cmd *cmds, size_t n) {
    bb_status s = BB_OK;
    for (size_t i = 0; s == BB_OK && (i < n || i == 0); i += BBR_REQUEST_CMDS) {
        size_t m = n - i < BBR_REQUEST_CMDS ? n - i : BBR_REQUEST_CMDS;
        r->deadline_ns = now_ns() + (uint64_t)r->timeout_ms * 1000000u;
        s = exec_part(r, cmds + i, m, BBR_MAX_ROUNDS, n, n - i - m);
    }
    return s;
}

bb_status bbr_exec1(bb_redis *r, bbr_cmd *c) { return bbr_exec(r, c, 1); }
