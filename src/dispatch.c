/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c - the ISA table and the choice of kernels, made once per process, one per
 * operation. Compiled at the baseline ISA, so it runs on any CPU. isa_rows holds, per
 * instruction set, the CPU features it needs and its kernel for each layout (blocked,
 * concurrent blocked adds, split-block, sectorized); it is the only place that maps an ISA
 * to kernels.
 * The automatic choice takes the widest row this CPU has (on x86 avx512gfni, avx512, avx2,
 * then scalar; on AArch64 NEON, fixed at compile time) for every operation, unless the CPU's
 * vendor, family and model match one of cpu_rows, which may put an operation on a narrower
 * kernel measured faster there. BB_ISA=scalar|avx2|avx512|avx512gfni|neon in the
 * environment, or bb_set_isa(), puts every operation on that one ISA (for tests and
 * benchmarks); a name that is unknown or unavailable here leaves the automatic choice.
 *
 * Why a table and not a one-time calibration: every kernel gives the same bits, so either is
 * safe, but a calibration would time a few microseconds of work at start-up, and on the
 * shared 2-vCPU VMs this library is measured on, repeated benchmark runs of one kernel differ
 * by 10-30%, more than most of the differences it would have to detect; it would pick at
 * random between close kernels and make runs irreproducible.
 */
#include "internal.h"
#include "kernels/prefetch.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

_Atomic(const bb_dispatch *) bb_active_dispatch;

/* ---- The ISA table -----------------------------------------------------------------------
 * One row per instruction set: its name (BB_ISA=, bb_isa_from_string), the CPU features its
 * kernel files are compiled for (CMakeLists.txt's bb_isa rows give the flags), whether the
 * automatic choice may take it, and its kernel for each layout. A kernel family of a new
 * layout adds one field here, one in bb_dispatch (internal.h) and one line in fill_tables. */
enum cpu_feature {
    FEAT_AVX2 = 1u << 0,
    FEAT_AVX512F = 1u << 1,
    FEAT_AVX512VL = 1u << 2,
    FEAT_AVX512BW = 1u << 3,
    FEAT_AVX512CD = 1u << 4,
    FEAT_AVX512VBMI = 1u << 5,
    FEAT_GFNI = 1u << 6,
};

/* The features of this CPU. __builtin_cpu_supports also checks that the OS saves the wide
 * registers (XGETBV), which CPUID's feature bits alone do not say. */
static unsigned cpu_features(void) {
    unsigned f = 0;
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx2")) f |= FEAT_AVX2;
    if (__builtin_cpu_supports("avx512f")) f |= FEAT_AVX512F;
    if (__builtin_cpu_supports("avx512vl")) f |= FEAT_AVX512VL;
    if (__builtin_cpu_supports("avx512bw")) f |= FEAT_AVX512BW;
    if (__builtin_cpu_supports("avx512cd")) f |= FEAT_AVX512CD;
    if (__builtin_cpu_supports("avx512vbmi")) f |= FEAT_AVX512VBMI;
    if (__builtin_cpu_supports("gfni")) f |= FEAT_GFNI;
#endif
    return f;
}

/* The x86 kernels are built on x86 only; elsewhere their rows have no kernels. */
#if defined(__x86_64__) || defined(__i386__)
#define X86(kernel) (&(kernel))
#else
#define X86(kernel) NULL
#endif
#if defined(__aarch64__)
#define NEON_NATIVE true
#else
#define NEON_NATIVE false
#endif

typedef struct isa_row {
    bb_isa isa;
    const char *name;
    unsigned needs;             /* FEAT_* bits the CPU must have */
    bool automatic;             /* the automatic choice may take it */
    const bb_kernel *blocked;   /* NULL: not built for this processor */
    const bb_conc_kernel *conc; /* concurrent adds of blocked filters */
    const bb_split_kernel *split;
    const bb_kernel *sectorized;
} isa_row;

/* Widest first: with no per-CPU row, every operation runs on the first available row that
 * is `automatic`. F and VL are every AVX-512 CPU but the Xeon Phi. AVX-512 machines run the
 * AVX2 split kernel: a 256-bit split block is one AVX2 register, and the loop is bound by
 * the block's cache miss (split_avx2.c). NEON is native and taken on AArch64 only; on x86
 * SIMDe emulates it, for tests. AArch64 has no NEON concurrent kernel: the scalar one's byte
 * updates serve it. The sectorized kind has one AVX-512 kernel (F and VL: its mask needs no
 * GFNI). */
