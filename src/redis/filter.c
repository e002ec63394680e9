/* SPDX-License-Identifier: MIT */
/*
 * filter.c - the BF.* commands of the Redis binding on top of the executor (conn.c) and the
 * meta codec (meta.c): add/madd/insert, exists/mexists, info/card, del, and the cache of
 * filter geometries. A key with hash h lives, in each sub-filter, in block
 * b = fastrange(h, blocks) (internal.h), i.e. in shard b / per at byte offset 64 (b % per);
 * its k in-block positions are those of the core's probe scheme, so Redis bits are exactly
 * the file format's bytes, and a fetched block is tested by the core's kernel
 * (bb_blocks_test). Redis numbers the bits of a string from the most significant bit of
 * byte 0 (BITFIELD, SETBIT), the format from the least significant: in-block position p is
 * Redis bit offset 8 (64 (b % per) + p / 8) + 7 - p % 8 of the shard.
 *
 * Counting and growth (docs/REDIS.md, "Adding to a chain"): a chain's state hash holds the
 * published number of sub-filters and, per sub-filter i, c<i> (adds that answered 1) and r<i>
 * (room reserved by batches in flight). A batch reserves room in the newest sub-filter with
 * one script on that hash, sets its bits (BITFIELD), then turns the reservation into the
 * count of keys that were new with a second script; the sub-filter grows, by a third script
 * that only the first writer to find it full wins, once c<i> reaches its capacity. So c<i>
 * never passes c_i, every writer grows at the same count, and no key goes to a sub-filter
 * before its shards exist.
 */
#include "../abi.h"
#include "../internal.h"
#include "redis_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a batch waits (1 ms pauses) for other writers' reservations to come back before
 * it takes the newest sub-filter as full: a reservation lives one round trip (~0.1 ms on
 * loopback, tens of ms on a machine at load 30), so 2 s means a writer died holding one. */
#define WAIT_MS 2000

/* ---- The cache of filter geometries ------------------------------------------------------------ */

static void sub_free_keys(bbr_sub *s) {
    if (s->shard_keys)
        for (uint64_t i = 0; i < s->shards; i++) free(s->shard_keys[i]);
    free(s->shard_keys);
    s->shard_keys = NULL;
}

void bbr_filter_free(bbr_filter *f) {
    if (!f) return;
    for (size_t i = 0; i < f->n_subs; i++) sub_free_keys(&f->subs[i]);
    free(f->subs);
    free(f->count_key);
    bb_free(f->hasher);
    free(f->name);
    free(f);
}

void bb_redis_forget(bb_redis *r, const char *name) {
    if (!r) return;
    for (bbr_filter **p = &r->filters; *p;) {
        bbr_filter *f = *p;
        if (!name || strcmp(f->name, name) == 0) {
            *p = f->next;
            bbr_filter_free(f);
        } else {
            p = &f->next;
        }
    }
}

void bb_redis_free(bb_redis *r) {
    if (!r) return;
    bb_redis_forget(r, NULL);
    bbr_handle_free(r);
}

uint64_t bbr_shard_len(const bbr_sub *sub, uint64_t s) {
    uint64_t left = sub->blocks - s * sub->per_shard;
    return (left < sub->per_shard ? left : sub->per_shard) * BBR_BLOCK_BYTES;
}

bb_status bbr_sub_names(bb_redis *r, const char *name, size_t i, bbr_sub *sub) {
    sub->shard_keys = calloc(sub->shards, sizeof *sub->shard_keys);
    bool ok = sub->shard_keys != NULL;
    for (uint64_t s = 0; ok && s < sub->shards; s++) ok = (sub->shard_keys[s] = bbr_shard_key(name, i, s));
    if (!ok) sub_free_keys(sub);
    return ok ? BB_OK : bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
}

/* Key names and the hasher of a decoded filter (of its sub-filters known so far). */
bb_status bbr_filter_names(bb_redis *r, bbr_filter *f, const char *name) {
    bb_config hc = {
        .size = sizeof hc, .kind = BB_BLOCKED, .bits = BB_BLOCK_BITS, .k = 1, .seed = f->seed};
    f->name = strdup(name);
    f->count_key = bbr_aux_key(name, 'n');
    if (!f->name || !f->count_key || bb_create(&f->hasher, &hc) != BB_OK)
        return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    bb_status s = BB_OK;
    for (size_t i = 0; s == BB_OK && i < f->n_subs; i++)
        if (!f->subs[i].shard_keys) s = bbr_sub_names(r, name, i, &f->subs[i]);
    return s;
}

/* Sub-filters n_subs .. n-1 of a chain, with their key names. */
bb_status bbr_chain_extend(bb_redis *r, bbr_filter *f, size_t n) {
    bb_status s = BB_OK;
    if (n > f->n_subs && bbr_chain_fit(r, f, n) < n) /* grow() never publishes such a chain */
        return bbr_fail(r, BB_E_CORRUPT, "redis: '%s' is refused as damaged: its state '%s' "
                        "claims %zu sub-filters, beyond the bound of a filter (%u shards, "
                        "%llu bytes; docs/REDIS.md)", f->name, f->count_key, n, BBR_MAX_SHARDS,
                        (unsigned long long)BBR_MAX_BYTES);
    while (s == BB_OK && f->n_subs < n) {
        bbr_sub sub;
        s = bbr_chain_sub(r, f, f->n_subs, &sub);
        if (s == BB_OK) s = bbr_sub_names(r, f->name, f->n_subs, &sub);
        if (s == BB_OK && (s = bbr_sub_append(r, f, &sub)) != BB_OK) sub_free_keys(&sub);
    }
    return s;
}

/* A GET of the meta key into f; BB_E_NOT_FOUND when there is none. Every call that
 * creates, changes or deletes a filter reads its meta first, so this is where a name in the
 * binding's own key space is refused: the filter "bb:{0:x}" would have its meta key at filter
 * x's shard 0, and reserving x (which DELs its shards) would destroy it. */
static bb_status check_name(bb_redis *r, const char *name) {
    if (!bbr_name_reserved(name)) return BB_OK;
    return bbr_fail(r, BB_E_INVAL, "redis: filter names may not start with \"bb:{\" "
                    "(the shard and helper keys' prefix): '%s'", name);
}

