/*
 * scalar.c - the reference kernel: the probe scheme of internal.h written out one bit at a
 * time on bytes, so it is endian-neutral and obviously right. Every SIMD kernel must give the
 * same answers (tests/test_kernels.c). It is also the kernel on CPUs with no supported SIMD.
 */
#include "../internal.h"

const uint32_t bb_probe_powers[16] = {
    0x9E3779B9u, 0xE35E67B1u, 0x734297E9u, 0x35FBE861u, 0xDEB7C719u, 0x0448B211u,
    0x3459B749u, 0xAB25F4C1u, 0x52941879u, 0x9C95E071u, 0xF5AB9AA9u, 0x2D6BA521u,
    0x8BEDEDD9u, 0x9BFB72D1u, 0x3AE1C209u, 0x7FCA7981u,
};

/* Branch-free over the k probes, so batches of absent keys do not mispredict. */
static inline bool scalar_test(const uint8_t *block, uint32_t lo, unsigned k) {
    uint32_t x = lo;
    unsigned all = 1;
    for (unsigned j = 0; j < k; j++) {
        x *= BB_PROBE_MUL;
        uint32_t p = x >> BB_PROBE_SHIFT;
        all &= (unsigned)(block[p >> 3] >> (p & 7));
    }
    return all & 1;
}

#define KERNEL_NAME scalar
#define KERNEL_ISA BB_ISA_SCALAR
#define KERNEL_TEST scalar_test
#include "loops.h"
