/* SPDX-License-Identifier: MIT */
/*
 * format.c - the file format of docs/FORMAT.md: a 128-byte little-endian header, then the
 * filter's payload (bit array, or counter array of a counting filter) exactly as it is in
 * memory. Here are its encoder, its validator, and the four ways in and out: buffers, atomic
 * saves (through atomicfile.c), loads and read-only memory mappings. Every kind with a row is stored; a row supplies
 * its own header fields and payload checks (internal.h, "The kinds table"), and a nested
 * kind's payload is its sub-filters, each a complete record of a flat kind (FORMAT.md,
 * "Kind 3: scalable"; the "Nested kinds" section below).
 *
 * Invariants: integers are encoded and decoded byte by byte, so a file is the same on little-
 * and big-endian machines; the payload needs no conversion because its bit i is bit (i & 7)
 * of byte (i >> 3) everywhere. Nothing read is trusted before it is checked, in the order of
 * FORMAT.md "Validation": each check runs as soon as the bytes it needs are there, so a
 * cut-off file reads as truncated and never as corrupt, and every size is compared against
 * the length actually present before anything is allocated or read. Checksums are XXH3-64
 * with seed 0, through bb_xxh3 (hash.c keeps xxhash.h private).
 */
#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(double) == 8, "fpr_target is stored as an IEEE-754 binary64");

/* PNG's trick (PNG spec, section 12.12): a high-bit byte catches 7-bit channels, CR LF and LF
 * catch line-ending conversion, and ^Z stops an accidental `type` on DOS. */
static const uint8_t bb_magic[8] = {0x89, 'B', 'B', 'F', '\r', '\n', 0x1A, '\n'};

static uint64_t checksum(const void *p, uint64_t len) { return bb_xxh3(p, (size_t)len, 0); }

#define HDR_SIZE BB_HDR_SIZE

/* Payload bytes of f: its own for flat kinds; for nested ones, one record (header + payload)
 * per sub-filter. */
static uint64_t payload_size(const bb_filter *f) {
    const bb_kind_ops *row = bb_row(f);
    if (!row->subs) return f->payload_bytes;
    bb_filter *const *subs;
    size_t n = row->subs(f, &subs);
    uint64_t size = 0;
    for (size_t i = 0; i < n; i++) size += HDR_SIZE + subs[i]->payload_bytes;
    return size;
}

/* Bytes after the payload: the key-scheme record of a version-2 file, if f has a scheme. */
static uint64_t trailer_size(const bb_filter *f) {
    return f->scheme.keys != BB_KEYS_PLAIN ? BB_SCHEME_RECORD_BYTES : 0;
}

static uint64_t total_size(const bb_filter *f) { return HDR_SIZE + payload_size(f) + trailer_size(f); }

/* ============================================================================================
 * Encoding
 * ========================================================================================== */

/* The header of f, whose payload (payload_size(f) bytes) has checksum payload_sum. */
static void encode_header(const bb_filter *f, uint64_t payload_sum, uint8_t h[HDR_SIZE]) {
    uint64_t fpr_bits = 0; /* "not sized from p" is all zero bits, also for -0.0 */
    if (f->fpr_target != 0.0) memcpy(&fpr_bits, &f->fpr_target, sizeof fpr_bits);
    const bb_kind_ops *row = bb_row(f);
    memset(h, 0, HDR_SIZE);
    memcpy(h + BB_OFF_MAGIC, bb_magic, sizeof bb_magic);
    bb_put32(h + BB_OFF_VERSION, trailer_size(f) ? BB_FORMAT_VERSION_KEYS : BB_FORMAT_VERSION);
    bb_put32(h + BB_OFF_HDR_SIZE, HDR_SIZE);
    bb_put32(h + BB_OFF_KIND, (uint32_t)f->kind);
    bb_put32(h + BB_OFF_K, f->k);
    bb_put64(h + BB_OFF_BITS, f->bits);
    bb_put64(h + BB_OFF_BLOCKS, f->blocks);
    bb_put64(h + BB_OFF_CAPACITY, f->capacity);
    bb_put64(h + BB_OFF_FPR, fpr_bits);
    bb_put64(h + BB_OFF_SEED, f->seed);
    bb_put64(h + BB_OFF_KEYS, f->keys_added);
    bb_put64(h + BB_OFF_PAYLOAD_LEN, payload_size(f));
    bb_put64(h + BB_OFF_PAYLOAD_SUM, payload_sum);
    if (row->hdr_put) row->hdr_put(f, h);
    bb_put64(h + BB_OFF_HDR_SUM, checksum(h, BB_OFF_HDR_SUM));
}