bb_status bbr_read_meta(bb_redis *r, const char *name, bbr_filter *f) {
    bb_status s = check_name(r, name);
    if (s != BB_OK) return s;
    bbr_cmd c = {0};
    bbr_arg_str(&c, "GET");
    bbr_arg_str(&c, name);
    if ((s = bbr_exec1(r, &c)) != BB_OK) return s;
    const redisReply *rep = c.reply;
    if (rep->type == REDIS_REPLY_NIL)
        s = bbr_fail(r, BB_E_NOT_FOUND, "ERR not found: no filter '%s'", name);
    else if (rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "WRONGTYPE", 9) != 0)
        s = bbr_reply_error(r, name, rep);
    else if (rep->type == REDIS_REPLY_ERROR || (rep->type == REDIS_REPLY_STRING &&
             (rep->len < 8 || memcmp(rep->str, "\x89" "BBF", 4) != 0)))
        s = bbr_fail(r, BB_E_WRONGTYPE, "WRONGTYPE '%s' holds a key that is not a "
                     "blockbloom filter", name);
    else if (rep->type != REDIS_REPLY_STRING)
        s = bbr_fail(r, BB_E_SERVER, "redis: unexpected reply to GET '%s'", name);
    else
        s = bbr_meta_decode(r, name, rep->str, rep->len, f);
    bbr_cmds_clear(&c, 1);
    return s;
}

/* STRLEN of every shard of sub-filters [from, n_subs): each must be a string of exactly its
 * length. */
static bb_status check_shards(bb_redis *r, const bbr_filter *f, size_t from) {
    uint64_t n = 0;
    for (size_t i = from; i < f->n_subs; i++) n += f->subs[i].shards;
    bbr_cmd *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    uint64_t j = 0;
    for (size_t i = from; i < f->n_subs; i++)
        for (uint64_t s = 0; s < f->subs[i].shards; s++, j++) {
            bbr_arg_str(&c[j], "STRLEN");
            bbr_arg_str(&c[j], f->subs[i].shard_keys[s]);
        }
    bb_status st = bbr_exec(r, c, n);
    j = 0;
    for (size_t i = from; st == BB_OK && i < f->n_subs; i++)
        for (uint64_t s = 0; st == BB_OK && s < f->subs[i].shards; s++, j++) {
            const redisReply *rep = c[j].reply;
            const char *key = f->subs[i].shard_keys[s];
            uint64_t want = bbr_shard_len(&f->subs[i], s);
            if (rep->type != REDIS_REPLY_INTEGER)
                st = bbr_fail(r, BB_E_INCONSISTENT, "redis: shard '%s' of '%s' is not a string: %s",
                              key, f->name, rep->type == REDIS_REPLY_ERROR ? rep->str : "");
            else if ((uint64_t)rep->integer != want)
                st = bbr_fail(r, BB_E_INCONSISTENT, "redis: shard '%s' of '%s' is %lld bytes, "
                              "expected %llu%s", key, f->name, rep->integer,
                              (unsigned long long)want, rep->integer ? "" : " (missing)");
        }
    bbr_cmds_clear(c, n);
    free(c);
    return st;
}

/* The published number of sub-filters of a chain (HGET state subs). */
static bb_status chain_subs(bb_redis *r, const bbr_filter *f, uint64_t *n) {
    bbr_cmd c = {0};
    bbr_arg_str(&c, "HGET");
    bbr_arg_str(&c, f->count_key);
    bbr_arg_str(&c, "subs");
    bb_status s = bbr_exec1(r, &c);
    if (s == BB_OK && (!bbr_reply_u64(c.reply, n) || *n == 0 || *n > BBR_MAX_SUBS))
        s = bbr_fail(r, BB_E_CORRUPT, "redis: '%s' is not a usable filter: its state "
                     "'%s' is missing or damaged", f->name, f->count_key);
    bbr_cmds_clear(&c, 1);
    return s;
}

/* The geometry of `name`, from the cache or read (meta, a chain's state, shard lengths) and
 * cached. */
bb_status bbr_open_filter(bb_redis *r, const char *name, bbr_filter **out) {
    if (!r) return BB_E_INVAL;
    if (!name) return bbr_fail(r, BB_E_INVAL, "redis: no filter name");
    for (bbr_filter *f = r->filters; f; f = f->next)
        if (strcmp(f->name, name) == 0) return *out = f, BB_OK;
    bbr_filter *f = calloc(1, sizeof *f);
    if (!f) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    bb_status s = bbr_read_meta(r, name, f);
    uint64_t n = 0;
    if (s == BB_OK) s = bbr_filter_names(r, f, name);
    if (s == BB_OK && f->layout == BBR_LAYOUT_CHAIN) s = chain_subs(r, f, &n);
    if (s == BB_OK && f->layout == BBR_LAYOUT_CHAIN) s = bbr_chain_extend(r, f, n);
    if (s == BB_OK) s = check_shards(r, f, 0);
    if (s != BB_OK) {
        bbr_filter_free(f);
        return s;
    }
    f->next = r->filters;
    r->filters = f;
    *out = f;
    return BB_OK;
}

bb_status bbr_reply_error(bb_redis *r, const char *key, const redisReply *rep) {
    return bbr_fail(r, BB_E_SERVER, "redis: '%s': %s", key,
                    rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
}

/* An integer reply, or a bulk string of digits (GET of a counter); nil is 0. */
bool bbr_reply_u64(const redisReply *rep, uint64_t *v) {
    if (rep->type == REDIS_REPLY_INTEGER && rep->integer >= 0) return *v = (uint64_t)rep->integer, true;
    if (rep->type == REDIS_REPLY_NIL) return *v = 0, true;
    /* A counter another client SET by hand: strtoull alone would take "-5" for 2^64 - 5
     * and an overflow for 2^64 - 1, so only plain digits that fit are a count. */
    if (rep->type != REDIS_REPLY_STRING || rep->str[0] < '0' || rep->str[0] > '9') return false;
    char *end;
    errno = 0;
    *v = strtoull(rep->str, &end, 10);
    return errno != ERANGE && *end == '\0';
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void pause_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- Keys to shard positions -------------------------------------------------------------------- */

typedef struct key_place {
    uint64_t shard, offset; /* byte offset of the key's block in its shard */
} key_place;

static key_place place(const bbr_sub *sub, uint64_t h) {
    uint64_t b = bb_block_index(h, sub->blocks);
    return (key_place){b / sub->per_shard, (b % sub->per_shard) * BBR_BLOCK_BYTES};
}

static bool keys_valid(const void *const *keys, const size_t *lens, size_t n) {
    if (n && (!keys || !lens)) return false;
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i]) return false;
    return true;
}

/* ---- Probing: GETRANGE of the keys' blocks, tested by the core's kernel ------------------------- */

