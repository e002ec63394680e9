/* SPDX-License-Identifier: MIT */
/*
 * blockbloom_redis.h - the Redis binding of blockbloom (library libblockbloom_redis, over
 * hiredis): RedisBloom's BF.* vocabulary (reserve, add, madd, exists, mexists, info, card)
 * on stock Redis and Redis Cluster, with plain strings, BITFIELD and GETRANGE, the hashing
 * done here. A filter is the blocked filter of the file format (docs/FORMAT.md) cut into
 * shards, one Redis string each; the layout is in docs/REDIS.md, so that a client in another
 * language can read and update the same filter.
 *
 * Thread-safety: a bb_redis handle is one set of connections; use one per thread. Any
 * number of processes may share one filter: adds are single atomic BITFIELD commands, so no
 * writer loses another's keys.
 *
 * Errors: every call returns a bb_redis_status; bb_redis_error(r) then says what went wrong
 * in words, naming the node (host:port) for network errors, and for BB_REDIS_E_SERVER
 * quoting the server's reply. A batch that fails on one node returns that error, never a
 * partial success: the keys of the nodes that answered are added (adding is idempotent,
 * so the caller may retry the whole batch). A node that is down gives BB_REDIS_E_IO and
 * one that answers CLUSTERDOWN BB_REDIS_E_SERVER, both naming that node's host:port.
 */
#ifndef BLOCKBLOOM_REDIS_H
#define BLOCKBLOOM_REDIS_H

#include "blockbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bb_redis_status {
    BB_REDIS_OK = 0,
    BB_REDIS_E_INVAL = 1,      /**< bad argument: NULL, error_rate outside (0, 1), capacity 0 */
    BB_REDIS_E_NOMEM = 2,      /**< out of memory */
    BB_REDIS_E_IO = 3,         /**< a node could not be reached or the connection broke */
    BB_REDIS_E_SERVER = 4,     /**< the server answered with an error (quoted in the message) */
    BB_REDIS_E_EXISTS = 5,     /**< reserve or push on a name that is already a filter */
    BB_REDIS_E_NOT_FOUND = 6,  /**< no filter of that name */
    BB_REDIS_E_WRONGTYPE = 7,  /**< the name holds a key that is not a blockbloom filter */
    BB_REDIS_E_BAD_META = 8,   /**< meta key of an unknown version or with damaged fields */
    BB_REDIS_E_BAD_SHARD = 9,  /**< a shard key of the wrong type or length */
    BB_REDIS_E_MISMATCH = 10,  /**< a slice or filter of another geometry than the name's */
    BB_REDIS_E_FILTER = 11     /**< a blockbloom library call failed (see the message) */
} bb_redis_status;

/** Short text of a status ("ERR item exists", ...). Never NULL. */
BB_API const char *bb_redis_strerror(bb_redis_status s);

typedef struct bb_redis bb_redis;

/** Default deadline of one request, in milliseconds (bb_redis_options.timeout_ms). */
#define BB_REDIS_TIMEOUT_MS 10000u

/**
 * How to connect (bb_redis_open). Zero every field you do not set: {sizeof opts} is a valid
 * value. Fields past `size` bytes are read as zero, so a caller built against an older
 * header keeps working.
 */
typedef struct bb_redis_options {
    size_t size;            /**< sizeof (bb_redis_options) */
    bool cluster;           /**< the URLs are seeds of a Redis Cluster (any number of them) */
    const char *user;       /**< ACL user for AUTH when the URLs name none (NULL: none) */
    const char *password;   /**< password for AUTH when the URLs carry none (NULL: none) */
    uint32_t timeout_ms;    /**< deadline of each request; 0: BB_REDIS_TIMEOUT_MS */
    unsigned wait_replicas; /**< after each batch of writes, WAIT for this many replicas */
} bb_redis_options;

