/* SPDX-License-Identifier: MIT */
/*
 * pages.c - decoding a column chunk's values (parquet-format Encodings.md, parquet.thrift
 * PageHeader): the pages follow each other from the dictionary page (or the first data
 * page) for total_compressed_size bytes, each a PageHeader (1 type: 0 DATA_PAGE,
 * 1 INDEX_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2; 2 uncompressed_page_size;
 * 3 compressed_page_size; 5 data_page_header; 7 dictionary_page_header;
 * 8 data_page_header_v2) and then its data.
 *
 * Levels (Dremel): a leaf's value is present when its definition level is the column's
 * max_def (one per OPTIONAL or REPEATED element on its path, itself included); repetition
 * levels only say where lists start, which a filter of the values does not need, so they
 * are skipped. A page's num_values counts levels, not values. Data page v1: the whole page
 * is compressed; it holds the repetition levels (when max_rep > 0), the definition levels
 * (when max_def > 0), each RLE (a 4-byte length, then the RLE/bit-packed hybrid) or the
 * deprecated BIT_PACKED (ceil(n * width / 8) bytes), and then the values. Data page v2: the
 * repetition then the definition levels come first, uncompressed hybrids whose byte lengths
 * the header gives (fields 6 and 5), then the values, compressed unless is_compressed (7)
 * is false. Values are PLAIN (fixed-width little-endian, INT96 12 bytes, BYTE_ARRAY a
 * 4-byte length and its bytes), dictionary indices (PLAIN_DICTIONARY, RLE_DICTIONARY: one
 * byte of bit width, then the hybrid, indexing the dictionary page's PLAIN values), or one
 * of encodings.c's DELTA_* and BYTE_STREAM_SPLIT.
 *
 * Memory: the decompressed dictionary page and the current page, each at most
 * MAX_PAGE_BYTES, and 4 bytes per BYTE_ARRAY dictionary entry (fixed-width entries are
 * found by arithmetic, so a dictionary of 2^28 one-byte entries costs its 256 MiB page and
 * nothing more). Every count, length and index is checked against the data before use, and
 * no page may claim more levels than the chunk has left.
 */
#include "pq.h"

#include <stdlib.h>
#include <string.h>

/* Largest page we decompress; real writers stay near 1 MiB (and the sizes are i32s). */
#define MAX_PAGE_BYTES ((size_t)1 << 30)

typedef struct chunk_reader {
    const bb_pq_file *pf;
    const pq_column *c;
    const char *name;
    int64_t codec;
    bb_pq_value_fn fn;
    void *ctx;
    uint8_t *dict_buf;        /* the decompressed dictionary page */
    uint32_t *dict_off;       /* BYTE_ARRAY: where each entry's 4-byte length is */
    size_t n_dict, dict_len;
    bool have_dict;
    uint8_t *used;            /* distinct mode: a bit per dictionary entry some page names */
    uint8_t *page;            /* the current decompressed page (or values) */
    size_t page_cap;
    size_t width;             /* PLAIN width of a value; 0 for BYTE_ARRAY */
    bool distinct;            /* dictionary entries reported once each, after the pages */
    pq_values pv;             /* encodings.c's decoders */
} chunk_reader;

static bb_status corrupt(chunk_reader *r, const char *what) {
    return pq_fail(BB_E_CORRUPT, "column '%s': %s", r->name, what);
}

static bb_status nomem(void) { return pq_fail(BB_E_NOMEM, "out of memory"); }

static bool reserve(void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return true;
    void *p = realloc(*buf, n * size);
    if (!p) return false;
    *buf = p;
    *cap = n;
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
    case BB_PQ_INT96:
        return 12;
    case BB_PQ_FIXED_LEN_BYTE_ARRAY:
        return (size_t)c->type_length;
    default:
        return 0; /* BYTE_ARRAY */
    }
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Hand n PLAIN values from p[0 .. len) to the callback; with offs (BYTE_ARRAY only), only
 * note where each starts (the dictionary page). */
