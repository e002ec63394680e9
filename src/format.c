/*
 * format.c - the file format of docs/FORMAT.md: a 128-byte little-endian header, then the
 * filter's payload (bit array, or counter array of a counting filter) exactly as it is in
 * memory. Here are its encoder, its validator, and the four ways in and out: buffers, atomic
 * saves, loads and read-only memory mappings. Kinds stored: blocked, classic, counting, and
 * scalable, whose payload is its sub-filters, each a complete blocked record (FORMAT.md,
 * "Kind 3: scalable"; the "Scalable filters" section below).
 *
 * Invariants: integers are encoded and decoded byte by byte, so a file is the same on little-
 * and big-endian machines; the payload needs no conversion because its bit i is bit (i & 7)
 * of byte (i >> 3) everywhere. Nothing read is trusted before it is checked, in the order of
 * FORMAT.md "Validation": each check runs as soon as the bytes it needs are there, so a
 * cut-off file reads as truncated and never as corrupt, and every size is compared against
 * the length actually present before anything is allocated or read. Checksums are XXH3-64
 * with seed 0, through bb_xxh3 (hash.c keeps xxhash.h private).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(double) == 8, "fpr_target is stored as an IEEE-754 binary64");

/* ============================================================================================
 * Layout (FORMAT.md, "Header"). The header is a multiple of 64 bytes so that the payload of a
 * memory-mapped file (mmap returns page-aligned memory) is 64-byte aligned like a heap one.
 * ========================================================================================== */
#define HDR_SIZE 128u
enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 8,
    OFF_HDR_SIZE = 12,
    OFF_KIND = 16,
    OFF_K = 20,
    OFF_BITS = 24,
    OFF_BLOCKS = 32,
    OFF_CAPACITY = 40,
    OFF_FPR = 48,
    OFF_SEED = 56,
    OFF_KEYS = 64,
    OFF_PAYLOAD_LEN = 72,
    OFF_PAYLOAD_SUM = 80,
    OFF_RESERVED = 88,
    /* Kind 3 (scalable) gives reserved bytes 88 .. 111 a meaning; 112 .. 119 stay zero. */
    OFF_GROWTH = 88,
    OFF_TIGHTENING = 96,
    OFF_FLAGS = 104,
    OFF_N_SUBS = 108,
    OFF_SCALABLE_RESERVED = 112,
    OFF_HDR_SUM = 120 /* the header checksum covers bytes [0, OFF_HDR_SUM) */
};

/* PNG's trick (PNG spec, section 12.12): a high-bit byte catches 7-bit channels, CR LF and LF
 * catch line-ending conversion, and ^Z stops an accidental `type` on DOS. */
static const uint8_t bb_magic[8] = {0x89, 'B', 'B', 'F', '\r', '\n', 0x1A, '\n'};

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint64_t checksum(const void *p, uint64_t len) { return bb_xxh3(p, (size_t)len, 0); }

/* Kinds whose whole state is the header plus one flat payload. */
static bool flat_kind(uint32_t kind) {
    return kind == BB_BLOCKED || kind == BB_CLASSIC || kind == BB_COUNTING;
}

static bool stored_kind(uint32_t kind) { return flat_kind(kind) || kind == BB_SCALABLE; }

