/* SPDX-License-Identifier: MIT */
/*
 * publish.c - the Redis binding's calls that create or copy whole filters: reserve (empty
 * shards, then the meta key), push (a local filter), push of slices (one shard each, the
 * meta key written by whichever push completes the set), pull (every shard into a local
 * bb_filter), and the status texts. Readers find a filter by its meta key, which is always
 * written last and with SET NX: a reader never sees a filter whose shards are not all in
 * place, and two creators of one name cannot both succeed.
 */
#include "../abi.h"
#include "redis_internal.h"

#include <stdlib.h>
#include <string.h>

#define PUSH_ROUND 8 /* shards held in one pipeline while pushing or pulling: bounds memory */

/* BB_E_EXISTS if name is a filter, BB_E_WRONGTYPE if it holds another key, OK if it is free. */
static bb_status name_free(bb_redis *r, const char *name) {
    bbr_filter f = {0};
    bb_status s = bbr_read_meta(r, name, &f);
    free(f.subs); /* a fixed filter's one sub-filter, without key names */
    if (s == BB_E_NOT_FOUND) return BB_OK;
    if (s == BB_OK) return bbr_fail(r, BB_E_EXISTS, "ERR item exists: '%s'", name);
    return s == BB_E_CORRUPT ? BB_E_WRONGTYPE : s; /* bb_error_buffer() says why */
}

/* Run cmds and check that each reply is not an error (and, for SET NX, not nil). */
static bb_status exec_checked(bb_redis *r, bbr_cmd *c, size_t n) {
    bb_status s = bbr_exec(r, c, n);
    for (size_t i = 0; s == BB_OK && i < n; i++)
        if (c[i].reply->type == REDIS_REPLY_ERROR) s = bbr_reply_error(r, c[i].argv[1], c[i].reply);
    return s;
}

/* SET name meta NX as the last step: nil means someone else created it meanwhile. */
static bb_status write_meta(bb_redis *r, const char *name, const uint8_t *meta) {
    bbr_cmd c = {0};
    bbr_arg_str(&c, "SET");
    bbr_arg_str(&c, name);
    bbr_arg(&c, meta, BBR_META_BYTES);
    bbr_arg_str(&c, "NX");
    bb_status s = exec_checked(r, &c, 1);
    if (s == BB_OK && c.reply->type == REDIS_REPLY_NIL)
        s = bbr_fail(r, BB_E_EXISTS, "ERR item exists: '%s' was created concurrently", name);
    bbr_cmds_clear(&c, 1);
    return s;
}

/* A geometry's key names, for a filter not yet published. */
static bb_status new_geometry(bb_redis *r, const char *name, const uint8_t *meta,
                              bbr_filter **out) {
    bbr_filter *f = calloc(1, sizeof *f);
    if (!f) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    bb_status s = bbr_meta_decode(r, name, meta, BBR_META_BYTES, f);
    if (s == BB_OK) s = bbr_filter_names(r, f, name);
    if (s != BB_OK) bbr_filter_free(f);
    else *out = f;
    return s;
}

/* ---- reserve ------------------------------------------------------------------------------------ */

/* Sub-filter 0's shards replaced by zeros of their length (DEL, then BITFIELD SET of the last
 * bit to 0, which makes the server allocate the zero-filled string: nothing to send, and
 * MEMORY USAGE measured the same as for a SET of the zeros), and the counter or the state
 * reset: a chain's "subs 1 c0 0 r0 0". */