/**
 * Connect. urls[0 .. n_urls) are addresses: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
 * (USER and PASSWORD percent-decoded; an IPv6 HOST in brackets, [::1]), HOST:PORT or HOST
 * (port 6379). A standalone handle takes exactly one; a cluster handle (opts->cluster) takes
 * any number of seeds, reads the slot map from the first that answers (CLUSTER SLOTS), sends
 * each key to the node owning CRC16(hash tag) & 16383, follows MOVED and ASK, and reconnects
 * (reloading the map) when a node breaks, until the request's deadline.
 *
 * Every connection the handle opens, to any node and after any reconnect, first sends
 * AUTH (USER PASSWORD, or PASSWORD alone: requirepass) when a password or user is given, and
 * SELECT DB when DB > 0. Redis Cluster has only database 0, so a cluster URL with /DB > 0 is
 * refused (E_INVAL); seeds with different credentials too. rediss:// (TLS) is refused
 * (E_INVAL): the hiredis this builds on has none.
 *
 * Deadlines: each request (one call's pipeline, with its redirections, reconnects and
 * retries) must finish within opts->timeout_ms, or fails with E_IO saying what timed out on
 * which node. A reply is read only up to a bound (16 MiB, or the largest shard of a filter
 * this handle opened, per string; 65536 array elements per reply), whatever the server
 * claims. After a broken connection, a command that may have run is sent again only when
 * running it twice changes nothing (reads, BITFIELD SET, DEL ...); one that is not (INCRBY,
 * SET NX, RENAME) fails the call instead (E_IO, naming it), so no count is added twice.
 *
 * opts->wait_replicas = N > 0: every request with writes ends with WAIT N on each node it
 * wrote to; fewer acknowledgements fail the call (E_IO, saying how many answered; the writes
 * are done on the master).
 *
 * opts may be NULL (the defaults). On error *out is still a handle (free it) whose
 * bb_redis_error says why, unless the error is E_NOMEM or E_INVAL with out NULL. The
 * password is never quoted in a message.
 */
BB_API bb_redis_status bb_redis_open(bb_redis **out, const char *const *urls, size_t n_urls,
                                     const bb_redis_options *opts);

/** bb_redis_open of one standalone server with the default options. */
BB_API bb_redis_status bb_redis_connect(bb_redis **out, const char *url);

/** bb_redis_open of a Redis Cluster through seeds[0 .. n) with the default options. */
BB_API bb_redis_status bb_redis_connect_cluster(bb_redis **out, const char *const *seeds,
                                                size_t n);

/** Close every connection and free the handle. NULL is ignored. */
BB_API void bb_redis_free(bb_redis *r);

/** What the last failing call on r did wrong, in words (empty after success). */
BB_API const char *bb_redis_error(const bb_redis *r);

/** Default shard size of bb_redis_reserve / push: 4 MiB (65536 blocks). */
#define BB_REDIS_SHARD_BYTES (UINT64_C(4) << 20)

/**
 * BF.RESERVE: create the filter `name` for `capacity` keys at false-positive rate
 * `error_rate` (sized as bb_size(BB_BLOCKED, ...), seed 0), cut into `shards` shards
 * (0 = shards of at most BB_REDIS_SHARD_BYTES; fewer are made when the filter has fewer
 * blocks than asked for). Shards are created zero-filled before the meta key, which is
 * written last (SET NX); reserve, push and del hold the name's lock key meanwhile, so a
 * concurrent reserve of the same name fails cleanly (E_EXISTS) and touches no shard.
 * Names starting with "bb:{" (the binding's own keys) are refused (E_INVAL).
 * @return BB_REDIS_OK, E_INVAL (error_rate not in (0, 1), capacity 0, shards > blocks),
 *         E_EXISTS ("ERR item exists"), E_WRONGTYPE (name holds another key), E_IO, ...
 */
BB_API bb_redis_status bb_redis_reserve(bb_redis *r, const char *name, double error_rate,
                                        uint64_t capacity, uint64_t shards);

/** BF.ADD: *was_new (may be NULL) = true if the key set at least one new bit (RedisBloom's
 *  reply 1). E_NOT_FOUND if there is no such filter (no auto-create). */
