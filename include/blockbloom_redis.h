/* SPDX-License-Identifier: MIT */
/*
 * blockbloom_redis.h - the Redis binding of blockbloom (library libblockbloom_redis, over
 * hiredis): RedisBloom's BF.* vocabulary (reserve, add, madd, exists, mexists, info, card)
 * on stock Redis and Redis Cluster, with plain strings, BITFIELD and GETRANGE, the hashing
 * done here. A filter is the blocked filter of the file format (docs/FORMAT.md) cut into
 * shards, one Redis string each; the layout is in docs/REDIS.md, so that a client in another
 * language can read and update the same filter.
 *
 * Thread-safety: a bb_redis handle is one set of connections; use one per thread (every
 * call below "changes r": it sends on r's connections and caches filters' meta in it). Any
 * number of handles, threads and processes may share one filter: adds are single atomic
 * BITFIELD commands, so no writer loses another's keys.
 *
 * Errors: every call returns a bb_status (blockbloom.h); on failure bb_last_error() says
 * what went wrong in words, naming the node (host:port) for network errors, and for
 * BB_E_SERVER quoting the server's reply. The binding's own conditions: BB_E_SERVER (an
 * error reply), BB_E_EXISTS (reserve or push on a name that is already a filter),
 * BB_E_NOT_FOUND (no filter of that name), BB_E_WRONGTYPE (the name holds a key that is not
 * a blockbloom filter), BB_E_CORRUPT (a meta key of an unknown version or with damaged
 * fields), BB_E_INCONSISTENT (a shard key of the wrong type or length), BB_E_MISMATCH (a
 * slice or filter of another geometry than the name's), BB_E_FULL (a NONSCALING filter at
 * capacity: "ERR non scaling filter is full"); a failing call of libblockbloom itself
 * passes its status on (BB_E_TOO_LARGE for a chain that cannot grow further). A batch that
 * fails on one node returns that error, never a partial success: the keys of the nodes that
 * answered are added (adding is idempotent, so the caller may retry the whole batch). A node
 * that is down or breaks the connection gives BB_E_IO, a request past its deadline
 * BB_E_TIMEOUT, and a node that answers CLUSTERDOWN BB_E_SERVER, each naming that node's
 * host:port. The functions' @return lines call BB_E_IO, BB_E_TIMEOUT, BB_E_SERVER and
 * BB_E_NOMEM "the request errors", and BB_E_WRONGTYPE, BB_E_CORRUPT and BB_E_INCONSISTENT
 * (what a name's keys may hold instead of a filter) "the name errors". A NULL handle gives
 * BB_E_INVAL with no detail in bb_last_error.
 */
#ifndef BLOCKBLOOM_REDIS_H
#define BLOCKBLOOM_REDIS_H

#include "blockbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bb_redis bb_redis;

/** Default deadline of one request, in milliseconds (bb_redis_options.timeout_ms). */
#define BB_REDIS_TIMEOUT_MS 10000u

/**
 * How to connect (bb_redis_open). Start from BB_REDIS_OPTIONS_INIT, then set what you need.
 * Fields past `size` bytes are read as zero (their defaults), so a caller built against an
 * older header keeps working; a size of 0 or short of wait_replicas is BB_E_INVAL.
 */
