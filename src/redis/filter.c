/* SPDX-License-Identifier: MIT */
/*
 * filter.c - the BF.* commands of the Redis binding on top of the executor (conn.c) and the
 * meta codec (meta.c): reserve, add/madd, exists/mexists, info/card, del, pull, push and
 * push of slices. A key with hash h lives in block b = fastrange(h, blocks) (internal.h),
 * i.e. in shard b / per at byte offset 64 (b % per); its k in-block positions are those of
 * the core's probe scheme, so Redis bits are exactly the file format's bytes, and a fetched
 * block is tested by the core's kernel (bb_blocks_test). Redis numbers
 * the bits of a string from the most significant bit of byte 0 (BITFIELD, SETBIT), the
 * format from the least significant: in-block position p is Redis bit offset
 * 8 (64 (b % per) + p / 8) + 7 - p % 8 of the shard.
 */
#include "../internal.h"
#include "redis_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>



/* ---- The cache of filter geometries ------------------------------------------------------------ */

void bbr_filter_free(bbr_filter *f) {
    if (!f) return;
    if (f->shard_keys)
        for (uint64_t s = 0; s < f->shards; s++) free(f->shard_keys[s]);
    free(f->shard_keys);
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

uint64_t bbr_shard_len(const bbr_filter *f, uint64_t s) {
    uint64_t left = f->blocks - s * f->per_shard;
    return (left < f->per_shard ? left : f->per_shard) * BBR_BLOCK_BYTES;
}

/* Key names and the hasher of a decoded geometry. */
bb_redis_status bbr_filter_names(bb_redis *r, bbr_filter *f, const char *name) {
    bb_config hc = {.kind = BB_BLOCKED, .bits = BB_BLOCK_BITS, .k = 1, .seed = f->seed};
    f->name = strdup(name);
    f->count_key = bbr_aux_key(name, 'n');
    f->shard_keys = calloc(f->shards, sizeof *f->shard_keys);
    bool ok = f->name && f->count_key && f->shard_keys && bb_create(&f->hasher, &hc) == BB_OK;
    for (uint64_t s = 0; ok && s < f->shards; s++) ok = (f->shard_keys[s] = bbr_shard_key(name, s));
    return ok ? BB_REDIS_OK : bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
}

/* A GET of the meta key into f; BB_REDIS_E_NOT_FOUND when there is none. Every call that
 * creates, changes or deletes a filter reads its meta first, so this is where a name in the
 * binding's own key space is refused: the filter "bb:{0:x}" would have its meta key at filter
 * x's shard 0, and reserving x (which DELs its shards) would destroy it. */
static bb_redis_status check_name(bb_redis *r, const char *name) {
    if (!bbr_name_reserved(name)) return BB_REDIS_OK;
    return bbr_fail(r, BB_REDIS_E_INVAL, "redis: filter names may not start with \"bb:{\" "
                    "(the shard and helper keys' prefix): '%s'", name);
}

bb_redis_status bbr_read_meta(bb_redis *r, const char *name, bbr_filter *f) {
    bb_redis_status s = check_name(r, name);
    if (s != BB_REDIS_OK) return s;
    bbr_cmd c = {0};
    bbr_arg_str(&c, "GET");
    bbr_arg_str(&c, name);
    if ((s = bbr_exec1(r, &c)) != BB_REDIS_OK) return s;
    const redisReply *rep = c.reply;
    if (rep->type == REDIS_REPLY_NIL)
        s = bbr_fail(r, BB_REDIS_E_NOT_FOUND, "ERR not found: no filter '%s'", name);
    else if (rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "WRONGTYPE", 9) != 0)
        s = bbr_reply_error(r, name, rep);
    else if (rep->type == REDIS_REPLY_ERROR || (rep->type == REDIS_REPLY_STRING &&
             (rep->len < 8 || memcmp(rep->str, "\x89" "BBF", 4) != 0)))
        s = bbr_fail(r, BB_REDIS_E_WRONGTYPE, "WRONGTYPE '%s' holds a key that is not a "
                     "blockbloom filter", name);
    else if (rep->type != REDIS_REPLY_STRING)
        s = bbr_fail(r, BB_REDIS_E_SERVER, "redis: unexpected reply to GET '%s'", name);
    else
        s = bbr_meta_decode(r, name, rep->str, rep->len, f);
    bbr_cmds_clear(&c, 1);
    return s;
}

