/* SPDX-License-Identifier: MIT */
/*
 * redis_internal.h - what the Redis binding's files share (nothing here is exported):
 * the handle with its node connections and slot map, the pipelined command executor
 * (conn.c), the meta key codec and key names (meta.c), and the per-filter cache (filter.c).
 *
 * A command is routed by its key: standalone handles send everything to node 0; cluster
 * handles send to slot_node[CRC16(hash tag) & 16383] (the Redis Cluster specification,
 * "Keys distribution model"), unless a MOVED or ASK reply says otherwise.
 */
#ifndef BB_REDIS_INTERNAL_H
#define BB_REDIS_INTERNAL_H

#include "blockbloom_redis.h"
#include "../lasterror.h"

#include <hiredis/hiredis.h>
#include <stdarg.h>

#define BBR_SLOTS 16384
#define BBR_NO_NODE UINT16_MAX
#define BBR_META_BYTES 192u
#define BBR_HEADER_BYTES 128u
#define BBR_LAYOUT_FIXED 1u /* one blocked filter: push, slices, legacy reserve */
#define BBR_LAYOUT_CHAIN 2u /* a chain of sub-filters: reserve, insert, auto-create */
#define BBR_MAX_SUBS 1024u  /* as the local scalable kind (src/kinds/scalable.c) */
#define BBR_MAX_ARGS (2 + 4 * BB_MAX_K)
#define BBR_BLOCK_BYTES 64u
/* The most a filter may hold, all its sub-filters together. A meta key or a chain's state
 * that claims more is refused (as damaged) before any list of key names or commands is
 * built, so a client's memory and time follow these bounds, not what a server claims (a
 * `subs` of 40 at EXPANSION 2 claims 2^55 bits in ~10^9 shards). 65536 shards is 256 GiB at
 * the default 4 MiB a shard, and their pipeline of STRLENs ~100 MB of commands. */
#define BBR_MAX_SHARDS 65536u
#define BBR_MAX_BYTES (UINT64_C(1) << 40) /* 1 TiB: beyond one Redis node's memory */

typedef struct bbr_node {
    char *host;
    int port;
    redisContext *ctx; /* NULL while disconnected; non-blocking while connected */
    /* The commands appended in the current round, in order (an index into the batch, or one
     * of conn.c's own commands: ASKING, AUTH, SELECT, WAIT); q_read of them are answered. */
    long *queued;
    size_t n_queued, cap_queued, q_read;
    bool out_pending;     /* the output buffer holds bytes not yet written */
    bool wrote;           /* a write command was queued this round (WAIT follows it) */
    uint64_t reply_bytes; /* bytes received towards the reply being read */
} bbr_node;

typedef struct bbr_cmd bbr_cmd;
typedef struct bbr_cmd_slab {
    bbr_cmd *cmds;
    size_t cap;
} bbr_cmd_slab;

/* One sub-filter: a blocked filter cut into shards. A fixed filter (layout 1) has one; a
 * chain (layout 2) has one per growth step, oldest first, each with its own c_i and p_i. */
typedef struct bbr_sub {
    uint64_t blocks, bits, capacity, shards, per_shard;
    double fpr;
    unsigned k;
    char **shard_keys; /* shards of them */
} bbr_sub;

/* A cached filter geometry (from its meta key and, for a chain, its state hash). */
typedef struct bbr_filter {
    char *name;
    uint8_t meta[BBR_META_BYTES];
    unsigned layout;     /* BBR_LAYOUT_FIXED or BBR_LAYOUT_CHAIN */
    uint64_t capacity;   /* fixed: n; chain: c_0 */
    double fpr;          /* the filter's p */
    uint64_t seed;
    uint64_t growth;     /* chain: EXPANSION (>= 1) */
    bool nonscaling;     /* chain: never grows; refuses past c_0 */
    uint64_t shard_opt;  /* chain: shards per sub-filter asked for at reserve (0 = 4 MiB each) */
    bool oversize;       /* fixed: the meta is valid but beyond BBR_MAX_SHARDS / BYTES (del) */
    bbr_sub *subs;       /* n_subs known to this process (a chain only ever grows) */
    size_t n_subs;
    bb_filter *hasher;   /* a one-block filter with the seed: bb_hash() of keys */
    char *count_key;     /* fixed: the counter string; chain: the state hash (docs/REDIS.md) */
    struct bbr_filter *next;
} bbr_filter;

/* An address: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], HOST:PORT or HOST (url.c). */
typedef struct bbr_url {
    char host[256];
    int port;
    char *user, *password; /* percent-decoded, malloc'd; NULL when absent */
    int db;                /* -1 when absent */
} bbr_url;

