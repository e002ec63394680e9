/* SPDX-License-Identifier: MIT */
/*
 * sectorized_scalar.c - the reference sectorized kernel: the probe scheme of internal.h
 * (bb_sect_line_set, bb_sect_line_test) written on bytes, so it is endian-neutral. Every SIMD
 * sectorized kernel must give the same bits and answers (tests/test_sectorized.c); it is
 * also the kernel on CPUs without SIMD, and the SIMD kernels' path for k < 8.
 */
#include "sectorized_test.h"

#define KERNEL_NAME sectorized_scalar
#define KERNEL_ISA BB_ISA_SCALAR
#define KERNEL_TEST bb_sect_test_k
#define KERNEL_SET bb_sect_line_set
#include "blocked_loops.h"
