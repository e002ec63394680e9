/* SPDX-License-Identifier: MIT */
/*
 * thrift.c - Thrift compact protocol (thrift-compact-protocol.md): parse a struct into the
 * generic tree of thrift.h, and write such a tree back. Integers are ULEB128 varints,
 * zigzag-mapped when signed; a field header is one byte (id delta 1..15 in the high nibble,
 * type in the low) or a zero delta followed by the id as a zigzag i16 varint; lists and sets
 * have one header byte (size in the high nibble, 15 = a varint size follows; element type
 * in the low); a map has a varint size and, when not empty, one byte of key and value types;
 * a double is 8 little-endian bytes; a binary is a varint length and its bytes.
 *
 * A struct that repeats a field id keeps the last value, in the place of the first (Thrift's
 * generated readers assign each field as they meet it).
 *
 * Every read is checked against the end of the input before it happens, and a container may
 * announce at most as many elements as bytes remain, so no hostile size can make the parser
 * allocate more than a small multiple of its input.
 */
#include "thrift.h"

#include <stdlib.h>
#include <string.h>

/* ---- Reading -------------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p, *end;
    int depth;
} reader;

static bb_status read_byte(reader *r, uint8_t *out) {
    if (r->p >= r->end) return BB_E_TRUNCATED;
    *out = *r->p++;
    return BB_OK;
}

static bb_status read_varint(reader *r, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t b;
        bb_status s = read_byte(r, &b);
        if (s != BB_OK) return s;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return BB_OK;
        }
    }
    return BB_E_CORRUPT; /* more than 10 bytes: not a 64-bit varint */
}

static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static bb_status read_int(reader *r, int64_t *out) {
    uint64_t v;
    bb_status s = read_varint(r, &v);
    if (s == BB_OK) *out = unzigzag(v);
    return s;
}

static bb_status grow_kids(tc_node *n, size_t want) {
    if (want <= n->cap_kids) return BB_OK;
    size_t cap = n->cap_kids ? n->cap_kids * 2 : 4;
    if (cap < want) cap = want;
    tc_node *k = realloc(n->kids, cap * sizeof *k);
    if (!k) return BB_E_NOMEM;
    n->kids = k;
    n->cap_kids = cap;
    return BB_OK;
}

static bb_status read_value(reader *r, uint8_t type, tc_node *out);

/* Order a struct's fields by id, keeping of a repeated id only its last value: generated
 * Thrift readers assign each field as they meet it, so the last one wins; the tree keeps one
 * copy, so a rewrite writes each field once. O(n log n): hostile footers stay cheap. */
typedef struct id_at {
    int16_t id;
    size_t at;
} id_at;

static int by_id_then_order(const void *a, const void *b) {
    const id_at *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static bb_status dedupe_fields(tc_node *s) {
    size_t n = s->n_kids;
    id_at *order = malloc(n * sizeof *order);
    tc_node *kids = malloc(n * sizeof *kids);
    if (!order || !kids) {
        free(order);
        free(kids);
        return BB_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) order[i] = (id_at){s->kids[i].id, i};
    qsort(order, n, sizeof *order, by_id_then_order);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        tc_node *f = &s->kids[order[k].at];
        if (k + 1 < n && order[k + 1].id == f->id)
            tc_free(f); /* a later value of the same id follows */
        else
            kids[m++] = *f;
    }
    free(order);
    free(s->kids);
    s->kids = kids;
    s->n_kids = m;
    s->cap_kids = n;
    return BB_OK;
}

static bb_status read_fields(reader *r, tc_node *s) {
    int16_t last = 0;
    bool unordered = false;
    for (;;) {
        uint8_t h;
        bb_status st = read_byte(r, &h);
        if (st != BB_OK) return st;
        if (h == TC_STOP) return unordered ? dedupe_fields(s) : BB_OK;
        uint8_t type = h & 0x0f;
        int64_t id = last + (h >> 4);
        if (!(h >> 4)) {
            if ((st = read_int(r, &id)) != BB_OK) return st;
            if (id < INT16_MIN || id > INT16_MAX) return BB_E_CORRUPT;
        } else if (id > INT16_MAX) {
            return BB_E_CORRUPT;
        }
        if ((st = grow_kids(s, s->n_kids + 1)) != BB_OK) return st;
        tc_node *f = &s->kids[s->n_kids];
        memset(f, 0, sizeof *f);
        if (type == TC_TRUE || type == TC_FALSE) {
            f->type = TC_TRUE;
            f->i = type == TC_TRUE;
        } else if ((st = read_value(r, type, f)) != BB_OK) {
            tc_free(f);
            return st;
        }
        f->id = (int16_t)id;
        if (s->n_kids && id <= s->kids[s->n_kids - 1].id) unordered = true;
        s->n_kids++;
        last = (int16_t)id;
    }
}