/* Header and payload of a flat filter (or of one sub-filter) at out. */
static void encode_flat(const bb_filter *f, uint8_t *out) {
    encode_header(f, checksum(f->data, f->payload_bytes), out);
    memcpy(out + HDR_SIZE, f->data, (size_t)f->payload_bytes);
}

/* Any filter into out[0 .. total_size(f)). */
static void encode(const bb_filter *f, uint8_t *out) {
    const bb_kind_ops *row = bb_row(f);
    if (trailer_size(f)) bb_scheme_encode(f, out + HDR_SIZE + payload_size(f));
    if (!row->subs) {
        encode_flat(f, out);
        return;
    }
    bb_filter *const *subs;
    size_t n = row->subs(f, &subs);
    uint8_t *p = out + HDR_SIZE;
    for (size_t i = 0; i < n; i++) {
        encode_flat(subs[i], p);
        p += HDR_SIZE + subs[i]->payload_bytes;
    }
    encode_header(f, checksum(out + HDR_SIZE, payload_size(f)), out);
}

bb_status bb_serialized_size(const bb_filter *f, uint64_t *size_out) {
    if (!f || !size_out) return BB_E_INVAL;
    *size_out = total_size(f); /* payload < 2^57 bytes: no overflow */
    return BB_OK;
}

bb_status bb_serialize(const bb_filter *f, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!f || !buf) return BB_E_INVAL;
    uint64_t size = total_size(f);
    if ((uint64_t)cap < size) return BB_E_INVAL;
    encode(f, buf);
    if (written) *written = (size_t)size;
    return BB_OK;
}

/* ============================================================================================
 * Validation (FORMAT.md, "Validation", steps 1 to 8). The decoded header is kept in a
 * bb_filter without data (`h`), which is what the filter is then built from.
 * ========================================================================================== */