/* clang-format off */
static const isa_row isa_rows[] = {
    {.isa = BB_ISA_AVX512GFNI, .name = "avx512gfni", .automatic = true,
     .needs = FEAT_AVX512F | FEAT_AVX512VL | FEAT_AVX512BW | FEAT_AVX512CD | FEAT_AVX512VBMI |
              FEAT_GFNI,
     .blocked = X86(bb_kernel_avx512gfni), .conc = X86(bb_conc_kernel_avx512gfni),
     .split = X86(bb_split_kernel_avx2), .sectorized = X86(bb_kernel_sectorized_avx512)},
    {.isa = BB_ISA_AVX512, .name = "avx512", .automatic = true,
     .needs = FEAT_AVX512F | FEAT_AVX512VL,
     .blocked = X86(bb_kernel_avx512), .conc = X86(bb_conc_kernel_avx512),
     .split = X86(bb_split_kernel_avx2), .sectorized = X86(bb_kernel_sectorized_avx512)},
    {.isa = BB_ISA_AVX2, .name = "avx2", .automatic = true,
     .needs = FEAT_AVX2,
     .blocked = X86(bb_kernel_avx2), .conc = X86(bb_conc_kernel_avx2),
     .split = X86(bb_split_kernel_avx2), .sectorized = X86(bb_kernel_sectorized_avx2)},
    {.isa = BB_ISA_NEON, .name = "neon", .automatic = NEON_NATIVE,
     .needs = 0,
     .blocked = &bb_kernel_neon, .conc = &bb_conc_kernel_scalar,
     .split = &bb_split_kernel_neon, .sectorized = &bb_kernel_sectorized_neon},
    {.isa = BB_ISA_SCALAR, .name = "scalar", .automatic = true,
     .needs = 0,
     .blocked = &bb_kernel_scalar, .conc = &bb_conc_kernel_scalar,
     .split = &bb_split_kernel_scalar, .sectorized = &bb_kernel_sectorized_scalar},
};
/* clang-format on */
#define N_ISA_ROWS (sizeof isa_rows / sizeof *isa_rows)

/* The row of isa, or NULL for a value that is not an ISA (BB_ISA_AUTO included). */
static const isa_row *row_of(bb_isa isa) {
    for (size_t i = 0; i < N_ISA_ROWS; i++)
        if (isa_rows[i].isa == isa) return &isa_rows[i];
    return NULL;
}

/* The row of isa if its kernels run here, else NULL. */
static const isa_row *available_row(bb_isa isa) {
    const isa_row *r = row_of(isa);
    return r && r->blocked && (cpu_features() & r->needs) == r->needs ? r : NULL;
}

static const isa_row *widest_row(void) {
    for (size_t i = 0; i < N_ISA_ROWS; i++)
        if (isa_rows[i].automatic && available_row(isa_rows[i].isa)) return &isa_rows[i];
    return row_of(BB_ISA_SCALAR);
}

const char *bb_isa_to_string(bb_isa isa) {
    if (isa == BB_ISA_AUTO) return "auto";
    const isa_row *r = row_of(isa);
    return r ? r->name : "unknown";
}

bb_status bb_isa_from_string(const char *name, bb_isa *out) {
    if (!name || !out) return BB_E_INVAL;
    if (strcmp(name, "auto") == 0) {
        *out = BB_ISA_AUTO;
        return BB_OK;
    }
    for (size_t i = 0; i < N_ISA_ROWS; i++)
        if (strcmp(name, isa_rows[i].name) == 0) {
            *out = isa_rows[i].isa;
            return BB_OK;
        }
    return BB_E_INVAL;
}