/* GETRANGE commands c[0 .. m (to - from)) for keys idx[0 .. m) in sub-filters [from, to). */
static void probe_fill(const bbr_filter *f, bbr_cmd *c, const uint64_t *h, const size_t *idx,
                       size_t m, size_t from, size_t to) {
    for (size_t j = from; j < to; j++)
        for (size_t t = 0; t < m; t++) {
            bbr_cmd *g = &c[(j - from) * m + t];
            key_place pl = place(&f->subs[j], h[idx[t]]);
            bbr_arg_str(g, "GETRANGE");
            bbr_arg_str(g, f->subs[j].shard_keys[pl.shard]);
            bbr_arg_u64(g, pl.offset);
            bbr_arg_u64(g, pl.offset + BBR_BLOCK_BYTES - 1);
        }
}

/* The replies of probe_fill's commands: present[idx[t]] = 1 where some sub-filter has every
 * bit of the key. */
static bb_status probe_read(bb_redis *r, const bbr_filter *f, const bbr_cmd *c,
                            const uint64_t *h, const size_t *idx, size_t m, size_t from,
                            size_t to, uint8_t *present) {
    if (m == 0 || from >= to) return BB_OK;
    uint8_t *blocks = aligned_alloc(BBR_BLOCK_BYTES, m * BBR_BLOCK_BYTES);
    uint64_t *hh = malloc(m * sizeof *hh);
    uint8_t *hit = malloc(m);
    bb_status s = blocks && hh && hit ? BB_OK : bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    for (size_t t = 0; s == BB_OK && t < m; t++) hh[t] = h[idx[t]];
    for (size_t j = from; s == BB_OK && j < to; j++) {
        for (size_t t = 0; s == BB_OK && t < m; t++) {
            const bbr_cmd *g = &c[(j - from) * m + t];
            const redisReply *rep = g->reply;
            if (rep->type == REDIS_REPLY_STRING && rep->len == BBR_BLOCK_BYTES)
                memcpy(blocks + t * BBR_BLOCK_BYTES, rep->str, BBR_BLOCK_BYTES);
            else if (rep->type == REDIS_REPLY_STRING)
                s = bbr_fail(r, BB_E_INCONSISTENT, "redis: shard '%s' of '%s' is shorter than "
                             "its layout (deleted or replaced?)", g->argv[1], f->name);
            else
                s = bbr_reply_error(r, g->argv[1], rep);
        }
        size_t hits;
        bb_status bs = s == BB_OK ? bb_blocks_test(blocks, hh, m, f->subs[j].k, hit, &hits) : BB_OK;
        if (bs != BB_OK) s = bbr_fail(r, bs, "redis: block test failed");
        for (size_t t = 0; s == BB_OK && t < m; t++) present[idx[t]] |= hit[t];
    }
    free(blocks);
    free(hh);
    free(hit);
    return s;
}

/* GETRANGEs held in one pipeline when probing several sub-filters: a command takes ~1.6 KB
 * of this handle's memory, so a batch of 1000 keys against a chain of 1024 sub-filters
 * (EXPANSION 1) would otherwise take 1.6 GB. */
#define PROBE_ROUND 16384

/* Sub-filters probed together for m keys. */
static size_t probe_span(size_t m) { return m && PROBE_ROUND / m ? PROBE_ROUND / m : 1; }

/* Probe keys idx[0 .. m) in sub-filters [from, to), PROBE_ROUND commands a round at most. */
static bb_status probe_only(bb_redis *r, const bbr_filter *f, const uint64_t *h,
                            const size_t *idx, size_t m, size_t from, size_t to,
                            uint8_t *present) {
    bb_status s = BB_OK;
    for (size_t a = from; s == BB_OK && a < to; a += probe_span(m)) {
        size_t b = a + probe_span(m) < to ? a + probe_span(m) : to;
        bbr_cmd *c = bbr_cmds_get(r, m * (b - a));
        if (!c) return BB_E_NOMEM;
        probe_fill(f, c, h, idx, m, a, b);
        s = bbr_exec(r, c, m * (b - a));
        if (s == BB_OK) s = probe_read(r, f, c, h, idx, m, a, b, present);
        bbr_cmds_clear(c, m * (b - a));
    }
    return s;
}

static uint64_t *hash_keys(bb_redis *r, const bbr_filter *f, const void *const *keys,
                           const size_t *lens, size_t n) {
    uint64_t *h = malloc((n ? n : 1) * sizeof *h);
    if (!h) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory"), NULL;
    for (size_t i = 0; i < n; i++) h[i] = bb_hash(f->hasher, keys[i], lens[i]);
    return h;
}

/* ---- The state scripts of a chain (docs/REDIS.md) ---------------------------------------------
 * KEYS[1] is the state hash "bb:{n:NAME}"; every script touches only it, so it runs on the
 * node of that slot and atomically. Counts are Lua numbers: exact up to 2^53. */

/* ARGV: top index i, wanted room t, capacity c_i. Returns {subs, granted, c<i>}; granted is 0
 * when i is not the newest sub-filter (subs says which is), -1 subs when the state is gone. */
static const char reserve_lua[] =
    "local n = tonumber(redis.call('HGET', KEYS[1], 'subs') or 0)\n"
    "if n == 0 then return {-1, 0, 0} end\n"
    "local i = tonumber(ARGV[1])\n"
    "if n ~= i + 1 then return {n, 0, 0} end\n"
    "local c = tonumber(redis.call('HGET', KEYS[1], 'c' .. i) or 0)\n"
    "local r = tonumber(redis.call('HGET', KEYS[1], 'r' .. i) or 0)\n"
    "local g = tonumber(ARGV[3]) - c - r\n"
    "local t = tonumber(ARGV[2])\n"
    "if g > t then g = t end\n"
    "if g < 0 then g = 0 end\n"
    "if g > 0 then redis.call('HINCRBY', KEYS[1], 'r' .. i, g) end\n"
    "return {n, g, c}\n";

/* ARGV: i, granted, new: the reservation becomes the count of keys that answered 1. */
static const char release_lua[] =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "redis.call('HINCRBY', KEYS[1], 'r' .. ARGV[1], 0 - tonumber(ARGV[2]))\n"
    "redis.call('HINCRBY', KEYS[1], 'c' .. ARGV[1], tonumber(ARGV[3]))\n"
    "return 1\n";

/* ARGV: i, c_i, force. Publishes sub-filter i + 1 (its shards already made) if i is still
 * the newest and full (force: or full with reservations counted, whose writers never came
 * back). Returns the number of sub-filters now, -1 when the state is gone. */
