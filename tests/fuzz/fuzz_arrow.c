/* SPDX-License-Identifier: MIT */
/*
 * fuzz_arrow.c - libFuzzer target for the validation of the Arrow C Data Interface calls
 * (src/arrow.c): the input describes one ArrowArray (format, length, offset, nulls, a
 * dictionary) and the bytes of its buffers, which are allocated at exactly their size so that
 * AddressSanitizer sees any read past them. Offsets are either raw input (mostly invalid) or
 * built from small steps (valid, with an occasional step back); views get lengths, buffer
 * indices and offsets that are in range or just outside it; dictionary indices may point past
 * the dictionary. This file decides independently, from the spec, whether the array is valid,
 * and checks:
 *  - bb_add_arrow_array and bb_contains_arrow_array return BB_OK exactly for valid arrays,
 *    and BB_E_INVAL (the filter untouched, nothing written to out) otherwise;
 *  - on a valid array every non-null value, re-read here from the buffers, is then present
 *    through bb_contains, and contains answers 1 for it and 0 for every null row.
 * Build and run: scripts/fuzz.sh (target fuzz_arrow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockbloom.h"
#include "fuzz_cursor.h"

#define CHECK(c)                                                                          \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            fprintf(stderr, "fuzz_arrow: %s:%d: check failed: %s (library: '%s')\n", __FILE__, \
                    __LINE__, #c, bb_last_error());                                 \
            abort();                                                                      \
        }                                                                                 \
    } while (0)


/* An exactly sized copy of the next `len` input bytes (zeros past the end). */
static uint8_t *take(cursor *c, size_t len) {
    uint8_t *b = malloc(len ? len : 1);
    CHECK(b);
    for (size_t i = 0; i < len; i++) b[i] = next_byte(c);
    return b;
}

static const char *const formats[] = {"u", "U", "z", "Z", "vu", "vz", "w:3", "w:1",
                                      "c", "C", "s", "S", "i", "I", "l", "L"};
#define N_FORMATS (sizeof formats / sizeof *formats)
#define MAX_BUFFERS 8

static void no_release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void no_release_array(struct ArrowArray *a) { a->release = NULL; }

/* One array under construction, with the buffers this file owns. */
typedef struct built {
    struct ArrowArray a;
    struct ArrowSchema s;
    const void *bufs[MAX_BUFFERS];
    void *owned[MAX_BUFFERS];
    bool valid;   /* this file's verdict */
    bool skip;    /* offsets valid but too far apart for a small buffer: not tried */
    int form;     /* 0 offsets32, 1 offsets64, 2 views, 3 fixed */
    size_t width;
} built;

static bool row_valid(const built *b, size_t i) {
    const uint8_t *v = b->bufs[0];
    size_t r = (size_t)b->a.offset + i;
    return !v || (v[r >> 3] >> (r & 7) & 1);
}

static int64_t offset_at(const built *b, size_t r) {
    if (b->form == 0) {
        int32_t o;
        memcpy(&o, (const uint8_t *)b->bufs[1] + 4 * r, 4);
        return o;
    }
    int64_t o;
    memcpy(&o, (const uint8_t *)b->bufs[1] + 8 * r, 8);
    return o;
}

static void build_offsets(cursor *c, built *b, size_t rows, bool raw) {
    size_t w = b->form == 0 ? 4 : 8;
    uint8_t *off = raw ? take(c, (rows + 1) * w) : malloc((rows + 1) * w);
    CHECK(off);
    if (!raw) {
        int64_t at = next_byte(c) % 4;
        for (size_t r = 0; r <= rows; r++) {
            uint8_t step = next_byte(c);
            if (r) at += step == 0xFF ? -1 : step % 9; /* a rare step back */
            if (w == 4) { int32_t v = (int32_t)at; memcpy(off + 4 * r, &v, 4); }
            else memcpy(off + 8 * r, &at, 8);
        }
    }
    b->owned[1] = off;
    b->bufs[1] = off;
    size_t first = (size_t)b->a.offset, last = first + (size_t)b->a.length;
    int64_t prev = offset_at(b, first);
    b->valid = prev >= 0 || b->a.length == 0; /* an empty array's offsets are not read */
    for (size_t r = first + 1; r <= last; r++) {
        if (offset_at(b, r) < prev) b->valid = false;
        prev = offset_at(b, r);
    }
    size_t data_len = b->valid && prev > 0 ? (size_t)prev : next_byte(c) % 64;
    if (data_len > 4096) {
        b->skip = true;
        data_len = 0;
    }
    b->owned[2] = take(c, data_len);
    b->bufs[2] = b->owned[2];
    if (b->valid && prev == offset_at(b, first) && next_byte(c) & 1) b->bufs[2] = NULL;
}

