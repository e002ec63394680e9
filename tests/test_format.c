/* SPDX-License-Identifier: MIT */
/*
 * test_format.c - the file format of docs/FORMAT.md and the functions that read and write it
 * (bb_serialized_size, bb_serialize, bb_deserialize, bb_save, bb_load, bb_open_mmap): round
 * trips of every stored kind (blocked, classic, counting) through buffers, files and mappings; golden bytes written from the spec
 * alone; every truncation, every single-bit flip of small files; each field check reached
 * with a re-computed header checksum; failed saves that must leave the old file and no
 * temporary behind; NULL arguments.
 *
 * Checksums that tests must forge (to get past the header checksum to a field check) are
 * computed here with xxHash itself, included privately in this file: the library's checksum
 * function is internal. Expected statuses come from the spec's validation order, never from
 * the code under test.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Offsets of docs/FORMAT.md, "Header", restated here on purpose. */
enum {
    HDR = 128,
    O_VERSION = 8, O_HDRSIZE = 12, O_KIND = 16, O_K = 20, O_BITS = 24, O_BLOCKS = 32,
    O_FPR = 48, O_PAYLEN = 72, O_PAYSUM = 80, O_RESERVED = 88, O_HDRSUM = 120
};

/* ---- Fixture: a fresh directory per test (Criterion forks each test; .fini runs even after
 * a failed assertion) ------------------------------------------------------------------------ */
static char dir[64];

static void make_dir(void) {
    strcpy(dir, "/tmp/bb_test_format.XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void remove_dir(void) {
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlink(p) != 0) rmdir(p);
    }
    closedir(d);
    rmdir(dir);
}

TestSuite(format, .init = make_dir, .fini = remove_dir);

static char *in_dir(const char *name) {
    static char p[4][256];
    static int next;
    char *s = p[next++ & 3];
    snprintf(s, sizeof p[0], "%s/%s", dir, name);
    return s;
}

/* Names in the test directory that contain ".tmp." (bb_save's temporaries). */
static int stray_temps(void) {
    int n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* ---- Bytes ------------------------------------------------------------------------------------ */
static void set32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void set64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i); }

/* Re-compute both checksums (payload = everything after the header) as a writer would. */
static void reseal(uint8_t *b, size_t len) {
    set64(b + O_PAYSUM, XXH3_64bits(b + HDR, len - HDR));
    set64(b + O_HDRSUM, XXH3_64bits(b, O_HDRSUM));
}

static uint8_t *serialize(const bb_filter *f, size_t *len) {
    uint64_t size = 0;
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    uint8_t *b = malloc(size + 1); /* + 1: room for trailing-garbage tests */
    cr_assert_not_null(b);
    cr_assert_eq(bb_serialize(f, b, size, len), BB_OK);
    cr_assert_eq(*len, size);
    return b;
}

static void write_bytes(const char *path, const void *b, size_t len) {
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(b, 1, len, fp), len);
    cr_assert_eq(fclose(fp), 0);
}

static uint8_t *read_bytes(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    uint8_t *b = malloc(1 << 20);
    cr_assert_not_null(b);
    *len = fread(b, 1, 1 << 20, fp);
    fclose(fp);
    return b;
}

/* ---- Filters ------------------------------------------------------------------------------------ */
#define N_KEYS 500
#define SEED UINT64_C(0x5eed0f0f0a11ce5)
/* The kinds stored as one flat payload. Kind 3 (scalable: sub-filter records) is tested in
 * tests/test_scalable.c. */
static const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_COUNTING};
#define N_KINDS (sizeof kinds / sizeof *kinds)

/* A filter sized for N_KEYS at 1% (so capacity and fpr_target are set) holding set 7. */
static bb_filter *full_filter(bb_kind kind, uint8_t **keys) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_create_for(&f, kind, N_KEYS, 0.01, SEED), BB_OK);
    *keys = tu_keys(7, N_KEYS);
    cr_assert_eq(bb_add_fixed(f, *keys, TU_KEY_BYTES, 0, N_KEYS), BB_OK);
    return f;
}

/* A small filter of explicit geometry holding 20 keys: blocked 2 blocks (payload 128 bytes),
 * classic 203 bits (payload 26 bytes, the top 5 bits of the last byte unused), counting
 * 2 blocks (1024 4-bit counters, payload 512 bytes), split 4 blocks (payload 128 bytes,
 * k = 8, the only k it has) or sectorized 2 lines (payload 128 bytes, k = 4). */
static uint64_t small_payload(bb_kind kind) {
    return kind == BB_BLOCKED || kind == BB_SPLIT || kind == BB_SECTORIZED ? 128
           : kind == BB_CLASSIC                                              ? 26
                                                                             : 512;
}

static bb_filter *small_filter(bb_kind kind) {
    bb_config c = {.size = sizeof c,
                   .kind = kind,
                   .capacity = 20,
                   .bits = kind == BB_CLASSIC ? 203 : 1024,
                   .k = kind == BB_SPLIT        ? 8
                        : kind == BB_SECTORIZED ? 4
                                                : 3,
                   .seed = 99};
    bb_filter *f = NULL;
    cr_assert_eq(bb_create(&f, &c), BB_OK);
    uint8_t *keys = tu_keys(3, 20);
    cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, 0, 20), BB_OK);
    free(keys);
    return f;
}

/* A filter of one kind, the keys it holds (full samples) and its serialized bytes (with one
 * spare byte after them, for trailing-data tests). */
typedef struct sample {
    bb_kind kind;
    bb_filter *f;
    uint8_t *keys;
    uint8_t *bytes;
    size_t len;
} sample;

static sample make_sample(bb_kind kind, bool full) {
    sample s = {.kind = kind};
    s.f = full ? full_filter(kind, &s.keys) : small_filter(kind);
    s.bytes = serialize(s.f, &s.len);
    return s;
}

static void free_sample(sample *s) {
    bb_free(s->f);
    free(s->keys);
    free(s->bytes);
}

/* Run a per-kind check for every stored kind. */
#define FOR_EACH_KIND(check) for (size_t kind_i = 0; kind_i < N_KINDS; kind_i++) check(kinds[kind_i])

