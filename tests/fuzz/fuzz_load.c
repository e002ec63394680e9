/* SPDX-License-Identifier: MIT */
/*
 * fuzz_load.c - libFuzzer target for the filter loader: the input is taken as a saved filter
 * and given to all three ways in, bb_deserialize (buffer), bb_load (file) and bb_open_mmap
 * (mapped file); the file is a memfd holding the same bytes, so no disk I/O. Invariants:
 *  - no crash, leak or undefined behaviour (ASan, UBSan) on any input;
 *  - the three agree: same status, and *out is NULL exactly when the status is not BB_OK;
 *  - an accepted input is canonical: serializing the loaded filter gives the input back byte
 *    for byte (every header field and the payload are checked, reserved bytes are zero), and
 *    bb_get_info and queries work on it.
 * Random bytes almost never carry valid XXH3 checksums, so the checks after step 4 of
 * FORMAT.md "Validation" would hardly be reached. Each input therefore runs twice: as it is,
 * and with both checksums recomputed (payload checksum at offset 80 over the bytes after the
 * 128-byte header, then header checksum at 120 over bytes 0..119; XXH3-64 with seed 0, which
 * is bb_hash of a filter with seed 0), so the fuzzer explores the field checks too.
 * Build and run: scripts/fuzz.sh (seed corpus: tests/fuzz/corpus/fuzz_load/).
 */
#ifndef _GNU_SOURCE /* memfd_create; scripts/fuzz.sh also defines it, for the CLI files */
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blockbloom.h"

/* One memfd for the whole run, rewritten per input; its /proc path is what the file APIs get. */
static int memfd = -1;
static char memfd_path[64];

static void write_memfd(const uint8_t *data, size_t size) {
    if (memfd < 0) {
        memfd = memfd_create("fuzz_load", MFD_CLOEXEC);
        if (memfd < 0) abort();
        snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size) abort();
}

/* Serializing an accepted filter must give back exactly the bytes it was loaded from. */
static void check_canonical(const bb_filter *f, const uint8_t *data, size_t size) {
    uint64_t need = 0;
    if (bb_serialized_size(f, &need) != BB_OK || need != size) abort();
    uint8_t *buf = malloc(size ? size : 1);
    size_t written = 0;
    if (!buf || bb_serialize(f, buf, size, &written) != BB_OK || written != size) abort();
    if (memcmp(buf, data, size) != 0) abort();
    free(buf);
    bb_info info = BB_INFO_INIT;
    if (bb_get_info(f, &info) != BB_OK) abort();
    /* Queries must run on whatever geometry was accepted; answers are not known here. */
    uint64_t hashes[4] = {0, UINT64_MAX, size, 0x9E3779B97F4A7C15u};
    uint8_t out[4];
    if (bb_contains_hashes(f, hashes, 4, out, NULL) != BB_OK) abort();
    (void)bb_contains(f, data, size < 16 ? size : 16);
}

static void load_all_ways(const uint8_t *data, size_t size) {
    bb_filter *f = NULL, *g = NULL, *m = NULL;
    bb_status s = bb_deserialize(&f, data, size);
    if ((s == BB_OK) != (f != NULL)) abort();
    write_memfd(data, size);
    bb_status sl = bb_load(&g, memfd_path);
    bb_status sm = bb_open_mmap(&m, memfd_path);
    if ((sl == BB_OK) != (g != NULL) || (sm == BB_OK) != (m != NULL)) abort();
    /* Out of memory is the one way the buffer and file paths may legitimately differ. */
    if (s != BB_E_NOMEM && sl != BB_E_NOMEM && sm != BB_E_NOMEM && (s != sl || s != sm)) {
        fprintf(stderr, "status differs: deserialize %d, load %d, mmap %d\n", s, sl, sm);
        abort();
    }
    if (f) check_canonical(f, data, size);
    if (g) check_canonical(g, data, size);
    if (m) check_canonical(m, data, size);
    bb_free(f);
    bb_free(g);
    bb_free(m);
}

enum { HDR = 128, OFF_PAYLOAD_SUM = 80, OFF_HDR_SUM = 120 };

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bb_filter *seed0; /* only its seed is used: bb_hash(seed0, ...) is XXH3-64 seed 0 */
    if (!seed0 && bb_create_for(&seed0, BB_BLOCKED, 1, 0.5, 0) != BB_OK) abort();
    load_all_ways(data, size);
    if (size < HDR) return 0;
    uint8_t *fixed = malloc(size);
    if (!fixed) abort();
    memcpy(fixed, data, size);
    put64(fixed + OFF_PAYLOAD_SUM, bb_hash(seed0, fixed + HDR, size - HDR));
    put64(fixed + OFF_HDR_SUM, bb_hash(seed0, fixed, OFF_HDR_SUM));
    load_all_ways(fixed, size);
    free(fixed);
    return 0;
}
