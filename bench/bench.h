/* SPDX-License-Identifier: MIT */
/*
 * bench.h - declarations shared by the benchmark's files: clocks and statistics (timing.c),
 * the machine description (machine.c), key sets (keys.c), the floors (floors.c), the
 * measured series (series.c), the measurement loops (measure.c) and the table and JSON
 * output (report.c). The benchmark is not the library: it may use internal headers (to run
 * the kernels' own batch loop as the line-read floor) and xxhash.h directly.
 *
 * Units: every duration is in nanoseconds (double); every throughput figure is ns per key.
 * A metric that does not apply to a series (libbloom has no pre-hashed entry point) is NaN
 * and printed as "-" in the table and null in the JSON.
 */
#ifndef BB_BENCH_H
#define BB_BENCH_H

#include <blockbloom.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef BENCH_HAVE_LIBBLOOM
#include <bloom.h>
#endif

/* ---- Clocks and statistics (timing.c) ------------------------------------------------------ */
double now_ns(void);                 /* CLOCK_MONOTONIC */
double cpu_ns(void);                 /* CLOCK_THREAD_CPUTIME_ID: this thread's CPU time */
double process_cpu_ns(void);         /* CLOCK_PROCESS_CPUTIME_ID: all threads' CPU time */
void tick_calibrate(void);           /* measures the tick rate once (TSC on x86) */
uint64_t tick_now(void);             /* fenced TSC read on x86, else now_ns */
void tick_fence(void);               /* no later instruction starts before earlier ones end */
double tick_to_ns(uint64_t ticks);
double median(double *v, size_t n);  /* sorts v */
double percentile(double *v, size_t n, double q); /* sorts v; q in [0, 1] */
uint64_t splitmix64(uint64_t *state);
uint64_t mix64(uint64_t x);          /* bijective 64-bit finaliser (splitmix64's) */
/* Keeps the compiler from deleting a computation whose result is otherwise unused. */
#define BENCH_KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

/* ---- Machine (machine.c) -------------------------------------------------------------------- */
typedef struct machine {
    char cpu[128];
    uint64_t l1d, l2, llc; /* bytes per instance, from sysfs (or sysconf); 0 if unknown */
    int cpus;
    char thp[64];          /* /sys/kernel/mm/transparent_hugepage/enabled, the [selected] word */
    char clocksource[32];
    double tick_ghz;
    char libbloom_version[32];
} machine;
void machine_describe(machine *m);
/* AnonHugePages of this process, KiB (from /proc/self/smaps_rollup); -1 if unreadable. */
long machine_anon_huge_kib(void);

/* ---- Keys (keys.c) ---------------------------------------------------------------------------
 * Key i is a deterministic, distinct byte string: with an npm name list (shuffled once with
 * a fixed seed) key i < N is name i and key i >= N is name (i mod N), a space, i / N (npm
 * names contain no space, so all keys stay distinct); without the list key i is "key-" and 16
 * hex digits of mix64(i) (20 bytes; mix64 is a bijection, so keys are distinct), padded with
 * more hex digits of mix64(i) to key_bytes bytes when that is longer (--key-bytes). Each size
 * adds a run of consecutive keys and queries the keys after that run as absent keys. */
typedef struct keygen {
    char *names;       /* the list's bytes, NUL-free, names back to back */
    uint64_t *offs;    /* name i (after the shuffle) is names[offs[i] .. offs[i] + lens[i]) */
    uint32_t *lens;
    size_t count;      /* names in the list; 0 = generated keys */
    size_t key_bytes;  /* generated keys' length, >= 20 */
    char source[256];  /* file used, or "generated" */
} keygen;
bool keygen_open(keygen *g, const char *path); /* false (and generated keys) if unreadable */
void keygen_close(keygen *g);

