/*
 * dispatch.c - picks the blocked filter's kernel once per process. Compiled at the baseline
 * ISA, so it runs on any CPU: on x86 it asks CPUID (through __builtin_cpu_supports, which also
 * checks that the OS saves the wide registers) and prefers AVX-512F, then AVX2, then scalar;
 * on AArch64 NEON is always there and chosen at compile time. BB_ISA=scalar|avx2|avx512|neon
 * in the environment, or bb_set_isa(), overrides the choice (for tests and benchmarks); a name
 * that is unknown or unavailable here leaves the automatic choice in place.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

_Atomic(const bb_kernel *) bb_active_kernel;

static const char *const isa_names[] = {"auto", "scalar", "avx2", "avx512", "neon"};

const char *bb_isa_to_string(bb_isa isa) {
    return (unsigned)isa < sizeof isa_names / sizeof *isa_names ? isa_names[isa] : "unknown";
}

bb_status bb_isa_from_string(const char *name, bb_isa *out) {
    if (!name || !out) return BB_E_INVAL;
    for (unsigned i = 0; i < sizeof isa_names / sizeof *isa_names; i++)
        if (strcmp(name, isa_names[i]) == 0) { *out = (bb_isa)i; return BB_OK; }
    return BB_E_INVAL;
}

static const bb_kernel *kernel_of(bb_isa isa) {
    switch (isa) {
    case BB_ISA_SCALAR: return &bb_kernel_scalar;
    case BB_ISA_NEON: return &bb_kernel_neon; /* native on AArch64, SIMDe-emulated elsewhere */
#if defined(__x86_64__) || defined(__i386__)
    case BB_ISA_AVX2: return __builtin_cpu_supports("avx2") ? &bb_kernel_avx2 : NULL;
    case BB_ISA_AVX512: return __builtin_cpu_supports("avx512f") ? &bb_kernel_avx512 : NULL;
#else
    case BB_ISA_AVX2:
    case BB_ISA_AVX512: return NULL;
#endif
    case BB_ISA_AUTO: break;
    }
    return NULL;
}

static const bb_kernel *best_kernel(void) {
#if defined(__aarch64__)
    return &bb_kernel_neon;
#else
    const bb_kernel *k = kernel_of(BB_ISA_AVX512);
    if (!k) k = kernel_of(BB_ISA_AVX2);
    return k ? k : &bb_kernel_scalar;
#endif
}

const bb_kernel *bb_kernel_choose(void) {
    const bb_kernel *k = NULL;
    bb_isa isa;
    const char *env = getenv("BB_ISA");
    if (env && bb_isa_from_string(env, &isa) == BB_OK) k = kernel_of(isa);
    if (!k) k = best_kernel();
    atomic_store_explicit(&bb_active_kernel, k, memory_order_relaxed);
    return k;
}

bool bb_isa_available(bb_isa isa) { return isa == BB_ISA_AUTO || kernel_of(isa) != NULL; }

bb_status bb_set_isa(bb_isa isa) {
    if ((unsigned)isa > BB_ISA_NEON) return BB_E_INVAL;
    const bb_kernel *k = isa == BB_ISA_AUTO ? best_kernel() : kernel_of(isa);
    if (!k) return BB_E_UNSUPPORTED;
    atomic_store_explicit(&bb_active_kernel, k, memory_order_relaxed);
    return BB_OK;
}

const char *bb_isa_name(void) { return bb_kernel_active()->name; }
