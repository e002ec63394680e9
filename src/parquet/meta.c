/* SPDX-License-Identifier: MIT */
/*
 * meta.c - a Parquet file's footer: the layout "PAR1" <column chunks ...> <FileMetaData>
 * <4-byte little-endian length of it> "PAR1" (parquet-format README, "File format"), the
 * schema flattened into leaf columns, the row groups' column chunks, and the Bloom filter
 * header (BloomFilter.md: BloomFilterHeader, then numBytes of bitset).
 *
 * parquet.thrift field ids used here: FileMetaData 2 schema, 4 row_groups; SchemaElement
 * 1 type, 2 type_length, 3 repetition_type (0 REQUIRED, 1 OPTIONAL, 2 REPEATED), 4 name,
 * 5 num_children, 6 converted_type, 7 scale, 10 logicalType; RowGroup 1 columns; ColumnChunk
 * 3 meta_data, 8 crypto_metadata, 9 encrypted_column_metadata; ColumnMetaData 4 codec,
 * 5 num_values, 14 bloom_filter_offset, 15 bloom_filter_length; BloomFilterHeader 1 numBytes,
 * 2 algorithm (union: 1 BLOCK), 3 hash (1 XXHASH), 4 compression (1 UNCOMPRESSED).
 * Everything read from the file is checked before use: no offset is trusted.
 */
#include "../abi.h"
#include "pq.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bb_status pq_fail(bb_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bb_error_buffer(), BB_LAST_ERROR_CAP, fmt, ap);
    va_end(ap);
    return s;
}

static const char *enum_name(const char *const *names, size_t n, int64_t v) {
    static _Thread_local char buf[32];
    if (v >= 0 && (uint64_t)v < n && names[v]) return names[v];
    snprintf(buf, sizeof buf, "UNKNOWN(%lld)", (long long)v);
    return buf;
}
#define ENUM_NAME(tab, v) enum_name(tab, sizeof tab / sizeof *tab, v)

const char *pq_codec_name(int64_t codec) {
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                        "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    return ENUM_NAME(names, codec);
}

const char *pq_encoding_name(int64_t encoding) {
    static const char *const names[] = {
        "PLAIN", NULL, "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
        "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT",
        "ALP"};
    return ENUM_NAME(names, encoding);
}

const char *bb_pq_type_name(bb_pq_type type) {
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    /* Through int: the enum has no negative member, so its type may be unsigned, and a
     * file's -1 must print as -1, not 4294967295. */
    return ENUM_NAME(names, (int)type);
}

/* ---- Schema --------------------------------------------------------------------------------- */

/* Logical type of a leaf: the LogicalType union (field 10) if set, else the legacy
 * ConvertedType (field 6). Only what value parsing needs is told apart. */
static const char *logical_name(const tc_node *el, int32_t *scale, int32_t *precision) {
    static const char *const union_names[] = {
        NULL, "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME", "TIMESTAMP", NULL,
        "INT", "UNKNOWN", "JSON", "BSON", "UUID", "FLOAT16"};
    static const char *const converted[] = {
        "STRING", "MAP", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME", "TIME",
        "TIMESTAMP", "TIMESTAMP", "INT", "INT", "INT", "INT", "INT", "INT", "INT", "INT",
        "JSON", "BSON", "INTERVAL"};
    int64_t v;
    *scale = 0;
    *precision = -1; /* not given */
    const tc_node *lt = tc_struct(el, 10);
    if (lt && lt->n_kids == 1 && lt->kids[0].id > 0 &&
        (size_t)lt->kids[0].id < sizeof union_names / sizeof *union_names &&
        union_names[lt->kids[0].id]) {
        /* DecimalType{1: scale, 2: precision}; range-checked by check_decimal. */
        if (lt->kids[0].id == 5 && tc_int(&lt->kids[0], 1, &v))
            *scale = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
        if (lt->kids[0].id == 5 && tc_int(&lt->kids[0], 2, &v))
            *precision = v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
        return union_names[lt->kids[0].id];
    }
    if (tc_int(el, 6, &v) && v >= 0 && (size_t)v < sizeof converted / sizeof *converted) {
        int64_t s;
        if (v == 5 && tc_int(el, 7, &s))
            *scale = s < INT32_MIN ? INT32_MIN : s > INT32_MAX ? INT32_MAX : (int32_t)s;
        if (v == 5 && tc_int(el, 8, &s))
            *precision = s < INT32_MIN ? INT32_MIN : s > INT32_MAX ? INT32_MAX : (int32_t)s;
        return converted[v];
    }
    return "";
}