/* STRLEN of every shard: each must be a string of exactly its length. */
static bb_redis_status check_shards(bb_redis *r, const bbr_filter *f) {
    bbr_cmd *c = calloc(f->shards, sizeof *c);
    if (!c) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    for (uint64_t s = 0; s < f->shards; s++) {
        bbr_arg_str(&c[s], "STRLEN");
        bbr_arg_str(&c[s], f->shard_keys[s]);
    }
    bb_redis_status st = bbr_exec(r, c, f->shards);
    for (uint64_t s = 0; st == BB_REDIS_OK && s < f->shards; s++) {
        const redisReply *rep = c[s].reply;
        if (rep->type != REDIS_REPLY_INTEGER)
            st = bbr_fail(r, BB_REDIS_E_BAD_SHARD, "redis: shard '%s' of '%s' is not a string: %s",
                          f->shard_keys[s], f->name, rep->type == REDIS_REPLY_ERROR ? rep->str : "");
        else if ((uint64_t)rep->integer != bbr_shard_len(f, s))
            st = bbr_fail(r, BB_REDIS_E_BAD_SHARD, "redis: shard '%s' of '%s' is %lld bytes, "
                          "expected %llu%s", f->shard_keys[s], f->name, rep->integer,
                          (unsigned long long)bbr_shard_len(f, s), rep->integer ? "" : " (missing)");
    }
    bbr_cmds_clear(c, f->shards);
    free(c);
    return st;
}

/* The geometry of `name`, from the cache or read (meta + shard lengths) and cached. */
bb_redis_status bbr_open_filter(bb_redis *r, const char *name, bbr_filter **out) {
    if (!r) return BB_REDIS_E_INVAL;
    if (!name) return bbr_fail(r, BB_REDIS_E_INVAL, "redis: no filter name");
    for (bbr_filter *f = r->filters; f; f = f->next)
        if (strcmp(f->name, name) == 0) return *out = f, BB_REDIS_OK;
    bbr_filter *f = calloc(1, sizeof *f);
    if (!f) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    bb_redis_status s = bbr_read_meta(r, name, f);
    if (s == BB_REDIS_OK) s = bbr_filter_names(r, f, name);
    if (s == BB_REDIS_OK) s = check_shards(r, f);
    if (s != BB_REDIS_OK) {
        bbr_filter_free(f);
        return s;
    }
    f->next = r->filters;
    r->filters = f;
    *out = f;
    return BB_REDIS_OK;
}

/* ---- Keys to shard positions -------------------------------------------------------------------- */

typedef struct key_place {
    uint64_t shard, offset; /* byte offset of the key's block in its shard */
    uint64_t hash;          /* its low half gives the in-block probes */
} key_place;

static key_place place(const bbr_filter *f, const void *key, size_t len) {
    uint64_t h = bb_hash(f->hasher, key, len), b = bb_block_index(h, f->blocks);
    return (key_place){b / f->per_shard, (b % f->per_shard) * BBR_BLOCK_BYTES, h};
}

static bool keys_valid(const void *const *keys, const size_t *lens, size_t n) {
    if (n && (!keys || !lens)) return false;
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i]) return false;
    return true;
}