static const char grow_lua[] =
    "local n = tonumber(redis.call('HGET', KEYS[1], 'subs') or 0)\n"
    "if n == 0 then return -1 end\n"
    "local i = tonumber(ARGV[1])\n"
    "if n == i + 1 then\n"
    "  local c = tonumber(redis.call('HGET', KEYS[1], 'c' .. i) or 0)\n"
    "  local r = tonumber(redis.call('HGET', KEYS[1], 'r' .. i) or 0)\n"
    "  local cap = tonumber(ARGV[2])\n"
    "  if c >= cap or (ARGV[3] == '1' and c + r >= cap) then\n"
    "    n = n + 1\n"
    "    redis.call('HSET', KEYS[1], 'subs', n, 'c' .. i + 1, 0, 'r' .. i + 1, 0)\n"
    "  end\n"
    "end\n"
    "return n\n";

static void eval_cmd(bbr_cmd *c, const char *script, const char *key) {
    bbr_arg_str(c, "EVAL");
    bbr_arg_str(c, script);
    bbr_arg_str(c, "1");
    bbr_arg_str(c, key);
    c->key_arg = 3;
}

/* One integer of a script's reply (element j of an array, or the reply itself). */
static bool script_int(const redisReply *rep, size_t j, long long *v) {
    if (rep->type == REDIS_REPLY_ARRAY && j < rep->elements) rep = rep->element[j];
    if (rep->type != REDIS_REPLY_INTEGER) return false;
    *v = rep->integer;
    return true;
}

static bb_status release(bb_redis *r, const bbr_filter *f, size_t i, uint64_t granted,
                         uint64_t news) {
    bbr_cmd c = {0};
    eval_cmd(&c, release_lua, f->count_key);
    bbr_arg_u64(&c, i);
    bbr_arg_u64(&c, granted);
    bbr_arg_u64(&c, news);
    bb_status s = bbr_exec1(r, &c);
    if (s == BB_OK && c.reply->type != REDIS_REPLY_INTEGER) s = bbr_reply_error(r, f->count_key, c.reply);
    bbr_cmds_clear(&c, 1);
    return s;
}

/* Make sub-filter i's shards exist at their length without touching a bit a faster writer
 * may already have set in them (BITFIELD INCRBY of the last bit by 0 grows a string with
 * zeros and changes nothing else), then ask the state to publish it. *n = sub-filters now. */
static bb_status grow(bb_redis *r, bbr_filter *f, bool force, long long *n) {
    size_t top = f->n_subs - 1;
    bbr_sub next;
    if (top + 2 <= BBR_MAX_SUBS && bbr_chain_fit(r, f, top + 2) < top + 2)
        return bbr_fail(r, BB_E_TOO_LARGE, "ERR '%s' cannot grow further: sub-filter %zu would "
                        "take it past the bound of a filter (%u shards, %llu bytes)", f->name,
                        top + 1, BBR_MAX_SHARDS, (unsigned long long)BBR_MAX_BYTES);
    bb_status s = bbr_chain_sub(r, f, top + 1, &next);
    if (s == BB_OK) s = bbr_sub_names(r, f->name, top + 1, &next);
    if (s != BB_OK) return s;
    bbr_cmd *c = calloc(next.shards + 1, sizeof *c);
    if (!c) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    for (uint64_t j = 0; s == BB_OK && j < next.shards; j++) {
        bbr_arg_str(&c[j], "BITFIELD");
        bbr_arg_str(&c[j], next.shard_keys[j]);
        bbr_arg_str(&c[j], "INCRBY");
        bbr_arg_str(&c[j], "u1");
        bbr_arg_u64(&c[j], 8 * bbr_shard_len(&next, j) - 1);
        bbr_arg_str(&c[j], "0");
    }
    if (s == BB_OK) s = bbr_exec(r, c, next.shards);
    for (uint64_t j = 0; s == BB_OK && j < next.shards; j++)
        if (c[j].reply->type != REDIS_REPLY_ARRAY) s = bbr_reply_error(r, c[j].argv[1], c[j].reply);
    if (c) bbr_cmds_clear(c, next.shards);
    if (s == BB_OK) {
        bbr_cmd *g = &c[next.shards];
        eval_cmd(g, grow_lua, f->count_key);
        bbr_arg_u64(g, top);
        bbr_arg_u64(g, f->subs[top].capacity);
        bbr_arg_str(g, force ? "1" : "0");
        s = bbr_exec1(r, g);
        if (s == BB_OK && !script_int(g->reply, 0, n)) s = bbr_reply_error(r, f->count_key, g->reply);
        bbr_cmds_clear(g, 1);
    }
    free(c);
    sub_free_keys(&next);
    return s;
}

/* ---- add / madd / insert --------------------------------------------------------------------------- */

/* BITFIELD SET of the key's distinct probe positions in sub (bb_block_positions: a position
 * probed twice is set once). */
static void add_cmd(const bbr_sub *sub, bbr_cmd *c, uint64_t h) {
    key_place pl = place(sub, h);
    uint16_t pos[BB_MAX_K];
    unsigned n = bb_block_positions((uint32_t)h, sub->k, pos);
    bbr_arg_str(c, "BITFIELD");
    bbr_arg_str(c, sub->shard_keys[pl.shard]);
    for (unsigned j = 0; j < n; j++) {
        bbr_arg_str(c, "SET");
        bbr_arg_str(c, "u1");
        bbr_arg_u64(c, 8 * (pl.offset + (pos[j] >> 3u)) + 7u - (pos[j] & 7u));
        bbr_arg_str(c, "1");
    }
}

/* BITFIELD's reply: the old bits, one per SET; the key was new if one of them was 0. */
static bb_status add_reply(bb_redis *r, const bbr_cmd *c, bool *was_new) {
    const redisReply *rep = c->reply;
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements != (size_t)(c->argc - 2) / 4)
        return bbr_reply_error(r, c->argv[1], rep);
    *was_new = false;
    for (size_t j = 0; j < rep->elements; j++) {
        if (rep->element[j]->type != REDIS_REPLY_INTEGER) return bbr_reply_error(r, c->argv[1], rep);
        if (rep->element[j]->integer == 0) *was_new = true;
    }
    return BB_OK;
}