static void assert_same_info(const bb_filter *a, const bb_filter *b, bool b_read_only) {
    bb_info x = BB_INFO_INIT, y = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(a, &x), BB_OK);
    cr_assert_eq(bb_get_info(b, &y), BB_OK);
    cr_assert_eq(x.kind, y.kind);
    cr_assert_eq(x.bytes, y.bytes);
    cr_assert_eq(x.blocks, y.blocks);
    cr_assert_eq(x.seed, y.seed);
    tu_assert_same_counts(&x, &y);
    cr_assert_eq(y.read_only, b_read_only);
    cr_assert_eq(y.format_version, BB_FORMAT_VERSION);
}

/* `g` (a reloaded copy of full sample s) holds every key, reports the same info and
 * serializes to the same bytes. */
static void assert_same_filter(const sample *s, const bb_filter *g, bool g_read_only) {
    uint8_t out[N_KEYS];
    size_t present = 0;
    cr_assert_eq(bb_contains_fixed(g, s->keys, TU_KEY_BYTES, 0, N_KEYS, out, &present), BB_OK);
    cr_assert_eq(present, N_KEYS, "%s: a reloaded filter lost keys: %zu of %d",
                 bb_kind_name(s->kind), present, N_KEYS);
    for (size_t i = 0; i < 50; i++)
        cr_assert(bb_contains(g, s->keys + i * TU_KEY_BYTES, TU_KEY_BYTES));
    assert_same_info(s->f, g, g_read_only);
    size_t len;
    uint8_t *b = serialize(g, &len);
    cr_assert_eq(len, s->len);
    cr_assert_arr_eq(b, s->bytes, len, "%s: reloaded filter serializes differently",
                     bb_kind_name(s->kind));
    free(b);
}

/* ============================================================================================
 * Round trips
 * ========================================================================================== */

static void roundtrip_buffer(bb_kind kind) {
    sample s = make_sample(kind, true);
    bb_filter *g = NULL;
    cr_assert_eq(bb_deserialize(&g, s.bytes, s.len), BB_OK, "kind %s", bb_kind_name(kind));
    assert_same_filter(&s, g, false);
    cr_assert_eq(bb_add(g, "new", 3), BB_OK, "a deserialized filter is writable");
    bb_free(g);
    free_sample(&s);
}
Test(format, roundtrip_buffer) { FOR_EACH_KIND(roundtrip_buffer); }

static void roundtrip_file(bb_kind kind) {
    sample s = make_sample(kind, true);
    bb_filter *g = NULL;
    const char *path = in_dir("f.bbf");
    cr_assert_eq(bb_save(s.f, path), BB_OK, "kind %s: %s", bb_kind_name(kind), strerror(errno));
    cr_assert_eq(bb_load(&g, path), BB_OK);
    assert_same_filter(&s, g, false);
    size_t len; /* the file is exactly bb_serialize's bytes */
    uint8_t *file = read_bytes(path, &len);
    cr_assert_eq(len, s.len);
    cr_assert_arr_eq(file, s.bytes, len);
    cr_assert_eq(stray_temps(), 0);
    free(file);
    bb_free(g);
    free_sample(&s);
}
Test(format, roundtrip_file) { FOR_EACH_KIND(roundtrip_file); }

static void roundtrip_mmap(bb_kind kind) {
    sample s = make_sample(kind, true);
    bb_filter *m = NULL, *c = NULL;
    const char *path = in_dir("m.bbf");
    cr_assert_eq(bb_save(s.f, path), BB_OK);
    cr_assert_eq(bb_open_mmap(&m, path), BB_OK, "kind %s", bb_kind_name(kind));
    assert_same_filter(&s, m, true);

    /* Read-only: every change is refused, and nothing changes. */
    cr_assert_eq(bb_add(m, "x", 1), BB_E_READONLY);
    cr_assert_eq(bb_add_hash(m, 1), BB_E_READONLY);
    cr_assert_eq(bb_add_fixed(m, s.keys, TU_KEY_BYTES, 0, 1), BB_E_READONLY);
    cr_assert_eq(bb_clear(m), BB_E_READONLY);
    if (kind == BB_COUNTING) cr_assert_eq(bb_remove(m, s.keys, TU_KEY_BYTES), BB_E_READONLY);
    assert_same_filter(&s, m, true);

    /* A clone is an ordinary writable heap filter with the same content. */
    cr_assert_eq(bb_clone(&c, m), BB_OK);
    assert_same_filter(&s, c, false);
    uint8_t other[TU_KEY_BYTES];
    tu_key(other, 8, 0);
    cr_assert_eq(bb_add(c, other, sizeof other), BB_OK);
    cr_assert(bb_contains(c, other, sizeof other));
    bb_info ic = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(c, &ic), BB_OK);
    cr_assert_eq(ic.keys_added, N_KEYS + 1);
    bb_free(c);
    bb_free(m);
    free_sample(&s);
}
Test(format, roundtrip_mmap) { FOR_EACH_KIND(roundtrip_mmap); }

/* bb_save replaces an existing file; a replaced file keeps its permission bits, a new one gets
 * 0666 minus the umask, as open(O_CREAT, 0666) would. */