bb_redis_status bbr_reply_error(bb_redis *r, const char *key, const redisReply *rep) {
    return bbr_fail(r, BB_REDIS_E_SERVER, "redis: '%s': %s", key,
                    rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
}

/* ---- add / madd ------------------------------------------------------------------------------------- */

/* BITFIELD SET of the key's distinct probe positions (bb_block_positions: a position probed
 * twice is set once). */
static void add_cmd(const bbr_filter *f, bbr_cmd *c, const void *key, size_t len) {
    key_place pl = place(f, key, len);
    uint16_t pos[BB_MAX_K];
    unsigned n = bb_block_positions((uint32_t)pl.hash, f->k, pos);
    bbr_arg_str(c, "BITFIELD");
    bbr_arg_str(c, f->shard_keys[pl.shard]);
    for (unsigned j = 0; j < n; j++) {
        bbr_arg_str(c, "SET");
        bbr_arg_str(c, "u1");
        bbr_arg_u64(c, 8 * (pl.offset + (pos[j] >> 3u)) + 7u - (pos[j] & 7u));
        bbr_arg_str(c, "1");
    }
}

/* BITFIELD's reply: the old bits, one per SET; the key was new if one of them was 0. */
static bb_redis_status add_reply(bb_redis *r, const bbr_cmd *c, bool *was_new) {
    const redisReply *rep = c->reply;
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements != (size_t)(c->argc - 2) / 4)
        return bbr_reply_error(r, c->argv[1], rep);
    *was_new = false;
    for (size_t j = 0; j < rep->elements; j++) {
        if (rep->element[j]->type != REDIS_REPLY_INTEGER) return bbr_reply_error(r, c->argv[1], rep);
        if (rep->element[j]->integer == 0) *was_new = true;
    }
    return BB_REDIS_OK;
}

bb_redis_status bb_redis_madd(bb_redis *r, const char *name, const void *const *keys,
                              const size_t *lens, size_t n, uint8_t *was_new) {
    bbr_filter *f;
    bb_redis_status s = bbr_open_filter(r, name, &f);
    if (s != BB_REDIS_OK) return s;
    if (!keys_valid(keys, lens, n)) return bbr_fail(r, BB_REDIS_E_INVAL, "redis: bad key array");
    if (n == 0) return BB_REDIS_OK;
    bbr_cmd *c = bbr_cmds_get(r, n + 1);
    if (!c) return BB_REDIS_E_NOMEM;
    for (size_t i = 0; i < n; i++) add_cmd(f, &c[i], keys[i], lens[i]);
    bbr_arg_str(&c[n], "INCRBY");
    bbr_arg_str(&c[n], f->count_key);
    bbr_arg_u64(&c[n], n);
    s = bbr_exec(r, c, n + 1);
    for (size_t i = 0; s == BB_REDIS_OK && i < n; i++) {
        bool nw = false;
        s = add_reply(r, &c[i], &nw);
        if (was_new) was_new[i] = nw;
    }
    if (s == BB_REDIS_OK && c[n].reply->type != REDIS_REPLY_INTEGER)
        s = bbr_reply_error(r, f->count_key, c[n].reply);
    bbr_cmds_clear(c, n + 1);
    return s;
}

bb_redis_status bb_redis_add(bb_redis *r, const char *name, const void *key, size_t len,
                             bool *was_new) {
    uint8_t nw = 0;
    bb_redis_status s = bb_redis_madd(r, name, &key, &len, 1, &nw);
    if (was_new) *was_new = nw;
    return s;
}

/* ---- exists / mexists ----------------------------------------------------------------------------- */

/* The 64-byte blocks of the replies, then the core's kernel (bb_blocks_test) on them. */
static bb_redis_status test_replies(bb_redis *r, const char *name, const bbr_filter *f,
                                    const bbr_cmd *c, const uint64_t *h, size_t n, uint8_t *out,
                                    size_t *hits) {
    uint8_t *blocks = aligned_alloc(BBR_BLOCK_BYTES, n ? n * BBR_BLOCK_BYTES : BBR_BLOCK_BYTES);
    if (!blocks) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    bb_redis_status s = BB_REDIS_OK;
    for (size_t i = 0; s == BB_REDIS_OK && i < n; i++) {
        const redisReply *rep = c[i].reply;
        if (rep->type == REDIS_REPLY_STRING && rep->len == BBR_BLOCK_BYTES)
            memcpy(blocks + i * BBR_BLOCK_BYTES, rep->str, BBR_BLOCK_BYTES);
        else if (rep->type == REDIS_REPLY_STRING)
            s = bbr_fail(r, BB_REDIS_E_BAD_SHARD, "redis: shard '%s' of '%s' is shorter than "
                         "its layout (deleted or replaced?)", c[i].argv[1], name);
        else
            s = bbr_reply_error(r, c[i].argv[1], rep);
    }
    if (s == BB_REDIS_OK && bb_blocks_test(blocks, h, n, f->k, out, hits) != BB_OK)
        s = bbr_fail(r, BB_REDIS_E_FILTER, "redis: block test failed");
    free(blocks);
    return s;
}

