/* SPDX-License-Identifier: MIT */
/*
 * pages.c - decoding a column chunk's values (parquet-format Encodings.md, parquet.thrift
 * PageHeader): the pages follow each other from the dictionary page (or the first data
 * page) for total_compressed_size bytes, each a PageHeader (1 type: 0 DATA_PAGE,
 * 1 INDEX_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2; 2 uncompressed_page_size;
 * 3 compressed_page_size; 5 data_page_header; 7 dictionary_page_header;
 * 8 data_page_header_v2) and then its data.
 *
 * A flat column has no repetition levels and, when OPTIONAL, definition levels of bit width
 * 1 (1 = a value, 0 = null). Data page v1: the whole page is compressed; it holds the
 * levels (RLE: a 4-byte length, then the RLE/bit-packed hybrid) and then the values. Data
 * page v2: repetition and definition levels come first, uncompressed, their byte lengths in
 * the header (fields 6 and 5), then the values, compressed unless is_compressed (7) is
 * false. Values are PLAIN (fixed-width little-endian, BYTE_ARRAY as a 4-byte length and its
 * bytes) or dictionary indices (PLAIN_DICTIONARY, RLE_DICTIONARY): one byte of bit width,
 * then the hybrid, indexing the dictionary page's PLAIN values.
 *
 * The RLE/bit-packed hybrid: runs, each a ULEB128 header h; h odd: (h >> 1) groups of 8
 * values bit-packed LSB first at the bit width; h even: (h >> 1) repeats of one value
 * stored in ceil(width / 8) little-endian bytes. Every count, length and index is checked
 * against the data before use.
 */
#include "pq.h"

#include <stdlib.h>
#include <string.h>

/* Largest page we decompress; real writers stay near 1 MiB (and the sizes are i32s). */
#define MAX_PAGE_BYTES ((size_t)1 << 30)

typedef struct value_ref {
    const uint8_t *p;
    size_t len;
} value_ref;

typedef struct chunk_reader {
    const bb_pq_file *pf;
    const pq_column *c;
    const char *name;
    int64_t codec;
    bb_pq_value_fn fn;
    void *ctx;
    bb_pq_error *err;
    uint8_t *dict_buf;        /* the decompressed dictionary page */
    value_ref *dict;          /* its values */
    size_t n_dict;
    bool have_dict;
    uint8_t *page;            /* the current decompressed page (or values) */
    size_t page_cap;
} chunk_reader;

static bb_status corrupt(chunk_reader *r, const char *what) {
    return pq_fail(r->err, BB_E_CORRUPT, "column '%s': %s", r->name, what);
}

static bb_status nomem(chunk_reader *r) { return pq_fail(r->err, BB_E_NOMEM, "out of memory"); }

static bool reserve(void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return true;
    void *p = realloc(*buf, n * size);
    if (!p) return false;
    *buf = p;
    *cap = n;
    return true;
}

/* ---- RLE / bit-packed hybrid ---------------------------------------------------------------- */

static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* A streaming decoder of the hybrid (no buffer: a run may stand for any number of values). */
typedef struct hybrid {
    const uint8_t *p, *end;
    unsigned width;           /* 0..32 */
    uint64_t left;            /* values left in the current run */
    bool packed;
    uint32_t value;           /* RLE run's value */
    uint64_t acc;             /* bit-packed: bits not yet used */
    unsigned have;
} hybrid;

static bool next_run(hybrid *h) {
    uint64_t hdr;
    if (!uleb(&h->p, h->end, &hdr)) return false;
    h->packed = hdr & 1;
    if (h->packed) {
        uint64_t groups = hdr >> 1;
        if (groups > (uint64_t)(h->end - h->p) || groups * h->width > (uint64_t)(h->end - h->p))
            return false;
        h->left = groups * 8;
        h->acc = 0;
        h->have = 0;
        return true;
    }
    unsigned bytes = (h->width + 7) / 8;
    if ((size_t)(h->end - h->p) < bytes) return false;
    h->value = 0;
    for (unsigned b = 0; b < bytes; b++) h->value |= (uint32_t)h->p[b] << (8 * b);
    h->p += bytes;
    h->left = hdr >> 1;
    return h->width == 32 || h->value >> h->width == 0;
}