/* BITFIELD of keys idx[0 .. m) into sub-filter i: out[idx[t]] = 1 for each new one. */
static bb_status set_bits(bb_redis *r, const bbr_filter *f, size_t i, const uint64_t *h,
                          const size_t *idx, size_t m, uint8_t *out, uint64_t *news) {
    *news = 0;
    bbr_cmd *c = bbr_cmds_get(r, m ? m : 1);
    if (!c) return BB_E_NOMEM;
    for (size_t t = 0; t < m; t++) add_cmd(&f->subs[i], &c[t], h[idx[t]]);
    bb_status s = bbr_exec(r, c, m);
    for (size_t t = 0; s == BB_OK && t < m; t++) {
        bool nw = false;
        s = add_reply(r, &c[t], &nw);
        out[idx[t]] = nw;
        *news += nw;
    }
    bbr_cmds_clear(c, m);
    return s;
}

/* A fixed filter (push, slices): no capacity to keep, so the bits, then the count of the
 * keys that were new. */
static bb_status fixed_madd(bb_redis *r, const bbr_filter *f, const uint64_t *h,
                            size_t *idx, size_t n, uint8_t *out) {
    uint64_t news;
    bb_status s = set_bits(r, f, 0, h, idx, n, out, &news);
    if (s != BB_OK || news == 0) return s;
    bbr_cmd c = {0};
    bbr_arg_str(&c, "INCRBY");
    bbr_arg_str(&c, f->count_key);
    bbr_arg_u64(&c, news);
    s = bbr_exec1(r, &c);
    if (s == BB_OK && c.reply->type != REDIS_REPLY_INTEGER) s = bbr_reply_error(r, f->count_key, c.reply);
    bbr_cmds_clear(&c, 1);
    return s;
}

/* The chain protocol (file comment): reserve room in the newest sub-filter while probing the
 * older ones, set the bits of as many absent keys as the room allows, count the new ones;
 * the rest go round again (probed in every sub-filter: an earlier key may have set their
 * bits, as in the local kind, which tests each key against the filter as it is). Keys that
 * find no room make the newest sub-filter grow, or, NONSCALING, are refused: out = 2 for
 * them and every key after the first of them, as RedisBloom stops at that key. */
static bb_status chain_madd(bb_redis *r, bbr_filter *f, const uint64_t *h, size_t *pend,
                            size_t n, uint8_t *out) {
    size_t m = n;
    uint8_t *present = calloc(1, n);
    if (!present) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    bb_status s = BB_OK;
    bool recheck = false;
    unsigned waits = 0;
    uint64_t waited_from = 0;
    while (s == BB_OK && m > 0) {
        size_t top = f->n_subs - 1, to = recheck ? f->n_subs : top;
        if (to > probe_span(m)) { /* a deep chain: probe it first, round by round */
            s = probe_only(r, f, h, pend, m, 0, to, present);
            to = 0;
        }
        bbr_cmd *c = s == BB_OK ? bbr_cmds_get(r, 1 + m * to) : NULL;
        if (!c) {
            if (s == BB_OK) s = BB_E_NOMEM;
            break;
        }
        eval_cmd(&c[0], reserve_lua, f->count_key);
        bbr_arg_u64(&c[0], top);
        bbr_arg_u64(&c[0], m);
        bbr_arg_u64(&c[0], f->subs[top].capacity);
        probe_fill(f, c + 1, h, pend, m, 0, to);
        s = bbr_exec(r, c, 1 + m * to);
        long long n_now = 0, granted = 0, count = 0;
        if (s == BB_OK && !(script_int(c[0].reply, 0, &n_now) &&
                                  script_int(c[0].reply, 1, &granted) && script_int(c[0].reply, 2, &count)))
            s = bbr_reply_error(r, f->count_key, c[0].reply);
        if (s == BB_OK) s = probe_read(r, f, c + 1, h, pend, m, 0, to, present);
        bbr_cmds_clear(c, 1 + m * to);
        if (s != BB_OK) break;
        if (n_now < 0) {
            s = bbr_fail(r, BB_E_NOT_FOUND, "ERR not found: '%s' was deleted", f->name);
            break;
        }
        size_t kept = 0; /* keys some sub-filter has answer 0, the others stay pending */
        for (size_t t = 0; t < m; t++)
            if (present[pend[t]]) out[pend[t]] = 0;
            else pend[kept++] = pend[t];
        m = kept;
        if ((size_t)n_now != f->n_subs) { /* another writer grew the chain: catch up, retry */
            s = bbr_chain_extend(r, f, (size_t)n_now);
            recheck = true;
            continue;
        }
        uint64_t use = (uint64_t)granted < m ? (uint64_t)granted : m, news = 0;
        if (use) s = set_bits(r, f, top, h, pend, use, out, &news);
        if (granted && s == BB_OK) s = release(r, f, top, (uint64_t)granted, news);
        if (s != BB_OK) break;
        if (use) {
            memmove(pend, pend + use, (m - use) * sizeof *pend);
            m -= use;
            recheck = true;
            waits = 0;
            continue;
        }
        if (m == 0) break;
        if (!recheck) { /* the newest sub-filter was not probed (BITFIELD would have): now */
            recheck = true;
            continue;
        }
        /* No room: full, or other writers' reservations in flight. */
        bool full = (uint64_t)count >= f->subs[top].capacity;
        if (!full && (!waits++ || now_ms() - waited_from < WAIT_MS)) {
            if (waits == 1) waited_from = now_ms();
            pause_ms(1);
            recheck = true;
            continue;
        }
        if (f->nonscaling) {
            s = bbr_fail(r, BB_E_FULL, "ERR non scaling filter is full");
            break;
        }
        s = grow(r, f, !full, &n_now);
        if (s == BB_OK && n_now < 0)
            s = bbr_fail(r, BB_E_NOT_FOUND, "ERR not found: '%s' was deleted", f->name);
        if (s == BB_OK) s = bbr_chain_extend(r, f, (size_t)n_now);
        waits = 0;
        recheck = true;
    }
    if (s == BB_E_FULL && m) /* RedisBloom answers up to the first refused key */
        memset(out + pend[0], 2, n - pend[0]);
    free(present);
    return s;
}