static bb_status zero_shards(bb_redis *r, const bbr_filter *f) {
    const bbr_sub *sub = &f->subs[0];
    bool chain = f->layout == BBR_LAYOUT_CHAIN;
    size_t n = 2 * sub->shards + 1 + chain;
    bbr_cmd *c = calloc(n, sizeof *c);
    if (!c) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    for (uint64_t s = 0; s < sub->shards; s++) {
        bbr_arg_str(&c[2 * s], "DEL");
        bbr_arg_str(&c[2 * s], sub->shard_keys[s]);
        bbr_cmd *b = &c[2 * s + 1];
        bbr_arg_str(b, "BITFIELD");
        bbr_arg_str(b, sub->shard_keys[s]);
        bbr_arg_str(b, "SET");
        bbr_arg_str(b, "u1");
        bbr_arg_u64(b, 8 * bbr_shard_len(sub, s) - 1);
        bbr_arg_str(b, "0");
    }
    bbr_cmd *last = &c[2 * sub->shards];
    if (chain) {
        bbr_arg_str(last, "DEL");
        bbr_arg_str(last, f->count_key);
        last++;
        bbr_arg_str(last, "HSET");
        bbr_arg_str(last, f->count_key);
        const char *fields[] = {"subs", "1", "c0", "0", "r0", "0"};
        for (size_t i = 0; i < 6; i++) bbr_arg_str(last, fields[i]);
    } else {
        bbr_arg_str(last, "SET");
        bbr_arg_str(last, f->count_key);
        bbr_arg_str(last, "0");
    }
    bb_status s = exec_checked(r, c, n);
    bbr_cmds_clear(c, n);
    free(c);
    return s;
}

/* A chain's parameters and sub-filter 0, with key names, for a filter not yet published. */
static bb_status new_chain(bb_redis *r, const char *name, const uint8_t *meta,
                           bbr_filter **out) {
    bb_status s = new_geometry(r, name, meta, out);
    if (s == BB_OK && bbr_chain_fit(r, *out, 1) < 1)
        s = bbr_fail(r, BB_E_TOO_LARGE, "ERR '%s' would be beyond the bound of a filter (%u "
                     "shards, %llu bytes)", name, BBR_MAX_SHARDS, (unsigned long long)BBR_MAX_BYTES);
    if (s == BB_OK) s = bbr_chain_extend(r, *out, 1);
    if (s != BB_OK) bbr_filter_free(*out), *out = NULL;
    return s;
}

bb_status bb_redis_reserve_params(bb_redis *r, const char *name, const bb_redis_params *in) {
    bb_error_clear();
    if (!r) return BB_E_INVAL;
    if (!name) return bbr_fail(r, BB_E_INVAL, "redis: no filter name");
    bb_redis_params p;
    bb_status s = bbr_params(r, in, true, &p);
    if (s != BB_OK) return s;
    uint8_t meta[BBR_META_BYTES];
    bbr_meta_encode_chain(r, meta, p.capacity, p.error_rate, p.nonscaling ? 1 : p.expansion,
                          p.nonscaling, p.shards);
    bbr_filter *f = NULL;
    char *lock = NULL;
    s = new_chain(r, name, meta, &f);
    if (s == BB_OK && p.shards > f->subs[0].blocks)
        s = bbr_fail(r, BB_E_INVAL, "ERR %llu shards for a filter of %llu blocks",
                     (unsigned long long)p.shards, (unsigned long long)f->subs[0].blocks);
    if (s == BB_OK) s = bbr_lock(r, name, &lock);
    if (s == BB_OK) s = name_free(r, name);
    if (s == BB_OK) s = zero_shards(r, f);
    if (s == BB_OK) s = write_meta(r, name, meta);
    bbr_filter_free(f);
    return bbr_unlock(r, lock, s);
}

bb_status bb_redis_reserve(bb_redis *r, const char *name, double error_rate,
                           uint64_t capacity, uint64_t shards) {
    bb_error_clear();
    if (!r) return BB_E_INVAL;
    /* 0 is a default in bb_redis_params, but an error here, as in BF.RESERVE. */
    if (!(error_rate > 0.0 && error_rate < 1.0))
        return bbr_fail(r, BB_E_INVAL, "ERR error rate must be in the range (0.000000, 1.000000)");
    if (capacity == 0)
        return bbr_fail(r, BB_E_INVAL, "ERR capacity must be in the range [1, %llu]",
                        (unsigned long long)BB_REDIS_MAX_CAPACITY);
    bb_redis_params p = {.size = sizeof p, .error_rate = error_rate, .capacity = capacity,
                         .shards = shards};
    return bb_redis_reserve_params(r, name, &p);
}

/* ---- push ------------------------------------------------------------------------------------- */

/* Shard s's bytes to a temporary key, renamed over the shard (both in the shard's slot: the
 * temporary key has the shard key's hash tag), so the shard changes in one step. */