/* The next value; false when the data ends first or is malformed. */
static bool hybrid_next(hybrid *h, uint32_t *v) {
    while (h->left == 0)
        if (!next_run(h)) return false;
    h->left--;
    if (!h->packed) {
        *v = h->value;
        return true;
    }
    /* next_run checked that the run's groups * width bytes are there. */
    while (h->have < h->width) {
        h->acc |= (uint64_t)*h->p++ << h->have;
        h->have += 8;
    }
    *v = (uint32_t)(h->acc & ((UINT64_C(1) << h->width) - 1));
    h->acc >>= h->width;
    h->have -= h->width;
    return true;
}

/* ---- PLAIN values --------------------------------------------------------------------------- */

static size_t fixed_width(const pq_column *c) {
    switch (c->type) {
    case BB_PQ_INT32:
    case BB_PQ_FLOAT:
        return 4;
    case BB_PQ_INT64:
    case BB_PQ_DOUBLE:
        return 8;
    case BB_PQ_FIXED_LEN_BYTE_ARRAY:
        return (size_t)c->type_length;
    default:
        return 0; /* BYTE_ARRAY */
    }
}

/* Split n PLAIN values from p[0 .. len) and hand each to emit (a callback or the dict). */
static bb_status plain_values(chunk_reader *r, const uint8_t *p, size_t len, size_t n,
                              value_ref *dict) {
    size_t w = fixed_width(r->c);
    const uint8_t *end = p + len;
    for (size_t i = 0; i < n; i++) {
        value_ref v;
        if (w) {
            if ((size_t)(end - p) < w) return corrupt(r, "PLAIN values run past the page");
            v = (value_ref){p, w};
        } else {
            if (end - p < 4) return corrupt(r, "PLAIN values run past the page");
            size_t l = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
                       (size_t)p[3] << 24;
            p += 4;
            if ((size_t)(end - p) < l) return corrupt(r, "BYTE_ARRAY value runs past the page");
            v = (value_ref){p, l};
        }
        p += v.len;
        if (dict) {
            dict[i] = v;
        } else {
            bb_status s = r->fn(r->ctx, v.p, v.len);
            if (s != BB_OK) return s;
        }
    }
    return BB_OK;
}

