/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c - picks the blocked filter's kernels once per process, one per operation
 * (contains, add). Compiled at the baseline ISA, so it runs on any CPU. On x86 it asks CPUID
 * (through __builtin_cpu_supports, which also checks that the OS saves the wide registers)
 * for the widest kernel, AVX-512 with GFNI (avx512gfni), AVX-512F, then AVX2, then scalar,
 * and then looks the CPU's vendor, family and model up in cpu_rows below, which may move an
 * operation to a narrower kernel on CPUs where that one was measured faster. On AArch64 NEON
 * is always there and chosen at compile time. BB_ISA=scalar|avx2|avx512|avx512gfni|neon in
 * the environment, or bb_set_isa(), puts every operation on that one kernel (for tests and
 * benchmarks); a name that is unknown or unavailable here leaves the automatic choice in place.
 *
 * Why a table and not a one-time calibration: every kernel gives the same bits, so either is
 * safe, but a calibration would time a few microseconds of work at start-up, and on the
 * shared 2-vCPU VMs this library is measured on, repeated benchmark runs of one kernel differ
 * by 10-30% (docs/bench-*.txt), more than most of the differences it would have to detect; it
 * would then pick at random between close kernels and make runs irreproducible. A row is
 * added only from a `blockbloom bench` run on that CPU (one run per CPU kind in docs/); CPUs
 * without a row get the widest kernel for every operation.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

_Atomic(const bb_dispatch *) bb_active_dispatch;

static const char *const isa_names[] = {"auto", "scalar", "avx2", "avx512", "neon", "avx512gfni"};

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
    case BB_ISA_AVX512: /* F and VL: every AVX-512 CPU but the Xeon Phi */
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
                   ? &bb_kernel_avx512 : NULL;
    case BB_ISA_AVX512GFNI: /* the instructions blocked_avx512gfni.c is compiled for */
        return kernel_of(BB_ISA_AVX512) && __builtin_cpu_supports("avx512bw") &&
                       __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vbmi") &&
                       __builtin_cpu_supports("gfni")
                   ? &bb_kernel_avx512gfni : NULL;
#else
    case BB_ISA_AVX2:
    case BB_ISA_AVX512:
    case BB_ISA_AVX512GFNI: return NULL;
#endif
    case BB_ISA_AUTO: break;
    }
    return NULL;
}

static const bb_kernel *widest_kernel(void) {
#if defined(__aarch64__)
    return &bb_kernel_neon;
#else
    const bb_kernel *k = kernel_of(BB_ISA_AVX512GFNI);
    if (!k) k = kernel_of(BB_ISA_AVX512);
    if (!k) k = kernel_of(BB_ISA_AVX2);
    return k ? k : &bb_kernel_scalar;
#endif
}

/* ---- Per-CPU choices ---------------------------------------------------------------------
 * A row applies when the vendor, the family and a model in [model_lo, model_hi] match (family
 * and model as the vendor's manuals combine the CPUID base and extended fields) and the row's
 * kernels are available; each operation then runs on the row's kernel for it.
 *
 *  - AMD family 17h, models 00h-2Fh (Zen, Zen+: a 128-bit SIMD datapath, each 256-bit op is
 *    split in two and vpsllvd ymm is a multi-op instruction). Measured on family 23 model 1,
 *    2-vCPU EPYC VM, 1M keys at 1% (issue 8, medians of 5): pre-hashed batch add 22.1
 *    ns/key on AVX2 against 10.6 on scalar, 100M keys 29.4 against 21.8; contains stays on
 *    AVX2 (6.8 against 10.1 ns/key at 1M). So adds run scalar there.
 *  - AMD family 19h model 11h (Zen 4 "Genoa", AVX-512 with 256-bit units) needs no row: the
 *    widest kernel, avx512gfni, is the fastest or within the runs' noise of the others for
 *    every operation (its adds 1.5-2.2x faster than avx512's at k >= 5, src/kernels/
 *    blocked_avx512gfni.c; its lookups are avx512's). The Zen 1 row's adds stay scalar: that CPU has
 *    no AVX-512 or GFNI, so the new kernel does not apply there.
 */
typedef enum cpu_vendor { VENDOR_OTHER, VENDOR_AMD, VENDOR_INTEL } cpu_vendor;

typedef struct cpu_row {
    cpu_vendor vendor;
    unsigned family, model_lo, model_hi;
    bb_isa contains, add;
} cpu_row;

#if defined(__x86_64__) || defined(__i386__) /* CPUID identifies the CPU on x86 only */
static const cpu_row cpu_rows[] = {
    {VENDOR_AMD, 0x17, 0x00, 0x2f, BB_ISA_AVX2, BB_ISA_SCALAR},
};

static cpu_vendor cpu_ident(unsigned *family, unsigned *model) {
    unsigned a, b, c, d;
    *family = *model = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return VENDOR_OTHER;
    cpu_vendor v = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u ? VENDOR_AMD /* AuthenticAMD */
                 : b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu ? VENDOR_INTEL /* GenuineIntel */
                 : VENDOR_OTHER;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return VENDOR_OTHER;
    unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    *family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
    *model = base_family == 0xf || base_family == 0x6 ? base_model | (((a >> 16) & 0xf) << 4)
                                                      : base_model;
    return v;
}
#endif