static void shard_cmds(const bbr_sub *f, uint64_t s, const uint8_t *bytes, char *tmp,
                       bbr_cmd c[2]) {
    bbr_arg_str(&c[0], "SET");
    bbr_arg_str(&c[0], tmp);
    bbr_arg(&c[0], bytes, bbr_shard_len(f, s));
    bbr_arg_str(&c[1], "RENAME");
    bbr_arg_str(&c[1], tmp);
    bbr_arg_str(&c[1], f->shard_keys[s]);
}

static char *tmp_key(const char *shard_key) {
    size_t len = strlen(shard_key);
    char *t = malloc(len + 5);
    if (t) memcpy(t, shard_key, len), memcpy(t + len, ":tmp", 5);
    return t;
}

/* Shards first .. first+count-1 from payload bytes (payload = shard `first`'s first byte). */
static bb_status write_shards(bb_redis *r, const bbr_sub *f, uint64_t first,
                              uint64_t count, const uint8_t *payload) {
    bbr_cmd c[2 * PUSH_ROUND];
    char *tmp[PUSH_ROUND] = {0};
    bb_status s = BB_OK;
    for (uint64_t done = 0; s == BB_OK && done < count; done += PUSH_ROUND) {
        uint64_t m = count - done < PUSH_ROUND ? count - done : PUSH_ROUND;
        memset(c, 0, sizeof c);
        for (uint64_t j = 0; j < m; j++) {
            uint64_t sh = first + done + j;
            if (!(tmp[j] = tmp_key(f->shard_keys[sh]))) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
            else shard_cmds(f, sh, payload + (sh - first) * f->per_shard * BBR_BLOCK_BYTES, tmp[j], &c[2 * j]);
        }
        if (s == BB_OK) s = exec_checked(r, c, 2 * m);
        bbr_cmds_clear(c, 2 * m);
        for (uint64_t j = 0; j < m; j++) free(tmp[j]), tmp[j] = NULL;
    }
    return s;
}

static bb_status set_counter(bb_redis *r, const bbr_filter *f, uint64_t v) {
    bbr_cmd c = {0};
    bbr_arg_str(&c, "SET");
    bbr_arg_str(&c, f->count_key);
    bbr_arg_u64(&c, v);
    bb_status s = exec_checked(r, &c, 1);
    bbr_cmds_clear(&c, 1);
    return s;
}

bb_status bb_redis_push(bb_redis *r, const bb_filter *lf, const char *name, uint64_t shards) {
    bb_error_clear();
    if (!r) return BB_E_INVAL;
    bb_info in = BB_INFO_INIT;
    if (!name || !lf || bb_get_info(lf, &in) != BB_OK)
        return bbr_fail(r, BB_E_INVAL, "redis: no filter or name");
    if (in.kind != BB_BLOCKED)
        return bbr_fail(r, BB_E_INVAL, "redis: only blocked filters can be pushed (this is %s)",
                        bb_kind_name(in.kind));
    bb_key_scheme ks;
    bb_get_key_scheme(lf, &ks);
    if (ks.keys != BB_KEYS_PLAIN) /* the meta key has no room for it: readers would miss keys */
        return bbr_fail(r, BB_E_INVAL, "redis: only filters of plain keys can be pushed "
                        "(this one holds --keys %s keys, which the Redis layout cannot say)",
                        bb_keys_name(ks.keys));
    uint64_t n = 0, per = 0, size;
    bb_status s = bbr_split(r, in.blocks, shards, &n, &per);
    if (s != BB_OK) return s;
    if (n > BBR_MAX_SHARDS || in.blocks > BBR_MAX_BYTES / BBR_BLOCK_BYTES) /* readers refuse it */
        return bbr_fail(r, BB_E_TOO_LARGE, "redis: a filter of %llu bytes in %llu shards is "
                        "beyond the bound of a Redis filter (%u shards, %llu bytes)",
                        (unsigned long long)(in.blocks * BBR_BLOCK_BYTES), (unsigned long long)n,
                        BBR_MAX_SHARDS, (unsigned long long)BBR_MAX_BYTES);
    bb_status bs = bb_serialized_size(lf, &size);
    if (bs != BB_OK || size > SIZE_MAX)
        return bbr_fail(r, bs != BB_OK ? bs : BB_E_TOO_LARGE, "redis: cannot serialize the filter");
    uint8_t *buf = malloc((size_t)size), meta[BBR_META_BYTES];
    if (!buf) return bbr_fail(r, BB_E_NOMEM, "redis: out of memory for %llu bytes",
                              (unsigned long long)size);
    bbr_filter *f = NULL;
    char *lock = NULL;
    if ((bs = bb_serialize(lf, buf, (size_t)size, NULL)) != BB_OK)
        s = bbr_fail(r, bs, "redis: cannot serialize the filter");
    if (s == BB_OK) s = bbr_lock(r, name, &lock);
    if (s == BB_OK) s = name_free(r, name);
    bbr_meta_encode(r, meta, in.bits, in.k, in.seed, in.capacity, in.fpr_target, n, per);
    if (s == BB_OK) s = new_geometry(r, name, meta, &f);
    if (s == BB_OK) s = write_shards(r, &f->subs[0], 0, n, buf + BBR_HEADER_BYTES);
    if (s == BB_OK) s = set_counter(r, f, in.keys_added);
    if (s == BB_OK) s = write_meta(r, name, meta);
    bbr_filter_free(f);
    free(buf);
    return bbr_unlock(r, lock, s);
}