/* Every field on its own and against the others; the header checksum has already matched. */
static bb_status check_fields(const uint8_t *p, bb_filter *h) {
    uint32_t kind = bb_get32(p + BB_OFF_KIND);
    const bb_kind_ops *row = kind <= UINT8_MAX ? bb_kind_row((bb_kind)kind) : NULL;
    /* A valid checksum and an unknown kind mean a newer writer, not damage (see versioning). */
    if (!row) return BB_E_UNSUPPORTED;
    memset(h, 0, sizeof *h);
    h->kind = (bb_kind)kind;
    h->k = bb_get32(p + BB_OFF_K);
    h->bits = bb_get64(p + BB_OFF_BITS);
    h->blocks = bb_get64(p + BB_OFF_BLOCKS);
    h->capacity = bb_get64(p + BB_OFF_CAPACITY);
    uint64_t fpr_bits = bb_get64(p + BB_OFF_FPR);
    memcpy(&h->fpr_target, &fpr_bits, sizeof fpr_bits);
    h->seed = bb_get64(p + BB_OFF_SEED);
    h->keys_added = bb_get64(p + BB_OFF_KEYS);
    h->payload_bytes = bb_get64(p + BB_OFF_PAYLOAD_LEN);

    if (bb_get32(p + BB_OFF_HDR_SIZE) != HDR_SIZE) return BB_E_INCONSISTENT;
    if (h->k == 0 || h->k > BB_MAX_K) return BB_E_INCONSISTENT;
    if (!bb_row_has_k(row, h->k)) return BB_E_INCONSISTENT;
    if (h->bits == 0 || h->bits > BB_MAX_BITS) return BB_E_INCONSISTENT;
    if (row->max_bits && h->bits > row->max_bits) return BB_E_INCONSISTENT;
    uint64_t blocks = row->block_bits ? h->bits / row->block_bits : 0;
    if (row->block_bits && h->bits % row->block_bits) return BB_E_INCONSISTENT;
    if (h->blocks != blocks) return BB_E_INCONSISTENT;
    if (fpr_bits != 0 && !(h->fpr_target > 0.0 && h->fpr_target < 1.0)) return BB_E_INCONSISTENT;
    if (row->hdr_get) {
        bb_status s = row->hdr_get(p, h);
        if (s != BB_OK) return s;
    }
    if (!row->subs && h->payload_bytes != bb_payload_bytes(row, h->bits)) return BB_E_INCONSISTENT;
    for (unsigned i = BB_HDR_KIND_FIELDS + row->hdr_own_bytes; i < BB_OFF_HDR_SUM; i++)
        if (p[i]) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* Steps 1-5 on the first `avail` bytes of the input: magic, version (1, or 2 with a key-scheme
 * record after the payload), header length, header checksum, fields. On success *h holds the
 * header, *payload_sum its payload checksum and *version its version. */
static bb_status parse_header(const uint8_t *p, uint64_t avail, bb_filter *h,
                              uint64_t *payload_sum, uint32_t *version) {
    size_t n = avail < sizeof bb_magic ? (size_t)avail : sizeof bb_magic;
    if (memcmp(p, bb_magic, n) != 0) return BB_E_BAD_MAGIC;
    *version = avail >= BB_OFF_VERSION + 4 ? bb_get32(p + BB_OFF_VERSION) : BB_FORMAT_VERSION;
    if (*version != BB_FORMAT_VERSION && *version != BB_FORMAT_VERSION_KEYS)
        return BB_E_BAD_VERSION;
    if (avail < HDR_SIZE) return BB_E_TRUNCATED;
    if (checksum(p, BB_OFF_HDR_SUM) != bb_get64(p + BB_OFF_HDR_SUM)) return BB_E_CORRUPT;
    *payload_sum = bb_get64(p + BB_OFF_PAYLOAD_SUM);
    return check_fields(p, h);
}

/* Bytes after the payload in a file of this version. */
static uint64_t version_trailer(uint32_t version) {
    return version == BB_FORMAT_VERSION_KEYS ? BB_SCHEME_RECORD_BYTES : 0;
}

/* Step 6: the input is exactly header + payload (+ the version-2 record). */
static bb_status check_length(const bb_filter *h, uint32_t version, uint64_t total) {
    uint64_t need = HDR_SIZE + h->payload_bytes + version_trailer(version);
    if (total < need) return BB_E_TRUNCATED;
    return total > need ? BB_E_INCONSISTENT : BB_OK;
}

/* Steps 7-8: payload checksum, then the kind's own payload checks (a classic filter's
 * unused high bits of the last byte must be zero). */
static bb_status check_payload(const bb_filter *h, const uint8_t *payload, uint64_t sum) {
    if (checksum(payload, h->payload_bytes) != sum) return BB_E_CORRUPT;
    const bb_kind_ops *row = bb_row(h);
    if (row->payload_valid && !row->payload_valid(h, payload)) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* Steps 1-8 on a whole input held in memory, then the version-2 record into h->scheme. */
static bb_status validate(const uint8_t *p, uint64_t len, bb_filter *h) {
    uint64_t sum;
    uint32_t version;
    bb_status s = parse_header(p, len, h, &sum, &version);
    if (s == BB_OK) s = check_length(h, version, len);
    if (s == BB_OK) s = check_payload(h, p + HDR_SIZE, sum);
    if (s == BB_OK && version_trailer(version))
        s = bb_scheme_decode(p + HDR_SIZE + h->payload_bytes, &h->scheme);
    return s;
}

/* A new zeroed heap filter with the geometry and counters of header h. */
static bb_status heap_filter(bb_filter **out, const bb_filter *h) {
    bb_status s = bb_filter_alloc(out, h->kind, h->bits, h->k, h->seed);
    if (s != BB_OK) return s;
    (*out)->capacity = h->capacity;
    (*out)->fpr_target = h->fpr_target;
    (*out)->keys_added = h->keys_added;
    (*out)->scheme = h->scheme;
    return BB_OK;
}

/* ============================================================================================
 * Nested kinds (FORMAT.md, "Kind 3: scalable", step 9). The payload is records, oldest first,
 * each valid on its own as an input of a flat kind (steps 1 to 8); the parent's row adopts
 * each one (refusing those that cannot belong, e.g. another seed) and checks that together
 * they agree with the parent header; they fill the payload exactly. The parent's payload
 * checksum already covers them, so any failure here comes from a faulty writer:
 * BB_E_INCONSISTENT.
 * ========================================================================================== */

/* The record at p (avail bytes left): its header into *sh and its length into *len. */
static bb_status sub_record(const uint8_t *p, uint64_t avail, bb_filter *sh, uint64_t *len) {
    uint64_t sum;
    uint32_t version;
    /* Only the whole filter carries a key scheme: a sub-record is version 1. */
    if (parse_header(p, avail, sh, &sum, &version) != BB_OK || version != BB_FORMAT_VERSION)
        return BB_E_INCONSISTENT;
    /* A nested header inside a nested kind must never become a filter object. */
    if (bb_row(sh)->subs) return BB_E_INCONSISTENT;
    *len = HDR_SIZE + sh->payload_bytes;
    if (*len > avail || check_payload(sh, p + HDR_SIZE, sum) != BB_OK) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* The sub-filter of record sh with its payload at `data`: a heap copy, or (in_place) the
 * bytes of a mapping, which the parent owns and unmaps. */
static bb_status sub_filter(bb_filter **out, const bb_filter *sh, const uint8_t *data,
                            bool in_place) {
    if (!in_place) {
        bb_status s = heap_filter(out, sh);
        if (s == BB_OK) memcpy((*out)->data, data, (size_t)sh->payload_bytes);
        return s;
    }
    if (!(*out = malloc(sizeof **out))) return BB_E_NOMEM;
    **out = *sh;
    (*out)->data = (uint8_t *)(uintptr_t)data;
    (*out)->storage = BB_STORE_FILE; /* map_base NULL: bb_free leaves the mapping alone */
    return BB_OK;
}

/* Step 9, and the nested filter of header h whose payload is at `payload`. */
static bb_status nested_filter(bb_filter **out, const bb_filter *h, const uint8_t *payload,
                               bool in_place) {
    const bb_kind_ops *row = bb_row(h);
    bb_status s = row->shell(out, h);
    uint64_t used = 0;
    while (s == BB_OK && used < h->payload_bytes) {
        bb_filter sh, *sub;
        uint64_t len;
        s = sub_record(payload + used, h->payload_bytes - used, &sh, &len);
        if (s == BB_OK) s = sub_filter(&sub, &sh, payload + used + HDR_SIZE, in_place);
        if (s == BB_OK && (s = row->adopt(*out, sub)) != BB_OK) bb_free(sub);
        used += len;
    }
    if (s == BB_OK && !row->agrees(*out, h)) s = BB_E_INCONSISTENT;
    if (s == BB_OK) (*out)->scheme = h->scheme;
    if (s != BB_OK) {
        bb_free(*out);
        *out = NULL;
    }
    return s;
}

/* A new heap filter from validated header h and its payload. */
static bb_status build_heap(bb_filter **out, const bb_filter *h, const uint8_t *payload) {
    if (bb_row(h)->subs) return nested_filter(out, h, payload, false);
    bb_status s = heap_filter(out, h);
    if (s == BB_OK) memcpy((*out)->data, payload, (size_t)h->payload_bytes);
    return s;
}

bb_status bb_deserialize(bb_filter **out, const void *buf, size_t len) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!buf) return BB_E_INVAL;
    bb_filter h;
    bb_status s = validate(buf, len, &h);
    if (s == BB_OK) s = build_heap(out, &h, (const uint8_t *)buf + HDR_SIZE);
    return s;
}

/* ============================================================================================
 * Files. Every system call that can be interrupted is retried on EINTR; errno is kept from
 * the call that failed (close and unlink during clean-up do not overwrite it).
 * ========================================================================================== */

static void close_keep_errno(int fd) {
    int e = errno;
    close(fd);
    errno = e;
}

/* Read up to n bytes; *got < n only at end of file. */
static bool read_full(int fd, uint8_t *p, uint64_t n, uint64_t *got) {
    *got = 0;
    while (*got < n) {
        uint64_t left = n - *got;
        ssize_t r = read(fd, p + *got, left > (UINT64_C(1) << 30) ? (size_t)1 << 30 : (size_t)left);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return false;
        if (r == 0) break;
        *got += (uint64_t)r;
    }
    return true;
}

/* The file is the header, the payload and the key-scheme record, written from where they
 * are; a nested filter is encoded into a buffer first, because its header's payload checksum
 * covers all sub-records: BB_E_NOMEM (as the header promises, not BB_E_IO) if that buffer
 * cannot be had. atomicfile.c does the temporary file, fsync and rename. */
bb_status bb_save(const bb_filter *f, const char *path) {
    if (!f || !path) return BB_E_INVAL;
    if (bb_row(f)->subs) {
        uint64_t size = total_size(f);
        uint8_t *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
        if (!buf) return BB_E_NOMEM;
        encode(f, buf);
        bb_file_part whole = {buf, (size_t)size};
        bb_status s = bb_write_file_atomically(path, &whole, 1);
        int e = errno;
        free(buf);
        errno = e;
        return s;
    }
    uint8_t hdr[HDR_SIZE], rec[BB_SCHEME_RECORD_BYTES];
    encode_header(f, checksum(f->data, f->payload_bytes), hdr);
    if (trailer_size(f)) bb_scheme_encode(f, rec);
    const bb_file_part parts[] = {
        {hdr, HDR_SIZE}, {f->data, (size_t)f->payload_bytes}, {rec, (size_t)trailer_size(f)}};
    return bb_write_file_atomically(path, parts, sizeof parts / sizeof *parts);
}

/* Load from an open descriptor: header, length (regular files: before allocating, so a
 * header claiming terabytes on a short file reads as truncated, not as out of memory), then
 * the payload straight into the new filter; one more byte must be end of file. Pipes have
 * no size, so for them the reads alone decide truncated or trailing data. */
/* Steps 6 to 8 while reading: the payload of header h into dst, the version-2 record into
 * *scheme (when version says so), then end of file. */
static bb_status read_payload(int fd, const bb_filter *h, uint32_t version, uint64_t sum,
                              uint8_t *dst, bb_key_scheme *scheme) {
    uint8_t rec[BB_SCHEME_RECORD_BYTES], extra;
    uint64_t got, trailer = version_trailer(version);
    if (!read_full(fd, dst, h->payload_bytes, &got)) return BB_E_IO;
    if (got < h->payload_bytes) return BB_E_TRUNCATED;
    if (!read_full(fd, rec, trailer, &got)) return BB_E_IO;
    if (got < trailer) return BB_E_TRUNCATED;
    if (!read_full(fd, &extra, 1, &got)) return BB_E_IO;
    if (got) return BB_E_INCONSISTENT;
    bb_status s = check_payload(h, dst, sum);
    return s == BB_OK && trailer ? bb_scheme_decode(rec, scheme) : s;
}

/* Nested: the payload into a buffer, then the sub-filters copied out of it. */
static bb_status load_nested(bb_filter **out, int fd, bb_filter *h, uint32_t version,
                             uint64_t sum) {
    uint8_t *buf = h->payload_bytes <= SIZE_MAX ? malloc((size_t)h->payload_bytes) : NULL;
    if (!buf) return BB_E_NOMEM;
    bb_status s = read_payload(fd, h, version, sum, buf, &h->scheme);
    if (s == BB_OK) s = nested_filter(out, h, buf, false);
    free(buf);
    return s;
}

static bb_status load_fd(bb_filter **out, int fd) {
    struct stat st;
    uint8_t hdr[HDR_SIZE];
    uint64_t got, sum;
    uint32_t version;
    bb_filter h, *f;
    if (fstat(fd, &st) != 0 || !read_full(fd, hdr, HDR_SIZE, &got)) return BB_E_IO;
    bb_status s = parse_header(hdr, got, &h, &sum, &version);
    if (s == BB_OK && S_ISREG(st.st_mode)) s = check_length(&h, version, (uint64_t)st.st_size);
    if (s == BB_OK && bb_row(&h)->subs) return load_nested(out, fd, &h, version, sum);
    if (s == BB_OK) s = heap_filter(&f, &h);
    if (s != BB_OK) return s;
    s = read_payload(fd, &h, version, sum, f->data, &f->scheme);
    if (s != BB_OK) {
        int e = errno;
        bb_free(f);
        errno = e;
        return s;
    }
    *out = f;
    return BB_OK;
}

/* The argument checks of bb_load and bb_open_mmap, then open `path` for reading. O_NONBLOCK
 * because opening a FIFO without it waits, forever, for a writer; the file type is known only
 * after the open (fstat on the descriptor in the caller, not stat on the path, so no race).
 * O_NONBLOCK is cleared again before anything is read: bb_load then reads a FIFO that has no
 * writer as end of file at once (BB_E_TRUNCATED) and one being written as a pipe;
 * bb_open_mmap refuses every type but a regular file before reading (map_fd). */
static bb_status open_input(bb_filter **out, const char *path, int *fd) {
    if (!out) return BB_E_INVAL;
    *out = NULL;
    if (!path) return BB_E_INVAL;
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0) return BB_E_IO;
    int flags = fcntl(*fd, F_GETFL);
    if (flags < 0 || fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        close_keep_errno(*fd);
        return BB_E_IO;
    }
    return BB_OK;
}

