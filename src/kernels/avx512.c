/*
 * avx512.c - the AVX-512F kernel; this file alone is compiled with -mavx512f, so SIMDe (adds)
 * and the header's AVX-512 test emit native instructions; dispatch.c picks it only with
 * AVX-512F.
 * The block test is the public header's bb_block_test_avx512 (this file's flags compile it
 * in), so callers' inline lookups and this kernel are one piece of code.
 * Adds build the key's 512-bit mask in a register and update the block with one 64-byte
 * load, OR and store, instead of k byte read-modify-writes (bb_block_set), which the core
 * cannot overlap well: probe p sets bit p of the block, that is bit p - 64w of 64-bit word w,
 * so one variable shift of 1 by (p - 64w) over the 8 words sets it and nothing else (vpsllvq
 * gives 0 for counts of 64 and more, and p - 64w < 0 is such a count as unsigned). Measured
 * per key on a 12 KiB / 12 MiB / 132 MiB filter: 5.0 / 7.3-9.1 / 12.2-13.8 ns against 6.6-7.0
 * / 8.6-11.1 / 13.4-16.1 ns for the byte updates. Little-endian word view: x86 only.
 */
#include "../internal.h"

#define SIMDE_ENABLE_NATIVE_ALIASES_NONE
#include <simde/x86/avx512.h>

static inline void avx512_set(uint8_t *block, uint32_t lo, unsigned k) {
    const simde__m512i word_base = simde_mm512_set_epi64(448, 384, 320, 256, 192, 128, 64, 0);
    const simde__m512i one = simde_mm512_set1_epi64(1);
    simde__m512i mask = simde_mm512_setzero_si512();
    for (unsigned j = 0; j < k; j++) {
        int64_t p = (int64_t)((lo * bb_probe_powers[j]) >> BB_PROBE_SHIFT);
        simde__m512i shift = simde_mm512_sub_epi64(simde_mm512_set1_epi64(p), word_base);
        mask = simde_mm512_or_si512(mask, simde_mm512_sllv_epi64(one, shift));
    }
    simde_mm512_store_si512((void *)block,
                            simde_mm512_or_si512(simde_mm512_load_si512((const void *)block), mask));
}

#define KERNEL_NAME avx512
#define KERNEL_ISA BB_ISA_AVX512
#define KERNEL_TEST bb_block_test_avx512
#define KERNEL_SET avx512_set
#include "loops.h"