/* ---- push of slices ---------------------------------------------------------------------------- */

/* Record the slice set's geometry in "bb:{p:NAME}" (first push) or check it (later ones). */
static bb_status claim_geometry(bb_redis *r, const char *pkey, const uint8_t *meta) {
    bbr_cmd c[2] = {{0}};
    bbr_arg_str(&c[0], "SET");
    bbr_arg_str(&c[0], pkey);
    bbr_arg(&c[0], meta, BBR_META_BYTES);
    bbr_arg_str(&c[0], "NX");
    bbr_arg_str(&c[1], "GET");
    bbr_arg_str(&c[1], pkey);
    bb_status s = exec_checked(r, c, 2);
    if (s == BB_OK && (c[1].reply->type != REDIS_REPLY_STRING || c[1].reply->len != BBR_META_BYTES ||
                             memcmp(c[1].reply->str, meta, BBR_META_BYTES) != 0))
        s = bbr_fail(r, BB_E_MISMATCH, "redis: this slice's geometry differs from the one "
                     "the first slice pushed to '%s' recorded (%s)", pkey, pkey);
    bbr_cmds_clear(c, 2);
    return s;
}

/* Mark slice i done in "bb:{d:NAME}"; *all = every slice is done. */
static bb_status mark_done(bb_redis *r, const char *dkey, uint64_t i, uint64_t n, bool *all) {
    bbr_cmd c[2] = {{0}};
    bbr_arg_str(&c[0], "SETBIT");
    bbr_arg_str(&c[0], dkey);
    bbr_arg_u64(&c[0], i);
    bbr_arg_str(&c[0], "1");
    bbr_arg_str(&c[1], "BITCOUNT");
    bbr_arg_str(&c[1], dkey);
    bb_status s = exec_checked(r, c, 2);
    uint64_t done = 0;
    if (s == BB_OK && !bbr_reply_u64(c[1].reply, &done)) s = bbr_reply_error(r, dkey, c[1].reply);
    *all = done == n;
    bbr_cmds_clear(c, 2);
    return s;
}

static bb_status publish_slice(bb_redis *r, const bb_slice_info *in, const void *bytes,
                               const char *name, char *const aux[2], bool *published) {
    uint8_t meta[BBR_META_BYTES];
    bbr_meta_encode(r, meta, in->bits, in->k, in->seed, in->capacity, in->fpr_target,
                    in->n_slices, in->blocks_per_slice);
    bbr_filter *f = NULL;
    bool all = false;
    bb_status s = name_free(r, name);
    if (s == BB_OK) s = claim_geometry(r, aux[0], meta);
    if (s == BB_OK) s = new_geometry(r, name, meta, &f);
    if (s == BB_OK) s = write_shards(r, &f->subs[0], in->index, 1, bytes);
    if (s == BB_OK) s = mark_done(r, aux[1], in->index, in->n_slices, &all);
    if (s == BB_OK && all) s = set_counter(r, f, in->keys_added);
    if (s == BB_OK && all) s = write_meta(r, name, meta);
    if (s == BB_OK && all) s = bbr_del_keys(r, aux, 2);
    if (published) *published = s == BB_OK && all;
    bbr_filter_free(f);
    return s;
}