static void build_views(cursor *c, built *b, size_t rows) {
    size_t nv = next_byte(c) % 3;
    int64_t *sizes = malloc(3 * sizeof *sizes);
    CHECK(sizes);
    for (size_t i = 0; i < nv; i++) {
        sizes[i] = next_byte(c) % 64;
        b->owned[2 + i] = take(c, (size_t)sizes[i]);
        b->bufs[2 + i] = b->owned[2 + i];
    }
    b->owned[2 + nv] = sizes;
    b->bufs[2 + nv] = sizes;
    b->a.n_buffers = 3 + (int64_t)nv;
    uint8_t *views = malloc(rows * 16 + 1);
    CHECK(views);
    b->valid = true;
    for (size_t r = 0; r < rows; r++) {
        uint8_t *v = views + 16 * r;
        int32_t len = (int32_t)(next_byte(c) % 40) - 2; /* -2 .. 37 */
        int32_t idx = (int32_t)(next_byte(c) % (nv + 1)), off = (int32_t)(next_byte(c) % 40) - 1;
        memcpy(v, &len, 4);
        if (len >= 0 && len <= 12) {
            for (int j = 0; j < 12; j++) v[4 + j] = j < len ? next_byte(c) : 0;
        } else {
            memset(v + 4, 'p', 4);
            memcpy(v + 8, &idx, 4);
            memcpy(v + 12, &off, 4);
        }
        bool ok = len >= 0 && (len <= 12 || ((size_t)idx < nv && off >= 0 && off + len <= sizes[idx]));
        if (!ok && r >= (size_t)b->a.offset && row_valid(b, r - (size_t)b->a.offset))
            b->valid = false;
    }
    b->owned[1] = views;
    b->bufs[1] = views;
}

/* The array described by the input: [fmt][len][offset][flags] then buffer bytes. */
static void build(cursor *c, built *b, uint8_t fmt, bool raw) {
    memset(b, 0, sizeof *b);
    const char *f = formats[fmt % N_FORMATS];
    b->s = (struct ArrowSchema){.format = f, .release = no_release_schema};
    size_t len = next_byte(c) % 40, off = next_byte(c) % 6, rows = len + off;
    uint8_t flags = next_byte(c);
    b->a = (struct ArrowArray){.length = (int64_t)len, .offset = (int64_t)off, .n_buffers = 3,
                               .buffers = b->bufs, .release = no_release_array};
    if (flags & 1) {
        b->owned[0] = take(c, (rows + 7) / 8);
        b->bufs[0] = b->owned[0];
        b->a.null_count = -1;
    }
    b->form = f[0] == 'v' ? 2 : (f[0] == 'u' || f[0] == 'z') ? 0 : (f[0] == 'U' || f[0] == 'Z') ? 1 : 3;
    if (b->form <= 1) build_offsets(c, b, rows, raw);
    if (b->form == 2) build_views(c, b, rows);
    if (b->form == 3) {
        static const size_t widths[] = {['c'] = 1, ['C'] = 1, ['s'] = 2, ['S'] = 2, ['i'] = 4,
                                        ['I'] = 4, ['l'] = 8, ['L'] = 8};
        b->width = f[0] == 'w' ? (size_t)atoi(f + 2) : widths[(unsigned char)f[0]];
        b->a.n_buffers = 2;
        b->owned[1] = take(c, rows * b->width);
        b->bufs[1] = b->owned[1];
        b->valid = true;
    }
}

static void unbuild(built *b) {
    for (int i = 0; i < MAX_BUFFERS; i++) free(b->owned[i]);
}

/* The bytes of valid row i, re-read from the buffers by this file. Integers are the
 * little-endian bytes (the fuzzer runs on little-endian machines). */
