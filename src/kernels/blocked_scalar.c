/* SPDX-License-Identifier: MIT */
/*
 * blocked_scalar.c - the reference kernel: the probe scheme of internal.h written out one bit at a
 * time on bytes, so it is endian-neutral and obviously right. Every SIMD kernel must give the
 * same answers (tests/test_kernels.c). It is also the kernel on CPUs with no supported SIMD.
 */
#include "../internal.h"

const uint32_t bb_probe_powers[16] = BB_PROBE_POWERS_INIT;

/* The test is the public header's inline one (bb_block_test_bytes), so the inline lookups
 * of a bb_view and this kernel are one piece of code. */
#define KERNEL_NAME scalar
#define KERNEL_ISA BB_ISA_SCALAR
#define KERNEL_TEST bb_block_test_bytes
#include "blocked_loops.h"