typedef struct bb_redis_options {
    size_t size;            /**< sizeof (bb_redis_options) */
    bool cluster;           /**< the URLs are seeds of a Redis Cluster (any number of them) */
    const char *user;       /**< ACL user for AUTH when the URLs name none (NULL: none) */
    const char *password;   /**< password for AUTH when the URLs carry none (NULL: none) */
    uint32_t timeout_ms;    /**< deadline of each request; 0: BB_REDIS_TIMEOUT_MS */
    unsigned wait_replicas; /**< after each batch of writes, WAIT for this many replicas */
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_redis_options;

/** Initialiser of a bb_redis_options: its size set, every option its default. */
#define BB_REDIS_OPTIONS_INIT BB_SIZED_INIT(bb_redis_options)

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
 * refused (BB_E_INVAL); seeds with different credentials too. rediss:// (TLS) is refused
 * (BB_E_INVAL): the hiredis this builds on has none.
 *
 * Deadlines: each request (one call's pipeline of up to 4096 commands, with its redirections,
 * reconnects and retries; a call of more is sent as consecutive requests of at most 4096) must
 * finish within opts->timeout_ms, or fails with BB_E_TIMEOUT saying what timed out on which
 * node (resolving the host name included). A reply is read only up to a bound (16 MiB, or the
 * largest shard of a filter this handle opened, per string; 65536 array elements per reply),
 * whatever the server claims. After a broken connection, a command that may have run is sent
 * again only when running it twice changes nothing (reads, BITFIELD SET, DEL ...); one that is
 * not (INCRBY, SET NX, RENAME) fails the call instead (BB_E_IO, naming it), so no count is
 * added twice.
 *
 * opts->wait_replicas = N > 0: every request with writes ends with WAIT N on each node it
 * wrote to; fewer acknowledgements fail the call (BB_E_IO, saying how many answered; the writes
 * are done on the master).
 *
 * On error *out is still a handle (free it) whose bb_last_error() says why, unless the
 * error is BB_E_NOMEM or BB_E_INVAL with out NULL. The password is never quoted in a message.
 * Thread-safety: any thread, any time; the handle is then the calling thread's to use.
 *
 * @param out     receives the handle, for bb_redis_free. Not NULL.
 * @param urls    urls[n_urls], NUL-terminated addresses as above. Not NULL.
 * @param n_urls  1 for a standalone handle, >= 1 for a cluster.
 * @param opts    the options, from BB_REDIS_OPTIONS_INIT; NULL takes the defaults.
 * @return BB_OK; BB_E_INVAL (out NULL, opts->size 0 or short of wait_replicas, a bad or
 *         refused URL, a wrong number of URLs, seeds that disagree); the request errors (no
 *         node answered, AUTH or SELECT refused).
 */
BB_API bb_status bb_redis_open(bb_redis **out, const char *const *urls, size_t n_urls,
                               const bb_redis_options *opts);

/**
 * bb_redis_open of one standalone server with the default options.
 * Thread-safety: any thread, any time.
 *
 * @param out  receives the handle, as bb_redis_open. Not NULL.
 * @param url  the server's address, as bb_redis_open's. Not NULL.
 * @return as bb_redis_open.
 */
BB_API bb_status bb_redis_connect(bb_redis **out, const char *url);

/**
 * bb_redis_open of a Redis Cluster through its seeds with the default options.
 * Thread-safety: any thread, any time.
 *
 * @param out    receives the handle, as bb_redis_open. Not NULL.
 * @param seeds  seeds[n], addresses as bb_redis_open's. Not NULL.
 * @param n      number of seeds, >= 1.
 * @return as bb_redis_open.
 */
BB_API bb_status bb_redis_connect_cluster(bb_redis **out, const char *const *seeds,
                                          size_t n);

/**
 * Close every connection and free the handle (the password's copy is wiped first).
 * Thread-safety: changes r.
 *
 * @param r  the handle; NULL does nothing.
 */
BB_API void bb_redis_free(bb_redis *r);

/** Default shard size of bb_redis_reserve / push: 4 MiB (65536 blocks). */
#define BB_REDIS_SHARD_BYTES (UINT64_C(4) << 20)

/** RedisBloom's defaults (bf-error-rate, bf-initial-size, bf-expansion-factor) and limits. */
#define BB_REDIS_DEFAULT_ERROR_RATE 0.01
#define BB_REDIS_DEFAULT_CAPACITY 100
#define BB_REDIS_DEFAULT_EXPANSION 2
#define BB_REDIS_MAX_CAPACITY (UINT64_C(1) << 30)
/** An error rate above this is taken as this (RedisBloom's BF_ERROR_RATE_CAP). */
#define BB_REDIS_MAX_ERROR_RATE 0.25

/**
 * How to create a filter (BF.RESERVE's and BF.INSERT's options). Start from
 * BB_REDIS_PARAMS_INIT, then set what you need; 0 means RedisBloom's default. Fields past
 * `size` bytes are read as 0; a size of 0 or short of `shards` is BB_E_INVAL.
 */
typedef struct bb_redis_params {
    size_t size;         /**< sizeof(bb_redis_params): later fields are added after these */
    double error_rate;   /**< p, 0 < p < 1 (0 = 0.01; above 0.25 taken as 0.25) */
    uint64_t capacity;   /**< c_0, 1 .. 2^30 (0 = 100) */
    uint64_t expansion;  /**< EXPANSION: capacity factor of each new sub-filter, 1 .. 32768
                              (0 = 2) */
    bool nonscaling;     /**< NONSCALING: one sub-filter at p, full at capacity */
    bool nocreate;       /**< bb_redis_insert: BB_E_NOT_FOUND on a missing filter */
    uint64_t shards;     /**< shards per sub-filter (0 = at most BB_REDIS_SHARD_BYTES each) */
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_redis_params;

/** Initialiser of a bb_redis_params: its size set, every parameter RedisBloom's default. */
#define BB_REDIS_PARAMS_INIT BB_SIZED_INIT(bb_redis_params)

/**
 * BF.RESERVE: create the filter `name`, a chain of sub-filters as RedisBloom's scalable
 * filters and the local BB_SCALABLE kind: sub-filter i holds c_i = c_{i-1} * expansion keys
 * (c_0 = capacity) at p_i = p / 2^(i+1), so the whole stays at or below p at any fill; each
 * is a blocked filter sized as bb_size(BB_SCALABLE, c_i, p_i), seed 0, cut into shards. A new
 * one is added, by whichever writer first finds the newest one full (docs/REDIS.md), when the
 * adds that answered 1 reach its capacity. NONSCALING: one sub-filter sized as
 * bb_size(BB_BLOCKED, capacity, p); an add of a new key past capacity fails with BB_E_FULL.
 * Shards are created zero-filled before the meta key, which is written last (SET NX);
 * reserve, push and del hold the name's lock key meanwhile, so a concurrent reserve of the
 * same name fails cleanly (BB_E_EXISTS) and touches no shard. Names starting with "bb:{" (the
 * binding's own keys) are refused (BB_E_INVAL).
 * Thread-safety: changes r.
 *
 * @param r       the handle. Not NULL.
 * @param name    the filter's name, NUL-terminated. Not NULL.
 * @param params  the options, from BB_REDIS_PARAMS_INIT (read up to params->size); NULL
 *                takes RedisBloom's defaults.
 * @return BB_OK; BB_E_INVAL (name NULL, params->size 0 or short of `shards`, or with
 *         RedisBloom's text: "ERR error rate must be in the range (0.000000, 1.000000)", "ERR
 *         capacity must be in the range [1, 1073741824]", "ERR expansion must be in the range
 *         [0, 32768]", "Nonscaling filters cannot expand", shards > blocks); BB_E_EXISTS ("ERR
 *         item exists"); BB_E_WRONGTYPE (name holds another key); BB_E_TOO_LARGE (an error rate
 *         the blocked layout cannot reach); the request errors.
 */
BB_API bb_status bb_redis_reserve_params(bb_redis *r, const char *name,
                                         const bb_redis_params *params);

/**
 * bb_redis_reserve_params with expansion 2; error_rate and capacity are required, as in
 * BF.RESERVE.
 * Thread-safety: changes r.
 *
 * @param r           the handle. Not NULL.
 * @param name        the filter's name, NUL-terminated. Not NULL.
 * @param error_rate  p, 0 < p < 1 (0 is BB_E_INVAL here).
 * @param capacity    c_0, 1 .. 2^30 (0 is BB_E_INVAL here).
 * @param shards      shards per sub-filter; 0: at most BB_REDIS_SHARD_BYTES each.
 * @return as bb_redis_reserve_params.
 */
BB_API bb_status bb_redis_reserve(bb_redis *r, const char *name, double error_rate,
                                  uint64_t capacity, uint64_t shards);

/**
 * BF.ADD: bb_redis_madd of one key. A missing filter is created with RedisBloom's defaults
 * (capacity 100, error rate 0.01, expansion 2).
 * Thread-safety: changes r.
 *
 * @param r        the handle. Not NULL.
 * @param name     the filter's name, NUL-terminated. Not NULL.
 * @param key      len bytes; NULL allowed when len is 0.
 * @param len      bytes of key.
 * @param was_new  receives true if the key was in no sub-filter (RedisBloom's reply 1). May
 *                 be NULL.
 * @return as bb_redis_madd.
 */
BB_API bb_status bb_redis_add(bb_redis *r, const char *name, const void *key, size_t len,
                              bool *was_new);

/**
 * BF.MADD: add n keys. A key is tested against every sub-filter and added to the newest; the
 * count of keys that answered 1 (info keys_added, card) grows by exactly theirs, also with
 * concurrent writers. A missing filter is created as by bb_redis_add.
 * Thread-safety: changes r.
 *
 * @param r        the handle. Not NULL.
 * @param name     the filter's name, NUL-terminated. Not NULL.
 * @param keys     keys[n]; keys[i] may be NULL when lens[i] is 0. NULL allowed when n is 0.
 * @param lens     lens[n], bytes of each key. NULL allowed when n is 0.
 * @param n        number of keys.
 * @param was_new  was_new[n]: 1 new, 0 already present; on BB_E_FULL (a NONSCALING filter at
 *                 capacity) 2 from the first refused key on (RedisBloom stops answering
 *                 there; the keys before it are added). May be NULL.
 * @return BB_OK; BB_E_INVAL (name NULL, a bad key array); BB_E_FULL; BB_E_TOO_LARGE (a
 *         chain that cannot grow further); BB_E_NOT_FOUND (the filter was deleted during the
 *         call); BB_E_EXISTS (another client was still creating the name after the retries);
 *         the name errors; the request errors.
 */
BB_API bb_status bb_redis_madd(bb_redis *r, const char *name, const void *const *keys,
                               const size_t *lens, size_t n, uint8_t *was_new);

/**
 * BF.INSERT: bb_redis_madd, but a missing filter is created with params, or with
 * params->nocreate not at all. params of an existing filter are ignored, as RedisBloom does.
 * Thread-safety: changes r.
 *
 * @param r        the handle. Not NULL.
 * @param name     the filter's name, NUL-terminated. Not NULL.
 * @param params   how to create a missing filter, from BB_REDIS_PARAMS_INIT; NULL takes
 *                 the defaults.
 * @param keys     as bb_redis_madd's.
 * @param lens     as bb_redis_madd's.
 * @param n        number of keys.
 * @param was_new  as bb_redis_madd's. May be NULL.
 * @return as bb_redis_madd; BB_E_NOT_FOUND ("ERR not found": missing, with nocreate);
 *         bb_redis_reserve_params' BB_E_INVAL for bad params.
 */
BB_API bb_status bb_redis_insert(bb_redis *r, const char *name, const bb_redis_params *params,
                                 const void *const *keys, const size_t *lens, size_t n,
                                 uint8_t *was_new);

/**
 * BF.EXISTS: whether a key is possibly present (one GETRANGE of the key's 64-byte block per
 * sub-filter). A missing filter, or a name holding a key that is not a filter, answers false
 * (RedisBloom).
 * Thread-safety: changes r (its connections); reads the filter.
 *
 * @param r        the handle. Not NULL.
 * @param name     the filter's name, NUL-terminated. Not NULL.
 * @param key      len bytes; NULL allowed when len is 0.
 * @param len      bytes of key.
 * @param present  receives the answer. May be NULL (only the status is then of use).
 * @return as bb_redis_mexists.
 */
BB_API bb_status bb_redis_exists(bb_redis *r, const char *name, const void *key,
                                 size_t len, bool *present);

/**
 * BF.MEXISTS: test n keys, as bb_redis_exists tests one.
 * Thread-safety: changes r (its connections); reads the filter.
 *
 * @param r          the handle. Not NULL.
 * @param name       the filter's name, NUL-terminated. Not NULL.
 * @param keys       keys[n]; keys[i] may be NULL when lens[i] is 0. NULL allowed when n is 0.
 * @param lens       lens[n], bytes of each key. NULL allowed when n is 0.
 * @param n          number of keys.
 * @param out        out[n]: 1 possibly present, 0 absent. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s. May be NULL.
 * @return BB_OK (also for a missing name); BB_E_INVAL (name NULL, a bad key or answer array);
 *         BB_E_CORRUPT and BB_E_INCONSISTENT (damaged meta or shard keys); the request
 *         errors.
 */
BB_API bb_status bb_redis_mexists(bb_redis *r, const char *name, const void *const *keys,
                                  const size_t *lens, size_t n, uint8_t *out,
                                  size_t *n_present);

typedef struct bb_redis_info {
    size_t size;              /**< sizeof(bb_redis_info) as compiled (BB_REDIS_INFO_INIT) */
    uint64_t capacity;        /**< sum of the sub-filters' capacities (RedisBloom's Capacity) */
    double error_rate;        /**< p it was reserved for */
    uint64_t size_bytes;      /**< bytes of all shards (the filters' payloads) */
    uint64_t bits, blocks;    /**< sums over the sub-filters */
    unsigned k;               /**< the newest sub-filter's */
    uint64_t seed;
    uint64_t shards;          /**< sum over the sub-filters */
    uint64_t blocks_per_shard; /**< of the first sub-filter */
    uint64_t keys_added;      /**< adds that answered 1 (RedisBloom's Number of items inserted) */
    uint64_t bits_set;        /**< BITCOUNT over all shards */
    double cardinality;       /**< sum over sub-filters of -(m/k) ln(1 - X/m) (Swamidass-Baldi 2007) */
    uint64_t filters;         /**< Number of filters: sub-filters of the chain (1 if fixed) */
    uint64_t expansion;       /**< Expansion rate; 0 for NONSCALING and pushed filters */
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_redis_info;

/** Initialiser of a bb_redis_info: its size set, the rest zero. */
#define BB_REDIS_INFO_INIT BB_SIZED_INIT(bb_redis_info)

/**
 * BF.INFO: the filter's parameters and fill, into the first out->size bytes of *out. Reads
 * the meta key, the counter or state and one BITCOUNT per shard.
 * Thread-safety: changes r (its connections); reads the filter.
 *
 * @param r     the handle. Not NULL.
 * @param name  the filter's name, NUL-terminated. Not NULL.
 * @param out   receives the description; out->size set first (BB_REDIS_INFO_INIT), at least
 *              0.1.0's fields (up to cardinality). Not NULL.
 * @return BB_OK; BB_E_INVAL (name or out NULL, out->size 0 or too short); BB_E_NOT_FOUND;
 *         the name errors; the request errors.
 */
BB_API bb_status bb_redis_info_get(bb_redis *r, const char *name, bb_redis_info *out);

/**
 * BF.CARD: the adds that answered 1 (bb_redis_info.keys_added).
 * Thread-safety: changes r (its connections); reads the filter.
 *
 * @param r     the handle. Not NULL.
 * @param name  the filter's name, NUL-terminated. Not NULL.
 * @param card  receives the count; 0 for a missing filter. Not NULL.
 * @return BB_OK (also for a missing filter); BB_E_INVAL (name or card NULL); the name
 *         errors; the request errors.
 */
BB_API bb_status bb_redis_card(bb_redis *r, const char *name, uint64_t *card);

/**
 * Delete the filter: the meta key first (so it vanishes at once), then shards and counter,
 * holding the name's lock key meanwhile. A name holding another kind of key is left alone.
 * Thread-safety: changes r; changes the filter (other handles' reads of it answer as for a
 * missing filter once its meta key is gone).
 *
 * @param r     the handle. Not NULL.
 * @param name  the filter's name, NUL-terminated. Not NULL.
 * @return BB_OK; BB_E_INVAL (name NULL); BB_E_NOT_FOUND (absent); BB_E_WRONGTYPE; the
 *         request errors.
 */
BB_API bb_status bb_redis_del(bb_redis *r, const char *name);

/**
 * Read every shard into a new local filter: a chain gives a BB_SCALABLE filter, byte for byte
 * the one bb_create (capacity, p, growth = expansion) and bb_add of the same keys in the same
 * order gives; a NONSCALING or pushed filter a BB_BLOCKED one (keys_added: the adds that
 * answered 1).
 * Thread-safety: changes r (its connections); reads the filter.
 *
 * @param r     the handle. Not NULL.
 * @param name  the filter's name, NUL-terminated. Not NULL.
 * @param out   receives the filter, for bb_free (NULL on error). Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_NOT_FOUND; the name errors; the request
 *         errors; bb_load_buffer's errors for shards that do not make a filter.
 */
BB_API bb_status bb_redis_pull(bb_redis *r, const char *name, bb_filter **out);

/**
 * Publish the local blocked filter f as `name` (which must not exist: BB_E_EXISTS), in
 * `shards` shards (0 = default size): each shard is written to a temporary key and renamed
 * into place, the meta key last (SET NX), so readers never see a half-published filter.
 * Thread-safety: changes r; reads f.
 *
 * @param r       the handle. Not NULL.
 * @param f       a BB_BLOCKED filter with the plain key scheme. Not NULL.
 * @param name    the filter's name in Redis, NUL-terminated. Not NULL.
 * @param shards  number of shards; 0: at most BB_REDIS_SHARD_BYTES each.
 * @return BB_OK; BB_E_INVAL (a NULL argument, f not BB_BLOCKED or with a key scheme, shards
 *         beyond f's blocks); BB_E_EXISTS; BB_E_WRONGTYPE; the request errors.
 */
BB_API bb_status bb_redis_push(bb_redis *r, const bb_filter *f, const char *name,
                               uint64_t shards);

/**
 * Publish slice info->index of info->n_slices (built with bb_slice, bytes[0 .. len); info
 * from bb_slice_get_info, its size as there) as
 * shard index of `name`. The first slice pushed records the geometry; every slice must have
 * the same (BB_E_MISMATCH otherwise). The meta key is written only when every slice is there,
 * by whichever push completes the set, so readers never see a half-published filter.
 * Thread-safety: changes r; any number of processes may push the slices of one name at
 * once.
 *
 * @param r          the handle. Not NULL.
 * @param info       the slice's description from bb_slice_get_info (read up to
 *                   info->size). Not NULL.
 * @param bytes      the slice, len bytes. Not NULL.
 * @param len        bytes of the slice: info->n_blocks * 64.
 * @param name       the filter's name, NUL-terminated. Not NULL.
 * @param published  receives whether this push completed the filter (false on error). May be
 *                   NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, info->size refused); BB_E_MISMATCH (len, or a
 *         geometry unlike the slices pushed before); BB_E_EXISTS (the name is already a
 *         filter); BB_E_WRONGTYPE; the request errors.
 */
BB_API bb_status bb_redis_push_slice(bb_redis *r, const bb_slice_info *info,
                                     const void *bytes, uint64_t len, const char *name,
                                     bool *published);

/**
 * Drop the handle's cached meta of a filter, e.g. after another process deleted and
 * re-created it with another geometry. Sends nothing.
 * Thread-safety: changes r.
 *
 * @param r     the handle; NULL does nothing.
 * @param name  the filter's name, NUL-terminated; NULL drops every filter's.
 */
BB_API void bb_redis_forget(bb_redis *r, const char *name);

/**
 * Round trips (pipelines sent to one node and read back) since connect: for benchmarks.
 * Thread-safety: reads r.
 *
 * @param r  the handle; NULL allowed.
 * @return the count; 0 for NULL.
 */
BB_API uint64_t bb_redis_round_trips(const bb_redis *r);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_REDIS_H */