static bb_status read_elements(reader *r, tc_node *n, uint64_t count, const uint8_t *types,
                               int n_types) {
    if (count > (uint64_t)(r->end - r->p)) return BB_E_TRUNCATED; /* >= 1 byte per element */
    if (count && grow_kids(n, (size_t)count * n_types) != BB_OK) return BB_E_NOMEM;
    for (uint64_t i = 0; i < count * n_types; i++) {
        tc_node *e = &n->kids[n->n_kids];
        memset(e, 0, sizeof *e);
        bb_status s = read_value(r, types[i % n_types], e);
        if (s != BB_OK) {
            tc_free(e);
            return s;
        }
        n->n_kids++;
    }
    return BB_OK;
}

static bb_status read_list(reader *r, tc_node *n) {
    uint8_t h;
    bb_status s = read_byte(r, &h);
    if (s != BB_OK) return s;
    uint64_t count = h >> 4;
    if (count == 15 && (s = read_varint(r, &count)) != BB_OK) return s;
    n->elem = h & 0x0f;
    return read_elements(r, n, count, &n->elem, 1);
}

static bb_status read_map(reader *r, tc_node *n) {
    uint64_t count;
    bb_status s = read_varint(r, &count);
    if (s != BB_OK || count == 0) return s;
    uint8_t kv;
    if ((s = read_byte(r, &kv)) != BB_OK) return s;
    n->elem = kv >> 4;
    n->elem2 = kv & 0x0f;
    uint8_t types[2] = {n->elem, n->elem2};
    return read_elements(r, n, count, types, 2);
}

static bb_status read_value(reader *r, uint8_t type, tc_node *out) {
    bb_status s = BB_OK;
    uint8_t b;
    uint64_t len;
    out->type = type;
    switch (type) {
    case TC_TRUE: /* a bool as a container element: one byte */
    case TC_FALSE:
        out->type = TC_TRUE;
        if ((s = read_byte(r, &b)) == BB_OK) out->i = b == 1;
        return s;
    case TC_I8:
        if ((s = read_byte(r, &b)) == BB_OK) out->i = (int8_t)b;
        return s;
    case TC_I16:
    case TC_I32:
    case TC_I64:
        return read_int(r, &out->i);
    case TC_DOUBLE:
        if (r->end - r->p < 8) return BB_E_TRUNCATED;
        uint64_t bits = 0;
        for (int i = 7; i >= 0; i--) bits = bits << 8 | r->p[i];
        memcpy(&out->d, &bits, 8);
        r->p += 8;
        return BB_OK;
    case TC_BINARY:
        if ((s = read_varint(r, &len)) != BB_OK) return s;
        if (len > (uint64_t)(r->end - r->p)) return BB_E_TRUNCATED;
        out->bin = r->p;
        out->len = (size_t)len;
        r->p += len;
        return BB_OK;
    case TC_LIST:
    case TC_SET:
    case TC_MAP:
    case TC_STRUCT:
        if (++r->depth > TC_MAX_DEPTH) return BB_E_CORRUPT;
        s = type == TC_STRUCT ? read_fields(r, out) : type == TC_MAP ? read_map(r, out)
                                                                     : read_list(r, out);
        r->depth--;
        return s;
    default:
        return BB_E_CORRUPT;
    }
}

bb_status tc_parse_struct(const uint8_t *buf, size_t len, size_t *used, tc_node *out) {
    memset(out, 0, sizeof *out);
    reader r = {buf, buf + len, 1};
    out->type = TC_STRUCT;
    bb_status s = read_fields(&r, out);
    if (s != BB_OK) {
        tc_free(out);
        return s;
    }
    *used = (size_t)(r.p - buf);
    return BB_OK;
}

void tc_free(tc_node *n) {
    for (size_t i = 0; i < n->n_kids; i++) tc_free(&n->kids[i]);
    free(n->kids);
    free(n->owned_bin);
    n->kids = NULL;
    n->owned_bin = NULL;
    n->n_kids = n->cap_kids = 0;
}

/* ---- Getters and setters -------------------------------------------------------------------- */

tc_node *tc_field(const tc_node *s, int16_t id) {
    if (!s || s->type != TC_STRUCT) return NULL;
    for (size_t i = 0; i < s->n_kids; i++)
        if (s->kids[i].id == id) return &s->kids[i];
    return NULL;
}

bool tc_int(const tc_node *s, int16_t id, int64_t *out) {
    const tc_node *f = tc_field(s, id);
    if (!f || f->type < TC_I8 || f->type > TC_I64) return false;
    *out = f->i;
    return true;
}