Test(format, save_replaces_and_sets_mode) {
    bb_filter *a = small_filter(BB_BLOCKED), *b = small_filter(BB_CLASSIC), *g = NULL;
    const char *path = in_dir("r.bbf");
    struct stat st;
    umask(022);
    cr_assert_eq(bb_save(a, path), BB_OK);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", (unsigned)(st.st_mode & 0777));
    cr_assert_eq(chmod(path, 0640), 0);
    cr_assert_eq(bb_save(b, path), BB_OK);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0640, "mode %o", (unsigned)(st.st_mode & 0777));
    cr_assert_eq(bb_load(&g, path), BB_OK);
    bb_info info = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(g, &info), BB_OK);
    cr_assert_eq(info.kind, BB_CLASSIC, "the second save replaced the first");
    umask(077);
    cr_assert_eq(bb_save(a, in_dir("private.bbf")), BB_OK);
    cr_assert_eq(stat(in_dir("private.bbf"), &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", (unsigned)(st.st_mode & 0777));
    cr_assert_eq(stray_temps(), 0);
    bb_free(g);
    bb_free(a);
    bb_free(b);
}

/* ============================================================================================
 * Golden bytes. Written from docs/FORMAT.md alone by a Python script (struct.pack('<...') of
 * the header fields; payload bits set by the probe schemes of the public headers); the two
 * XXH3-64 checksums were computed once with Debian's xxhsum 0.8.1 (`xxhsum -H3 FILE` on the
 * payload, then on header bytes 0..119), not by this library. Any change to these bytes is a
 * format change: it needs a new BB_FORMAT_VERSION.
 * ========================================================================================== */

/* Blocked: bits 512 (1 block), k 3, capacity 7, no fpr target, seed 0x0123456789abcdef, after
 * bb_add_hash of 0x00000000deadbeef and 0xffffffff00000001. */
static const uint8_t golden_blocked[192] = {
    0x89, 0x42, 0x42, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, /*   0 magic "\x89BBF\r\n\x1a\n"   */
    0x01, 0x00, 0x00, 0x00,                         /*   8 version 1                  */
    0x80, 0x00, 0x00, 0x00,                         /*  12 header size 128            */
    0x00, 0x00, 0x00, 0x00,                         /*  16 kind 0 (blocked)           */
    0x03, 0x00, 0x00, 0x00,                         /*  20 k 3                        */
    0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 bits 512                   */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 blocks 1                   */
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 capacity 7                 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  48 fpr target: none (0)       */
    0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, /*  56 seed                       */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  64 keys added 2               */
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 payload bytes 64           */
    0x50, 0x95, 0x31, 0x0e, 0x51, 0xa9, 0x52, 0x70, /*  80 payload XXH3 7052a9510e319550 */
    [120] = 0x13, 0x93, 0x6b, 0xb3, 0x50, 0x5b, 0x37, 0x95, /* header XXH3 95375b50b36b9313 */
    /* payload (offset 128): lo 0xdeadbeef sets bits 292, 461, 380; lo 1 sets 316, 454, 230 */
    [156] = 0x40, [164] = 0x10, [167] = 0x10, [175] = 0x10, [184] = 0x40, [185] = 0x20,
};

/* Classic: bits 20, k 2, capacity 50, fpr target 0.01 (binary64 0x3f847ae147ae147b), seed 42,
 * after bb_add_hash(0x9e3779b97f4a7c15), which sets bits 4 and 12. */
static const uint8_t golden_classic[131] = {
    0x89, 0x42, 0x42, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, /*   0 magic                      */
    0x01, 0x00, 0x00, 0x00,                         /*   8 version 1                  */
    0x80, 0x00, 0x00, 0x00,                         /*  12 header size 128            */
    0x01, 0x00, 0x00, 0x00,                         /*  16 kind 1 (classic)           */
    0x02, 0x00, 0x00, 0x00,                         /*  20 k 2                        */
    0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 bits 20                    */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 blocks 0                   */
    0x32, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 capacity 50                */
    0x7b, 0x14, 0xae, 0x47, 0xe1, 0x7a, 0x84, 0x3f, /*  48 fpr target 0.01            */
    0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  56 seed 42                    */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  64 keys added 1               */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 payload bytes 3            */
    0xd8, 0x5d, 0x84, 0x90, 0x97, 0xdb, 0xad, 0xf9, /*  80 payload XXH3 f9addb9790845dd8 */
    [120] = 0x77, 0xe4, 0xff, 0xa8, 0x86, 0x86, 0x31, 0x4b, /* header XXH3 4b318686a8ffe477 */
    0x10, 0x10, 0x00,                               /* 128 payload                    */
};

Test(format, golden_blocked_bytes) {
    bb_config c = {.size = sizeof c,
                   .kind = BB_BLOCKED,
                   .capacity = 7,
                   .bits = 512,
                   .k = 3,
                   .seed = UINT64_C(0x0123456789abcdef)};
    bb_filter *f = NULL, *g = NULL;
    cr_assert_eq(bb_create(&f, &c), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0x00000000deadbeef)), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0xffffffff00000001)), BB_OK);
    size_t len;
    uint8_t *b = serialize(f, &len);
    cr_assert_eq(len, sizeof golden_blocked);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(b[i], golden_blocked[i], "byte %zu is %02x, spec says %02x", i, b[i],
                     golden_blocked[i]);
    /* The checksums in the literal are real XXH3 values (guards the literal itself). */
    cr_assert_eq(XXH3_64bits(golden_blocked + HDR, 64), UINT64_C(0x7052a9510e319550));
    cr_assert_eq(XXH3_64bits(golden_blocked, O_HDRSUM), UINT64_C(0x95375b50b36b9313));
    cr_assert_eq(bb_deserialize(&g, golden_blocked, sizeof golden_blocked), BB_OK);
    cr_assert(bb_contains_hash(g, UINT64_C(0x00000000deadbeef)));
    cr_assert(bb_contains_hash(g, UINT64_C(0xffffffff00000001)));
    bb_free(g);
    bb_free(f);
    free(b);
}

Test(format, golden_classic_decode) {
    bb_filter *g = NULL, *f = NULL;
    cr_assert_eq(bb_deserialize(&g, golden_classic, sizeof golden_classic), BB_OK);
    bb_info info = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(g, &info), BB_OK);
    cr_assert_eq(info.kind, BB_CLASSIC);
    cr_assert_eq(info.bits, 20);
    cr_assert_eq(info.k, 2);
    cr_assert_eq(info.blocks, 0);
    cr_assert_eq(info.capacity, 50);
    cr_assert_eq(info.fpr_target, 0.01);
    cr_assert_eq(info.seed, 42);
    cr_assert_eq(info.keys_added, 1);
    cr_assert_eq(info.bits_set, 2);
    cr_assert(bb_contains_hash(g, UINT64_C(0x9e3779b97f4a7c15)));
    size_t len;
    uint8_t *b = serialize(g, &len);
    cr_assert_eq(len, sizeof golden_classic);
    cr_assert_arr_eq(b, golden_classic, len, "decode + encode changed the bytes");
    /* The library's own classic filter with that hash has the same payload. */
    bb_config c = {
        .size = sizeof c, .kind = BB_CLASSIC, .capacity = 50, .bits = 20, .k = 2, .seed = 42};
    cr_assert_eq(bb_create(&f, &c), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0x9e3779b97f4a7c15)), BB_OK);
    free(b);
    b = serialize(f, &len);
    cr_assert_arr_eq(b + HDR, golden_classic + HDR, 3);
    bb_free(f);
    bb_free(g);
    free(b);
}

