/*
 * loops.h - the batch loops every kernel shares, included once by each ISA file after it has
 * defined its block test:
 *     static inline bool KERNEL_TEST(const uint8_t *block, uint32_t lo, unsigned k);
 * and KERNEL_NAME (a token: scalar, avx2, ...) and KERNEL_ISA (a bb_isa). Including it in each
 * ISA file, compiled with that ISA's flags, lets the compiler inline the test into the loop;
 * the loop itself exists once.
 *
 * Loops prefetch BB_PREFETCH_AHEAD keys ahead (a rolling window, so the memory system always
 * has that many lines in flight): at ~17 ns per DRAM line and a few ns of work per key, about
 * 16 lines in flight are needed to keep a core busy, and more only adds cache pressure.
 * Adds use the scalar bb_block_set in every kernel: setting k bits is k byte ORs, and a SIMD
 * scatter of k bits into one line costs more than it saves.
 */
#ifndef BB_PREFETCH_AHEAD
#define BB_PREFETCH_AHEAD 16
#endif

#define BB_CAT2(a, b) a##b
#define BB_CAT(a, b) BB_CAT2(a, b)
#define BB_KFN(suffix) BB_CAT(BB_CAT(bb_, KERNEL_NAME), suffix)
#define BB_STR2(x) #x
#define BB_STR(x) BB_STR2(x)

static inline const uint8_t *BB_KFN(_block)(const uint8_t *data, uint64_t blocks, uint64_t h) {
    return data + bb_block_index(h, blocks) * BB_BLOCK_BYTES;
}

static size_t BB_KFN(_contains_hashes)(const uint8_t *data, uint64_t blocks, unsigned k,
                                       const uint64_t *hashes, size_t n, uint8_t *out) {
    size_t hits = 0, ahead = n < BB_PREFETCH_AHEAD ? n : BB_PREFETCH_AHEAD;
    for (size_t i = 0; i < ahead; i++) __builtin_prefetch(BB_KFN(_block)(data, blocks, hashes[i]));
    for (size_t i = 0; i < n; i++) {
        if (i + BB_PREFETCH_AHEAD < n)
            __builtin_prefetch(BB_KFN(_block)(data, blocks, hashes[i + BB_PREFETCH_AHEAD]));
        bool r = KERNEL_TEST(BB_KFN(_block)(data, blocks, hashes[i]), (uint32_t)hashes[i], k);
        out[i] = r;
        hits += r;
    }
    return hits;
}

static void BB_KFN(_add_hashes)(uint8_t *data, uint64_t blocks, unsigned k,
                                const uint64_t *hashes, size_t n) {
    size_t ahead = n < BB_PREFETCH_AHEAD ? n : BB_PREFETCH_AHEAD;
    for (size_t i = 0; i < ahead; i++)
        __builtin_prefetch(BB_KFN(_block)(data, blocks, hashes[i]), 1);
    for (size_t i = 0; i < n; i++) {
        if (i + BB_PREFETCH_AHEAD < n)
            __builtin_prefetch(BB_KFN(_block)(data, blocks, hashes[i + BB_PREFETCH_AHEAD]), 1);
        bb_block_set(data + bb_block_index(hashes[i], blocks) * BB_BLOCK_BYTES,
                     (uint32_t)hashes[i], k);
    }
}

static bool BB_KFN(_test)(const uint8_t *block, uint32_t lo, unsigned k) {
    return KERNEL_TEST(block, lo, k);
}

const bb_kernel BB_CAT(bb_kernel_, KERNEL_NAME) = {
    .isa = KERNEL_ISA,
    .name = BB_STR(KERNEL_NAME),
    .block_test = BB_KFN(_test),
    .contains_hashes = BB_KFN(_contains_hashes),
    .add_hashes = BB_KFN(_add_hashes),
};