static const uint8_t *row_bytes(const built *b, size_t i, size_t *len) {
    size_t r = (size_t)b->a.offset + i;
    if (b->form <= 1) {
        int64_t o = offset_at(b, r);
        *len = (size_t)(offset_at(b, r + 1) - o);
        return *len ? (const uint8_t *)b->bufs[2] + o : NULL;
    }
    if (b->form == 3) {
        *len = b->width;
        return (const uint8_t *)b->bufs[1] + r * b->width;
    }
    const uint8_t *v = (const uint8_t *)b->bufs[1] + 16 * r;
    int32_t l, idx, off;
    memcpy(&l, v, 4);
    *len = (size_t)l;
    if (l <= 12) return v + 4;
    memcpy(&idx, v + 8, 4);
    memcpy(&off, v + 12, 4);
    return (const uint8_t *)b->bufs[2 + idx] + off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cursor c = {data, size};
    uint8_t mode = next_byte(&c), fmt = next_byte(&c);
    built b, dict;
    build(&c, &b, (mode & 2) ? (uint8_t)(8 + fmt % 8) : fmt, mode & 1);
    bool use_dict = (mode & 2) != 0;
    if (use_dict) { /* b holds integer indices; the dictionary is any format */
        build(&c, &dict, next_byte(&c), mode & 4);
        b.s.dictionary = &dict.s;
        b.a.dictionary = &dict.a;
        int64_t dn = dict.a.length;
        for (size_t i = 0; i < (size_t)b.a.length && dict.valid; i++) {
            if (!row_valid(&b, i)) continue;
            const uint8_t *p = (const uint8_t *)b.bufs[1] + ((size_t)b.a.offset + i) * b.width;
            int64_t v = 0;
            bool sign = strchr("csil", b.s.format[0]) != NULL;
            switch (b.width) {
            case 1: v = sign ? (int8_t)p[0] : p[0]; break;
            case 2: { int16_t s; uint16_t u; memcpy(&s, p, 2); memcpy(&u, p, 2); v = sign ? s : u; break; }
            case 4: { int32_t s; uint32_t u; memcpy(&s, p, 4); memcpy(&u, p, 4); v = sign ? s : (int64_t)u; break; }
            default: { uint64_t u; memcpy(&u, p, 8); v = sign || u <= INT64_MAX ? (int64_t)u : -1; }
            }
            if (v < 0 || v >= dn) b.valid = false;
        }
        b.valid = b.valid && dict.valid;
    }

    if (b.skip || (use_dict && dict.skip)) {
        unbuild(&b);
        if (use_dict) unbuild(&dict);
        return 0;
    }
    bb_filter *f = NULL;
    CHECK(bb_create_for(&f, BB_BLOCKED, 256, 0.01, 5) == BB_OK);
    size_t n = (size_t)b.a.length;
    uint8_t *out = malloc(n + 1);
    CHECK(out);
    memset(out, 0xAA, n + 1);
    bb_status s = bb_contains_arrow_array(f, &b.a, &b.s, out, NULL);
    CHECK(s == (b.valid ? BB_OK : BB_E_INVAL));
    if (!b.valid) CHECK(out[0] == 0xAA);
    s = bb_add_arrow_array(f, &b.a, &b.s);
    CHECK(s == (b.valid ? BB_OK : BB_E_INVAL));
    bb_info info = BB_INFO_INIT;
    CHECK(bb_get_info(f, &info) == BB_OK);
    if (!b.valid) CHECK(info.bits_set == 0 && info.keys_added == 0);
    if (b.valid) {
        size_t hits = 0, valid_rows = 0;
        CHECK(bb_contains_arrow_array(f, &b.a, &b.s, out, &hits) == BB_OK);
        for (size_t i = 0; i < n; i++) {
            bool present = row_valid(&b, i);
            const built *src = &b;
            size_t row = i;
            if (present && use_dict) { /* the index's value, if it is not null */
                const uint8_t *p = (const uint8_t *)b.bufs[1] + ((size_t)b.a.offset + i) * b.width;
                uint64_t u = 0;
                memcpy(&u, p, b.width); /* indices were checked in range: non-negative */
                row = (size_t)u;
                src = &dict;
                present = row_valid(&dict, row);
            }
            CHECK(out[i] == present);
            if (!present) continue;
            valid_rows++;
            size_t len;
            const uint8_t *k = row_bytes(src, row, &len);
            CHECK(bb_contains(f, k, len));
        }
        CHECK(hits == valid_rows && out[n] == 0xAA);
        CHECK(info.keys_added == valid_rows);
    }
    free(out);
    bb_free(f);
    unbuild(&b);
    if (use_dict) unbuild(&dict);
    return 0;
}