/* Counting: as golden_blocked but kind 2, keys added 3: bb_add_hash of 0x00000000deadbeef
 * twice and of 0xffffffff00000001 once. Payload (256 bytes): position p is the 4-bit counter
 * in byte p >> 1, low nibble for even p; 0xdeadbeef's positions 292, 461, 380 count 2, those of
 * lo 1 (316, 454, 230) count 1. */
static const uint8_t golden_counting_header[128] = {
    0x89, 0x42, 0x42, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, /*   0 magic                      */
    0x01, 0x00, 0x00, 0x00,                         /*   8 version 1                  */
    0x80, 0x00, 0x00, 0x00,                         /*  12 header size 128            */
    0x02, 0x00, 0x00, 0x00,                         /*  16 kind 2 (counting)          */
    0x03, 0x00, 0x00, 0x00,                         /*  20 k 3                        */
    0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  24 bits (counters) 512        */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  32 blocks 1                   */
    0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  40 capacity 7                 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  48 fpr target: none (0)       */
    0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, /*  56 seed                       */
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  64 keys added 3               */
    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /*  72 payload bytes 256          */
    0x8c, 0xf6, 0xbe, 0x25, 0xe4, 0xfe, 0x8b, 0xc2, /*  80 payload XXH3 c28bfee425bef68c */
    [120] = 0x94, 0x74, 0x63, 0x3f, 0x6e, 0xf3, 0x89, 0x72, /* header XXH3 7289f36e3f637494 */
};
static const uint8_t golden_counting_payload[256] = {
    [115] = 0x01, [146] = 0x02, [158] = 0x01, [190] = 0x02, [227] = 0x01, [230] = 0x20,
};

Test(format, golden_counting_bytes) {
    bb_config c = {.size = sizeof c,
                   .kind = BB_COUNTING,
                   .capacity = 7,
                   .bits = 512,
                   .k = 3,
                   .seed = UINT64_C(0x0123456789abcdef)};
    bb_filter *f = NULL, *g = NULL;
    cr_assert_eq(bb_create(&f, &c), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0x00000000deadbeef)), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0x00000000deadbeef)), BB_OK);
    cr_assert_eq(bb_add_hash(f, UINT64_C(0xffffffff00000001)), BB_OK);
    size_t len;
    uint8_t *b = serialize(f, &len);
    cr_assert_eq(len, 128 + 256);
    for (size_t i = 0; i < len; i++) {
        uint8_t want = i < HDR ? golden_counting_header[i] : golden_counting_payload[i - HDR];
        cr_assert_eq(b[i], want, "byte %zu is %02x, spec says %02x", i, b[i], want);
    }
    cr_assert_eq(XXH3_64bits(golden_counting_payload, 256), UINT64_C(0xc28bfee425bef68c));
    cr_assert_eq(XXH3_64bits(golden_counting_header, O_HDRSUM), UINT64_C(0x7289f36e3f637494));
    cr_assert_eq(bb_deserialize(&g, b, len), BB_OK);
    cr_assert_eq(bb_remove_hash(g, UINT64_C(0xffffffff00000001)), BB_OK, "counters survive");
    cr_assert_eq(bb_remove_hash(g, UINT64_C(0x00000000deadbeef)), BB_OK);
    cr_assert(bb_contains_hash(g, UINT64_C(0x00000000deadbeef)), "its counters were 2");
    bb_free(g);
    bb_free(f);
    free(b);
}

/* ============================================================================================
 * Damage: truncation, bit flips, trailing data
 * ========================================================================================== */

static bb_status deserialize_status(const uint8_t *b, size_t len) {
    bb_filter *g = (bb_filter *)&g; /* must become NULL on error */
    bb_status s = bb_deserialize(&g, b, len);
    cr_assert_eq(s == BB_OK, g != NULL, "*out must be NULL exactly on error");
    bb_free(g);
    return s;
}

/* Status of bb_load or bb_open_mmap (`reader`) on path. */
static bb_status file_status(bb_status (*reader)(bb_filter **, const char *), const char *path) {
    bb_filter *g = (bb_filter *)&g;
    bb_status s = reader(&g, path);
    cr_assert_eq(s == BB_OK, g != NULL, "*out must be NULL exactly on error");
    bb_free(g);
    return s;
}
#define load_status(path) file_status(bb_load, (path))
#define mmap_status(path) file_status(bb_open_mmap, (path))

/* Every prefix of a valid file is a prefix of the magic, of the right version, or a whole
 * header whose sizes say more is to come: truncated, through all three readers. */
static void every_truncation(bb_kind kind) {
    sample s = make_sample(kind, false);
    const char *path = in_dir("t.bbf");
    write_bytes(path, s.bytes, s.len);
    for (size_t n = s.len; n-- > 0;) {
        cr_assert_eq(deserialize_status(s.bytes, n), BB_E_TRUNCATED, "%s, %zu of %zu bytes",
                     bb_kind_name(kind), n, s.len);
        cr_assert_eq(truncate(path, (off_t)n), 0);
        cr_assert_eq(load_status(path), BB_E_TRUNCATED, "load, %zu bytes", n);
        cr_assert_eq(mmap_status(path), BB_E_TRUNCATED, "mmap, %zu bytes", n);
    }
    free_sample(&s);
}
Test(format, every_truncation) { FOR_EACH_KIND(every_truncation); }

/* Every single-bit flip: in the magic or version it is named as such; anywhere else in the
 * header the header checksum catches it (a flip in the checksum field itself too), and in the
 * payload (the classic filter's unused bits included) the payload checksum. */
static void every_bit_flip(bb_kind kind) {
    sample s = make_sample(kind, false);
    uint8_t *b = s.bytes;
    for (size_t bit = 0; bit < s.len * 8; bit++) {
        size_t byte = bit / 8;
        bb_status want = byte < O_VERSION ? BB_E_BAD_MAGIC
                         : byte < O_HDRSIZE ? BB_E_BAD_VERSION : BB_E_CORRUPT;
        b[byte] ^= (uint8_t)(1u << bit % 8);
        bb_status got = deserialize_status(b, s.len);
        cr_assert_eq(got, want, "%s: bit %zu -> %s", bb_kind_name(kind), bit, bb_strerror(got));
        b[byte] ^= (uint8_t)(1u << bit % 8);
    }
    cr_assert_eq(deserialize_status(b, s.len), BB_OK);
    free_sample(&s);
}
Test(format, every_bit_flip) { FOR_EACH_KIND(every_bit_flip); }