/* Parameters with RedisBloom's defaults and checks; the texts are RedisBloom v8's. */
bb_status bbr_params(bb_redis *r, const bb_redis_params *in, bool reserve, bb_redis_params *p) {
    memset(p, 0, sizeof *p);
    bb_status s = in ? BB_ABI_READ(p, in, bb_redis_params, shards, "BB_REDIS_PARAMS_INIT") : BB_OK;
    if (s != BB_OK) return s;
    p->size = sizeof *p;
    if (p->error_rate == 0.0) p->error_rate = BB_REDIS_DEFAULT_ERROR_RATE;
    if (p->capacity == 0) p->capacity = BB_REDIS_DEFAULT_CAPACITY;
    if (!(p->error_rate > 0.0 && p->error_rate < 1.0))
        return bbr_fail(r, BB_E_INVAL, "ERR error rate must be in the range (0.000000, 1.000000)");
    if (p->error_rate > BB_REDIS_MAX_ERROR_RATE) p->error_rate = BB_REDIS_MAX_ERROR_RATE;
    if (p->capacity > BB_REDIS_MAX_CAPACITY)
        return bbr_fail(r, BB_E_INVAL, "ERR capacity must be in the range [1, %llu]",
                        (unsigned long long)BB_REDIS_MAX_CAPACITY);
    if (reserve && p->nonscaling && p->expansion)
        return bbr_fail(r, BB_E_INVAL, "Nonscaling filters cannot expand");
    if (p->expansion > BBR_MAX_EXPANSION)
        return bbr_fail(r, BB_E_INVAL, "ERR expansion must be in the range [0, %d]", BBR_MAX_EXPANSION);
    if (p->nonscaling) p->expansion = 0; /* BF.INSERT: NONSCALING wins over EXPANSION */
    else if (p->expansion == 0) p->expansion = BB_REDIS_DEFAULT_EXPANSION;
    return BB_OK;
}

/* The filter `name`, created with p (NULL: the defaults) if there is none, unless nocreate.
 * A creator that loses the race to another (BB_E_EXISTS: its meta appeared, or the other holds
 * the lock) waits for that one's filter. */
static bb_status open_or_create(bb_redis *r, const char *name, const bb_redis_params *p,
                                bbr_filter **f) {
    bb_status s = BB_E_EXISTS;
    for (int tries = 0; tries < 500 && (s == BB_E_EXISTS || s == BB_OK); tries++) {
        s = bbr_open_filter(r, name, f);
        if (s != BB_E_NOT_FOUND) return s;
        if (p && p->nocreate) return s;
        s = bb_redis_reserve_params(r, name, p);
        if (s == BB_E_EXISTS) pause_ms(2);
    }
    return s == BB_OK ? bbr_open_filter(r, name, f) : s;
}

static bb_status do_madd(bb_redis *r, const char *name, const bb_redis_params *p,
                         const void *const *keys, const size_t *lens, size_t n,
                         uint8_t *was_new) {
    if (!r) return BB_E_INVAL;
    if (!keys_valid(keys, lens, n)) return bbr_fail(r, BB_E_INVAL, "redis: bad key array");
    bb_redis_params own;
    bb_status s = bbr_params(r, p, false, &own);
    bbr_filter *f;
    if (s == BB_OK) s = open_or_create(r, name, &own, &f);
    if (s != BB_OK || n == 0) return s;
    uint64_t *h = hash_keys(r, f, keys, lens, n);
    size_t *idx = malloc(n * sizeof *idx);
    uint8_t *out = was_new ? was_new : malloc(n);
    if (!h || !idx || !out) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    for (size_t i = 0; s == BB_OK && i < n; i++) idx[i] = i, out[i] = 0;
    if (s == BB_OK) {
        s = f->layout == BBR_LAYOUT_CHAIN ? chain_madd(r, f, h, idx, n, out)
                                          : fixed_madd(r, f, h, idx, n, out);
        if (s == BB_E_NOT_FOUND) bb_redis_forget(r, name); /* deleted meanwhile */
    }
    if (out != was_new) free(out);
    free(idx);
    free(h);
    return s;
}

bb_status bb_redis_madd(bb_redis *r, const char *name, const void *const *keys,
                        const size_t *lens, size_t n, uint8_t *was_new) {
    bb_error_clear();
    return do_madd(r, name, NULL, keys, lens, n, was_new);
}

bb_status bb_redis_insert(bb_redis *r, const char *name, const bb_redis_params *p,
                          const void *const *keys, const size_t *lens, size_t n,
                          uint8_t *was_new) {
    bb_error_clear();
    return do_madd(r, name, p, keys, lens, n, was_new);
}

bb_status bb_redis_add(bb_redis *r, const char *name, const void *key, size_t len,
                       bool *was_new) {
    uint8_t nw = 0;
    bb_status s = bb_redis_madd(r, name, &key, &len, 1, &nw);
    if (was_new) *was_new = nw == 1;
    return s;
}

/* ---- exists / mexists ----------------------------------------------------------------------------- */

/* A chain also asks for its number of sub-filters (HGET, in the same round): one a writer
 * published meanwhile is probed too, for the keys not yet found. */
bb_status bb_redis_mexists(bb_redis *r, const char *name, const void *const *keys,
                           const size_t *lens, size_t n, uint8_t *out, size_t *n_present) {
    bb_error_clear();
    if (n_present) *n_present = 0;
    if (!r) return BB_E_INVAL;
    if (!keys_valid(keys, lens, n) || (n && !out))
        return bbr_fail(r, BB_E_INVAL, "redis: bad key or answer array");
    bbr_filter *f;
    bb_status s = bbr_open_filter(r, name, &f);
    if (s == BB_E_NOT_FOUND || s == BB_E_WRONGTYPE) { /* RedisBloom: 0 for each */
        if (n) memset(out, 0, n);
        bb_error_clear();
        return BB_OK;
    }
    if (s != BB_OK || n == 0) return s;
    uint64_t *h = hash_keys(r, f, keys, lens, n);
    size_t *idx = malloc(n * sizeof *idx);
    if (!h || !idx) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    size_t m = n, from = 0;
    for (size_t i = 0; s == BB_OK && i < n; i++) idx[i] = i, out[i] = 0;
    while (s == BB_OK && m > 0 && from < f->n_subs) {
        size_t to = f->n_subs - from > probe_span(m) ? from + probe_span(m) : f->n_subs;
        size_t chain = f->layout == BBR_LAYOUT_CHAIN;
        bbr_cmd *c = bbr_cmds_get(r, chain + m * (to - from));
        if (!c) {
            s = BB_E_NOMEM;
            break;
        }
        if (chain) {
            bbr_arg_str(&c[0], "HGET");
            bbr_arg_str(&c[0], f->count_key);
            bbr_arg_str(&c[0], "subs");
        }
        probe_fill(f, c + chain, h, idx, m, from, to);
        s = bbr_exec(r, c, chain + m * (to - from));
        uint64_t n_now = to;
        if (s == BB_OK && chain && (!bbr_reply_u64(c[0].reply, &n_now) || n_now > BBR_MAX_SUBS))
            s = bbr_reply_error(r, f->count_key, c[0].reply);
        if (s == BB_OK) s = probe_read(r, f, c + chain, h, idx, m, from, to, out);
        bbr_cmds_clear(c, chain + m * (to - from));
        if (s == BB_OK && n_now > to) s = bbr_chain_extend(r, f, (size_t)n_now);
        size_t kept = 0;
        for (size_t t = 0; t < m; t++)
            if (!out[idx[t]]) idx[kept++] = idx[t];
        m = kept;
        from = to;
    }
    if (s == BB_OK && n_present) *n_present = n - m;
    free(h);
    free(idx);
    return s;
}