/* The row of this CPU with every kernel it names available here, or NULL. */
static const cpu_row *cpu_row_here(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned family, model;
    cpu_vendor v = cpu_ident(&family, &model);
    for (size_t i = 0; i < sizeof cpu_rows / sizeof *cpu_rows; i++) {
        const cpu_row *r = &cpu_rows[i];
        if (r->vendor == v && r->family == family && model >= r->model_lo &&
            model <= r->model_hi && kernel_of(r->contains) && kernel_of(r->add))
            return r;
    }
#endif
    return NULL;
}

/* ---- The active choice --------------------------------------------------------------------
 * One constant bb_dispatch per single kernel (what BB_ISA and bb_set_isa select), and the
 * automatic one, filled exactly once (the first caller fills it, any other waits for it), so
 * the pointer published always points to a filled table and no two threads write it. */
static const bb_dispatch only_scalar = {&bb_kernel_scalar, &bb_kernel_scalar, &bb_conc_kernel_scalar,
                                        &bb_kernel_sectorized_scalar};
/* No NEON concurrent kernel: the scalar one (byte updates) serves AArch64. */
static const bb_dispatch only_neon = {&bb_kernel_neon, &bb_kernel_neon, &bb_conc_kernel_scalar,
                                      &bb_kernel_sectorized_neon};
#if defined(__x86_64__) || defined(__i386__)
static const bb_dispatch only_avx2 = {&bb_kernel_avx2, &bb_kernel_avx2, &bb_conc_kernel_avx2,
                                      &bb_kernel_sectorized_avx2};
/* The sectorized kind has one AVX-512 kernel (AVX-512F and VL: its mask needs no GFNI). */
static const bb_dispatch only_avx512 = {&bb_kernel_avx512, &bb_kernel_avx512,
                                        &bb_conc_kernel_avx512, &bb_kernel_sectorized_avx512};
static const bb_dispatch only_avx512gfni = {&bb_kernel_avx512gfni, &bb_kernel_avx512gfni,
                                            &bb_conc_kernel_avx512gfni,
                                            &bb_kernel_sectorized_avx512};
#endif
static bb_dispatch automatic;
static atomic_int automatic_state; /* 0: not filled, 1: being filled, 2: filled */

static const bb_dispatch *single_of(bb_isa isa) {
    if (!kernel_of(isa)) return NULL;
    switch (isa) {
    case BB_ISA_SCALAR: return &only_scalar;
    case BB_ISA_NEON: return &only_neon;
#if defined(__x86_64__) || defined(__i386__)
    case BB_ISA_AVX2: return &only_avx2;
    case BB_ISA_AVX512: return &only_avx512;
    case BB_ISA_AVX512GFNI: return &only_avx512gfni;
#endif
    default: return NULL;
    }
}

static const bb_dispatch *automatic_choice(void) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&automatic_state, &expected, 1)) {
        const cpu_row *r = cpu_row_here();
        automatic.contains = r ? kernel_of(r->contains) : widest_kernel();
        automatic.add = r ? kernel_of(r->add) : widest_kernel();
        automatic.conc = single_of(automatic.add->isa)->conc; /* follows the add's ISA */
        /* Sectorized: the widest kernel for both operations, whatever the blocked rows say:
         * its mask is a few lane-wise operations, not the blocked add's cross-lane work, so
         * the blocked kind's reasons for a narrower kernel do not carry over (Xeon family 6
         * model 0xa7, 10^6 keys: adds 2.30 ns/key on avx512, 2.73 avx2, 8.74 scalar;
         * contains 3.03, 3.82, 8.36; docs/PERFORMANCE.md). */
        automatic.sect = single_of(widest_kernel()->isa)->sect;
        atomic_store_explicit(&automatic_state, 2, memory_order_release);
    }
    while (atomic_load_explicit(&automatic_state, memory_order_acquire) != 2) {
    }
    return &automatic;
}

const bb_dispatch *bb_dispatch_choose(void) {
    const bb_dispatch *d = NULL;
    bb_isa isa;
    const char *env = getenv("BB_ISA");
    if (env && bb_isa_from_string(env, &isa) == BB_OK && isa != BB_ISA_AUTO) d = single_of(isa);
    if (!d) d = automatic_choice();
    atomic_store_explicit(&bb_active_dispatch, d, memory_order_release);
    return d;
}

bool bb_isa_available(bb_isa isa) { return isa == BB_ISA_AUTO || kernel_of(isa) != NULL; }

bb_status bb_set_isa(bb_isa isa) {
    if ((unsigned)isa > BB_ISA_AVX512GFNI) return BB_E_INVAL;
    const bb_dispatch *d = isa == BB_ISA_AUTO ? automatic_choice() : single_of(isa);
    if (!d) return BB_E_UNSUPPORTED;
    atomic_store_explicit(&bb_active_dispatch, d, memory_order_release);
    return BB_OK;
}

const char *bb_isa_name(void) { return bb_dispatch_active()->contains->name; }

const char *bb_isa_name_for(bb_op op) {
    const bb_dispatch *d = bb_dispatch_active();
    switch (op) {
    case BB_OP_CONTAINS: return d->contains->name;
    case BB_OP_ADD: return d->add->name;
    }
    return NULL;
}