/* One flipped payload bit, through the file readers (they share the checks). */
Test(format, payload_flip_in_files) {
    sample s = make_sample(BB_BLOCKED, false);
    s.bytes[s.len - 1] ^= 0x80;
    write_bytes(in_dir("c.bbf"), s.bytes, s.len);
    cr_assert_eq(load_status(in_dir("c.bbf")), BB_E_CORRUPT);
    cr_assert_eq(mmap_status(in_dir("c.bbf")), BB_E_CORRUPT);
    free_sample(&s);
}

static void trailing_data(bb_kind kind) {
    sample s = make_sample(kind, false);
    s.bytes[s.len] = 0; /* the spare byte */
    cr_assert_eq(deserialize_status(s.bytes, s.len + 1), BB_E_INCONSISTENT);
    write_bytes(in_dir("g.bbf"), s.bytes, s.len + 1);
    cr_assert_eq(load_status(in_dir("g.bbf")), BB_E_INCONSISTENT);
    cr_assert_eq(mmap_status(in_dir("g.bbf")), BB_E_INCONSISTENT);
    free_sample(&s);
}
Test(format, trailing_data) { FOR_EACH_KIND(trailing_data); }

/* ============================================================================================
 * Field checks: change one field, re-seal both checksums, expect the spec's status.
 * ========================================================================================== */

typedef struct edit {
    const char *what;
    size_t off, width; /* field to overwrite, 4 or 8 bytes; width 1 = one byte */
    uint64_t value;
    bb_status want;
} edit;

static void check_edits(bb_kind kind, const edit *e, size_t n) {
    sample s = make_sample(kind, false);
    uint8_t *b = malloc(s.len);
    cr_assert_not_null(b);
    for (size_t i = 0; i < n; i++) {
        memcpy(b, s.bytes, s.len);
        if (e[i].width == 8)
            set64(b + e[i].off, e[i].value);
        else if (e[i].width == 4)
            set32(b + e[i].off, (uint32_t)e[i].value);
        else
            b[e[i].off] = (uint8_t)e[i].value;
        reseal(b, s.len);
        bb_status got = deserialize_status(b, s.len);
        cr_assert_eq(got, e[i].want, "%s %s: got %s, expected %s", bb_kind_name(kind),
                     e[i].what, bb_strerror(got), bb_strerror(e[i].want));
    }
    free(b);
    free_sample(&s);
}

/* Shared by all kinds (see small_filter). */
static const edit common_edits[] = {
    {"unchanged (re-seal is a no-op)", O_K, 4, 3, BB_OK},
    {"k 16 (largest)", O_K, 4, 16, BB_OK},
    {"fpr 0.5", O_FPR, 8, UINT64_C(0x3fe0000000000000), BB_OK},
    /* Version 2 promises the 64-byte key-scheme record after the payload (FORMAT.md). */
    {"version 2 without its record", O_VERSION, 4, 2, BB_E_TRUNCATED},
    {"version 3 (after re-seal too)", O_VERSION, 4, 3, BB_E_BAD_VERSION},
    {"version 0", O_VERSION, 4, 0, BB_E_BAD_VERSION},
    {"magic", 3, 1, 'X', BB_E_BAD_MAGIC},
    {"kind 3 (scalable, but growth, tightening, sub-filters 0)", O_KIND, 4, BB_SCALABLE,
     BB_E_INCONSISTENT},
    {"kind 6 (a future kind)", O_KIND, 4, 6, BB_E_UNSUPPORTED},
    {"kind 0xffffffff", O_KIND, 4, 0xffffffff, BB_E_UNSUPPORTED},
    {"header size 64", O_HDRSIZE, 4, 64, BB_E_INCONSISTENT},
    {"header size 192", O_HDRSIZE, 4, 192, BB_E_INCONSISTENT},
    {"k 0", O_K, 4, 0, BB_E_INCONSISTENT},
    {"k 17", O_K, 4, 17, BB_E_INCONSISTENT},
    {"k 2^32-1", O_K, 4, 0xffffffff, BB_E_INCONSISTENT},
    {"bits 0", O_BITS, 8, 0, BB_E_INCONSISTENT},
    {"bits 2^56 + 512", O_BITS, 8, (UINT64_C(1) << 56) + 512, BB_E_INCONSISTENT},
    {"bits 2^64 - 512", O_BITS, 8, UINT64_MAX - 511, BB_E_INCONSISTENT},
    {"payload length + 1", O_PAYLEN, 8, 0, BB_E_INCONSISTENT}, /* value set per kind below */
    {"payload length 2^64-1", O_PAYLEN, 8, UINT64_MAX, BB_E_INCONSISTENT},
    {"fpr 1.0", O_FPR, 8, UINT64_C(0x3ff0000000000000), BB_E_INCONSISTENT},
    {"fpr -0.5", O_FPR, 8, UINT64_C(0xbfe0000000000000), BB_E_INCONSISTENT},
    {"fpr -0.0", O_FPR, 8, UINT64_C(0x8000000000000000), BB_E_INCONSISTENT},
    {"fpr NaN", O_FPR, 8, UINT64_C(0x7ff8000000000000), BB_E_INCONSISTENT},
    {"fpr +inf", O_FPR, 8, UINT64_C(0x7ff0000000000000), BB_E_INCONSISTENT},
};

Test(format, field_checks_common) {
    for (size_t i = 0; i < N_KINDS; i++) {
        edit e[sizeof common_edits / sizeof *common_edits];
        memcpy(e, common_edits, sizeof e);
        for (size_t j = 0; j < sizeof e / sizeof *e; j++)
            if (e[j].off == O_PAYLEN && e[j].value == 0) e[j].value = small_payload(kinds[i]) + 1;
        check_edits(kinds[i], e, sizeof e / sizeof *e);
    }
}