struct bb_redis {
    bool cluster;
    char *user, *password; /* AUTH on every new connection (NULL: none) */
    int db;                /* SELECT on every new connection (0: none) */
    uint32_t timeout_ms;   /* deadline of one bbr_exec, its retries and reconnects */
    unsigned wait_replicas; /* WAIT this many replicas after the writes of each round */
    uint64_t deadline_ns;  /* of the bbr_exec running (CLOCK_MONOTONIC) */
    /* hiredis's reply builders with createArray counting elements (reply_elems), so a server
     * claiming a huge array cannot make the reader allocate without bound. */
    redisReplyObjectFunctions fns, base_fns;
    size_t reply_elems;
    bool too_many;
    bbr_node *nodes;
    size_t n_nodes, cap_nodes;
    uint16_t slot_node[BBR_SLOTS];
    bbr_filter *filters;
    bb_filter *zero; /* seed-0 hasher: XXH3-64 seed 0, the format's checksum */
    uint64_t round_trips;
    bbr_cmd_slab *slab; /* reused command array of the batch calls (bbr_cmds_get) */
};

/* One command of a pipeline: argv[0 .. argc) routed by argv[1] (the key). */
struct bbr_cmd {
    int argc;
    const char *argv[BBR_MAX_ARGS];
    size_t argvlen[BBR_MAX_ARGS];
    redisReply *reply; /* set by bbr_exec; freed by bbr_cmds_clear */
    int ask_node;      /* -1, or the node an ASK redirected us to */
    int pin;           /* 0, or 1 + the node this command must go to (conn.c's own) */
    int key_arg;       /* index of the argument that routes the command; 0 = 1 (EVAL: 3) */
    int n_num;
    char num[BB_MAX_K + 2][21]; /* numeric arguments: k bit offsets, or GETRANGE's two */
};