static void put_f64(uint8_t *p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put64(p, bits);
}
static double get_f64(const uint8_t *p) {
    uint64_t bits = get64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Payload bytes of f: its own for flat kinds; for scalable, one record (header + blocks)
 * per sub-filter, and the sub-filters' bits add up to the parent's. */
static uint64_t payload_size(const bb_filter *f) {
    return f->kind == BB_SCALABLE ? f->n_subs * HDR_SIZE + f->bits / 8 : f->payload_bytes;
}

/* ============================================================================================
 * Encoding
 * ========================================================================================== */

/* The header of f, whose payload (payload_size(f) bytes) has checksum payload_sum. */
static void encode_header(const bb_filter *f, uint64_t payload_sum, uint8_t h[HDR_SIZE]) {
    uint64_t fpr_bits = 0; /* "not sized from p" is all zero bits, also for -0.0 */
    if (f->fpr_target != 0.0) memcpy(&fpr_bits, &f->fpr_target, sizeof fpr_bits);
    memset(h, 0, HDR_SIZE);
    memcpy(h + OFF_MAGIC, bb_magic, sizeof bb_magic);
    put32(h + OFF_VERSION, BB_FORMAT_VERSION);
    put32(h + OFF_HDR_SIZE, HDR_SIZE);
    put32(h + OFF_KIND, (uint32_t)f->kind);
    put32(h + OFF_K, f->k);
    put64(h + OFF_BITS, f->bits);
    put64(h + OFF_BLOCKS, f->blocks);
    /* A scalable parent's capacity is the sum; the file keeps c_0, the first sub-filter's. */
    put64(h + OFF_CAPACITY, f->kind == BB_SCALABLE ? f->subs[0]->capacity : f->capacity);
    put64(h + OFF_FPR, fpr_bits);
    put64(h + OFF_SEED, f->seed);
    put64(h + OFF_KEYS, f->keys_added);
    put64(h + OFF_PAYLOAD_LEN, payload_size(f));
    put64(h + OFF_PAYLOAD_SUM, payload_sum);
    if (f->kind == BB_SCALABLE) {
        put_f64(h + OFF_GROWTH, f->growth);
        put_f64(h + OFF_TIGHTENING, f->tightening);
        put32(h + OFF_FLAGS, f->flags);
        put32(h + OFF_N_SUBS, (uint32_t)f->n_subs);
    }
    put64(h + OFF_HDR_SUM, checksum(h, OFF_HDR_SUM));
}

/* Header and payload of a flat filter (or of one sub-filter) at out. */
static void encode_flat(const bb_filter *f, uint8_t *out) {
    encode_header(f, checksum(f->data, f->payload_bytes), out);
    memcpy(out + HDR_SIZE, f->data, (size_t)f->payload_bytes);
}

/* Any filter into out[0 .. HDR_SIZE + payload_size(f)). */
static void encode(const bb_filter *f, uint8_t *out) {
    if (f->kind != BB_SCALABLE) {
        encode_flat(f, out);
        return;
    }
    uint8_t *p = out + HDR_SIZE;
    for (size_t i = 0; i < f->n_subs; i++) {
        encode_flat(f->subs[i], p);
        p += HDR_SIZE + f->subs[i]->payload_bytes;
    }
    encode_header(f, checksum(out + HDR_SIZE, payload_size(f)), out);
}

bb_status bb_serialized_size(const bb_filter *f, uint64_t *size_out) {
    if (!f || !size_out) return BB_E_INVAL;
    if (!stored_kind(f->kind)) return BB_E_UNSUPPORTED;
    *size_out = HDR_SIZE + payload_size(f); /* payload < 2^57 bytes: no overflow */
    return BB_OK;
}

bb_status bb_serialize(const bb_filter *f, void *buf, size_t cap, size_t *written) {
    if (written) *written = 0;
    if (!f || !buf) return BB_E_INVAL;
    if (!stored_kind(f->kind)) return BB_E_UNSUPPORTED;
    uint64_t size = HDR_SIZE + payload_size(f);
    if ((uint64_t)cap < size) return BB_E_INVAL;
    encode(f, buf);
    if (written) *written = (size_t)size;
    return BB_OK;
}

/* ============================================================================================
 * Validation (FORMAT.md, "Validation", steps 1 to 8). The decoded header is kept in a
 * bb_filter without data (`h`), which is what the filter is then built from.
 * ========================================================================================== */

/* Kind 3's own fields: parameters a scalable filter could be created with (p required), at
 * least one sub-filter, and the payload length that many records of these bits take. The
 * sub-records themselves are checked when they are read (read_subfilters). */
static bb_status scalable_fields(const uint8_t *p, bb_filter *h) {
    h->growth = get_f64(p + OFF_GROWTH);
    h->tightening = get_f64(p + OFF_TIGHTENING);
    h->flags = get32(p + OFF_FLAGS);
    h->n_subs = get32(p + OFF_N_SUBS);
    if (!bb_scalable_params_valid(h->fpr_target, h->growth, h->tightening, h->flags))
        return BB_E_INCONSISTENT;
    if (h->n_subs == 0 || h->capacity == 0) return BB_E_INCONSISTENT;
    if (h->payload_bytes != h->n_subs * HDR_SIZE + h->bits / 8) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* Every field on its own and against the others; the header checksum has already matched. */
static bb_status check_fields(const uint8_t *p, bb_filter *h) {
    uint32_t kind = get32(p + OFF_KIND);
    /* A valid checksum and an unknown kind mean a newer writer, not damage (see versioning). */
    if (!stored_kind(kind)) return BB_E_UNSUPPORTED;
    memset(h, 0, sizeof *h);
    h->kind = (bb_kind)kind;
    h->k = get32(p + OFF_K);
    h->bits = get64(p + OFF_BITS);
    h->blocks = get64(p + OFF_BLOCKS);
    h->capacity = get64(p + OFF_CAPACITY);
    uint64_t fpr_bits = get64(p + OFF_FPR);
    memcpy(&h->fpr_target, &fpr_bits, sizeof fpr_bits);
    h->seed = get64(p + OFF_SEED);
    h->keys_added = get64(p + OFF_KEYS);
    h->payload_bytes = get64(p + OFF_PAYLOAD_LEN);

    if (get32(p + OFF_HDR_SIZE) != HDR_SIZE) return BB_E_INCONSISTENT;
    if (h->k == 0 || h->k > BB_MAX_K) return BB_E_INCONSISTENT;
    if (h->bits == 0 || h->bits > BB_MAX_BITS) return BB_E_INCONSISTENT;
    bool whole_blocks = h->kind != BB_CLASSIC; /* blocked, counting, scalable */
    uint64_t blocks = whole_blocks ? h->bits / BB_BLOCK_BITS : 0;
    if (whole_blocks && h->bits % BB_BLOCK_BITS) return BB_E_INCONSISTENT;
    if (h->blocks != blocks) return BB_E_INCONSISTENT;
    if (fpr_bits != 0 && !(h->fpr_target > 0.0 && h->fpr_target < 1.0)) return BB_E_INCONSISTENT;
    unsigned reserved = OFF_RESERVED;
    if (h->kind == BB_SCALABLE) {
        bb_status s = scalable_fields(p, h);
        if (s != BB_OK) return s;
        reserved = OFF_SCALABLE_RESERVED;
    } else if (h->payload_bytes != bb_payload_bytes(h->kind, h->bits)) {
        return BB_E_INCONSISTENT;
    }
    for (unsigned i = reserved; i < OFF_HDR_SUM; i++)
        if (p[i]) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* Steps 1-5 on the first `avail` bytes of the input: magic, version, header length, header
 * checksum, fields. On success *h holds the header and *payload_sum its payload checksum. */
static bb_status parse_header(const uint8_t *p, uint64_t avail, bb_filter *h,
                              uint64_t *payload_sum) {
    size_t n = avail < sizeof bb_magic ? (size_t)avail : sizeof bb_magic;
    if (memcmp(p, bb_magic, n) != 0) return BB_E_BAD_MAGIC;
    if (avail >= OFF_VERSION + 4 && get32(p + OFF_VERSION) != BB_FORMAT_VERSION)
        return BB_E_BAD_VERSION;
    if (avail < HDR_SIZE) return BB_E_TRUNCATED;
    if (checksum(p, OFF_HDR_SUM) != get64(p + OFF_HDR_SUM)) return BB_E_CORRUPT;
    *payload_sum = get64(p + OFF_PAYLOAD_SUM);
    return check_fields(p, h);
}

/* Step 6: the input is exactly header + payload. */
static bb_status check_length(const bb_filter *h, uint64_t total) {
    uint64_t need = HDR_SIZE + h->payload_bytes;
    if (total < need) return BB_E_TRUNCATED;
    return total > need ? BB_E_INCONSISTENT : BB_OK;
}

/* Steps 7-8: payload checksum, then the classic filter's unused high bits of the last byte,
 * which must be zero (internal.h) or bits_set and the FPR estimate would count them. */
static bb_status check_payload(const bb_filter *h, const uint8_t *payload, uint64_t sum) {
    if (checksum(payload, h->payload_bytes) != sum) return BB_E_CORRUPT;
    unsigned used = (unsigned)(h->bits % 8);
    if (h->kind == BB_CLASSIC && used && (payload[h->payload_bytes - 1] >> used))
        return BB_E_INCONSISTENT;
    return BB_OK;
}

/* Steps 1-8 on a whole input held in memory. */
static bb_status validate(const uint8_t *p, uint64_t len, bb_filter *h) {
    uint64_t sum;
    bb_status s = parse_header(p, len, h, &sum);
    if (s == BB_OK) s = check_length(h, len);
    if (s == BB_OK) s = check_payload(h, p + HDR_SIZE, sum);
    return s;
}

/* A new zeroed heap filter with the geometry and counters of header h. */
static bb_status heap_filter(bb_filter **out, const bb_filter *h) {
    bb_status s = bb_filter_alloc(out, h->kind, h->bits, h->k, h->seed);
    if (s != BB_OK) return s;
    (*out)->capacity = h->capacity;
    (*out)->fpr_target = h->fpr_target;
    (*out)->keys_added = h->keys_added;
    return BB_OK;
}

/* ============================================================================================
 * Scalable filters (FORMAT.md, "Kind 3: scalable", step 9). The payload is n_subs records,
 * oldest first, each valid on its own as a kind-0 input (steps 1 to 8) with the parent's
 * seed, a capacity and an fpr_target; together they fill the payload exactly and agree with
 * the parent header (bits, the newest's k, c_0, keys_added). The parent's payload checksum
 * already covers them, so any failure here comes from a faulty writer: BB_E_INCONSISTENT.
 * ========================================================================================== */

/* The record at p (avail bytes left): its header into *sh and its length into *len. */
static bb_status sub_record(const uint8_t *p, uint64_t avail, bb_filter *sh, uint64_t *len) {
    uint64_t sum;
    if (parse_header(p, avail, sh, &sum) != BB_OK) return BB_E_INCONSISTENT;
    /* Only blocked records become sub-filters (a nested scalable header must never become a
     * filter object); bb_scalable_push refuses another seed and capacity 0. */
    if (sh->kind != BB_BLOCKED || sh->fpr_target == 0.0) return BB_E_INCONSISTENT;
    *len = HDR_SIZE + sh->payload_bytes;
    if (*len > avail || check_payload(sh, p + HDR_SIZE, sum) != BB_OK) return BB_E_INCONSISTENT;
    return BB_OK;
}

/* The sub-filter of record sh with its blocks at `data`: a heap copy, or (in_place) the bytes
 * of a mapping, which the parent owns and unmaps. */
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

static bb_status scalable_agrees(const bb_filter *f, const bb_filter *h, uint64_t used) {
    bool ok = used == h->payload_bytes && f->bits == h->bits && f->k == h->k &&
              f->keys_added == h->keys_added && f->subs[0]->capacity == h->capacity;
    return ok ? BB_OK : BB_E_INCONSISTENT;
}

/* Step 9, and the scalable filter of header h whose payload is at `payload`. */
static bb_status scalable_filter(bb_filter **out, const bb_filter *h, const uint8_t *payload,
                                 bool in_place) {
    bb_status s =
        bb_scalable_shell(out, h->fpr_target, h->growth, h->tightening, h->flags, h->seed);
    uint64_t used = 0;
    for (size_t i = 0; s == BB_OK && i < h->n_subs; i++) {
        bb_filter sh, *sub;
        uint64_t len;
        s = sub_record(payload + used, h->payload_bytes - used, &sh, &len);
        if (s == BB_OK) s = sub_filter(&sub, &sh, payload + used + HDR_SIZE, in_place);
        if (s == BB_OK && (s = bb_scalable_push(*out, sub)) != BB_OK) bb_free(sub);
        used += len;
    }
    if (s == BB_OK) s = scalable_agrees(*out, h, used);
    if (s != BB_OK) {
        bb_free(*out);
        *out = NULL;
    }
    return s;
}

/* A new heap filter from validated header h and its payload. */
static bb_status build_heap(bb_filter **out, const bb_filter *h, const uint8_t *payload) {
    if (h->kind == BB_SCALABLE) return scalable_filter(out, h, payload, false);
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

/* Write all n bytes, resuming after short writes. Chunks of 1 GiB: Linux moves at most
 * 0x7ffff000 bytes per call anyway, and ssize_t must hold the result. */
static bool write_full(int fd, const uint8_t *p, uint64_t n) {
    while (n) {
        ssize_t w = write(fd, p, n > (UINT64_C(1) << 30) ? (size_t)1 << 30 : (size_t)n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return false;
        }
        p += w;
        n -= (uint64_t)w;
    }
    return true;
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

/* The permission bits open(path, O_CREAT, 0666) would give: the process umask, read from
 * /proc/self/status (Linux >= 4.7) because umask(2) can only be read by changing it, which
 * races with other threads. Without /proc: 0600, mkstemp's own safe default. */
static mode_t new_file_mode(void) {
    unsigned mask = 077;
    FILE *fp = fopen("/proc/self/status", "re");
    if (fp) {
        char line[256];
        while (fgets(line, sizeof line, fp))
            if (sscanf(line, "Umask: %o", &mask) == 1) break;
        fclose(fp);
    }
    return (mode_t)(0666 & ~mask);
}

/* mkstemp creates mode 0600; a replaced file keeps its permission bits, a new one gets the
 * umask's (the owner becomes the saving user either way). */
static bool set_mode(int fd, const char *path) {
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? (st.st_mode & 0777) : new_file_mode();
    return fchmod(fd, mode) == 0;
}

/* fsync the directory holding `path` so the rename itself survives a crash (rename(2) is
 * atomic, but only durable once the directory is synced). Truncates `path` in place.
 * EINVAL means the file system cannot sync directories: there is nothing more to do. */
static bool sync_parent(char *path) {
    char *slash = strrchr(path, '/');
    const char *dir = path;
    if (!slash)
        dir = ".";
    else
        slash[slash == path] = '\0'; /* "/name" -> "/", "a/b/name" -> "a/b" */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = fsync(fd) == 0 || errno == EINVAL;
    close_keep_errno(fd);
    return ok;
}

/* A flat filter is written from where it is; a scalable one is encoded into a buffer first,
 * because its header's payload checksum covers all sub-records (errno ENOMEM if that fails). */
static bool write_file(int fd, const bb_filter *f, const char *path) {
    if (!set_mode(fd, path)) return false;
    if (f->kind == BB_SCALABLE) {
        uint64_t size = HDR_SIZE + payload_size(f);
        uint8_t *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
        if (!buf) {
            errno = ENOMEM;
            return false;
        }
        encode(f, buf);
        bool ok = write_full(fd, buf, size);
        free(buf);
        return ok && fsync(fd) == 0;
    }
    uint8_t hdr[HDR_SIZE];
    encode_header(f, checksum(f->data, f->payload_bytes), hdr);
    return write_full(fd, hdr, HDR_SIZE) && write_full(fd, f->data, f->payload_bytes) &&
           fsync(fd) == 0;
}

/* The file bb_save replaces: `path` itself, or a symlink's final target so that the link
 * survives (as editors do); and only ever a regular file, because renaming over a FIFO or a
 * device node (say /dev/null, as root) would replace the node instead of writing to it.
 * *target is malloc'd. BB_E_IO with errno EINVAL for other file types, or lstat's errno. */
static bb_status save_target(const char *path, char **target) {
    struct stat st;
    *target = NULL;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) return BB_E_IO;
        *target = strdup(path);
        return *target ? BB_OK : BB_E_NOMEM;
    }
    if (S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL); /* fails (ENOENT) on a dangling link */
        if (!*target || stat(*target, &st) != 0) {
            free(*target);
            *target = NULL;
            return BB_E_IO;
        }
    } else if (!(*target = strdup(path))) {
        return BB_E_NOMEM;
    }
    if (!S_ISREG(st.st_mode)) {
        free(*target);
        *target = NULL;
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return BB_E_IO;
    }
    return BB_OK;
}

bb_status bb_save(const bb_filter *f, const char *path_in) {
    static const char suffix[] = ".tmp.XXXXXX";
    if (!f || !path_in) return BB_E_INVAL;
    if (!stored_kind(f->kind)) return BB_E_UNSUPPORTED;
    char *path;
    bb_status st = save_target(path_in, &path);
    if (st != BB_OK) return st;
    size_t n = strlen(path);
    char *tmp = malloc(n + sizeof suffix);
    if (!tmp) {
        free(path);
        return BB_E_NOMEM;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, suffix, sizeof suffix);

    bb_status s = BB_E_IO;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0) {
        bool ok = write_file(fd, f, path);
        int e = errno;
        if (close(fd) != 0 && ok) { /* NFS reports failed writes at close */
            ok = false;
            e = errno;
        }
        errno = e;
        if (ok && rename(tmp, path) == 0) {
            /* From here `path` is the new file; a failed directory sync only means the
             * rename may not survive a crash, and that is what BB_E_IO then reports. */
            s = sync_parent(tmp) ? BB_OK : BB_E_IO;
        } else {
            e = errno;
            unlink(tmp);
            errno = e;
        }
    }
    free(tmp);
    free(path);
    return s;
}

/* Load from an open descriptor: header, length (regular files: before allocating, so a
 * header claiming terabytes on a short file reads as truncated, not as out of memory), then
 * the payload straight into the new filter; one more byte must be end of file. Pipes have
 * no size, so for them the reads alone decide truncated or trailing data. */
/* Steps 6 to 8 while reading: the payload of header h into dst, then end of file. */
static bb_status read_payload(int fd, const bb_filter *h, uint64_t sum, uint8_t *dst) {
    uint8_t extra;
    uint64_t got;
    if (!read_full(fd, dst, h->payload_bytes, &got)) return BB_E_IO;
    if (got < h->payload_bytes) return BB_E_TRUNCATED;
    if (!read_full(fd, &extra, 1, &got)) return BB_E_IO;
    return got ? BB_E_INCONSISTENT : check_payload(h, dst, sum);
}

/* Scalable: the payload into a buffer, then the sub-filters copied out of it. */
static bb_status load_scalable(bb_filter **out, int fd, const bb_filter *h, uint64_t sum) {
    uint8_t *buf = h->payload_bytes <= SIZE_MAX ? malloc((size_t)h->payload_bytes) : NULL;
    if (!buf) return BB_E_NOMEM;
    bb_status s = read_payload(fd, h, sum, buf);
    if (s == BB_OK) s = scalable_filter(out, h, buf, false);
    free(buf);
    return s;
}

static bb_status load_fd(bb_filter **out, int fd) {
    struct stat st;
    uint8_t hdr[HDR_SIZE];
    uint64_t got, sum;
    bb_filter h, *f;
    if (fstat(fd, &st) != 0 || !read_full(fd, hdr, HDR_SIZE, &got)) return BB_E_IO;
    bb_status s = parse_header(hdr, got, &h, &sum);
    if (s == BB_OK && S_ISREG(st.st_mode)) s = check_length(&h, (uint64_t)st.st_size);
    if (s == BB_OK && h.kind == BB_SCALABLE) return load_scalable(out, fd, &h, sum);
    if (s == BB_OK) s = heap_filter(&f, &h);
    if (s != BB_OK) return s;
    s = read_payload(fd, &h, sum, f->data);
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
    if (h->kind == BB_SCALABLE) return scalable_filter(out, h, payload, true);
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