Test(format, field_checks_blocked) {
    static const edit e[] = {
        {"bits 1023 (not whole blocks)", O_BITS, 8, 1023, BB_E_INCONSISTENT},
        {"bits 1025 (not whole blocks)", O_BITS, 8, 1025, BB_E_INCONSISTENT},
        {"bits 1536, blocks 2", O_BITS, 8, 1536, BB_E_INCONSISTENT},
        {"blocks 3", O_BLOCKS, 8, 3, BB_E_INCONSISTENT},
        {"blocks 0", O_BLOCKS, 8, 0, BB_E_INCONSISTENT},
        {"kind classic (bits 1024: blocks must be 0)", O_KIND, 4, BB_CLASSIC, BB_E_INCONSISTENT},
        {"kind counting (payload must be 512 bytes)", O_KIND, 4, BB_COUNTING, BB_E_INCONSISTENT},
    };
    check_edits(BB_BLOCKED, e, sizeof e / sizeof *e);
}

Test(format, field_checks_classic) {
    static const edit e[] = {
        {"blocks 1", O_BLOCKS, 8, 1, BB_E_INCONSISTENT},
        {"bits 204 (same payload length)", O_BITS, 8, 204, BB_OK},
        {"bits 208 (same payload length)", O_BITS, 8, 208, BB_OK},
        {"bits 209 (payload needs 27 bytes)", O_BITS, 8, 209, BB_E_INCONSISTENT},
        {"bits 200 (payload needs 25 bytes)", O_BITS, 8, 200, BB_E_INCONSISTENT},
        {"kind blocked (bits 203 not whole blocks)", O_KIND, 4, BB_BLOCKED, BB_E_INCONSISTENT},
        /* Bits past bit 203 in the last payload byte (offset 128 + 25) must be zero. */
        {"unused bit 203 set", HDR + 25, 1, 0x08, BB_E_INCONSISTENT},
        {"unused bit 207 set", HDR + 25, 1, 0x80, BB_E_INCONSISTENT},
        {"used bits 200-202 set", HDR + 25, 1, 0x07, BB_OK},
    };
    check_edits(BB_CLASSIC, e, sizeof e / sizeof *e);
}

Test(format, field_checks_counting) {
    static const edit e[] = {
        {"bits 1023 (not whole blocks)", O_BITS, 8, 1023, BB_E_INCONSISTENT},
        {"blocks 1", O_BLOCKS, 8, 1, BB_E_INCONSISTENT},
        {"payload length 128 (blocked's)", O_PAYLEN, 8, 128, BB_E_INCONSISTENT},
        {"kind blocked (payload must be 128 bytes)", O_KIND, 4, BB_BLOCKED, BB_E_INCONSISTENT},
        {"counter 15 (saturated) is valid", HDR + 511, 1, 0xff, BB_OK},
    };
    check_edits(BB_COUNTING, e, sizeof e / sizeof *e);
}

Test(format, reserved_bytes_must_be_zero) {
    edit e[O_HDRSUM - O_RESERVED];
    for (size_t i = 0; i < sizeof e / sizeof *e; i++)
        e[i] = (edit){"reserved byte", O_RESERVED + i, 1, 0x01, BB_E_INCONSISTENT};
    for (size_t i = 0; i < N_KINDS; i++) check_edits(kinds[i], e, sizeof e / sizeof *e);
}

/* A valid header announcing a longer payload than present: truncated, whatever its size, and
 * without trying to allocate it first. */
Test(format, header_promises_more_than_present) {
    static const uint64_t bits[] = {2048, UINT64_C(1) << 40, UINT64_C(1) << 56};
    sample s = make_sample(BB_BLOCKED, false);
    for (size_t i = 0; i < 3; i++) {
        set64(s.bytes + O_BITS, bits[i]);
        set64(s.bytes + O_BLOCKS, bits[i] / 512);
        set64(s.bytes + O_PAYLEN, bits[i] / 8);
        reseal(s.bytes, s.len);
        cr_assert_eq(deserialize_status(s.bytes, s.len), BB_E_TRUNCATED, "bits %llu",
                     (unsigned long long)bits[i]);
        write_bytes(in_dir("p.bbf"), s.bytes, s.len);
        cr_assert_eq(load_status(in_dir("p.bbf")), BB_E_TRUNCATED);
        cr_assert_eq(mmap_status(in_dir("p.bbf")), BB_E_TRUNCATED);
    }
    free_sample(&s);
}

/* Input that is not a filter at all is named by its first bytes, even when short. */
Test(format, not_a_filter) {
    static const char text[] = "hello\n";
    cr_assert_eq(deserialize_status((const uint8_t *)text, 6), BB_E_BAD_MAGIC);
    cr_assert_eq(deserialize_status((const uint8_t *)"\x89" "BBX", 4), BB_E_BAD_MAGIC);
    cr_assert_eq(deserialize_status((const uint8_t *)"\x89" "BB", 3), BB_E_TRUNCATED);
    cr_assert_eq(deserialize_status((const uint8_t *)"", 0), BB_E_TRUNCATED);
    /* Magic and a version 7 in 12 bytes: the version is known before the header is whole. */
    cr_assert_eq(deserialize_status((const uint8_t *)"\x89" "BBF\r\n\x1a\n\x07\0\0\0", 12),
                 BB_E_BAD_VERSION);
    write_bytes(in_dir("text"), text, 6);
    cr_assert_eq(load_status(in_dir("text")), BB_E_BAD_MAGIC);
    cr_assert_eq(mmap_status(in_dir("text")), BB_E_BAD_MAGIC);
    write_bytes(in_dir("empty"), "", 0);
    cr_assert_eq(load_status(in_dir("empty")), BB_E_TRUNCATED);
    cr_assert_eq(mmap_status(in_dir("empty")), BB_E_TRUNCATED);
}

/* ============================================================================================
 * I/O errors. We run as root, so permission bits cannot make a save fail; these are the
 * honest ways left: a path through a non-directory, a missing directory, a directory that
 * refuses new files (/proc), a target that is a directory (rename fails), and RLIMIT_FSIZE,
 * which makes write(2) fail with EFBIG for root too. Not tested: failures of fsync, of
 * close and of the directory fsync, which need a failing device. Never test bb_save on
 * /dev/full itself: as root it would create the temporary in /dev and rename it over the
 * device node.
 * ========================================================================================== */