/* ---- conn.c ---------------------------------------------------------------------------------- */
bb_status bbr_fail(bb_redis *r, bb_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
uint16_t bbr_key_slot(const char *key, size_t len);
/** Run cmds[0 .. n) pipelined: one round per node, repeated for redirected or failed
 *  commands. Each cmd gets its reply (error replies included, except MOVED/ASK/TRYAGAIN,
 *  which are followed). A node still unreachable after the retries fails the whole call. */
bb_status bbr_exec(bb_redis *r, bbr_cmd *cmds, size_t n);
void bbr_cmds_clear(bbr_cmd *cmds, size_t n);
/** Close the connections and free the handle itself (the filter cache is filter.c's). */
void bbr_handle_free(bb_redis *r);
/** Append an argument (copied pointer; `len` bytes) / a decimal number (stored in cmd). */
void bbr_arg(bbr_cmd *c, const void *p, size_t len);
void bbr_arg_str(bbr_cmd *c, const char *s);
void bbr_arg_u64(bbr_cmd *c, uint64_t v);
/** n empty commands from the handle's reusable array (valid until the next call; a batch
 *  of 1000 commands is 1.6 MB, which malloc would map and unmap each time). NULL when out of
 *  memory (bb_error_buffer() set). */
bbr_cmd *bbr_cmds_get(bb_redis *r, size_t n);
/** One command, run alone. */
bb_status bbr_exec1(bb_redis *r, bbr_cmd *c);

/* ---- url.c ----------------------------------------------------------------------------------- */
/** Parse an address (url.c's header says which forms); BB_E_INVAL with the reason in bb_error_buffer()
 *  (the password never quoted). Free u's strings with bbr_url_free. */
bb_status bbr_url_parse(bb_redis *r, const char *s, bbr_url *u);
/** The same for an address a server gave (MOVED, ASK, CLUSTER SLOTS): HOST:PORT where HOST may
 *  be a bare IPv6 address (the last ':' separates the port). */
bb_status bbr_addr_parse(bb_redis *r, const char *s, bbr_url *u);
void bbr_url_free(bbr_url *u);
/** s with the password of its userinfo written as "***", into out[0 .. cap). */
void bbr_url_redact(const char *s, char *out, size_t cap);

/* ---- meta.c ---------------------------------------------------------------------------------- */
#define BBR_MAX_EXPANSION 32768 /* RedisBloom's bf-expansion-factor maximum */
/** The meta bytes of a fixed filter of this geometry (file header + Redis record). */
void bbr_meta_encode(const bb_redis *r, uint8_t out[BBR_META_BYTES], uint64_t bits, unsigned k,
                     uint64_t seed, uint64_t capacity, double fpr, uint64_t shards,
                     uint64_t per_shard);
/** The meta bytes of a chain (seed 0): c_0, p, EXPANSION, NONSCALING, shards per sub-filter. */
void bbr_meta_encode_chain(const bb_redis *r, uint8_t out[BBR_META_BYTES], uint64_t capacity,
                           double fpr, uint64_t growth, bool nonscaling, uint64_t shards);
/** Validate meta bytes into f's parameters (a fixed filter: and its one sub-filter, without
 *  key names); BB_E_CORRUPT with a reason in bb_error_buffer(). */
bb_status bbr_meta_decode(bb_redis *r, const char *name, const void *buf, size_t len,
                          bbr_filter *f);
/** Shards of a filter of `blocks` blocks: `shards` of them (0 = at most 4 MiB each), the
 *  blocks spread evenly (per = ceil(blocks / n), n = ceil(blocks / per)). */
bb_status bbr_split(bb_redis *r, uint64_t blocks, uint64_t shards, uint64_t *n_out,
                    uint64_t *per_out);
/** Geometry of a chain's sub-filter i (no key names). */
bb_status bbr_chain_sub(bb_redis *r, const bbr_filter *f, size_t i, bbr_sub *out);
/** How many of chain f's sub-filters 0 .. n-1 fit BBR_MAX_SHARDS and BBR_MAX_BYTES together
 *  (geometry only: time O(n^2) cheap steps, n <= BBR_MAX_SUBS, no allocation). */
size_t bbr_chain_fit(bb_redis *r, const bbr_filter *f, size_t n);
/** Append sub (its key names, if any, now owned by f). */
bb_status bbr_sub_append(bb_redis *r, bbr_filter *f, const bbr_sub *sub);
/** The scalable file header of chain f at buf (its records follow, total bytes in all). */
void bbr_chain_header(const bb_redis *r, const bbr_filter *f, uint8_t *buf, uint64_t keys_added,
                      uint64_t total);
/** The file header (128 bytes) of f with keys_added and the payload checksum filled in. */
void bbr_header_finish(const bb_redis *r, uint8_t header[BBR_HEADER_BYTES], uint64_t keys_added,
                       uint64_t payload_checksum);
uint64_t bbr_checksum(const bb_redis *r, const void *p, size_t len);
/** Whether name starts with "bb:{", the prefix of every shard and helper key (docs/REDIS.md):
 *  such a name could be another filter's key, so it is refused. */
bool bbr_name_reserved(const char *name);
/** Key names (docs/REDIS.md), malloc'd (NULL when out of memory): shard s of sub-filter 0
 *  "bb:{s:NAME}", of sub-filter i > 0 "bb:{i.s:NAME}"; counter or state "bb:{n:NAME}", lock
 *  "bb:{c:NAME}", slice progress "bb:{p:NAME}" and "bb:{d:NAME}". */
char *bbr_shard_key(const char *name, uint64_t sub, uint64_t s);
char *bbr_aux_key(const char *name, char tag);

/* ---- filter.c ------------------------------------------------------------------------------- */
void bbr_filter_free(bbr_filter *f);
/** Bytes of shard s of sub (the last shard may be shorter). */
uint64_t bbr_shard_len(const bbr_sub *sub, uint64_t s);
/** Fill f's key names and hasher (and its sub-filters' shard keys) from its decoded geometry. */
bb_status bbr_filter_names(bb_redis *r, bbr_filter *f, const char *name);
/** Shard key names of `name`'s sub-filter i. */
bb_status bbr_sub_names(bb_redis *r, const char *name, size_t i, bbr_sub *sub);
/** A chain's sub-filters up to n (geometry and key names). */
bb_status bbr_chain_extend(bb_redis *r, bbr_filter *f, size_t n);
/** GET and decode the meta key: BB_E_NOT_FOUND, BB_E_WRONGTYPE (another key), BB_E_CORRUPT. */
bb_status bbr_read_meta(bb_redis *r, const char *name, bbr_filter *f);
/** The cached geometry of name, or read (meta, then every shard's STRLEN) and cached. */
bb_status bbr_open_filter(bb_redis *r, const char *name, bbr_filter **out);
/** BB_E_SERVER quoting an error (or unexpected) reply about `key`. */
bb_status bbr_reply_error(bb_redis *r, const char *key, const redisReply *rep);
/** DEL of keys[0 .. n) (NULL entries skipped), pipelined. */
bb_status bbr_del_keys(bb_redis *r, char *const *keys, size_t n);
/** in (NULL: all defaults) completed with RedisBloom's defaults and checked with its texts
 *  (reserve: NONSCALING with EXPANSION refused, as BF.RESERVE does). */
bb_status bbr_params(bb_redis *r, const bb_redis_params *in, bool reserve, bb_redis_params *p);

/* The name's lock "bb:{c:NAME}" (SET NX PX BBR_LOCK_MS), held by reserve, push and del from
 * before they look at the name until after they are done: a creator that found the name free
 * would otherwise DEL and re-zero the shards another creator has just published and filled
 * (docs/REDIS.md). BB_E_EXISTS when another client holds it; *key is then NULL. */
#define BBR_LOCK_MS 60000
bb_status bbr_lock(bb_redis *r, const char *name, char **key);
/* Release (DEL) and free the lock key (NULL: nothing); returns s, or the DEL's failure when
 * s is OK; an earlier failure's message is kept. */
bb_status bbr_unlock(bb_redis *r, char *key, bb_status s);
/** An integer reply, a decimal bulk string, or nil (0). */
bool bbr_reply_u64(const redisReply *rep, uint64_t *v);

#endif
