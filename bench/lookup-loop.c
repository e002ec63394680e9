/* SPDX-License-Identifier: MIT */
/*
 * lookup-loop.c - a fixed lookup loop for scripts/cachegrind.sh, small enough to run under
 * valgrind: it builds a filter of MIB MiB (sized for p = 1%, so k is the benchmark's k) from
 * N_ADD 16-byte keys, then looks up N_LOOKUP keys in batches of 256, either pre-hashed
 * (bb_contains_hashes) or as byte strings (bb_contains_batch). Keys are made per batch in a
 * small buffer, so the loop itself touches no memory but the filter's: the script runs it
 * twice with different N_LOOKUP and divides the difference in last-level misses by the
 * difference in lookups, which cancels the build. Only lookup_batch() does lookups, so
 * callgrind --toggle-collect=lookup_batch counts the instructions of lookups alone.
 *
 *   lookup-loop blocked|classic MIB N_ADD N_LOOKUP present|absent hashed|strings
 * prints: kernel, lookups, hits. Exit 0; 1 on bad arguments; 3 if BB_ISA names a kernel
 * this CPU (or valgrind's virtual CPU) does not have.
 */
#include <blockbloom.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 256
#define KEY_BYTES 16
#define TAG_PRESENT 1u
#define TAG_ABSENT 2u

/* Key i of a tag: i and the tag, 8 bytes each, in the machine's byte order. */
static void make_keys(uint8_t *buf, uint64_t first, size_t count, uint64_t tag) {
    for (size_t j = 0; j < count; j++) {
        uint64_t i = first + j;
        memcpy(buf + j * KEY_BYTES, &i, 8);
        memcpy(buf + j * KEY_BYTES + 8, &tag, 8);
    }
}

__attribute__((noinline)) size_t lookup_batch(const bb_filter *f, const uint8_t *keys,
                                              const uint64_t *hashes, size_t count, uint8_t *out) {
    size_t hits = 0;
    if (hashes) bb_contains_hashes(f, hashes, count, out, &hits);
    else bb_contains_fixed(f, keys, KEY_BYTES, 0, count, out, &hits);
    return hits;
}

static int fail(const char *what) {
    fprintf(stderr, "lookup-loop: %s\nusage: lookup-loop blocked|classic MIB N_ADD N_LOOKUP "
                    "present|absent hashed|strings\n", what);
    return 1;
}

/* Capacity whose p = 1% filter of this kind is about `mib` MiB. */
static uint64_t capacity_for(bb_kind kind, uint64_t mib) {
    uint64_t bits;
    unsigned k;
    bb_size(kind, 1000000, 0.01, &bits, &k);
    return mib * 8 * 1048576 / bits * 1000000;
}

int main(int argc, char **argv) {
    if (argc != 7) return fail("wrong number of arguments");
    bb_kind kind = strcmp(argv[1], "classic") == 0 ? BB_CLASSIC : BB_BLOCKED;
    uint64_t mib = strtoull(argv[2], NULL, 10), n_add = strtoull(argv[3], NULL, 10),
             n_lookup = strtoull(argv[4], NULL, 10);
    bool present = strcmp(argv[5], "present") == 0, hashed = strcmp(argv[6], "hashed") == 0;
    if (!mib || !n_add || (present && n_lookup > n_add)) return fail("bad sizes");
    const char *want = getenv("BB_ISA");
    bb_isa isa;
    if (want && bb_isa_from_string(want, &isa) == BB_OK && bb_set_isa(isa) != BB_OK) {
        fprintf(stderr, "lookup-loop: kernel %s not available on this CPU\n", want);
        return 3;
    }
    bb_filter *f;
    if (bb_create_for(&f, kind, capacity_for(kind, mib), 0.01, 42) != BB_OK) return fail("bb_create_for");
    uint8_t keys[BATCH * KEY_BYTES], out[BATCH];
    uint64_t hashes[BATCH];
    for (uint64_t i = 0; i < n_add; i += BATCH) {
        size_t c = n_add - i < BATCH ? (size_t)(n_add - i) : BATCH;
        make_keys(keys, i, c, TAG_PRESENT);
        bb_add_fixed(f, keys, KEY_BYTES, 0, c);
    }
    size_t hits = 0;
    for (uint64_t i = 0; i < n_lookup; i += BATCH) {
        size_t c = n_lookup - i < BATCH ? (size_t)(n_lookup - i) : BATCH;
        make_keys(keys, i, c, present ? TAG_PRESENT : TAG_ABSENT);
        if (hashed)
            for (size_t j = 0; j < c; j++) hashes[j] = bb_hash(f, keys + j * KEY_BYTES, KEY_BYTES);
        hits += lookup_batch(f, keys, hashed ? hashes : NULL, c, out);
    }
    uint64_t bits;
    unsigned k; /* bb_create_for sized the filter with bb_size; bb_get_info would scan it all */
    bb_size(kind, capacity_for(kind, mib), 0.01, &bits, &k);
    printf("kernel %s kind %s bytes %llu k %u lookups %llu hits %zu\n", bb_isa_name(),
           bb_kind_name(kind), (unsigned long long)(bits / 8), k, (unsigned long long)n_lookup,
           hits);
    bb_free(f);
    return 0;
}