static bb_status dict_values(chunk_reader *r, const uint8_t *p, size_t len, size_t n) {
    if (!r->have_dict) return corrupt(r, "dictionary-encoded page without a dictionary page");
    if (n == 0) return BB_OK;
    if (len < 1 || p[0] > 32) return corrupt(r, "bad dictionary index bit width");
    hybrid h = {.p = p + 1, .end = p + len, .width = p[0]};
    for (size_t i = 0; i < n; i++) {
        uint32_t k;
        if (!hybrid_next(&h, &k)) return corrupt(r, "dictionary indices run past the page");
        if (k >= r->n_dict) return corrupt(r, "dictionary index out of range");
        bb_status s = r->fn(r->ctx, r->dict[k].p, r->dict[k].len);
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

static bb_status values(chunk_reader *r, int64_t encoding, const uint8_t *p, size_t len,
                        size_t n) {
    if (encoding == 0) return plain_values(r, p, len, n, NULL);
    if (encoding == 2 || encoding == 8) return dict_values(r, p, len, n);
    return pq_fail(r->err, BB_E_UNSUPPORTED,
                   "column '%s': encoding %s is not supported (PLAIN, PLAIN_DICTIONARY and "
                   "RLE_DICTIONARY are)", r->name, pq_encoding_name(encoding));
}

/* Count the non-null values among n definition levels (bit width 1) in p[0 .. len). */
static bb_status count_defined(chunk_reader *r, const uint8_t *p, size_t len, size_t n,
                               size_t *defined) {
    hybrid h = {.p = p, .end = p + len, .width = 1};
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t level;
        if (!hybrid_next(&h, &level)) return corrupt(r, "definition levels run past the page");
        d += level;
    }
    *defined = d;
    return BB_OK;
}

/* ---- Pages ---------------------------------------------------------------------------------- */

/* Decompress src into r->page (size dst_len). */
static bb_status inflate_into_page(chunk_reader *r, const uint8_t *src, size_t src_len,
                                   size_t dst_len) {
    if (!reserve((void **)&r->page, &r->page_cap, dst_len ? dst_len : 1, 1)) return nomem(r);
    return pq_decompress(r->codec, src, src_len, r->page, dst_len, r->err);
}

static bb_status dictionary_page(chunk_reader *r, const tc_node *ph, const uint8_t *data,
                                 size_t clen, size_t ulen) {
    const tc_node *dh = tc_struct(ph, 7);
    int64_t n, enc = 0;
    if (!dh || !tc_int(dh, 1, &n) || n < 0) return corrupt(r, "dictionary page without header");
    tc_int(dh, 2, &enc);
    if (enc != 0 && enc != 2)
        return pq_fail(r->err, BB_E_UNSUPPORTED, "column '%s': dictionary encoding %s",
                       r->name, pq_encoding_name(enc));
    if (r->have_dict) return corrupt(r, "a second dictionary page");
    if ((uint64_t)n > ulen) return corrupt(r, "dictionary larger than its page");
    bb_status s = inflate_into_page(r, data, clen, ulen);
    if (s != BB_OK) return s;
    /* Keep the dictionary's bytes: they are the values its indices name. */
    r->dict_buf = r->page;
    r->page = NULL;
    r->page_cap = 0;
    if (n && !(r->dict = malloc((size_t)n * sizeof *r->dict))) return nomem(r);
    r->n_dict = (size_t)n;
    r->have_dict = true;
    return plain_values(r, r->dict_buf, ulen, (size_t)n, r->dict);
}

static bb_status data_page_v1(chunk_reader *r, const tc_node *ph, const uint8_t *data,
                              size_t clen, size_t ulen, int64_t *n_values) {
    const tc_node *dh = tc_struct(ph, 5);
    int64_t n, enc = 0, def_enc = 3;
    if (!dh || !tc_int(dh, 1, &n) || n < 0 || n > INT32_MAX)
        return corrupt(r, "data page without header");
    tc_int(dh, 2, &enc);
    tc_int(dh, 3, &def_enc);
    *n_values = n;
    bb_status s = inflate_into_page(r, data, clen, ulen);
    if (s != BB_OK) return s;
    const uint8_t *p = r->page;
    size_t len = ulen, defined = (size_t)n;
    if (r->c->optional) {
        if (def_enc != 3)
            return pq_fail(r->err, BB_E_UNSUPPORTED,
                           "column '%s': definition level encoding %s", r->name,
                           pq_encoding_name(def_enc));
        if (len < 4) return corrupt(r, "definition levels run past the page");
        size_t l = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
        if (l > len - 4) return corrupt(r, "definition levels run past the page");
        if ((s = count_defined(r, p + 4, l, (size_t)n, &defined)) != BB_OK) return s;
        p += 4 + l;
        len -= 4 + l;
    }
    return values(r, enc, p, len, defined);
}

static bb_status data_page_v2(chunk_reader *r, const tc_node *ph, const uint8_t *data,
                              size_t clen, size_t ulen, int64_t *n_values) {
    const tc_node *dh = tc_struct(ph, 8);
    int64_t n, enc = 0, def_len = 0, rep_len = 0;
    bool compressed = true;
    if (!dh || !tc_int(dh, 1, &n) || n < 0 || n > INT32_MAX)
        return corrupt(r, "data page v2 without header");
    tc_int(dh, 4, &enc);
    tc_int(dh, 5, &def_len);
    tc_int(dh, 6, &rep_len);
    tc_bool(dh, 7, &compressed);
    *n_values = n;
    if (def_len < 0 || rep_len < 0 || (uint64_t)def_len + (uint64_t)rep_len > clen ||
        (uint64_t)def_len + (uint64_t)rep_len > ulen)
        return corrupt(r, "level lengths larger than the page");
    size_t levels = (size_t)(def_len + rep_len), defined = (size_t)n;
    if (r->c->optional) {
        bb_status s = count_defined(r, data + rep_len, (size_t)def_len, (size_t)n, &defined);
        if (s != BB_OK) return s;
    }
    const uint8_t *vals = data + levels;
    size_t vlen = clen - levels;
    if (compressed) {
        bb_status s = inflate_into_page(r, vals, vlen, ulen - levels);
        if (s != BB_OK) return s;
        vals = r->page;
        vlen = ulen - levels;
    }
    return values(r, enc, vals, vlen, defined);
}

/* The unsupported column kinds, before any page is read. */
static bb_status check_column(chunk_reader *r, const tc_node *meta) {
    const pq_column *c = r->c;
    if (!c->flat)
        return pq_fail(r->err, BB_E_UNSUPPORTED,
                       "column '%s' is nested (in a group or repeated); only flat columns are "
                       "supported", r->name);
    if (c->type != BB_PQ_INT32 && c->type != BB_PQ_INT64 && c->type != BB_PQ_FLOAT &&
        c->type != BB_PQ_DOUBLE && c->type != BB_PQ_BYTE_ARRAY &&
        c->type != BB_PQ_FIXED_LEN_BYTE_ARRAY)
        return pq_fail(r->err, BB_E_UNSUPPORTED, "column '%s' has physical type %s (not supported)",
                       r->name, bb_pq_type_name(c->type));
    if (c->type == BB_PQ_FIXED_LEN_BYTE_ARRAY && c->type_length <= 0)
        return pq_fail(r->err, BB_E_INCONSISTENT, "column '%s': FIXED_LEN_BYTE_ARRAY of length %d",
                       r->name, c->type_length);
    int64_t t = -1;
    if (!tc_int(meta, 1, &t) || t != c->type)
        return pq_fail(r->err, BB_E_INCONSISTENT, "column '%s': chunk type differs from schema",
                       r->name);
    return BB_OK;
}

/* The byte range of the chunk's pages, checked against the file. */
static bb_status chunk_range(chunk_reader *r, const tc_node *meta, size_t *start, size_t *end) {
    int64_t data_off, dict_off, total;
    if (!tc_int(meta, 9, &data_off) || !tc_int(meta, 7, &total) || total < 0)
        return pq_fail(r->err, BB_E_INCONSISTENT, "column '%s': chunk without page offsets",
                       r->name);
    int64_t first = data_off;
    if (tc_int(meta, 11, &dict_off) && dict_off > 0 && dict_off < data_off) first = dict_off;
    if (first < 4 || (uint64_t)first > r->pf->footer_start ||
        (uint64_t)total > r->pf->footer_start - (uint64_t)first)
        return pq_fail(r->err, BB_E_INCONSISTENT,
                       "column '%s': pages at %lld (+%lld bytes) outside the file's data",
                       r->name, (long long)first, (long long)total);
    *start = (size_t)first;
    *end = (size_t)(first + total);
    return BB_OK;
}

static bb_status one_page(chunk_reader *r, size_t *pos, size_t end, int64_t *n_values) {
    tc_node ph;
    size_t used;
    const uint8_t *d = r->pf->data;
    bb_status s = tc_parse_struct(d + *pos, end - *pos, &used, &ph);
    if (s != BB_OK) return corrupt(r, s == BB_E_TRUNCATED ? "truncated page header"
                                                           : "corrupt page header");
    int64_t type = -1, ulen = -1, clen = -1;
    tc_int(&ph, 1, &type);
    tc_int(&ph, 2, &ulen);
    tc_int(&ph, 3, &clen);
    *n_values = 0;
    if (ulen < 0 || clen < 0 || (uint64_t)ulen > MAX_PAGE_BYTES ||
        (uint64_t)clen > end - *pos - used) {
        s = corrupt(r, "page sizes outside the chunk");
    } else {
        const uint8_t *data = d + *pos + used;
        if (type == 2)
            s = dictionary_page(r, &ph, data, (size_t)clen, (size_t)ulen);
        else if (type == 0)
            s = data_page_v1(r, &ph, data, (size_t)clen, (size_t)ulen, n_values);
        else if (type == 3)
            s = data_page_v2(r, &ph, data, (size_t)clen, (size_t)ulen, n_values);
        /* 1 (INDEX_PAGE) and unknown page types carry no values: skipped. */
        *pos += used + (size_t)clen;
    }
    tc_free(&ph);
    return s;
}

bb_status bb_pq_chunk_values(const bb_pq_file *pf, size_t rg, size_t col, bb_pq_value_fn fn,
                             void *ctx, bb_pq_error *err) {
    if (err) err->message[0] = '\0';
    tc_node *meta;
    if (!fn) return pq_fail(err, BB_E_INVAL, "invalid argument");
    bb_status s = pq_chunk_meta(pf, rg, col, &meta, err);
    if (s != BB_OK) return s;
    chunk_reader r = {.pf = pf, .c = &pf->cols[col], .name = pf->cols[col].name, .fn = fn,
                      .ctx = ctx, .err = err};
    tc_int(meta, 4, &r.codec);
    int64_t total_values = 0, seen = 0;
    tc_int(meta, 5, &total_values);
    size_t pos = 0, end = 0;
    if ((s = check_column(&r, meta)) == BB_OK && (s = chunk_range(&r, meta, &pos, &end)) == BB_OK) {
        while (s == BB_OK && pos < end && seen < total_values) {
            int64_t n = 0;
            s = one_page(&r, &pos, end, &n);
            if (s == BB_OK && n > total_values - seen)
                s = corrupt(&r, "pages hold more values than the chunk's num_values");
            seen += n;
        }
        if (s == BB_OK && seen != total_values)
            s = corrupt(&r, "pages hold fewer values than the chunk's num_values");
    }
    free(r.dict_buf);
    free(r.dict);
    free(r.page);
    return s;
}