bb_status bb_load(bb_filter **out, const char *path) {
    int fd;
    bb_status s = open_input(out, path, &fd);
    if (s != BB_OK) return s;
    s = load_fd(out, fd);
    close_keep_errno(fd);
    return s;
}

/* Map the whole file read-only. Only regular files: a pipe or device has no size to map. */
static bb_status map_fd(int fd, uint8_t **map, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) return BB_E_IO;
    if (!S_ISREG(st.st_mode)) {
        errno = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
        return BB_E_IO;
    }
    if (st.st_size == 0) return BB_E_TRUNCATED; /* mmap of 0 bytes is EINVAL */
    if ((uint64_t)st.st_size != (uint64_t)(size_t)st.st_size) return BB_E_TOO_LARGE;
    *len = (size_t)st.st_size;
    /* MAP_SHARED, read-only: the page cache is shared with other processes mapping the file. */
    void *m = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return BB_E_IO;
    *map = m;
    return BB_OK;
}

/* The filter object of a validated mapping whose payload is at `payload` (used in place). */
static bb_status mapped_filter(bb_filter **out, const bb_filter *h, uint8_t *payload) {
    if (bb_row(h)->subs) return nested_filter(out, h, payload, true);
    if (!(*out = malloc(sizeof **out))) return BB_E_NOMEM;
    **out = *h;
    (*out)->data = payload;
    return BB_OK;
}

bb_status bb_open_mmap(bb_filter **out, const char *path) {
    int fd;
    bb_status s = open_input(out, path, &fd);
    if (s != BB_OK) return s;
    uint8_t *map = NULL;
    size_t len = 0;
    s = map_fd(fd, &map, &len);
    close_keep_errno(fd); /* the mapping keeps the file open */
    if (s != BB_OK) return s;

    /* Validation reads every byte once, in order: ask for the whole file ahead. Lookups then
     * touch one page each at random, where read-ahead around a fault would be wasted I/O once
     * pages have been evicted. (MADV_HUGEPAGE does not apply to file mappings on most file
     * systems.) Both are advice; failures are ignored. */
    (void)madvise(map, len, MADV_WILLNEED);
    bb_filter h, *f = NULL;
    s = validate(map, len, &h);
    if (s == BB_OK) s = mapped_filter(&f, &h, map + HDR_SIZE);
    if (s != BB_OK) {
        munmap(map, len);
        return s;
    }
    (void)madvise(map, len, MADV_RANDOM);
    f->storage = BB_STORE_FILE;
    f->map_base = map;
    f->map_len = len; /* > 0: bb_mem_free unmaps */
    *out = f;
    return BB_OK;
}