typedef struct schema_walk {
    const tc_node *list;
    size_t next;
    bb_pq_file *pf;
    size_t cap;
} schema_walk;

static bb_status add_leaf(schema_walk *w, const tc_node *el, const char *path, int depth,
                          int64_t rep, int max_def, int max_rep) {
    if (w->pf->n_cols == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        pq_column *c = realloc(w->pf->cols, cap * sizeof *c);
        if (!c) return pq_fail(BB_E_NOMEM, "out of memory");
        w->pf->cols = c;
        w->cap = cap;
    }
    pq_column *c = &w->pf->cols[w->pf->n_cols];
    memset(c, 0, sizeof *c);
    if (!(c->name = strdup(path))) return pq_fail(BB_E_NOMEM, "out of memory");
    w->pf->n_cols++;
    int64_t v = -1;
    tc_int(el, 1, &v);
    if (v < INT32_MIN || v > INT32_MAX)
        return pq_fail(BB_E_CORRUPT, "schema: column '%s' has physical type %lld (not an "
                       "i32)", path, (long long)v);
    c->type = (bb_pq_type)(int32_t)v; /* one outside the enum is refused by name when read */
    if (tc_int(el, 2, &v)) c->type_length = v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
    c->logical = logical_name(el, &c->scale, &c->precision);
    c->optional = rep == 1;
    c->flat = depth == 1 && rep != 2;
    c->max_def = max_def;
    c->max_rep = max_rep;
    return BB_OK;
}

/* Walk the depth-first schema list from element w->next, `depth` levels below the root,
 * under def OPTIONAL or REPEATED and rep REPEATED ancestors. */
static bb_status walk(schema_walk *w, const char *prefix, int depth, int def, int rep_level) {
    if (depth > TC_MAX_DEPTH)
        return pq_fail(BB_E_UNSUPPORTED, "schema: nested more than %d levels deep",
                       TC_MAX_DEPTH);
    if (w->next >= w->list->n_kids)
        return pq_fail(BB_E_INCONSISTENT, "schema: fewer elements than num_children say");
    const tc_node *el = &w->list->kids[w->next++];
    const tc_node *name = tc_field(el, 4);
    if (!name || name->type != TC_BINARY)
        return pq_fail(BB_E_INCONSISTENT, "schema: element without a name");
    char path[1024];
    int n = depth == 0 ? 0
            : snprintf(path, sizeof path, "%s%s%.*s", prefix, *prefix ? "." : "",
                       (int)name->len, (const char *)name->bin);
    if (n < 0 || (size_t)n >= sizeof path)
        return pq_fail(BB_E_UNSUPPORTED, "schema: column path longer than 1023 bytes");
    if (depth == 0) path[0] = '\0';
    int64_t children = 0, rep = 0;
    tc_int(el, 5, &children);
    tc_int(el, 3, &rep);
    if (depth > 0 && (rep == 1 || rep == 2)) def++;
    if (depth > 0 && rep == 2) rep_level++;
    if (children <= 0) {
        if (depth == 0) return pq_fail(BB_E_INCONSISTENT, "schema: root has no columns");
        if (!tc_field(el, 1)) return pq_fail(BB_E_INCONSISTENT, "schema: leaf without type");
        return add_leaf(w, el, path, depth, rep, def, rep_level);
    }
    if ((uint64_t)children > w->list->n_kids)
        return pq_fail(BB_E_INCONSISTENT, "schema: num_children larger than the schema");
    for (int64_t i = 0; i < children; i++) {
        /* Leaves below a group are at depth > 1: nested, not flat. */
        bb_status s = walk(w, path, depth + 1, def, rep_level);
        if (s != BB_OK) return s;
    }
    return BB_OK;
}