static bb_status plain_values(chunk_reader *r, const uint8_t *p, size_t len, size_t n,
                              uint32_t *offs) {
    size_t w = r->width;
    const uint8_t *start = p, *end = p + len;
    if (w) {
        if (n > len / w) return corrupt(r, "PLAIN values run past the page");
        for (size_t i = 0; i < n && !offs; i++, p += w) {
            bb_status s = r->fn(r->ctx, p, w);
            if (s != BB_OK) return s;
        }
        return BB_OK;
    }
    for (size_t i = 0; i < n; i++) {
        if (end - p < 4) return corrupt(r, "PLAIN values run past the page");
        size_t l = le32(p);
        if ((size_t)(end - p - 4) < l) return corrupt(r, "BYTE_ARRAY value runs past the page");
        if (offs) {
            offs[i] = (uint32_t)(p - start);
        } else {
            bb_status s = r->fn(r->ctx, p + 4, l);
            if (s != BB_OK) return s;
        }
        p += 4 + l;
    }
    return BB_OK;
}

static const uint8_t *dict_entry(const chunk_reader *r, uint32_t k, size_t *len) {
    if (r->width) {
        *len = r->width;
        return r->dict_buf + (size_t)k * r->width;
    }
    const uint8_t *v = r->dict_buf + r->dict_off[k] + 4;
    *len = le32(v - 4);
    return v;
}

