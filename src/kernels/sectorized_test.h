/* SPDX-License-Identifier: MIT */
/*
 * sectorized_test.h - the reference sectorized line test with k made a constant: blocked_loops.h
 * keeps one copy of its contains loop for every k, so a kernel's test sees k at run time, and
 * the reference's word index j % w is then a division per probe. One switch per key (always
 * taken the same way in a batch) instead: the scalar kernel's batch contains at 10^6 keys took
 * 17.9 ns/key with k at run time, 10.7 with this switch (Xeon family 6 model 0xa7, medians of
 * 7, two consecutive runs; Boost's fast_multiblock64 took 3.4 and 4.4 in them).
 */
#ifndef BB_SECTORIZED_TEST_H
#define BB_SECTORIZED_TEST_H

#include "../internal.h"

static inline __attribute__((always_inline)) bool bb_sect_test_k(const uint8_t *line, uint32_t lo,
                                                                 unsigned k) {
    switch (k) {
    case 1: return bb_sect_line_test(line, lo, 1);
    case 2: return bb_sect_line_test(line, lo, 2);
    case 4: return bb_sect_line_test(line, lo, 4);
    case 8: return bb_sect_line_test(line, lo, 8);
    case 16: return bb_sect_line_test(line, lo, 16);
    default: return bb_sect_line_test(line, lo, k); /* never stored (the row's k_set) */
    }
}

#endif /* BB_SECTORIZED_TEST_H */