static bb_status read_schema(bb_pq_file *pf) {
    const tc_node *schema = tc_list(&pf->meta, 2);
    if (!schema || schema->elem != TC_STRUCT || schema->n_kids < 2)
        return pq_fail(BB_E_INCONSISTENT, "footer has no schema");
    schema_walk w = {schema, 0, pf, 0};
    bb_status s = walk(&w, "", 0, 0, 0);
    if (s == BB_OK && w.next != schema->n_kids)
        return pq_fail(BB_E_INCONSISTENT, "schema: elements beyond the root's children");
    return s;
}

/* ---- Row groups ----------------------------------------------------------------------------- */

static bb_status read_row_groups(bb_pq_file *pf) {
    const tc_node *rgs = tc_list(&pf->meta, 4);
    if (!rgs) return pq_fail(BB_E_INCONSISTENT, "footer has no row_groups");
    if (rgs->n_kids && rgs->elem != TC_STRUCT)
        return pq_fail(BB_E_INCONSISTENT, "row_groups is not a list of structs");
    pf->n_rg = rgs->n_kids;
    if (pf->n_rg && !(pf->chunks = calloc(pf->n_rg * pf->n_cols, sizeof *pf->chunks)))
        return pq_fail(BB_E_NOMEM, "out of memory");
    for (size_t r = 0; r < pf->n_rg; r++) {
        const tc_node *cols = tc_list(&rgs->kids[r], 1);
        if (!cols || cols->n_kids != pf->n_cols || (cols->n_kids && cols->elem != TC_STRUCT))
            return pq_fail(BB_E_INCONSISTENT,
                           "row group %zu has %zu column chunks, the schema %zu columns", r,
                           cols ? cols->n_kids : 0, pf->n_cols);
        for (size_t c = 0; c < pf->n_cols; c++) pf->chunks[r * pf->n_cols + c] = &cols->kids[c];
    }
    return BB_OK;
}

bb_status pq_chunk_meta(const bb_pq_file *pf, size_t rg, size_t col, tc_node **meta) {
    if (!pf || rg >= pf->n_rg || col >= pf->n_cols)
        return pq_fail(BB_E_INVAL, "row group %zu or column %zu out of range", rg, col);
    const tc_node *cc = pf->chunks[rg * pf->n_cols + col];
    if (tc_field(cc, 8) || tc_field(cc, 9))
        return pq_fail(BB_E_UNSUPPORTED, "column '%s' is encrypted (not supported)",
                       pf->cols[col].name);
    const tc_node *fp = tc_field(cc, 1);
    if (fp && fp->type == TC_BINARY)
        return pq_fail(BB_E_UNSUPPORTED,
                       "column '%s' of row group %zu is in another file (file_path)",
                       pf->cols[col].name, rg);
    if (!(*meta = tc_struct(cc, 3)))
        return pq_fail(BB_E_INCONSISTENT, "column chunk without meta_data");
    return BB_OK;
}