bb_status bb_redis_push_slice(bb_redis *r, const bb_slice_info *user_in, const void *bytes,
                              uint64_t len, const char *name, bool *published) {
    bb_error_clear();
    if (published) *published = false;
    if (!r) return BB_E_INVAL;
    if (!user_in || !bytes || !name) return bbr_fail(r, BB_E_INVAL, "redis: NULL argument");
    bb_slice_info info;
    bb_status st = BB_ABI_READ(&info, user_in, bb_slice_info, keys_added, "BB_SLICE_INFO_INIT");
    if (st != BB_OK) return st;
    const bb_slice_info *in = &info;
    if (len != in->n_blocks * BBR_BLOCK_BYTES)
        return bbr_fail(r, BB_E_MISMATCH, "redis: slice %llu/%llu must be %llu bytes, got %llu",
                        (unsigned long long)in->index, (unsigned long long)in->n_slices,
                        (unsigned long long)(in->n_blocks * BBR_BLOCK_BYTES), (unsigned long long)len);
    char *aux[2] = {bbr_aux_key(name, 'p'), bbr_aux_key(name, 'd')};
    bb_status s = aux[0] && aux[1] ? publish_slice(r, in, bytes, name, aux, published)
                                         : bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    free(aux[0]);
    free(aux[1]);
    return s;
}

/* ---- pull ------------------------------------------------------------------------------------- */

/* GET of shards [first, first + m) of sub into payload; each must have its length. */
static bb_status read_shards(bb_redis *r, const bbr_filter *f, const bbr_sub *sub,
                             uint64_t first, uint64_t m, uint8_t *payload) {
    bbr_cmd c[PUSH_ROUND];
    memset(c, 0, sizeof c);
    for (uint64_t j = 0; j < m; j++) {
        bbr_arg_str(&c[j], "GET");
        bbr_arg_str(&c[j], sub->shard_keys[first + j]);
    }
    bb_status s = exec_checked(r, c, m);
    for (uint64_t j = 0; s == BB_OK && j < m; j++) {
        const redisReply *rep = c[j].reply;
        uint64_t sh = first + j;
        if (rep->type != REDIS_REPLY_STRING || (uint64_t)rep->len != bbr_shard_len(sub, sh))
            s = bbr_fail(r, BB_E_INCONSISTENT, "redis: shard '%s' of '%s' changed length or "
                         "vanished while reading", sub->shard_keys[sh], f->name);
        else
            memcpy(payload + sh * sub->per_shard * BBR_BLOCK_BYTES, rep->str, rep->len);
    }
    bbr_cmds_clear(c, m);
    return s;
}

/* Sub-filter i as a complete blocked record (header + payload) at rec: its header is what
 * bb_serialize writes for a blocked filter of its geometry, keys_added = count. */
static bb_status read_record(bb_redis *r, const bbr_filter *f, size_t i, uint64_t count,
                             uint8_t *rec) {
    const bbr_sub *sub = &f->subs[i];
    bb_status s = BB_OK;
    for (uint64_t sh = 0; s == BB_OK && sh < sub->shards; sh += PUSH_ROUND)
        s = read_shards(r, f, sub, sh, sub->shards - sh < PUSH_ROUND ? sub->shards - sh : PUSH_ROUND,
                        rec + BBR_HEADER_BYTES);
    if (s != BB_OK) return s;
    uint8_t meta[BBR_META_BYTES];
    if (f->layout == BBR_LAYOUT_FIXED) memcpy(meta, f->meta, BBR_HEADER_BYTES);
    else bbr_meta_encode(r, meta, sub->bits, sub->k, f->seed, sub->capacity, sub->fpr, 1, sub->blocks);
    memcpy(rec, meta, BBR_HEADER_BYTES);
    bbr_header_finish(r, rec, count, bbr_checksum(r, rec + BBR_HEADER_BYTES, (size_t)(sub->bits / 8)));
    return BB_OK;
}