static bb_status dict_values(chunk_reader *r, const uint8_t *p, size_t len, size_t n) {
    if (!r->have_dict) return corrupt(r, "dictionary-encoded page without a dictionary page");
    if (n == 0) return BB_OK;
    if (len < 1 || p[0] > 32) return corrupt(r, "bad dictionary index bit width");
    pq_hybrid h = {.p = p + 1, .end = p + len, .width = p[0]};
    for (size_t i = 0; i < n; i++) {
        uint32_t k;
        if (!pq_hybrid_next(&h, &k)) return corrupt(r, "dictionary indices run past the page");
        if (k >= r->n_dict) return corrupt(r, "dictionary index out of range");
        if (r->used) {
            /* Distinct mode: note the entry; an RLE run names it for all its values. */
            r->used[k / 8] |= (uint8_t)(1u << (k % 8));
            if (!h.packed) {
                uint64_t more = h.left < n - i - 1 ? h.left : n - i - 1;
                h.left -= more;
                i += more;
            }
            continue;
        }
        size_t vlen;
        const uint8_t *v = dict_entry(r, k, &vlen);
        bb_status s = r->fn(r->ctx, v, vlen);
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

static bb_status values(chunk_reader *r, int64_t encoding, const uint8_t *p, size_t len,
                        size_t n, size_t levels) {
    if (encoding == 0) return plain_values(r, p, len, n, NULL);
    if (encoding == 2 || encoding == 8) return dict_values(r, p, len, n);
    r->pv.max_count = levels;
    bb_status s = pq_decode_values(&r->pv, encoding, r->c->type, p, len, n);
    if (s == BB_E_UNSUPPORTED)
        return pq_fail(s, "column '%s': encoding %s is not supported for %s", r->name,
                       pq_encoding_name(encoding), bb_pq_type_name(r->c->type));
    if (s == BB_E_NOMEM) return nomem();
    if ((s == BB_E_CORRUPT || s == BB_E_TOO_LARGE) && r->pv.why)
        return pq_fail(s, "column '%s': %s", r->name, r->pv.why);
    return s;
}

/* Bits of a level up to max (0 when there is only one level). */
static unsigned level_width(int max) {
    unsigned w = 0;
    while (max >> w) w++;
    return w;
}

/* Count the present values (level == max_def) among n definition levels in p[0 .. len),
 * stored as the hybrid or, bit_packed, as BIT_PACKED. */
static bb_status count_defined(chunk_reader *r, const uint8_t *p, size_t len, size_t n,
                               bool bit_packed, size_t *defined) {
    pq_hybrid h = {.p = p, .end = p + len, .width = level_width(r->c->max_def),
                   .msb_first = bit_packed};
    size_t d = 0;
    uint32_t max = (uint32_t)r->c->max_def;
    for (size_t i = 0; i < n; i++) {
        uint32_t level;
        if (!pq_hybrid_next(&h, &level)) return corrupt(r, "definition levels run past the page");
        if (level > max) return corrupt(r, "definition level above the column's maximum");
        d += level == max;
    }
    *defined = d;
    return BB_OK;
}

/* ---- Pages ---------------------------------------------------------------------------------- */

/* Decompress src into r->page (size dst_len). */
static bb_status inflate_into_page(chunk_reader *r, const uint8_t *src, size_t src_len,
                                   size_t dst_len) {
    if (!reserve((void **)&r->page, &r->page_cap, dst_len ? dst_len : 1, 1)) return nomem();
    return pq_decompress(r->codec, src, src_len, r->page, dst_len);
}

static bb_status dictionary_page(chunk_reader *r, const tc_node *ph, const uint8_t *data,
                                 size_t clen, size_t ulen) {
    const tc_node *dh = tc_struct(ph, 7);
    int64_t n, enc = 0;
    if (!dh || !tc_int(dh, 1, &n) || n < 0) return corrupt(r, "dictionary page without header");
    tc_int(dh, 2, &enc);
    if (enc != 0 && enc != 2)
        return pq_fail(BB_E_UNSUPPORTED, "column '%s': dictionary encoding %s",
                       r->name, pq_encoding_name(enc));
    if (r->have_dict) return corrupt(r, "a second dictionary page");
    /* Every entry takes its width, or 4 bytes of length at least: the entry count is
     * bounded by the page's bytes before anything is allocated for it. */
    if ((uint64_t)n > ulen / (r->width ? r->width : 4))
        return pq_fail(BB_E_CORRUPT,
                       "column '%s': dictionary of %lld entries cannot fit its %zu-byte page",
                       r->name, (long long)n, ulen);
    bb_status s = inflate_into_page(r, data, clen, ulen);
    if (s != BB_OK) return s;
    /* Keep the dictionary's bytes: they are the values its indices name. */
    r->dict_buf = r->page;
    r->dict_len = ulen;
    r->page = NULL;
    r->page_cap = 0;
    if (!r->width && n && !(r->dict_off = malloc((size_t)n * sizeof *r->dict_off)))
        return nomem();
    r->n_dict = (size_t)n;
    r->have_dict = true;
    if (r->distinct && !(r->used = calloc((size_t)n / 8 + 1, 1))) return nomem();
    /* Fixed-width entries are where their index says (n fits the page, checked above). */
    return r->width ? BB_OK : plain_values(r, r->dict_buf, ulen, (size_t)n, r->dict_off);
}

/* One level stream of a data page v1 at *p (n levels, `max` its largest value): skipped
 * (repetition levels) or counted into *defined (definition levels). */
static bb_status v1_levels(chunk_reader *r, int64_t encoding, const uint8_t **p, size_t *len,
                           size_t n, int max, size_t *defined) {
    const char *what = defined ? "definition" : "repetition";
    size_t l;
    if (encoding == 3) {
        if (*len < 4 || le32(*p) > *len - 4)
            return pq_fail(BB_E_CORRUPT, "column '%s': %s levels run past the page",
                           r->name, what);
        l = le32(*p);
        *p += 4;
        *len -= 4;
    } else if (encoding == 4) {
        uint64_t bits = (uint64_t)n * level_width(max);
        l = (size_t)((bits + 7) / 8);
        if (l > *len)
            return pq_fail(BB_E_CORRUPT, "column '%s': %s levels run past the page",
                           r->name, what);
    } else {
        return pq_fail(BB_E_UNSUPPORTED, "column '%s': %s level encoding %s", r->name,
                       what, pq_encoding_name(encoding));
    }
    bb_status s = defined ? count_defined(r, *p, l, n, encoding == 4, defined) : BB_OK;
    *p += l;
    *len -= l;
    return s;
}

static bb_status data_page_v1(chunk_reader *r, const tc_node *ph, const uint8_t *data,
                              size_t clen, size_t ulen, int64_t *n_values, int64_t left) {
    const tc_node *dh = tc_struct(ph, 5);
    int64_t n, enc = 0, def_enc = 3, rep_enc = 3;
    if (!dh || !tc_int(dh, 1, &n) || n < 0 || n > INT32_MAX)
        return corrupt(r, "data page without header");
    if (n > left) return corrupt(r, "pages hold more values than the chunk's num_values");
    tc_int(dh, 2, &enc);
    tc_int(dh, 3, &def_enc);
    tc_int(dh, 4, &rep_enc);
    *n_values = n;
    bb_status s = inflate_into_page(r, data, clen, ulen);
    if (s != BB_OK) return s;
    const uint8_t *p = r->page;
    size_t len = ulen, defined = (size_t)n;
    if (r->c->max_rep > 0 &&
        (s = v1_levels(r, rep_enc, &p, &len, (size_t)n, r->c->max_rep, NULL)) != BB_OK)
        return s;
    if (r->c->max_def > 0 &&
        (s = v1_levels(r, def_enc, &p, &len, (size_t)n, r->c->max_def, &defined)) != BB_OK)
        return s;
    return values(r, enc, p, len, defined, (size_t)n);
}

static bb_status data_page_v2(chunk_reader *r, const tc_node *ph, const uint8_t *data,
                              size_t clen, size_t ulen, int64_t *n_values, int64_t left) {
    const tc_node *dh = tc_struct(ph, 8);
    int64_t n, enc = 0, def_len = 0, rep_len = 0;
    bool compressed = true;
    if (!dh || !tc_int(dh, 1, &n) || n < 0 || n > INT32_MAX)
        return corrupt(r, "data page v2 without header");
    if (n > left) return corrupt(r, "pages hold more values than the chunk's num_values");
    tc_int(dh, 4, &enc);
    tc_int(dh, 5, &def_len);
    tc_int(dh, 6, &rep_len);
    tc_bool(dh, 7, &compressed);
    *n_values = n;
    if (def_len < 0 || rep_len < 0 || (uint64_t)def_len + (uint64_t)rep_len > clen ||
        (uint64_t)def_len + (uint64_t)rep_len > ulen)
        return corrupt(r, "level lengths larger than the page");
    size_t levels = (size_t)(def_len + rep_len), defined = (size_t)n;
    if (r->c->max_def > 0) {
        bb_status s = count_defined(r, data + rep_len, (size_t)def_len, (size_t)n, false, &defined);
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
    return values(r, enc, vals, vlen, defined, (size_t)n);
}

/* The unsupported column kinds, before any page is read. */
static bb_status check_column(chunk_reader *r, const tc_node *meta) {
    const pq_column *c = r->c;
    if (c->type != BB_PQ_INT32 && c->type != BB_PQ_INT64 && c->type != BB_PQ_INT96 &&
        c->type != BB_PQ_FLOAT && c->type != BB_PQ_DOUBLE && c->type != BB_PQ_BYTE_ARRAY &&
        c->type != BB_PQ_FIXED_LEN_BYTE_ARRAY)
        return pq_fail(BB_E_UNSUPPORTED, "column '%s' has physical type %s (not supported)",
                       r->name, bb_pq_type_name(c->type));
    if (c->type == BB_PQ_FIXED_LEN_BYTE_ARRAY && c->type_length <= 0)
        return pq_fail(BB_E_INCONSISTENT, "column '%s': FIXED_LEN_BYTE_ARRAY of length %d",
                       r->name, c->type_length);
    int64_t t = -1;
    if (!tc_int(meta, 1, &t) || t != c->type)
        return pq_fail(BB_E_INCONSISTENT, "column '%s': chunk type differs from schema",
                       r->name);
    return BB_OK;
}

/* The byte range of the chunk's pages, checked against the file. */
static bb_status chunk_range(chunk_reader *r, const tc_node *meta, size_t *start, size_t *end) {
    int64_t data_off, dict_off, total;
    if (!tc_int(meta, 9, &data_off) || !tc_int(meta, 7, &total) || total < 0)
        return pq_fail(BB_E_INCONSISTENT, "column '%s': chunk without page offsets",
                       r->name);
    int64_t first = data_off;
    if (tc_int(meta, 11, &dict_off) && dict_off > 0 && dict_off < data_off) first = dict_off;
    if (first < 4 || (uint64_t)first > r->pf->footer_start ||
        (uint64_t)total > r->pf->footer_start - (uint64_t)first)
        return pq_fail(BB_E_INCONSISTENT,
                       "column '%s': pages at %lld (+%lld bytes) outside the file's data",
                       r->name, (long long)first, (long long)total);
    *start = (size_t)first;
    *end = (size_t)(first + total);
    return BB_OK;
}

/* A chunk of a leaf outside any list has one value or null per row: a num_values above the
 * row group's num_rows is a lie that would cost time (one RLE run can claim 2^31 nulls). */
static bb_status check_counts(chunk_reader *r, size_t rg, int64_t num_values) {
    const tc_node *rgs = tc_list(&r->pf->meta, 4);
    int64_t rows = -1;
    if (num_values < 0)
        return pq_fail(BB_E_INCONSISTENT, "column '%s': num_values %lld is negative",
                       r->name, (long long)num_values);
    if (r->c->max_rep == 0 && tc_int(&rgs->kids[rg], 3, &rows) && num_values > rows)
        return pq_fail(BB_E_INCONSISTENT,
                       "row group %zu, column '%s': num_values %lld exceeds the row group's "
                       "num_rows %lld", rg, r->name, (long long)num_values, (long long)rows);
    return BB_OK;
}

static bb_status one_page(chunk_reader *r, size_t *pos, size_t end, int64_t *n_values,
                          int64_t left) {
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
            s = data_page_v1(r, &ph, data, (size_t)clen, (size_t)ulen, n_values, left);
        else if (type == 3)
            s = data_page_v2(r, &ph, data, (size_t)clen, (size_t)ulen, n_values, left);
        /* 1 (INDEX_PAGE) and unknown page types carry no values: skipped. */
        *pos += used + (size_t)clen;
    }
    tc_free(&ph);
    return s;
}

static bb_status walk_chunk(const bb_pq_file *pf, size_t rg, size_t col, bb_pq_value_fn fn,
                            void *ctx, bool distinct) {
    bb_error_clear();
    tc_node *meta;
    if (!fn) return pq_fail(BB_E_INVAL, "invalid argument");
    bb_status s = pq_chunk_meta(pf, rg, col, &meta);
    if (s != BB_OK) return s;
    chunk_reader r = {.pf = pf, .c = &pf->cols[col], .name = pf->cols[col].name, .fn = fn,
                      .ctx = ctx, .distinct = distinct};
    r.width = fixed_width(r.c);
    r.pv = (pq_values){.fn = fn, .ctx = ctx, .width = r.width, .max_expansion = PQ_MAX_EXPANSION};
    tc_int(meta, 4, &r.codec);
    int64_t total_values = 0, seen = 0;
    tc_int(meta, 5, &total_values);
    size_t pos = 0, end = 0;
    if ((s = check_column(&r, meta)) == BB_OK && (s = check_counts(&r, rg, total_values)) == BB_OK &&
        (s = chunk_range(&r, meta, &pos, &end)) == BB_OK) {
        while (s == BB_OK && pos < end && seen < total_values) {
            int64_t n = 0;
            s = one_page(&r, &pos, end, &n, total_values - seen);
            seen += n;
        }
        if (s == BB_OK && seen != total_values)
            s = corrupt(&r, "pages hold fewer values than the chunk's num_values");
        for (size_t k = 0; s == BB_OK && r.used && k < r.n_dict; k++)
            if (r.used[k / 8] >> (k % 8) & 1) {
                size_t vlen;
                const uint8_t *v = dict_entry(&r, (uint32_t)k, &vlen);
                s = fn(ctx, v, vlen);
            }
    }
    free(r.used);
    free(r.dict_buf);
    free(r.dict_off);
    free(r.pv.scratch);
    free(r.page);
    return s;
}

bb_status bb_pq_chunk_values(const bb_pq_file *pf, size_t rg, size_t col, bb_pq_value_fn fn,
                             void *ctx) {
    return walk_chunk(pf, rg, col, fn, ctx, false);
}

bb_status pq_chunk_distinct_values(const bb_pq_file *pf, size_t rg, size_t col,
                                   bb_pq_value_fn fn, void *ctx) {
    return walk_chunk(pf, rg, col, fn, ctx, true);
}