Test(format, save_errors) {
    bb_filter *f = small_filter(BB_BLOCKED);
    errno = 0;
    cr_assert_eq(bb_save(f, "/dev/full/x"), BB_E_IO);
    cr_assert_eq(errno, ENOTDIR, "errno %s", strerror(errno));
    errno = 0;
    cr_assert_eq(bb_save(f, in_dir("missing/f.bbf")), BB_E_IO);
    cr_assert_eq(errno, ENOENT, "errno %s", strerror(errno));
    cr_assert_eq(bb_save(f, "/proc/bb_test_format.bbf"), BB_E_IO);
    cr_assert_eq(bb_save(f, ""), BB_E_IO);

    /* Target is a directory: the temporary is written, the rename fails, the temporary goes. */
    const char *sub = in_dir("sub");
    cr_assert_eq(mkdir(sub, 0755), 0);
    errno = 0;
    cr_assert_eq(bb_save(f, sub), BB_E_IO);
    cr_assert_eq(errno, EISDIR, "errno %s", strerror(errno));
    struct stat st;
    cr_assert_eq(stat(sub, &st), 0);
    cr_assert(S_ISDIR(st.st_mode), "the directory is still there");
    cr_assert_eq(stray_temps(), 0, "a failed save left its temporary file");
    bb_free(f);
}

/* A symlink is followed: its target gets the new filter and the link stays a link. A FIFO (or
 * a device node) is refused, never renamed over: as root that would replace /dev/null. */
Test(format, save_follows_symlinks_and_refuses_special_files) {
    bb_filter *f = small_filter(BB_BLOCKED), *old = small_filter(BB_CLASSIC);
    const char *target = in_dir("target.bbf"), *link = in_dir("link.bbf");
    cr_assert_eq(bb_save(old, target), BB_OK);
    cr_assert_eq(symlink("target.bbf", link), 0, "symlink: %s", strerror(errno));
    cr_assert_eq(bb_save(f, link), BB_OK);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the symlink was replaced by a regular file");
    bb_filter *g = NULL;
    cr_assert_eq(bb_load(&g, target), BB_OK);
    bb_info gi = BB_INFO_INIT, fi = BB_INFO_INIT;
    bb_get_info(g, &gi);
    bb_get_info(f, &fi);
    cr_assert_eq(gi.kind, fi.kind, "the link's target does not hold the new filter");
    bb_free(g);

    const char *fifo = in_dir("fifo");
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    errno = 0;
    cr_assert_eq(bb_save(f, fifo), BB_E_IO);
    cr_assert_eq(errno, EINVAL, "errno %s", strerror(errno));
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_assert_eq(stray_temps(), 0);
    bb_free(f);
    bb_free(old);
}

Test(format, failed_write_keeps_old_file) {
    bb_filter *old = small_filter(BB_CLASSIC), *big = small_filter(BB_BLOCKED);
    const char *path = in_dir("keep.bbf");
    cr_assert_eq(bb_save(old, path), BB_OK);
    size_t before_len, after_len;
    uint8_t *before = read_bytes(path, &before_len);

    /* Files may grow to 150 bytes: the 128-byte header fits, the 128-byte payload is cut
     * short (a short write) and the next write fails with EFBIG. SIGXFSZ would kill us. */
    struct rlimit saved, small;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
    small = (struct rlimit){150, saved.rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    errno = 0;
    bb_status s = bb_save(big, path);
    int e = errno;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);

    cr_assert_eq(s, BB_E_IO);
    cr_assert_eq(e, EFBIG, "errno kept from the failed write: %s", strerror(e));
    uint8_t *after = read_bytes(path, &after_len);
    cr_assert_eq(after_len, before_len);
    cr_assert_arr_eq(after, before, before_len, "a failed save changed the old file");
    cr_assert_eq(stray_temps(), 0, "a failed save left its temporary file");
    free(before);
    free(after);
    bb_free(old);
    bb_free(big);
}

Test(format, read_errors) {
    errno = 0;
    cr_assert_eq(load_status(in_dir("nope.bbf")), BB_E_IO);
    cr_assert_eq(errno, ENOENT);
    cr_assert_eq(mmap_status(in_dir("nope.bbf")), BB_E_IO);
    errno = 0;
    cr_assert_eq(load_status(dir), BB_E_IO);
    cr_assert_eq(errno, EISDIR);
    cr_assert_eq(mmap_status(dir), BB_E_IO);
}

/* A pipe has no size: truncation and trailing data are found by the reads alone. The writer
 * must have the FIFO open before bb_load opens it (bb_load does not wait for a writer: a FIFO
 * without one reads as empty, see fifo_without_writer_does_not_block). So: a placeholder
 * reader lets the child's blocking open for writing return, the child says so on a pipe, and
 * only then does bb_load open the FIFO; the placeholder never reads. */
static bb_status load_through_fifo(const uint8_t *b, size_t len) {
    const char *fifo = in_dir("fifo");
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        int fd = open(fifo, O_WRONLY);
        bool ok = fd >= 0 && write(ready[1], "", 1) == 1;
        _exit(ok && write(fd, b, len) == (ssize_t)len ? 0 : 1);
    }
    int placeholder = open(fifo, O_RDONLY | O_NONBLOCK);
    char c;
    cr_assert(placeholder >= 0 && read(ready[0], &c, 1) == 1, "FIFO writer did not start");
    bb_status s = load_status(fifo);
    cr_assert_eq(waitpid(pid, NULL, 0), pid);
    close(placeholder);
    close(ready[0]);
    close(ready[1]);
    return s;
}

Test(format, load_from_fifo) {
    sample s = make_sample(BB_CLASSIC, false);
    s.bytes[s.len] = 0;
    cr_assert_eq(load_through_fifo(s.bytes, s.len), BB_OK);
    cr_assert_eq(load_through_fifo(s.bytes, s.len - 1), BB_E_TRUNCATED);
    cr_assert_eq(load_through_fifo(s.bytes, s.len + 1), BB_E_INCONSISTENT);
    free_sample(&s);
}

/* `mkfifo p; blockbloom info p` blocked forever in open(2). A FIFO nobody writes
 * is refused at once: bb_open_mmap with BB_E_IO (only regular files map), bb_load with
 * BB_E_TRUNCATED (it reads as empty). The timeout turns a hang into a failure. */
Test(format, fifo_without_writer_does_not_block, .timeout = 10) {
    const char *fifo = in_dir("lonely");
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    errno = 0;
    cr_assert_eq(mmap_status(fifo), BB_E_IO);
    cr_assert_eq(errno, ENODEV);
    cr_assert_eq(load_status(fifo), BB_E_TRUNCATED);
}