/** A materialised set of keys: pointer + length arrays into one arena, in query order. */
typedef struct keyset {
    char *arena;
    size_t arena_cap, arena_used;
    const void **ptrs;
    size_t *lens;
    size_t count, cap;
} keyset;
void keyset_init(keyset *s, size_t cap);
void keyset_free(keyset *s);
/* Replace the contents by keys first .. first+count-1, or by keys index[0 .. count). */
void keyset_fill_range(keyset *s, const keygen *g, uint64_t first, size_t count);
void keyset_fill_list(keyset *s, const keygen *g, const uint64_t *index, size_t count);
double keyset_mean_len(const keyset *s);

/* ---- Floors (floors.c) ---------------------------------------------------------------------- */
/* XXH3-64 of every key, in chunks of 256 into a stack buffer, as the library's batch path
 * hashes them; returns a value that depends on every hash. */
uint64_t floor_xxh3(const void *const *keys, const size_t *lens, size_t n, uint64_t seed);
uint64_t floor_xxh3_grouped(const void *const *keys, const size_t *lens, size_t n,
                           uint64_t seed);
/* Reads one 64-byte line per hash from lines*64 bytes at data, picking the line as the
 * blocked filter picks its block and running the kernels' own batch loop (same prefetch). */
size_t floor_lines(const uint8_t *data, uint64_t lines, const uint64_t *hashes, size_t n,
                   uint8_t *out);
/* Single-key floors over the same array: a loop of independent line reads with no
 * prefetch (the out-of-order core overlaps them as it can), and a dependent chain in which
 * each line's content picks the next hash (hashes[i + 1 + (bit 0 of the line)], mod n), so
 * one read at a time is in flight. Both return a value that depends on every read. */
size_t floor_line_loop(const uint8_t *data, uint64_t lines, const uint64_t *hashes, size_t n);
size_t floor_line_chain(const uint8_t *data, uint64_t lines, const uint64_t *hashes, size_t n,
                        size_t steps);
/* The line floor's array, allocated as the library allocates filter payloads. */
uint8_t *floor_alloc(uint64_t bytes, void **base, size_t *len);
void floor_free(void *base, size_t len);

/* ---- Inline lookups (view-loops.h) -----------------------------------------------------------
 * A loop of bb_view_contains_hash over h[0 .. n) (chain: a dependent chain of n steps, each
 * answer picking the next key), compiled once per ISA (view-<isa>.c, each with that ISA's
 * flags) as a caller's loop built with those flags would be; returns the hits. */
typedef size_t view_loops_fn(const bb_view *v, const uint64_t *h, size_t n, bool chain);
view_loops_fn view_loops_scalar;
#if defined(__x86_64__) || defined(__i386__)
view_loops_fn view_loops_avx2, view_loops_avx512;
#endif

/* ---- Series (series.c) ---------------------------------------------------------------------- */
typedef enum series_type {
    S_BLOCKED,     /* bb blocked filter, one kernel */
    S_SPLIT,       /* bb split-block (Parquet) filter, one kernel; keys hash with XXH64 */
    S_SECTORIZED,  /* bb sectorized filter, one kernel */
    S_CLASSIC,     /* bb classic filter */
    S_LIBBLOOM,    /* libbloom 1.6 */
    S_FLOOR_XXH3,  /* hashing alone */
    S_FLOOR_XXH3_GROUPED, /* the library's batch hashing alone (grouped by length class) */
    S_FLOOR_LINE,  /* one random line read per key */
    S_THREADS,     /* batch contains of a blocked filter from several threads (read-only),
                    * and concurrent adds of pre-hashed keys split among as many threads */
    S_JOBS         /* the blocked filter of one kernel with the library's own threads
                    * (bb_set_threads): batch adds and contains from one caller thread */
} series_type;