bb_status bb_redis_exists(bb_redis *r, const char *name, const void *key, size_t len,
                          bool *present) {
    uint8_t o = 0;
    bb_status s = bb_redis_mexists(r, name, &key, &len, 1, &o, NULL);
    if (present) *present = o;
    return s;
}

/* ---- info / card / del ----------------------------------------------------------------------------- */

/* The count of adds that answered 1: a fixed filter's counter, or a chain's c<i> summed (with
 * the number of sub-filters, which may have grown). */
static bb_status read_count(bb_redis *r, bbr_filter *f, uint64_t *count) {
    bbr_cmd c = {0};
    bool chain = f->layout == BBR_LAYOUT_CHAIN;
    bbr_arg_str(&c, chain ? "HGETALL" : "GET");
    bbr_arg_str(&c, f->count_key);
    bb_status s = bbr_exec1(r, &c);
    const redisReply *rep = c.reply;
    *count = 0;
    uint64_t n = f->n_subs;
    if (s == BB_OK && !chain && !bbr_reply_u64(rep, count)) s = bbr_reply_error(r, f->count_key, rep);
    if (s == BB_OK && chain && rep->type != REDIS_REPLY_ARRAY) s = bbr_reply_error(r, f->count_key, rep);
    for (size_t j = 0; s == BB_OK && chain && j + 1 < rep->elements; j += 2) {
        const redisReply *k = rep->element[j];
        uint64_t v;
        if (k->type != REDIS_REPLY_STRING || !bbr_reply_u64(rep->element[j + 1], &v))
            s = bbr_reply_error(r, f->count_key, rep);
        else if (strcmp(k->str, "subs") == 0) n = v;
        else if (k->str[0] == 'c') *count += v;
    }
    bbr_cmds_clear(&c, 1);
    if (s == BB_OK && chain && n > f->n_subs) s = bbr_chain_extend(r, f, (size_t)n);
    return s;
}

/* The 0.1.0 fields end at cardinality: the smallest bb_redis_info a caller may pass. */
static bb_status info_get(bb_redis *r, const char *name, bb_redis_info *out);

bb_status bb_redis_info_get(bb_redis *r, const char *name, bb_redis_info *user_out) {
    bb_error_clear();
    if (!r) return BB_E_INVAL;
    if (!user_out) return bbr_fail(r, BB_E_INVAL, "redis: NULL info");
    bb_status s = bb_abi_check(user_out->size, BB_END_OF(bb_redis_info, cardinality),
                               "bb_redis_info", "BB_REDIS_INFO_INIT");
    bb_redis_info full = BB_REDIS_INFO_INIT;
    if (s == BB_OK) s = info_get(r, name, &full);
    if (s == BB_OK) bb_abi_write(user_out, user_out->size, &full, sizeof full);
    return s;
}

static bb_status info_get(bb_redis *r, const char *name, bb_redis_info *out) {
    bbr_filter *f;
    bb_status s = bbr_open_filter(r, name, &f);
    if (s != BB_OK) return s;
    s = read_count(r, f, &out->keys_added);
    uint64_t n = 0;
    for (size_t i = 0; i < f->n_subs; i++) n += f->subs[i].shards;
    bbr_cmd *c = s == BB_OK ? calloc(n ? n : 1, sizeof *c) : NULL;
    if (s == BB_OK && !c) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    for (size_t i = 0, j = 0; s == BB_OK && i < f->n_subs; i++)
        for (uint64_t sh = 0; sh < f->subs[i].shards; sh++, j++) {
            bbr_arg_str(&c[j], "BITCOUNT");
            bbr_arg_str(&c[j], f->subs[i].shard_keys[sh]);
        }
    if (s == BB_OK) s = bbr_exec(r, c, n);
    double card = 0.0;
    for (size_t i = 0, j = 0; s == BB_OK && i < f->n_subs; i++) {
        uint64_t set = 0, v;
        for (uint64_t sh = 0; s == BB_OK && sh < f->subs[i].shards; sh++, j++)
            if (!bbr_reply_u64(c[j].reply, &v)) s = bbr_reply_error(r, c[j].argv[1], c[j].reply);
            else set += v;
        const bbr_sub *sub = &f->subs[i];
        double m = (double)sub->bits, x = (double)set;
        card += x >= m ? INFINITY : -(m / sub->k) * log1p(-x / m);
        out->bits_set += set;
        out->capacity += sub->capacity;
        out->bits += sub->bits;
        out->blocks += sub->blocks;
        out->shards += sub->shards;
        out->k = sub->k;
    }
    if (c) bbr_cmds_clear(c, n);
    free(c);
    if (s != BB_OK) return s;
    out->error_rate = f->fpr;
    out->size_bytes = out->bits / 8;
    out->seed = f->seed;
    out->blocks_per_shard = f->subs[0].per_shard;
    out->cardinality = card;
    out->filters = f->n_subs;
    out->expansion = f->layout == BBR_LAYOUT_CHAIN && !f->nonscaling ? f->growth : 0;
    return BB_OK;
}

/* RedisBloom's BF.CARD: the count of adds that answered 1; 0 for a missing key. */
bb_status bb_redis_card(bb_redis *r, const char *name, uint64_t *card) {
    bb_error_clear();
    if (!r) return BB_E_INVAL;
    if (!card) return bbr_fail(r, BB_E_INVAL, "redis: NULL card");
    *card = 0;
    bbr_filter *f;
    bb_status s = bbr_open_filter(r, name, &f);
    if (s == BB_E_NOT_FOUND) {
        bb_error_clear();
        return BB_OK;
    }
    return s == BB_OK ? read_count(r, f, card) : s;
}

bb_status bbr_del_keys(bb_redis *r, char *const *keys, size_t n) {
    bbr_cmd *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!keys[i]) continue;
        bbr_arg_str(&c[m], "DEL");
        bbr_arg_str(&c[m++], keys[i]);
    }
    bb_status s = bbr_exec(r, c, m);
    for (size_t i = 0; s == BB_OK && i < m; i++)
        if (c[i].reply->type != REDIS_REPLY_INTEGER) s = bbr_reply_error(r, c[i].argv[1], c[i].reply);
    bbr_cmds_clear(c, m);
    free(c);
    return s;
}