bb_redis_status bb_redis_mexists(bb_redis *r, const char *name, const void *const *keys,
                                 const size_t *lens, size_t n, uint8_t *out, size_t *n_present) {
    bbr_filter *f;
    bb_redis_status s = bbr_open_filter(r, name, &f);
    if (s != BB_REDIS_OK) return s;
    if (!keys_valid(keys, lens, n) || (n && !out))
        return bbr_fail(r, BB_REDIS_E_INVAL, "redis: bad key or answer array");
    bbr_cmd *c = bbr_cmds_get(r, n ? n : 1);
    uint64_t *h = malloc((n ? n : 1) * sizeof *h);
    if (!c || !h) {
        free(h);
        return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        key_place pl = place(f, keys[i], lens[i]);
        h[i] = pl.hash;
        bbr_arg_str(&c[i], "GETRANGE");
        bbr_arg_str(&c[i], f->shard_keys[pl.shard]);
        bbr_arg_u64(&c[i], pl.offset);
        bbr_arg_u64(&c[i], pl.offset + BBR_BLOCK_BYTES - 1);
    }
    size_t hits = 0;
    s = bbr_exec(r, c, n);
    if (s == BB_REDIS_OK) s = test_replies(r, name, f, c, h, n, out, &hits);
    if (n_present) *n_present = s == BB_REDIS_OK ? hits : 0;
    bbr_cmds_clear(c, n);
    free(h);
    return s;
}

bb_redis_status bb_redis_exists(bb_redis *r, const char *name, const void *key, size_t len,
                                bool *present) {
    uint8_t o = 0;
    bb_redis_status s = bb_redis_mexists(r, name, &key, &len, 1, &o, NULL);
    if (present) *present = o;
    return s;
}

/* ---- info / card / del ----------------------------------------------------------------------------- */

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

bb_redis_status bb_redis_info_get(bb_redis *r, const char *name, bb_redis_info *out) {
    bbr_filter *f;
    bb_redis_status s = bbr_open_filter(r, name, &f);
    if (s != BB_REDIS_OK) return s;
    if (!out) return bbr_fail(r, BB_REDIS_E_INVAL, "redis: NULL info");
    bbr_cmd *c = calloc(f->shards + 1, sizeof *c);
    if (!c) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    for (uint64_t i = 0; i < f->shards; i++) {
        bbr_arg_str(&c[i], "BITCOUNT");
        bbr_arg_str(&c[i], f->shard_keys[i]);
    }
    bbr_arg_str(&c[f->shards], "GET");
    bbr_arg_str(&c[f->shards], f->count_key);
    s = bbr_exec(r, c, f->shards + 1);
    memset(out, 0, sizeof *out);
    for (uint64_t i = 0; s == BB_REDIS_OK && i <= f->shards; i++) {
        uint64_t v;
        if (!bbr_reply_u64(c[i].reply, &v)) s = bbr_reply_error(r, c[i].argv[1], c[i].reply);
        else if (i < f->shards) out->bits_set += v;
        else out->keys_added = v;
    }
    bbr_cmds_clear(c, f->shards + 1);
    free(c);
    if (s != BB_REDIS_OK) return s;
    out->capacity = f->capacity;
    out->error_rate = f->fpr;
    out->size_bytes = f->bits / 8;
    out->bits = f->bits;
    out->blocks = f->blocks;
    out->k = f->k;
    out->seed = f->seed;
    out->shards = f->shards;
    out->blocks_per_shard = f->per_shard;
    double m = (double)f->bits, x = (double)out->bits_set;
    out->cardinality = x >= m ? INFINITY : -(m / f->k) * log1p(-x / m);
    return BB_REDIS_OK;
}