typedef enum metric {
    M_ADD,         /* batch add of string keys (libbloom: bloom_add loop), ns/key */
    M_ADD_HASH,    /* batch add of the same keys pre-hashed, bb_add_hashes (blocked only) */
    M_ADD_CONC,    /* same with bb_add_hashes_concurrent: the default kernel's blocked series
                    * (1 thread) and S_THREADS (its threads split the keys) */
    M_PRESENT,     /* batch contains, string keys, all present (libbloom: bloom_check loop) */
    M_ABSENT,      /* same, all absent */
    M_LAT_P50,     /* single-key contains latency, ns per call, median */
    M_LAT_P99,     /* same, 99th percentile */
    M_BATCH_STR,   /* batch contains, string keys, 50/50 present/absent shuffled */
    M_BATCH_HASH,  /* batch contains, pre-hashed keys, same mix */
    M_LOOP,        /* single-key loop, pre-hashed mix, independent calls, no fence:
                    * bb_contains_hash (floor-line: one line read per key, no prefetch) */
    M_VLOOP,       /* same loop with the header's inline bb_view_contains_hash (blocked only) */
    M_CHAIN,       /* dependent chain: each answer picks the next key (blocked: the inline
                    * view; floor-line: each line read picks the next line) */
    M_COUNT
} metric;
extern const char *const metric_names[M_COUNT];

typedef struct series {
    char name[48];
    series_type type;
    bb_isa isa;           /* S_BLOCKED, S_SPLIT, S_SECTORIZED, S_THREADS, S_JOBS */
    int threads;          /* S_THREADS, S_JOBS */
    size_t batch;         /* S_JOBS: keys per batch call at most (--batch), 0: no limit */
    bool concurrent;      /* S_BLOCKED: also measure M_ADD_CONC (every kernel's series) */
    bb_isa conc_isa;      /* S_THREADS: the kernel of its concurrent adds (BB_ISA_AUTO: the
                           * automatic choice, which may depend on the filter's size) */
    uint64_t seed;
    bool skip;            /* does not exist at this size (libbloom's int limits) */
    char skip_why[96];
    bb_filter *f;
    bb_filter *conc_f;    /* what M_ADD_CONC builds: its own filter, so its adds never find
                           * bits that another measurement's adds set */
#ifdef BENCH_HAVE_LIBBLOOM
    struct bloom lb;
#endif
    uint8_t *floor_data;  /* S_FLOOR_LINE */
    void *floor_base;
    size_t floor_len;
    uint64_t floor_lines;
    struct series *shared; /* S_THREADS: the series whose filter it reads */
    /* results */
    uint64_t bytes;
    unsigned k;
    double bits_per_key, fpr, fpr_model;
    double reps[M_COUNT][64];
    int nreps[M_COUNT];
    double value[M_COUNT]; /* median of reps, NaN if not measured */
    /* S_THREADS: value[] is wall time / all keys; cpu_value[] is the slowest thread's CPU
     * time / all keys, what the wall time would be if the threads had their cores alone.
     * S_JOBS: value[] is wall time / key; cpu_value[] the CPU time of all the process's
     * threads (the library's too) / key: the work, which other processes' load leaves be. */
    double cpu_reps[M_COUNT][64];
    double cpu_value[M_COUNT];
} series;

/* Make the structure for a size; false with skip/skip_why set if it cannot exist there. */
bool series_create(series *s, uint64_t n, double fpr, uint64_t seed, uint64_t line_bytes);
void series_destroy(series *s);
/* Empty what metric m's adds build (M_ADD_CONC: conc_f; other metrics: the filter). */
void series_clear(series *s, metric m);
/* Activate what the series needs before a measurement (its kernel). */
void series_select(const series *s);
bool series_has(const series *s, metric m);
void series_add(series *s, const keyset *ks, size_t first, size_t count);
/* h[0 .. n) with metric m's call: M_ADD_HASH bb_add_hashes, M_ADD_CONC the concurrent one. */
void series_add_hashes(series *s, metric m, const uint64_t *h, size_t n);
/* Keys first .. first+count-1 of ks; out[0 .. count). */
size_t series_contains(series *s, const keyset *ks, size_t first, size_t count, uint8_t *out);
size_t series_contains_hashes(series *s, const uint64_t *h, size_t n, uint8_t *out);
bool series_contains_one(series *s, const void *key, size_t len);
/* Single-key metric m (M_LOOP, M_VLOOP, M_CHAIN) over h[0 .. n); a chain takes n steps. */
size_t series_single(series *s, metric m, const uint64_t *h, size_t n);