/* ---- Opening -------------------------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bb_status parse_file(bb_pq_file *pf) {
    const uint8_t *d = pf->data;
    size_t n = pf->size;
    if (n >= 4 && memcmp(d + (n >= 8 ? n - 4 : 0), "PARE", 4) == 0)
        return pq_fail(BB_E_UNSUPPORTED, "encrypted footer (PARE) is not supported");
    if (n < 12) return pq_fail(n >= 4 && !memcmp(d, "PAR1", 4) ? BB_E_TRUNCATED
                                                                    : BB_E_BAD_MAGIC,
                               n >= 4 && !memcmp(d, "PAR1", 4) ? "truncated file (%zu bytes)"
                                                                : "not a Parquet file "
                                                                  "(%zu bytes, no PAR1 magic)",
                               n);
    if (memcmp(d, "PAR1", 4) != 0 || memcmp(d + n - 4, "PAR1", 4) != 0)
        return pq_fail(BB_E_BAD_MAGIC, "wrong magic: not a Parquet file (no PAR1 %s)",
                       memcmp(d, "PAR1", 4) ? "at the start" : "at the end");
    uint32_t flen = le32(d + n - 8);
    if (flen == 0) /* a FileMetaData has at least its required fields, so never 0 bytes */
        return pq_fail(BB_E_CORRUPT, "corrupt footer: its length field is 0 (a FileMetaData "
                                     "is never empty)");
    if (flen > n - 12)
        return pq_fail(BB_E_TRUNCATED,
                       "truncated footer: its length (%u bytes) exceeds the file (%zu bytes)",
                       flen, n);
    pf->footer_start = n - 8 - flen;
    size_t used;
    bb_status s = tc_parse_struct(d + pf->footer_start, flen, &used, &pf->meta);
    if (s == BB_E_TRUNCATED) return pq_fail(s, "truncated footer: FileMetaData ends early");
    if (s == BB_E_NOMEM) return pq_fail(s, "out of memory");
    if (s != BB_OK) return pq_fail(s, "corrupt footer: FileMetaData is not Thrift");
    if ((s = read_schema(pf)) != BB_OK) return s;
    return read_row_groups(pf);
}

bb_status bb_pq_open_buffer(bb_pq_file **out, const void *buf, size_t len) {
    bb_error_clear();
    if (!out || (!buf && len)) return pq_fail(BB_E_INVAL, "invalid argument");
    *out = NULL;
    bb_pq_file *pf = calloc(1, sizeof *pf);
    if (!pf) return pq_fail(BB_E_NOMEM, "out of memory");
    pf->data = buf;
    pf->size = len;
    bb_status s = parse_file(pf);
    if (s != BB_OK) {
        bb_pq_close(pf);
        return s;
    }
    *out = pf;
    return BB_OK;
}

bb_status bb_pq_open(bb_pq_file **out, const char *path) {
    bb_error_clear();
    if (!out || !path) return pq_fail(BB_E_INVAL, "invalid argument");
    *out = NULL;
    /* O_NONBLOCK: a FIFO must not block the open; it is refused below as not regular. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return pq_fail(BB_E_IO, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return pq_fail(BB_E_IO, "%s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        /* Named by its kind: errno says nothing here (it may hold a stale ENOENT). A
         * Parquet file is read from its end, so a pipe or device cannot be one. */
        int e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        const char *kind = S_ISFIFO(st.st_mode)  ? "a FIFO"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        close(fd);
        errno = e;
        if (e == EISDIR) return pq_fail(BB_E_IO, "%s", strerror(e));
        return pq_fail(BB_E_IO, "%s%s (a Parquet file must be a regular file: it is read "
                       "from its end)", *kind == 'a' ? "it is " : "", kind);
    }
    void *map = NULL;
    if (st.st_size > 0) {
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            errno = e;
            return pq_fail(BB_E_IO, "mmap: %s", strerror(e));
        }
    }
    close(fd);
    bb_status s = bb_pq_open_buffer(out, map, (size_t)st.st_size);
    if (s != BB_OK) {
        if (map) munmap(map, (size_t)st.st_size);
        return s;
    }
    (*out)->mapped = map != NULL;
    return BB_OK;
}

void bb_pq_close(bb_pq_file *pf) {
    if (!pf) return;
    for (size_t i = 0; i < pf->n_cols; i++) free(pf->cols[i].name);
    free(pf->cols);
    free(pf->chunks);
    tc_free(&pf->meta);
    if (pf->mapped) munmap((void *)pf->data, pf->size);
    free(pf);
}

/* ---- Columns and chunks --------------------------------------------------------------------- */

size_t bb_pq_row_groups(const bb_pq_file *pf) { return pf ? pf->n_rg : 0; }
size_t bb_pq_columns(const bb_pq_file *pf) { return pf ? pf->n_cols : 0; }