bb_redis_status bb_redis_card(bb_redis *r, const char *name, uint64_t *card) {
    bb_redis_info in;
    bb_redis_status s = bb_redis_info_get(r, name, &in);
    if (s != BB_REDIS_OK) return s;
    if (!card) return bbr_fail(r, BB_REDIS_E_INVAL, "redis: NULL card");
    *card = in.cardinality >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(in.cardinality);
    return BB_REDIS_OK;
}

bb_redis_status bbr_del_keys(bb_redis *r, char *const *keys, size_t n) {
    bbr_cmd *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!keys[i]) continue;
        bbr_arg_str(&c[m], "DEL");
        bbr_arg_str(&c[m++], keys[i]);
    }
    bb_redis_status s = bbr_exec(r, c, m);
    for (size_t i = 0; s == BB_REDIS_OK && i < m; i++)
        if (c[i].reply->type != REDIS_REPLY_INTEGER) s = bbr_reply_error(r, c[i].argv[1], c[i].reply);
    bbr_cmds_clear(c, m);
    free(c);
    return s;
}

bb_redis_status bbr_lock(bb_redis *r, const char *name, char **key) {
    *key = NULL;
    bb_redis_status s = check_name(r, name);
    if (s != BB_REDIS_OK) return s;
    if (!(*key = bbr_aux_key(name, 'c'))) return bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory");
    bbr_cmd c = {0};
    bbr_arg_str(&c, "SET");
    bbr_arg_str(&c, *key);
    bbr_arg_str(&c, "1");
    bbr_arg_str(&c, "NX");
    bbr_arg_str(&c, "PX");
    bbr_arg_u64(&c, BBR_LOCK_MS);
    s = bbr_exec1(r, &c);
    if (s == BB_REDIS_OK && c.reply->type == REDIS_REPLY_ERROR) s = bbr_reply_error(r, *key, c.reply);
    else if (s == BB_REDIS_OK && c.reply->type == REDIS_REPLY_NIL)
        s = bbr_fail(r, BB_REDIS_E_EXISTS, "ERR item exists: another client is creating or "
                     "deleting '%s' (it holds %s)", name, *key);
    bbr_cmds_clear(&c, 1);
    if (s != BB_REDIS_OK) free(*key), *key = NULL;
    return s;
}

bb_redis_status bbr_unlock(bb_redis *r, char *key, bb_redis_status s) {
    if (!key) return s;
    char why[sizeof r->err];
    memcpy(why, r->err, sizeof why);
    bb_redis_status u = bbr_del_keys(r, &key, 1);
    free(key);
    if (s == BB_REDIS_OK) return u;
    memcpy(r->err, why, sizeof why); /* the first failure is the one to report */
    return s;
}

/* The meta key is read again (not taken from the cache): what is deleted is what is there. */
bb_redis_status bb_redis_del(bb_redis *r, const char *name) {
    if (!r) return BB_REDIS_E_INVAL;
    if (!name) return bbr_fail(r, BB_REDIS_E_INVAL, "redis: no filter name");
    bb_redis_forget(r, name);
    char *lock;
    bb_redis_status s = bbr_lock(r, name, &lock);
    if (s != BB_REDIS_OK) return s;
    bbr_filter *f = calloc(1, sizeof *f);
    if (!f) return bbr_unlock(r, lock, bbr_fail(r, BB_REDIS_E_NOMEM, "redis: out of memory"));
    s = bbr_read_meta(r, name, f);
    if (s == BB_REDIS_OK) s = bbr_filter_names(r, f, name);
    char *meta = (char *)name;
    if (s == BB_REDIS_OK) s = bbr_del_keys(r, &meta, 1);
    if (s == BB_REDIS_OK) s = bbr_del_keys(r, f->shard_keys, f->shards);
    if (s == BB_REDIS_OK) s = bbr_del_keys(r, &f->count_key, 1);
    bbr_filter_free(f);
    return bbr_unlock(r, lock, s);
}