tc_node *tc_struct(const tc_node *s, int16_t id) {
    tc_node *f = tc_field(s, id);
    return f && f->type == TC_STRUCT ? f : NULL;
}

tc_node *tc_list(const tc_node *s, int16_t id) {
    tc_node *f = tc_field(s, id);
    return f && (f->type == TC_LIST || f->type == TC_SET) ? f : NULL;
}

bool tc_bool(const tc_node *s, int16_t id, bool *out) {
    const tc_node *f = tc_field(s, id);
    if (!f || f->type != TC_TRUE) return false;
    *out = f->i != 0;
    return true;
}

bb_status tc_set_int(tc_node *s, int16_t id, uint8_t type, int64_t v) {
    tc_node *f = tc_field(s, id);
    if (!f) {
        if (grow_kids(s, s->n_kids + 1) != BB_OK) return BB_E_NOMEM;
        size_t at = 0;
        while (at < s->n_kids && s->kids[at].id < id) at++;
        memmove(&s->kids[at + 1], &s->kids[at], (s->n_kids - at) * sizeof *s->kids);
        s->n_kids++;
        f = &s->kids[at];
    } else {
        tc_free(f);
    }
    memset(f, 0, sizeof *f);
    f->type = type;
    f->id = id;
    f->i = v;
    return BB_OK;
}

/* ---- Writing -------------------------------------------------------------------------------- */

void tc_buf_put(tc_buf *b, const void *p, size_t n) {
    if (b->failed) return;
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) {
                b->failed = true;
                return;
            }
            cap *= 2;
        }
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->failed = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}

void tc_buf_free(tc_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void put_byte(tc_buf *b, uint8_t v) { tc_buf_put(b, &v, 1); }

void tc_write_varint(tc_buf *b, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) tmp[n] |= 0x80;
        n++;
    } while (v);
    tc_buf_put(b, tmp, n);
}

uint64_t tc_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void tc_write_field(tc_buf *b, int16_t *last_id, int16_t id, uint8_t type) {
    int delta = id - *last_id;
    if (delta > 0 && delta <= 15) {
        put_byte(b, (uint8_t)(delta << 4 | type));
    } else {
        put_byte(b, type);
        tc_write_varint(b, tc_zigzag(id));
    }
    *last_id = id;
}

static void write_value(tc_buf *b, const tc_node *n, bool in_container);

static void write_elements(tc_buf *b, const tc_node *n) {
    for (size_t i = 0; i < n->n_kids; i++) write_value(b, &n->kids[i], true);
}

static void write_value(tc_buf *b, const tc_node *n, bool in_container) {
    uint8_t le[8];
    uint64_t bits;
    switch (n->type) {
    case TC_TRUE:
        if (in_container) put_byte(b, n->i ? TC_TRUE : TC_FALSE);
        return; /* a bool field's value is in its header */
    case TC_I8:
        put_byte(b, (uint8_t)n->i);
        return;
    case TC_I16:
    case TC_I32:
    case TC_I64:
        tc_write_varint(b, tc_zigzag(n->i));
        return;
    case TC_DOUBLE:
        memcpy(&bits, &n->d, 8);
        for (int i = 0; i < 8; i++) le[i] = (uint8_t)(bits >> (8 * i));
        tc_buf_put(b, le, 8);
        return;
    case TC_BINARY:
        tc_write_varint(b, n->len);
        tc_buf_put(b, n->bin, n->len);
        return;
    case TC_LIST:
    case TC_SET:
        if (n->n_kids < 15) {
            put_byte(b, (uint8_t)(n->n_kids << 4 | n->elem));
        } else {
            put_byte(b, (uint8_t)(0xf0 | n->elem));
            tc_write_varint(b, n->n_kids);
        }
        write_elements(b, n);
        return;
    case TC_MAP:
        tc_write_varint(b, n->n_kids / 2);
        if (n->n_kids) put_byte(b, (uint8_t)(n->elem << 4 | n->elem2));
        write_elements(b, n);
        return;
    case TC_STRUCT:
        tc_write_struct(b, n);
        return;
    }
}

void tc_write_struct(tc_buf *b, const tc_node *s) {
    int16_t last = 0;
    for (size_t i = 0; i < s->n_kids; i++) {
        const tc_node *f = &s->kids[i];
        uint8_t type = f->type == TC_TRUE ? (f->i ? TC_TRUE : TC_FALSE) : f->type;
        tc_write_field(b, &last, f->id, type);
        write_value(b, f, false);
    }
    put_byte(b, TC_STOP);
}