/* ---- Per-CPU choices ---------------------------------------------------------------------
 * A row applies when the vendor, the family and a model in [model_lo, model_hi] match (family
 * and model as the vendor's manuals combine the CPUID base and extended fields) and the row's
 * kernels are available; each operation then runs on the row's kernel for it. A row is added
 * only from a `blockbloom-bench` run on that CPU (one run per CPU kind in docs/).
 *
 *  - AMD family 17h, models 00h-2Fh (Zen, Zen+): a 128-bit SIMD datapath splits each 256-bit
 *    op in two and vpsllvd ymm is microcoded, so adds run scalar: pre-hashed batch add of 1M
 *    keys at 1%, 22.1 ns/key on AVX2 against 10.6 on scalar (family 23 model 1, 2-vCPU EPYC
 *    VM); contains stays on AVX2 (6.8 against 10.1).
 *  - AMD family 19h models 10h-1Fh (Zen 4 "Genoa"): everything on avx512gfni (the
 *    sectorized kind on avx512, the widest kernel it has). In five full runs of
 *    blockbloom-bench at 10^4-10^8 keys (family 25 model 17, docs/bench/zen4.txt one of
 *    them), the median over 35 repetitions of the chosen kernel's time over any other
 *    kernel's in the same round was at most 1.04 for every operation of both kinds
 *    (single-call latency at 10^6 against scalar; adds 0.95-0.97 against avx512). Batch
 *    adds of hashes into filters below 4 MiB (split_add_mib) keep to one thread: two
 *    library threads took 1.12-1.41x one thread's time on them into a 1.2 MiB filter in
 *    four of five full runs (calls of 1.4 x 10^5 keys) and 0.99-1.04x in batches of
 *    1.4-5.6 x 10^5, but gained 1.19x at 4.7 MiB and 1.06-1.84x at 11.8 MiB; adds of
 *    keys, whose hashing the threads share, gained 1.03-1.24x at 1.2 MiB.
 *  - Intel family 6 model A7h as the AVX-512 Xeon KVM guest of docs/bench/intel-xeon-6-a7.txt
 *    reports itself (AVX-512 F/BW/VL/VBMI2, GFNI, AMX): adds run scalar, faster there than
 *    avx512gfni by 1.64x pre-hashed at 10^4 keys and 1.76x at 10^6 (3.23 against 5.68
 *    ns/key), but adds of hashes into filters above 6 MiB (large_mib), plain and concurrent,
 *    run avx512, faster there than scalar (8.63 against 9.92 ns/key at 10^8 keys, 1.15x;
 *    concurrent 9.39 against 9.75). Between 4.7 and 8.3 MiB the two were within 1.07x of each
 *    other either way in two runs, so the cut sits between. Adds of keys stay scalar
 *    (kinds/blocked.c). Contains stay on avx512gfni, but batches of keys in filters above
 *    6 MiB, blocked contains and sectorized adds and contains, run avx2, faster there in
 *    both full runs: blocked string contains 14.74 against 15.63 ns/key at 10^8 keys,
 *    sectorized 14.14 against 15.36 and sectorized string adds 16.18 against 17.28 (avx512),
 *    while batches of hashes and loops of single lookups stay faster on the wider kernels.
 *  - Intel family 6 model CFh (docs/bench/intel-xeon-6-cf.txt, a KVM guest with AVX-512,
 *    GFNI and AMX): contains on avx512gfni, within 1.02x of the fastest kernel at every size;
 *    every blocked add on avx512, whose mask is ORed from table rows (avx512_line_masks.h).
 *    Scalar took 1.03-1.05x its time on pre-hashed adds at 10^4 and 10^6 keys in three quiet
 *    runs (1.38-1.64x in two loaded ones), 1.29-1.48x at 10^7 and 0.98-1.05x at 10^8 (two
 *    runs), 0.98-1.21x on string adds and 0.92-1.43x on concurrent adds. The
 *    large-filter columns repeat avx512, so that batches of keys above 6 MiB keep their own
 *    contains kernel (keys_large). Batches of keys into filters above 16 MiB prefetch each
 *    line inside the hashing loop (inline_pf_mib): string batches took 0.80-0.96x the time
 *    of the chunk-at-once prefetch at 10^8 keys and 0.92-0.94x at 2x10^7 (24 MiB), but
 *    1.03-1.05x at 10^7 (12 MiB) (docs/PERFORMANCE.md, "Kernel notes"); adds and lookups
 *    alike (inline_pf_mib, inline_pf_add_mib).
 *  - AMD family 19h models 00h-0Fh (Zen 3 "Milan"; docs/bench/zen3.txt, family 25 model 1,
 *    AVX2 and no AVX-512): the choice a CPU without a row gets, contains on avx2 and blocked
 *    adds on scalar, measured right in both full runs: the paired medians of the 14
 *    repetitions at 10^4-10^8 keys put scalar adds at 0.81-0.95x avx2's time, concurrent
 *    adds at 0.93-1.06x, and avx2 batch lookups at 0.39-0.75x scalar's (single-call
 *    latency at 10^6: 1.15x, the loop 0.70x). Batch adds of hashes into filters below 4 MiB
 *    keep to one thread: two library threads took 1.32x one thread's time into a 1.2 MiB
 *    filter in one full run of two and 1.37x in one of five runs at that size alone
 *    (0.80-0.99x in the rest). Batch adds of keys into filters above 16 MiB prefetch each
 *    line inside the hashing loop (inline_pf_add_mib; the size is model CFh's): in pairs of
 *    alternating runs at 10^8 keys that took blocked string adds to 0.875x the time on
 *    scalar (3 pairs, 0.82-0.98) and 0.78x on avx2 (5), sectorized ones to 0.97x (5,
 *    0.73-1.00), and in 3 pairs at 3 x 10^7 (35 MiB) to 0.92x and 0.95x; batch lookups of
 *    keys keep the chunk-at-once prefetch: the inline one took 0.97-1.15x its time at 10^8
 *    (medians per column) and 0.98-1.00x at 3 x 10^7 (a later, noisier check:
 *    docs/PERFORMANCE.md, "Results: AMD EPYC Zen 3").
 * A CPU without a row gets the widest kernel for contains and scalar adds: of the five CPUs
 * measured, the widest kernel's adds lost to scalar on four (Zen 1, Zen 3 and both Intel
 * models) and won only on Zen 4, which has its row. It also keeps batch adds of hashes into
 * filters below DEFAULT_SPLIT_ADD_MIB on one thread, as the rows of both AMD CPUs measured
 * with two threads do: there splitting cost up to 1.41x (Zen 4) and 1.37x (Zen 3), where
 * keeping to one thread costs at most the 1.07x that two threads gained in the recorded run
 * on Intel model CFh (the Intel rows split at every size).
 * Single-key calls (bb_contains_hash) run on the contains kernel. In a loop of independent
 * calls the widest kernel is 1.5-2.5x faster than scalar on both Intel models at 10^6-10^8
 * keys (model CFh: 0.58x scalar's time at 10^6, 0.43x at 10^8, paired medians of two full
 * runs), while the fenced one-call latency favours scalar at 10^6 (both) and 10^7 (model
 * CFh: 1.21x and 1.19x scalar's time; 1.06x at 10^8), so no one kernel wins both, and the
 * loop, the prefilter's use, decides.
 */