bb_status bbr_lock(bb_redis *r, const char *name, char **key) {
    *key = NULL;
    bb_status s = check_name(r, name);
    if (s != BB_OK) return s;
    if (!(*key = bbr_aux_key(name, 'c'))) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    bbr_cmd c = {0};
    bbr_arg_str(&c, "SET");
    bbr_arg_str(&c, *key);
    bbr_arg_str(&c, "1");
    bbr_arg_str(&c, "NX");
    bbr_arg_str(&c, "PX");
    bbr_arg_u64(&c, BBR_LOCK_MS);
    s = bbr_exec1(r, &c);
    if (s == BB_OK && c.reply->type == REDIS_REPLY_ERROR) s = bbr_reply_error(r, *key, c.reply);
    else if (s == BB_OK && c.reply->type == REDIS_REPLY_NIL)
        s = bbr_fail(r, BB_E_EXISTS, "ERR item exists: another client is creating or "
                     "deleting '%s' (it holds %s)", name, *key);
    bbr_cmds_clear(&c, 1);
    if (s != BB_OK) free(*key), *key = NULL;
    return s;
}

bb_status bbr_unlock(bb_redis *r, char *key, bb_status s) {
    if (!key) return s;
    char why[BB_LAST_ERROR_CAP];
    memcpy(why, bb_error_buffer(), sizeof why);
    bb_status u = bbr_del_keys(r, &key, 1);
    free(key);
    if (s == BB_OK) return u;
    memcpy(bb_error_buffer(), why, sizeof why); /* the first failure is the one to report */
    return s;
}

/* DEL of shards 0 .. n-1 of `name`'s sub-filter `sub`, in rounds of DEL_ROUND (memory
 * bounded by the round, not by n); *deleted counts the keys that existed. `probe`: end after
 * a round that deleted none (a filter's shards are 0 .. n-1, all made before its meta, so
 * past a missing round there are none), for a count that a damaged meta claims. */
#define DEL_ROUND 4096
static bb_status del_shards(bb_redis *r, const char *name, size_t sub, uint64_t n, bool probe,
                            uint64_t *deleted) {
    char **keys = calloc(DEL_ROUND, sizeof *keys);
    bbr_cmd *c = calloc(DEL_ROUND, sizeof *c);
    bb_status s = keys && c ? BB_OK : bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    *deleted = 0;
    uint64_t round = 1;
    for (uint64_t a = 0; s == BB_OK && a < n && (round || !probe); a += DEL_ROUND) {
        size_t m = n - a < DEL_ROUND ? (size_t)(n - a) : DEL_ROUND;
        for (size_t i = 0; s == BB_OK && i < m; i++)
            if (!(keys[i] = bbr_shard_key(name, sub, a + i))) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
        for (size_t i = 0; s == BB_OK && i < m; i++) {
            bbr_arg_str(&c[i], "DEL");
            bbr_arg_str(&c[i], keys[i]);
        }
        if (s == BB_OK) s = bbr_exec(r, c, m);
        round = 0;
        for (size_t i = 0; s == BB_OK && i < m; i++)
            if (c[i].reply->type != REDIS_REPLY_INTEGER) s = bbr_reply_error(r, keys[i], c[i].reply);
            else round += (uint64_t)c[i].reply->integer;
        *deleted += round;
        bbr_cmds_clear(c, m);
        for (size_t i = 0; i < m; i++) free(keys[i]), keys[i] = NULL;
        memset(c, 0, m * sizeof *c);
    }
    free(keys);
    free(c);
    return s;
}

/* The meta key is read again (not taken from the cache): what is deleted is what is there.
 * A chain's shards go up to one sub-filter past the published ones (a writer may have made
 * its shards and not yet won the growth), as far as the bound of a filter allows (grow()
 * makes none past it), and end after a sub-filter none of whose shards existed (grow()
 * makes sub-filter i + 1 only once i is published): so a state claiming 40 sub-filters of a
 * chain that has 1 costs two sub-filters' DELs. A fixed meta claiming more shards than the
 * bound is deleted as far as its shards exist (del_shards' probe), at most the bound. */
bb_status bb_redis_del(bb_redis *r, const char *name) {
    bb_error_clear();
    if (!r) return BB_E_INVAL;
    if (!name) return bbr_fail(r, BB_E_INVAL, "redis: no filter name");
    bb_redis_forget(r, name);
    char *lock;
    bb_status s = bbr_lock(r, name, &lock);
    if (s != BB_OK) return s;
    bbr_filter *f = calloc(1, sizeof *f);
    if (!f) return bbr_unlock(r, lock, bbr_fail(r, BB_E_NOMEM, "redis: out of memory"));
    s = bbr_read_meta(r, name, f);
    bool oversize = s == BB_E_CORRUPT && f->oversize;
    if (oversize) bb_error_clear(), s = BB_OK;
    if (s == BB_OK) {
        f->name = strdup(name);
        f->count_key = bbr_aux_key(name, 'n');
        if (!f->name || !f->count_key) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    }
    uint64_t n = 1;
    if (s == BB_OK && f->layout == BBR_LAYOUT_CHAIN && chain_subs(r, f, &n) != BB_OK) n = 1;
    size_t want = n + 1 <= BBR_MAX_SUBS ? (size_t)n + 1 : (size_t)n;
    size_t subs = f->layout == BBR_LAYOUT_CHAIN ? bbr_chain_fit(r, f, want) : 1;
    if (s == BB_OK) bb_error_clear(); /* a damaged state's reason: deleted all the same */
    char *meta = (char *)name;
    if (s == BB_OK) s = bbr_del_keys(r, &meta, 1);
    for (size_t i = 0; s == BB_OK && i < subs; i++) {
        bbr_sub sub = f->layout == BBR_LAYOUT_CHAIN ? (bbr_sub){0} : f->subs[0];
        if (f->layout == BBR_LAYOUT_CHAIN && (s = bbr_chain_sub(r, f, i, &sub)) != BB_OK) break;
        uint64_t deleted;
        s = del_shards(r, name, i, sub.shards < BBR_MAX_SHARDS ? sub.shards : BBR_MAX_SHARDS,
                       oversize, &deleted);
        if (deleted == 0) break;
    }
    if (s == BB_OK) s = bbr_del_keys(r, &f->count_key, 1);
    bbr_filter_free(f);
    return bbr_unlock(r, lock, s);
}