/* The counts: a fixed filter's counter, or each c<i> of a chain's state (HGETALL, which also
 * gives the sub-filters now published). */
static bb_status read_counts(bb_redis *r, bbr_filter *f, uint64_t **counts) {
    bbr_cmd c = {0};
    bool chain = f->layout == BBR_LAYOUT_CHAIN;
    bbr_arg_str(&c, chain ? "HGETALL" : "GET");
    bbr_arg_str(&c, f->count_key);
    bb_status s = exec_checked(r, &c, 1);
    const redisReply *rep = c.reply;
    uint64_t n = f->n_subs;
    for (size_t j = 0; s == BB_OK && chain && j + 1 < rep->elements; j += 2)
        if (rep->element[j]->type == REDIS_REPLY_STRING && strcmp(rep->element[j]->str, "subs") == 0 &&
            (!bbr_reply_u64(rep->element[j + 1], &n) || n == 0 || n > BBR_MAX_SUBS))
            s = bbr_reply_error(r, f->count_key, rep);
    if (s == BB_OK && n > f->n_subs) s = bbr_chain_extend(r, f, (size_t)n);
    if (s == BB_OK && !(*counts = calloc(f->n_subs, sizeof **counts)))
        s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory");
    if (s == BB_OK && !chain && !bbr_reply_u64(rep, &(*counts)[0]))
        s = bbr_reply_error(r, f->count_key, rep);
    for (size_t j = 0; s == BB_OK && chain && j + 1 < rep->elements; j += 2) {
        const redisReply *k = rep->element[j];
        char *end;
        unsigned long i = k->type == REDIS_REPLY_STRING && k->str[0] == 'c' ? strtoul(k->str + 1, &end, 10) : 0;
        if (k->type == REDIS_REPLY_STRING && k->str[0] == 'c' && *end == '\0' && i < f->n_subs &&
            !bbr_reply_u64(rep->element[j + 1], &(*counts)[i]))
            s = bbr_reply_error(r, f->count_key, rep);
    }
    bbr_cmds_clear(&c, 1);
    return s;
}

/* A fixed filter or a NONSCALING chain is one blocked record; a chain is a scalable file:
 * its header (meta.c) and one record per sub-filter. */
bb_status bb_redis_pull(bb_redis *r, const char *name, bb_filter **out) {
    bb_error_clear();
    if (!out) return r ? bbr_fail(r, BB_E_INVAL, "redis: NULL out") : BB_E_INVAL;
    *out = NULL;
    bbr_filter *f;
    uint64_t *counts = NULL;
    bb_status s = bbr_open_filter(r, name, &f);
    if (s == BB_OK) s = read_counts(r, f, &counts);
    if (s != BB_OK) return free(counts), s;
    bool scalable = f->layout == BBR_LAYOUT_CHAIN && !f->nonscaling;
    uint64_t total = scalable ? BBR_HEADER_BYTES : 0, keys = 0;
    for (size_t i = 0; i < f->n_subs; i++) {
        total += BBR_HEADER_BYTES + f->subs[i].bits / 8;
        keys += counts[i];
    }
    uint8_t *buf = total <= SIZE_MAX ? malloc((size_t)total) : NULL;
    if (!buf) s = bbr_fail(r, BB_E_NOMEM, "redis: out of memory for %llu bytes", (unsigned long long)total);
    uint64_t off = scalable ? BBR_HEADER_BYTES : 0;
    for (size_t i = 0; s == BB_OK && i < f->n_subs; i++) {
        s = read_record(r, f, i, counts[i], buf + off);
        off += BBR_HEADER_BYTES + f->subs[i].bits / 8;
    }
    if (s == BB_OK && scalable) bbr_chain_header(r, f, buf, keys, total);
    if (s == BB_OK) {
        bb_status bs = bb_deserialize(out, buf, (size_t)total);
        if (bs != BB_OK) s = bbr_fail(r, bs, "redis: pulled bytes of '%s' do not "
                                      "load: %s", name, bb_strerror(bs));
    }
    free(buf);
    free(counts);
    return s;
}