typedef enum cpu_vendor { VENDOR_OTHER, VENDOR_AMD, VENDOR_INTEL } cpu_vendor;

typedef struct cpu_row {
    cpu_vendor vendor;
    unsigned family, model_lo, model_hi;
    bb_isa contains, add;
    /* In blocked and sectorized filters larger than large_mib MiB (0: none), adds of hashes
     * run on add_large instead of add (blocked, plain and concurrent), batches of keys on
     * keys_large (blocked contains, sectorized adds and contains), and blocked adds of keys
     * on keys_add_large. */
    unsigned large_mib;
    bb_isa add_large, keys_large, keys_add_large;
    /* Batch lookups (inline_pf_mib) and batch adds (inline_pf_add_mib) of keys in blocked
     * and sectorized filters larger than that many MiB (0: none) prefetch each key's line as
     * it is hashed (bb_dispatch.inline_pf_bytes, inline_pf_add_bytes). */
    unsigned inline_pf_mib, inline_pf_add_mib;
    /* Batch adds of hashes into filters below split_add_mib MiB (0: none) keep to one
     * thread (bb_dispatch.split_add_bytes). */
    unsigned split_add_mib;
} cpu_row;

#if defined(__x86_64__) || defined(__i386__) /* CPUID identifies the CPU on x86 only */
static const cpu_row cpu_rows[] = {
    {VENDOR_AMD, 0x17, 0x00, 0x2f, BB_ISA_AVX2, BB_ISA_SCALAR, 0, BB_ISA_AUTO, BB_ISA_AUTO,
     BB_ISA_AUTO, 0, 0, 0},
    {VENDOR_AMD, 0x19, 0x00, 0x0f, BB_ISA_AVX2, BB_ISA_SCALAR, 0, BB_ISA_AUTO, BB_ISA_AUTO,
     BB_ISA_AUTO, 0, 16, 4},
    {VENDOR_AMD, 0x19, 0x10, 0x1f, BB_ISA_AVX512GFNI, BB_ISA_AVX512GFNI, 0, BB_ISA_AUTO,
     BB_ISA_AUTO, BB_ISA_AUTO, 0, 0, 4},
    {VENDOR_INTEL, 0x06, 0xa7, 0xa7, BB_ISA_AVX512GFNI, BB_ISA_SCALAR, 6, BB_ISA_AVX512,
     BB_ISA_AVX2, BB_ISA_SCALAR, 0, 0, 0},
    {VENDOR_INTEL, 0x06, 0xcf, 0xcf, BB_ISA_AVX512GFNI, BB_ISA_AVX512, 6, BB_ISA_AVX512,
     BB_ISA_AVX512GFNI, BB_ISA_AVX512, 16, 16, 0},
};