/* ---- Measurement (measure.c) ---------------------------------------------------------------- */
typedef struct bench_opts {
    int reps;               /* repetitions per metric, median reported (>= 5 by default) */
    size_t ops;             /* keys per repetition (at least) */
    size_t query_max;       /* keys in each of the present/absent/mix query sets */
    size_t lat_calls;       /* single calls per latency repetition */
    size_t fpr_keys;        /* absent keys for the measured FPR */
    uint64_t seed;
    double fpr;
    bb_isa best_isa;        /* the kernel the library picks by itself: "blocked" in targets */
    uint64_t warm_max_bytes; /* filters up to this size (the LLC) are warmed before timing */
    bool targets;           /* --targets: also report the developers' targets (report.c) */
} bench_opts;

typedef struct size_run {
    char label[16];         /* the name: "L1/L2", "LLC", "DRAM" */
    char fits[8];           /* where the blocked filter fits here: L1, L2, LLC, DRAM */
    uint64_t n;
    uint64_t key0;          /* the filters hold keys key0 .. key0+n-1 (measure.c) */
    double mean_key_len;
    double build_s;         /* wall time of the whole size, seconds */
    long anon_huge_kib;     /* AnonHugePages after building */
    series *series;
    size_t nseries;
    /* What the automatic dispatch runs each bb_op on for this size's filters, per kind with
     * kernels (choice_kinds order): the add kernel may depend on the filter's size. */
    bb_isa chosen[3][5];
} size_run;

void measure_size(size_run *r, const keygen *g, const bench_opts *o);

/* The clock a series' metric was timed with (measure.c decides; the report says it). */
typedef enum bench_clock {
    CLK_THREAD_CPU, /* this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) around each timed call */
    CLK_WALL,       /* CLOCK_MONOTONIC from the first thread's start to the last one's end */
    CLK_TSC         /* fenced TSC reads around groups of single calls (wall time) */
} bench_clock;
extern const char *const clock_names[3];
/* value[m] of a series of type t; an S_THREADS series' cpu_value[] is always CLK_THREAD_CPU
 * (the slowest thread's). */
bench_clock metric_clock(series_type t, metric m);

/* ---- Dispatch per operation (choice.c) -------------------------------------------------------
 * For each operation of a kind with kernels (blocked, split, sectorized): the kernel the
 * library's dispatch runs it on, the fastest kernel measured for it in this run, and their
 * figures. */
typedef struct op_choice {
    series_type kind;       /* S_BLOCKED, S_SPLIT or S_SECTORIZED */
    metric m;
    bb_isa chosen_isa;      /* what dispatch runs m on */
    const series *chosen;   /* its series; NULL when --series left it out */
    const series *fastest;  /* the kernel series with the smallest value[m] */
    /* The largest, over the kind's other kernel series, of the median of the per-repetition
     * ratios chosen / other (NaN without two series): repetition r of every series ran in the
     * same round, so drift of the machine between rounds cancels, which the ratio of two
     * medians does not. The verdicts and the 8.1 targets use it. */
    double paired;
    const series *paired_vs;
} op_choice;
#define MAX_OP_CHOICES 32
/* Fill r->chosen from the library, while the size's filters exist (after series_create). */
void op_choices_note(size_run *r);
size_t op_choices(const size_run *r, op_choice *out);
/* The median of a[i] / b[i] over the repetitions both have, both positive (NaN if none). */
double paired_ratio(const double *a, int na, const double *b, int nb);
/* "blocked", "split" or "sectorized". */
const char *op_kind_name(series_type kind);
/* The kernel the automatic dispatch runs op on for this size's filters of a series type. */
bb_isa chosen_kernel(const size_run *r, series_type kind, bb_op op);

/* ---- Output (report.c) ---------------------------------------------------------------------- */
void report_table(const size_run *runs, size_t nruns, const machine *m, const bench_opts *o,
                  const keygen *g);
bool report_json(const char *path, const size_run *runs, size_t nruns, const machine *m,
                 const bench_opts *o, const keygen *g, const char *cmdline);

#endif /* BB_BENCH_H */