bb_status bb_pq_column(const bb_pq_file *pf, size_t col, bb_pq_column_info *out) {
    bb_error_clear();
    if (!pf || !out || col >= pf->n_cols) return BB_E_INVAL;
    bb_status s = bb_abi_check(out->size, BB_END_OF(bb_pq_column_info, flat), "bb_pq_column_info",
                               "BB_PQ_COLUMN_INFO_INIT");
    if (s != BB_OK) return s;
    const pq_column *c = &pf->cols[col];
    bb_pq_column_info full = {sizeof full, c->name,  c->type,     c->type_length,
                              c->logical,  c->scale, c->optional, c->flat};
    bb_abi_write(out, out->size, &full, sizeof full);
    return BB_OK;
}

bb_status bb_pq_find_column(const bb_pq_file *pf, const char *name, size_t *col) {
    bb_error_clear();
    if (!pf || !name || !col) return pq_fail(BB_E_INVAL, "invalid argument");
    for (size_t i = 0; i < pf->n_cols; i++)
        if (strcmp(pf->cols[i].name, name) == 0) {
            *col = i;
            return BB_OK;
        }
    return pq_fail(BB_E_INVAL, "no column '%s'", name);
}

bb_status bb_pq_chunk(const bb_pq_file *pf, size_t rg, size_t col, bb_pq_chunk_info *out) {
    bb_error_clear();
    tc_node *m;
    if (!out) return BB_E_INVAL;
    bb_status s = bb_abi_check(out->size, BB_END_OF(bb_pq_chunk_info, bloom_length),
                               "bb_pq_chunk_info", "BB_PQ_CHUNK_INFO_INIT");
    if (s == BB_OK) s = pq_chunk_meta(pf, rg, col, &m);
    if (s != BB_OK) return s;
    int64_t v = 0;
    bb_pq_chunk_info full = BB_PQ_CHUNK_INFO_INIT;
    tc_int(m, 5, &full.num_values);
    tc_int(m, 4, &v);
    full.codec = (int)v;
    full.codec_name = pq_codec_name(v);
    full.bloom_offset = full.bloom_length = -1;
    full.has_bloom = tc_int(m, 14, &full.bloom_offset);
    if (!full.has_bloom) full.bloom_offset = -1;
    if (!tc_int(m, 15, &full.bloom_length)) full.bloom_length = -1;
    bb_abi_write(out, out->size, &full, sizeof full);
    return BB_OK;
}

/* ---- Bloom filter header -------------------------------------------------------------------- */

/* A union member of the header (algorithm, hash, compression) must be the one the spec
 * defines: field `want` of the union, an empty struct. Being liberal: an empty union (as
 * @dsnp/parquetjs writes them) or a missing one can only mean that one value, the only one
 * the spec has; *incomplete notes it. */
static bool union_is(const tc_node *hdr, int16_t id, int16_t want, bool *incomplete) {
    const tc_node *f = tc_field(hdr, id);
    if (!f || (f->type == TC_STRUCT && f->n_kids == 0)) {
        *incomplete = true;
        return true;
    }
    return f->type == TC_STRUCT && f->n_kids == 1 && f->kids[0].id == want &&
           f->kids[0].type == TC_STRUCT;
}