static cpu_vendor cpu_ident(unsigned *family, unsigned *model) {
    unsigned a, b, c, d;
    *family = *model = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return VENDOR_OTHER;
    cpu_vendor v =
        b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u   ? VENDOR_AMD   /* AuthenticAMD */
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

/* Batch adds of hashes into filters below this many MiB keep to one thread on a CPU without
 * a row (see cpu_rows). */
#define DEFAULT_SPLIT_ADD_MIB 4u

/* The add kernel of a CPU without a row: scalar on x86 (see cpu_rows), NEON on AArch64,
 * where no measurement says otherwise. */
static const isa_row *default_add_row(const isa_row *widest) {
#if defined(__x86_64__) || defined(__i386__)
    (void)widest;
    return available_row(BB_ISA_SCALAR);
#else
    return widest;
#endif
}

/* The row of this CPU with every kernel it names available here, or NULL. */
static const cpu_row *cpu_row_here(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned family, model;
    cpu_vendor v = cpu_ident(&family, &model);
    for (size_t i = 0; i < sizeof cpu_rows / sizeof *cpu_rows; i++) {
        const cpu_row *r = &cpu_rows[i];
        if (r->vendor == v && r->family == family && model >= r->model_lo && model <= r->model_hi &&
            available_row(r->contains) && available_row(r->add) &&
            (!r->large_mib || (available_row(r->add_large) && available_row(r->keys_large) &&
                               available_row(r->keys_add_large))))
            return r;
    }
#endif
    return NULL;
}

/* ---- The active choice --------------------------------------------------------------------
 * One bb_dispatch per ISA row (every operation on that ISA: what BB_ISA and bb_set_isa
 * select) and the automatic one, all filled exactly once (the first caller fills them, any
 * other waits), so a published pointer always points to a filled table and no two threads
 * write one. Concurrent adds follow the add's ISA, split-block filters the contains' ISA.
 * The sectorized kind takes the widest ISA for both operations, whatever cpu_rows say, but for
 * a row's keys_large: its mask is a few lane-wise operations, not the blocked add's
 * cross-lane work, so the blocked kind's reasons for a narrower kernel do not carry over
 * (Xeon family 6 model 0xa7, 10^6 keys: adds 2.30 ns/key on avx512, 2.73 avx2, 8.74 scalar;
 * contains 3.03, 3.82, 8.36). */
static bb_dispatch single[N_ISA_ROWS];
static bb_dispatch automatic;
static atomic_int tables_state; /* 0: not filled, 1: being filled, 2: filled */

static bb_dispatch dispatch_of(const isa_row *contains, const isa_row *add, const isa_row *sect) {
    return (bb_dispatch){.contains = contains->blocked,
                         .add = add->blocked,
                         .conc = add->conc,
                         .large_bytes = UINT64_MAX,
                         .add_large = add->blocked,
                         .conc_large = add->conc,
                         .keys_add = add->blocked,
                         .keys_contains = contains->blocked,
                         .keys_sect = sect->sectorized,
                         .split = contains->split,
                         .sect = sect->sectorized,
                         .inline_pf_bytes = UINT64_MAX,
                         .inline_pf_add_bytes = UINT64_MAX};
}

/* The automatic table of a CPU with a row. */
static bb_dispatch dispatch_of_row(const cpu_row *r, const isa_row *sect) {
    bb_dispatch d = dispatch_of(available_row(r->contains), available_row(r->add), sect);
    if (r->large_mib) {
        const isa_row *large = available_row(r->add_large), *keys = available_row(r->keys_large);
        d.large_bytes = (uint64_t)r->large_mib << 20;
        d.add_large = large->blocked;
        d.conc_large = large->conc;
        d.keys_add = available_row(r->keys_add_large)->blocked;
        d.keys_contains = keys->blocked;
        d.keys_sect = keys->sectorized;
    }
    return d;
}

/* A row's "above this many MiB" threshold in bytes; 0 MiB (none) is UINT64_MAX. */
static uint64_t bytes_above(unsigned mib) { return mib ? (uint64_t)mib << 20 : UINT64_MAX; }

static void fill_tables(void) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&tables_state, &expected, 1)) {
        for (size_t i = 0; i < N_ISA_ROWS; i++)
            if (isa_rows[i].blocked)
                single[i] = dispatch_of(&isa_rows[i], &isa_rows[i], &isa_rows[i]);
        const cpu_row *r = cpu_row_here();
        const isa_row *w = widest_row();
        automatic = r ? dispatch_of_row(r, w) : dispatch_of(w, default_add_row(w), w);
        /* the memory system's rules, the pipeline's and the threads': every table */
        uint64_t at = bytes_above(r ? r->inline_pf_mib : 0);
        uint64_t add_at = bytes_above(r ? r->inline_pf_add_mib : 0);
        uint64_t below = (uint64_t)(r ? r->split_add_mib : DEFAULT_SPLIT_ADD_MIB) << 20;
        automatic.inline_pf_bytes = at;
        automatic.inline_pf_add_bytes = add_at;
        automatic.split_add_bytes = below;
        for (size_t i = 0; i < N_ISA_ROWS; i++) {
            single[i].inline_pf_bytes = at;
            single[i].inline_pf_add_bytes = add_at;
            single[i].split_add_bytes = below;
        }
        atomic_store_explicit(&tables_state, 2, memory_order_release);
    }
    while (atomic_load_explicit(&tables_state, memory_order_acquire) != 2) {}
}