BB_API bb_redis_status bb_redis_add(bb_redis *r, const char *name, const void *key, size_t len,
                                    bool *was_new);

/** BF.MADD: keys[i] of lens[i] bytes, i < n; was_new[i] (may be NULL) as bb_redis_add. One
 *  pipeline per node: one round trip per node for the whole batch. */
BB_API bb_redis_status bb_redis_madd(bb_redis *r, const char *name, const void *const *keys,
                                     const size_t *lens, size_t n, uint8_t *was_new);

/** BF.EXISTS: *present = possibly present (one GETRANGE of the key's 64-byte block). */
BB_API bb_redis_status bb_redis_exists(bb_redis *r, const char *name, const void *key,
                                       size_t len, bool *present);

/** BF.MEXISTS: out[i] = 1 possibly present, 0 absent; *n_present (may be NULL) counts 1s. */
BB_API bb_redis_status bb_redis_mexists(bb_redis *r, const char *name, const void *const *keys,
                                        const size_t *lens, size_t n, uint8_t *out,
                                        size_t *n_present);

typedef struct bb_redis_info {
    uint64_t capacity;        /**< n the filter was sized for */
    double error_rate;        /**< p it was sized for */
    uint64_t size_bytes;      /**< bytes of all shards (the filter's payload) */
    uint64_t bits, blocks;
    unsigned k;
    uint64_t seed;
    uint64_t shards, blocks_per_shard;
    uint64_t keys_added;      /**< adds counted by the filter's counter key, duplicates too */
    uint64_t bits_set;        /**< BITCOUNT over all shards */
    double cardinality;       /**< -(m/k) ln(1 - X/m) from bits_set (Swamidass-Baldi 2007) */
} bb_redis_info;

/** BF.INFO. Reads the meta key, the counter and one BITCOUNT per shard. */
BB_API bb_redis_status bb_redis_info_get(bb_redis *r, const char *name, bb_redis_info *out);

/** BF.CARD: the estimate of distinct keys from the fill (bb_redis_info.cardinality,
 *  rounded; UINT64_MAX when saturated). */
BB_API bb_redis_status bb_redis_card(bb_redis *r, const char *name, uint64_t *card);

/** Delete the filter: the meta key first (so it vanishes at once), then shards and counter.
 *  E_NOT_FOUND if absent; a name holding another kind of key is left alone (E_WRONGTYPE). */
BB_API bb_redis_status bb_redis_del(bb_redis *r, const char *name);

/** Read every shard into a new local filter (*out, free with bb_free): byte for byte the
 *  filter bb_create + bb_add of the same keys gives (keys_added from the counter). */
BB_API bb_redis_status bb_redis_pull(bb_redis *r, const char *name, bb_filter **out);

/**
 * Publish the local blocked filter f as `name` (which must not exist: E_EXISTS), in
 * `shards` shards (0 = default size): each shard is written to a temporary key and renamed
 * into place, the meta key last (SET NX), so readers never see a half-published filter.
 */
BB_API bb_redis_status bb_redis_push(bb_redis *r, const bb_filter *f, const char *name,
                                     uint64_t shards);

/**
 * Publish slice info->index of info->n_slices (built with bb_slice, bytes[0 .. len)) as
 * shard index of `name`. The first slice pushed records the geometry; every slice must have
 * the same (E_MISMATCH otherwise). The meta key is written only when every slice is there,
 * by whichever push completes the set, so readers never see a half-published filter.
 * *published (may be NULL) says whether this push completed it.
 */
BB_API bb_redis_status bb_redis_push_slice(bb_redis *r, const bb_slice_info *info,
                                           const void *bytes, uint64_t len, const char *name,
                                           bool *published);

/** Drop the cached meta of `name` (NULL: of every filter), e.g. after another process
 *  deleted and re-created it with another geometry. */
BB_API void bb_redis_forget(bb_redis *r, const char *name);

/** Round trips (pipelines sent to one node and read back) since connect: for benchmarks. */
BB_API uint64_t bb_redis_round_trips(const bb_redis *r);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_REDIS_H */