bb_status pq_chunk_bitset(const bb_pq_file *pf, size_t rg, size_t col, const void **bitset,
                          size_t *len_bytes, bool *pow2, bool *incomplete) {
    bb_error_clear();
    bb_pq_chunk_info ci = BB_PQ_CHUNK_INFO_INIT;
    tc_node *m;
    if (!bitset || !len_bytes) return pq_fail(BB_E_INVAL, "invalid argument");
    bb_status s = pq_chunk_meta(pf, rg, col, &m);
    if (s != BB_OK || (s = bb_pq_chunk(pf, rg, col, &ci)) != BB_OK) return s;
    if (!ci.has_bloom)
        return pq_fail(BB_E_ABSENT, "row group %zu, column '%s': no Bloom filter", rg,
                       pf->cols[col].name);
    if (ci.bloom_offset < 4 || (uint64_t)ci.bloom_offset >= pf->footer_start)
        return pq_fail(BB_E_INCONSISTENT,
                       "row group %zu, column '%s': bloom_filter_offset %lld outside the data "
                       "(4 .. %zu)", rg, pf->cols[col].name, (long long)ci.bloom_offset,
                       pf->footer_start);
    size_t avail = pf->footer_start - (size_t)ci.bloom_offset;
    if (ci.bloom_length >= 0 && (uint64_t)ci.bloom_length > avail)
        return pq_fail(BB_E_INCONSISTENT,
                       "row group %zu, column '%s': bloom_filter_length %lld runs past the "
                       "footer", rg, pf->cols[col].name, (long long)ci.bloom_length);
    tc_node hdr;
    size_t used;
    s = tc_parse_struct(pf->data + ci.bloom_offset, avail, &used, &hdr);
    if (s != BB_OK)
        return pq_fail(s, "row group %zu, column '%s': %s Bloom filter header", rg,
                       pf->cols[col].name, s == BB_E_TRUNCATED ? "truncated" : "corrupt");
    int64_t nb = -1;
    bool have_nb = tc_int(&hdr, 1, &nb);
    bool partial = false;
    bool algo = union_is(&hdr, 2, 1, &partial), hash = union_is(&hdr, 3, 1, &partial),
         comp = union_is(&hdr, 4, 1, &partial);
    tc_free(&hdr);
    const char *where = pf->cols[col].name;
    if (!have_nb) return pq_fail(BB_E_CORRUPT, "column '%s': header without numBytes", where);
    if (!algo || !hash || !comp)
        return pq_fail(BB_E_UNSUPPORTED,
                       "column '%s': Bloom filter %s is not the split-block one (BLOCK, XXHASH, "
                       "UNCOMPRESSED)", where, !algo ? "algorithm" : !hash ? "hash" : "compression");
    if (nb <= 0 || nb % 32 != 0)
        return pq_fail(BB_E_INCONSISTENT,
                       "column '%s': numBytes %lld is not a positive multiple of 32 (256-bit "
                       "blocks)", where, (long long)nb);
    if ((uint64_t)nb > avail - used)
        return pq_fail(BB_E_INCONSISTENT,
                       "column '%s': numBytes %lld runs past the end of the data", where,
                       (long long)nb);
    if (ci.bloom_length >= 0 && (uint64_t)ci.bloom_length != used + (uint64_t)nb)
        return pq_fail(BB_E_INCONSISTENT,
                       "column '%s': numBytes %lld disagrees with bloom_filter_length %lld "
                       "(header %zu bytes)", where, (long long)nb, (long long)ci.bloom_length,
                       used);
    *bitset = pf->data + ci.bloom_offset + used;
    *len_bytes = (size_t)nb;
    if (pow2) *pow2 = (nb & (nb - 1)) == 0;
    if (incomplete) *incomplete = partial;
    return BB_OK;
}

bb_status bb_pq_chunk_bitset(const bb_pq_file *pf, size_t rg, size_t col, const void **bitset,
                             size_t *len_bytes, bool *pow2) {
    return pq_chunk_bitset(pf, rg, col, bitset, len_bytes, pow2, NULL);
}

bool bb_pq_chunk_bloom_header_complete(const bb_pq_file *pf, size_t rg, size_t col) {
    const void *bits;
    size_t len;
    bool incomplete = false;
    char keep[BB_LAST_ERROR_CAP]; /* a query without a status leaves the detail text alone */
    memcpy(keep, bb_error_buffer(), sizeof keep);
    bool complete = pq_chunk_bitset(pf, rg, col, &bits, &len, NULL, &incomplete) != BB_OK ||
                    !incomplete;
    memcpy(bb_error_buffer(), keep, sizeof keep);
    return complete;
}