/* Every operation on isa, or NULL if isa is not available here (or BB_ISA_AUTO). */
static const bb_dispatch *single_of(bb_isa isa) {
    const isa_row *r = available_row(isa);
    if (!r) return NULL;
    fill_tables();
    return &single[r - isa_rows];
}

static const bb_dispatch *automatic_choice(void) {
    fill_tables();
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

bool bb_isa_available(bb_isa isa) { return isa == BB_ISA_AUTO || available_row(isa) != NULL; }

bb_status bb_set_isa(bb_isa isa) {
    if (isa != BB_ISA_AUTO && !row_of(isa)) return BB_E_INVAL;
    const bb_dispatch *d = isa == BB_ISA_AUTO ? automatic_choice() : single_of(isa);
    if (!d) return BB_E_UNSUPPORTED;
    atomic_store_explicit(&bb_active_dispatch, d, memory_order_release);
    return BB_OK;
}

const char *bb_isa_name(void) { return bb_dispatch_active()->contains->name; }

const char *bb_isa_name_for(bb_op op) {
    bb_isa isa;
    if (bb_isa_kernel(bb_isa_selected(), BB_BLOCKED, op, &isa) != BB_OK) return NULL;
    return bb_isa_to_string(isa);
}

/* ---- The table, read from outside ----------------------------------------------------------
 * Tests, the benchmark, the demo and the CLI walk the ISAs and ask which kernel serves a
 * kind from here, so that a new row is tested, fuzzed and timed with no list to edit. The
 * walk is the table backwards: scalar (the reference, its last row) first. */
size_t bb_isa_count(void) { return N_ISA_ROWS; }

bb_isa bb_isa_at(size_t i) {
    return i < N_ISA_ROWS ? isa_rows[N_ISA_ROWS - 1 - i].isa : BB_ISA_AUTO;
}

bool bb_isa_native(bb_isa isa) {
    const isa_row *r = available_row(isa);
    return r && r->automatic;
}

bb_isa bb_isa_selected(void) {
    const bb_dispatch *d = bb_dispatch_active();
    return d == &automatic ? BB_ISA_AUTO : isa_rows[d - single].isa;
}

/* The kernel of op on filters of row's kind whose adds go to a payload of `bytes` bytes. */
static bb_status kernel_of(bb_isa isa, const bb_kind_ops *row, bb_op op, uint64_t bytes,
                           bb_isa *out) {
    if (!out || !row || op < BB_OP_CONTAINS || op > BB_OP_CONTAINS_KEYS ||
        (isa != BB_ISA_AUTO && !row_of(isa)))
        return BB_E_INVAL;
    const bb_dispatch *d = isa == BB_ISA_AUTO ? automatic_choice() : single_of(isa);
    if (!d) return BB_E_UNSUPPORTED;
    if (op == BB_OP_ADD_CONCURRENT && !row->add_striped)
        /* no concurrent adds, or the kind's own atomic ORs (atomic_bits.h): portable code */
        return row->add_concurrent ? (*out = BB_ISA_SCALAR, BB_OK) : BB_E_UNSUPPORTED;
    if ((op == BB_OP_ADD || op == BB_OP_ADD_KEYS) && !row->add_hashes) {
        *out = BB_ISA_SCALAR; /* batch.c adds key by key through the row's portable add */
        return BB_OK;
    }
    bool large = bytes > d->large_bytes;
    /* batch.c hands the chunks whose lines it prefetched to the row's *_warm entries */
    bool pipelined = bb_pipelined(row, bytes);
    bool warm = pipelined && (op == BB_OP_ADD_KEYS      ? row->add_hashes_warm != NULL
                              : op == BB_OP_CONTAINS_KEYS ? row->contains_hashes_warm != NULL
                                                          : false);
    const bb_kernel *k = NULL;
    switch (row->layout) {
    case BB_LAYOUT_BLOCKED:
        if (op == BB_OP_ADD_CONCURRENT) {
            *out = (large ? d->conc_large : d->conc)->isa;
            return BB_OK;
        }
        k = op == BB_OP_CONTAINS        ? d->contains
            : op == BB_OP_CONTAINS_KEYS ? (warm && large ? d->keys_contains : d->contains)
            : op == BB_OP_ADD_KEYS && warm ? (large ? d->keys_add : d->add)
            : large                        ? d->add_large
                                           : d->add;
        break;
    case BB_LAYOUT_SPLIT: *out = d->split->isa; return BB_OK;
    case BB_LAYOUT_SECTORIZED: k = warm && large ? d->keys_sect : d->sect; break;
    case BB_LAYOUT_PORTABLE:
        *out = BB_ISA_SCALAR; /* no kernels: portable code, which the scalar name stands for */
        return BB_OK;
    }
    *out = k ? k->isa : BB_ISA_SCALAR;
    return BB_OK;
}

bb_status bb_isa_kernel(bb_isa isa, bb_kind kind, bb_op op, bb_isa *out) {
    return kernel_of(isa, bb_kind_row(kind), op, 0, out);
}

/* The library's threads add their runs of a batch of keys as batches of hashes (threads.c),
 * with no pipeline; a scalable filter looks up and adds key by key (single-key tests on the
 * contains kernel, portable adds), so its size never matters (no line_of, no add_hashes). */
bb_status bb_isa_kernel_for(bb_isa isa, const bb_filter *f, bb_op op, bb_isa *out) {
    if (!f) return BB_E_INVAL;
    if (op == BB_OP_ADD_KEYS && bb_threads(f) > 1) op = BB_OP_ADD;
    return kernel_of(isa, bb_row(f), op, f->payload_bytes, out);
}