/* ============================================================================================
 * Arguments
 * ========================================================================================== */

Test(format, null_and_small_arguments) {
    bb_filter *f = small_filter(BB_BLOCKED);
    uint64_t size = 0;
    cr_assert_eq(bb_serialized_size(NULL, &size), BB_E_INVAL);
    cr_assert_eq(bb_serialized_size(f, NULL), BB_E_INVAL);
    cr_assert_eq(bb_serialized_size(f, &size), BB_OK);
    cr_assert_eq(size, 128 + 128);

    uint8_t buf[256];
    size_t written = 12345;
    cr_assert_eq(bb_serialize(NULL, buf, sizeof buf, &written), BB_E_INVAL);
    cr_assert_eq(written, 0);
    cr_assert_eq(bb_serialize(f, NULL, sizeof buf, &written), BB_E_INVAL);
    written = 12345;
    cr_assert_eq(bb_serialize(f, buf, sizeof buf - 1, &written), BB_E_INVAL, "cap too small");
    cr_assert_eq(written, 0);
    cr_assert_eq(bb_serialize(f, buf, sizeof buf, NULL), BB_OK, "written may be NULL");

    bb_filter *g = (bb_filter *)&g;
    cr_assert_eq(bb_deserialize(NULL, buf, sizeof buf), BB_E_INVAL);
    cr_assert_eq(bb_deserialize(&g, NULL, sizeof buf), BB_E_INVAL);
    cr_assert_null(g);
    cr_assert_eq(bb_save(NULL, in_dir("n.bbf")), BB_E_INVAL);
    cr_assert_eq(bb_save(f, NULL), BB_E_INVAL);
    cr_assert_eq(bb_load(NULL, in_dir("n.bbf")), BB_E_INVAL);
    g = (bb_filter *)&g;
    cr_assert_eq(bb_load(&g, NULL), BB_E_INVAL);
    cr_assert_null(g);
    cr_assert_eq(bb_open_mmap(NULL, in_dir("n.bbf")), BB_E_INVAL);
    g = (bb_filter *)&g;
    cr_assert_eq(bb_open_mmap(&g, NULL), BB_E_INVAL);
    cr_assert_null(g);
    cr_assert_eq(stray_temps(), 0);
    bb_free(f);
}

/* ---- Kind 4: split (Parquet split-block; the layout itself is tested in test_split.c) ------
 * Every flat-kind check above, on a split filter; its own fields: k is 8, bits whole 256-bit
 * blocks, at most 2^40. */
Test(format, split_roundtrips_and_damage) {
    roundtrip_buffer(BB_SPLIT);
    roundtrip_file(BB_SPLIT);
    roundtrip_mmap(BB_SPLIT);
    every_truncation(BB_SPLIT);
    every_bit_flip(BB_SPLIT);
    trailing_data(BB_SPLIT);
}

Test(format, field_checks_split) {
    edit e[O_HDRSUM - O_RESERVED + 12];
    size_t n = 0;
    e[n++] = (edit){"unchanged (re-seal is a no-op)", O_K, 4, 8, BB_OK};
    e[n++] = (edit){"k 7", O_K, 4, 7, BB_E_INCONSISTENT};
    e[n++] = (edit){"k 9", O_K, 4, 9, BB_E_INCONSISTENT};
    e[n++] = (edit){"k 16", O_K, 4, 16, BB_E_INCONSISTENT};
    e[n++] = (edit){"bits 1023 (not whole blocks)", O_BITS, 8, 1023, BB_E_INCONSISTENT};
    e[n++] = (edit){"bits 768, blocks 4", O_BITS, 8, 768, BB_E_INCONSISTENT};
    e[n++] = (edit){"blocks 2 (512-bit blocks)", O_BLOCKS, 8, 2, BB_E_INCONSISTENT};
    e[n++] = (edit){"bits 2^40 + 256, blocks to match", O_BITS, 8, (UINT64_C(1) << 40) + 256,
                    BB_E_INCONSISTENT};
    e[n++] = (edit){"kind blocked (k 8 fine, blocks must be 2)", O_KIND, 4, BB_BLOCKED,
                    BB_E_INCONSISTENT};
    e[n++] = (edit){"kind 6 (a future kind)", O_KIND, 4, 6, BB_E_UNSUPPORTED};
    e[n++] = (edit){"payload length 129", O_PAYLEN, 8, 129, BB_E_INCONSISTENT};
    e[n++] = (edit){"fpr 0.5", O_FPR, 8, UINT64_C(0x3fe0000000000000), BB_OK};
    for (size_t i = 0; i < O_HDRSUM - O_RESERVED; i++)
        e[n++] = (edit){"reserved byte", O_RESERVED + i, 1, 0x01, BB_E_INCONSISTENT};
    check_edits(BB_SPLIT, e, n);
}

/* The same on a sectorized filter; its own fields: k in {1, 2, 4, 8, 16}, whole lines. */
Test(format, sectorized_roundtrips_and_damage) {
    roundtrip_buffer(BB_SECTORIZED);
    roundtrip_file(BB_SECTORIZED);
    roundtrip_mmap(BB_SECTORIZED);
    every_truncation(BB_SECTORIZED);
    every_bit_flip(BB_SECTORIZED);
    trailing_data(BB_SECTORIZED);
}

Test(format, field_checks_sectorized) {
    static const edit e[] = {
        {"unchanged (re-seal is a no-op)", O_K, 4, 4, BB_OK},
        {"k 8", O_K, 4, 8, BB_OK},
        {"k 16", O_K, 4, 16, BB_OK},
        {"k 1", O_K, 4, 1, BB_OK},
        {"k 3", O_K, 4, 3, BB_E_INCONSISTENT},
        {"k 7", O_K, 4, 7, BB_E_INCONSISTENT},
        {"k 12", O_K, 4, 12, BB_E_INCONSISTENT},
        {"bits 768 (not whole lines)", O_BITS, 8, 768, BB_E_INCONSISTENT},
        {"blocks 4 (512-bit lines)", O_BLOCKS, 8, 4, BB_E_INCONSISTENT},
        {"kind 6 (a future kind)", O_KIND, 4, 6, BB_E_UNSUPPORTED},
    };
    check_edits(BB_SECTORIZED, e, sizeof e / sizeof *e);
}
