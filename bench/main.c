/* SPDX-License-Identifier: MIT */
/*
 * main.c - blockbloom-bench: options, the list of filter sizes and series, and the run.
 * Sizes: n = 10,000 and 1,000,000 (L1/L2-resident on most CPUs),
 * 10,000,000 (LLC) and a DRAM size whose smallest filter is at least 4x the last-level cache
 * read at run time (capped by --max-mib). At every size: the blocked filter once per native
 * kernel (every operation, concurrent adds included, on every kernel), the classic filter,
 * libbloom, the two floors and a 2-thread series (batch contains of one filter; concurrent
 * adds into one filter, against the 1-thread concurrent and plain adds of the default
 * kernel's series).
 * Exit status as the blockbloom CLI's: 0 success, 1 error (memory, output file), 2 usage error.
 */
#include "bench.h"
#include "cli.h" /* cli_mem_available, cli_cgroup_memory_limit (src/cli/cgroup.c) */
#include "datadir.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 8
/* Series of a size: one per kernel of each of the three kinds with kernels (at most three per
 * ISA of the library's table; 9 on an AVX-512 x86) and the 8 others made below (classic,
 * libbloom, three floors, threads, -j1 and -jN). */
#define MAX_SERIES (3 * bb_isa_count() + 8)

static void usage(FILE *fp) {
    fputs("usage: blockbloom-bench [options]   (also: blockbloom bench [options])\n"
          "Measures blockbloom's blocked filter (every native kernel), its split-block\n"
          "(Parquet) filter (scalar, AVX2 or NEON kernel), its sectorized filter (every\n"
          "kernel), its classic filter,\n"
          "libbloom and two floors (XXH3 alone; one random 64-byte line read per key) at\n"
          "n = 10^4, 10^6, 10^7 and a DRAM size >= 4x the last-level cache, p = 1%; and the\n"
          "blocked filter's pre-hashed adds: plain, concurrent, concurrent from N threads.\n"
          "  --json PATH      also write the results as JSON (PATH - : JSON on stdout, no table)\n"
          "  --quick          smoke test: n = 10^4 and 10^6 only, fewer keys (a few seconds)\n"
          "  --max-mib N      cap the DRAM-size filter at N MiB (default 1024)\n"
          "  --no-dram        skip the DRAM size\n"
          "  --plan           print the sizes and the memory they need, then exit\n"
          "  --sizes A,B,..   measure these n instead (labels by where the filter fits)\n"
          "  --reps N         repetitions per number, median reported (default 5)\n"
          "  --ops N          keys per repetition, at least (default 1000000)\n"
          "  --threads N      threads of the multi-thread series, -xN and -jN (default 2)\n"
          "  --batch N        the -j1 and -jN rows' batch calls take at most N keys each, as\n"
          "                   a caller that streams its keys in chunks (default: no limit)\n"
          "  --series A,B,..  measure only these series (names as in the table)\n"
          "  --keys PATH      key list, one per line (default: the npm names if present, in\n"
          "                   $BB_DATA_DIR, data/ or ~/.local/share/blockbloom/)\n"
          "  --generated-keys use generated 20-byte keys even if a key list exists\n"
          "  --key-bytes N    generated keys of N bytes (20 to 65536; no key list is read),\n"
          "                   e.g. 200 for keys as long as URLs\n"
          "  --targets        also print the developers' performance targets: ratios of\n"
          "                   this run's figures against their limits (and add them to --json)\n"
          "  -h, --help       this text\n"
          "Single-thread figures are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so time\n"
          "slices given to other processes do not count; -xN rows give wall time and the\n"
          "slowest thread's CPU time; -jN rows (the library's own N threads, bb_set_threads,\n"
          "called from one thread) give wall time; lat50/lat99 are TSC (wall) over groups\n"
          "of 8 calls.\n",
          fp);
}

typedef struct cli {
    bench_opts o;
    const char *json, *keys, *only;
    bool generated, quick, no_dram, plan;
    uint64_t max_mib;
    int threads;
    size_t key_bytes; /* --key-bytes, 0: not given */
    size_t batch;     /* --batch, 0: not given */
    uint64_t sizes[MAX_SIZES];
    size_t nsizes;
} cli;

/* Digits only: strtoull alone would take leading spaces and a sign, and "-1" would wrap to
 * 2^64 - 1 (so " -18446744073709551615" was planned as n = 1). */
static bool parse_u64(const char *s, uint64_t *v) {
    if (!*s || strspn(s, "0123456789") != strlen(s)) return false;
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno) return false;
    *v = x;
    return true;
}

/* --sizes A,B,..: each n a whole number >= 1 whose blocked filter the library can build at
 * the run's p (bb_size: at most BB_MAX_BITS), so that the plan never shows a filter that
 * cannot exist. Returns 0, or 2 after a message naming the item. */
static int parse_sizes(cli *c, const char *list) {
    const char *why = NULL, *p = list;
    size_t len = 0;
    c->nsizes = 0;
    for (;; p += len + 1) {
        len = strcspn(p, ",");
        char item[32];
        uint64_t bits;
        unsigned k;
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), p);
        if (len == 0) why = "an empty item";
        else if (c->nsizes == MAX_SIZES) why = "more than 8 sizes";
        else if (len >= sizeof item || !parse_u64(item, &c->sizes[c->nsizes]) ||
                 c->sizes[c->nsizes] == 0)
            why = "not a whole number from 1 to 2^64 - 1";
        else if (bb_size(BB_BLOCKED, c->sizes[c->nsizes], c->o.fpr, &bits, &k) != BB_OK)
            why = "its filter would be larger than the library's 2^56 bits";
        if (why) {
            fprintf(stderr, "blockbloom-bench: --sizes %s: '%.*s': %s\n", list,
                    (int)(len < 40 ? len : 40), p, why);
            return 2;
        }
        c->nsizes++;
        if (!p[len]) return 0;
    }
}

static int bad_usage(const char *opt, const char *value) {
    fprintf(stderr, "blockbloom-bench: %s%s%s: unknown option, missing or bad value "
                    "(--help lists the options)\n", opt, value ? " " : "", value ? value : "");
    return 2;
}

/* Options with a whole number from 1 to a maximum: 0 if `a` is none of them, 1 after
 * taking `v`, 2 after a message naming the option, its value and the range. */
static int number_option(cli *c, const char *a, const char *v) {
    static const struct {
        const char *name;
        uint64_t max;
    } opts[] = {{"--max-mib", UINT64_MAX}, {"--reps", 64}, {"--ops", SIZE_MAX}, {"--threads", 16},
                {"--key-bytes", 65536}, {"--batch", SIZE_MAX}};
    size_t i = 0;
    while (i < sizeof opts / sizeof *opts && strcmp(a, opts[i].name)) i++;
    if (i == sizeof opts / sizeof *opts) return 0;
    uint64_t x;
    uint64_t least = i == 4 ? 20 : 1;
    if (!parse_u64(v, &x) || x < least || x > opts[i].max) {
        fprintf(stderr, "blockbloom-bench: %s '%s': not a whole number from %llu to %llu\n", a,
                v, (unsigned long long)least, (unsigned long long)opts[i].max);
        return 2;
    }
    if (i == 0) c->max_mib = x;
    else if (i == 1) c->o.reps = (int)x;
    else if (i == 2) c->o.ops = (size_t)x;
    else if (i == 3) c->threads = (int)x;
    else if (i == 4) c->key_bytes = (size_t)x;
    else c->batch = (size_t)x;
    return 1;
}

/* Returns 0 to run, 2 on a usage error, -1 after --help. */
static int parse_args(cli *c, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        }
        if (!strcmp(a, "--quick")) c->quick = true;
        else if (!strcmp(a, "--no-dram")) c->no_dram = true;
        else if (!strcmp(a, "--plan")) c->plan = true;
        else if (!strcmp(a, "--generated-keys")) c->generated = true;
        else if (!strcmp(a, "--targets")) c->o.targets = true;
        else if (!v) return bad_usage(a, NULL);
        else if (!strcmp(a, "--json")) c->json = v, i++;
        else if (!strcmp(a, "--keys")) c->keys = v, i++;
        else if (!strcmp(a, "--series")) c->only = v, i++;
        else if (!strcmp(a, "--sizes")) {
            if (parse_sizes(c, v)) return 2;
            i++;
        }
        else {
            int taken = number_option(c, a, v);
            if (taken == 2) return 2;
            if (!taken) return bad_usage(a, v);
            i++;
        }
    }
    return 0;
}

static void defaults(cli *c) {
    memset(c, 0, sizeof *c);
    c->o = (bench_opts){.reps = 5, .ops = 1000000, .query_max = 1000000, .lat_calls = 200000,
                        .fpr_keys = 1000000, .seed = 0x626c6f636b626c6fULL, .fpr = 0.01};
    c->max_mib = 1024;
    c->threads = 2;
}

static void quick(cli *c) {
    c->o.ops = c->o.query_max = c->o.fpr_keys = 100000;
    c->o.lat_calls = 20000;
}

/* Bits per key at p of a kind, from the library's own sizing. */
static double bits_per_key(bb_kind kind, double p) {
    uint64_t bits;
    unsigned k;
    bb_size(kind, 10000000, p, &bits, &k);
    return (double)bits / 1e7;
}

/* What one key of a size costs the whole run, all series' filters, key sets, hashes and
 * answers together: peak RSS grew by 68 bytes per key from n = 2*10^6 to 8*10^6 on the
 * AVX-512 Xeon (generated 20-byte keys, every series); 80 leaves room for longer keys. */
#define BENCH_BYTES_PER_KEY 80u

/* Half of what this process may take (MemAvailable, its control group's limit), so that the
 * benchmark never takes the machine: at 1024 MiB per filter the DRAM size was once 866M keys,
 * and the run grew to 22 of 23 GiB before it was stopped. 0 if unknown. */
static uint64_t memory_budget(void) {
    uint64_t a = cli_mem_available(), g = cli_cgroup_memory_limit();
    uint64_t least = !a || (g && g < a) ? g : a;
    return least / 2;
}

/* n whose smallest filter (classic: fewest bits per key) is >= 4 x LLC, capped so the
 * blocked filter stays within max_mib and the whole run within the memory budget. */
static uint64_t dram_n(const machine *m, const cli *c) {
    double small = fmin(bits_per_key(BB_CLASSIC, c->o.fpr), bits_per_key(BB_BLOCKED, c->o.fpr));
    double n = ceil(4.0 * (double)m->llc * 8.0 / small);
    double cap = floor((double)c->max_mib * 1048576.0 * 8.0 / bits_per_key(BB_BLOCKED, c->o.fpr));
    if (n > cap) {
        fprintf(stderr, "blockbloom-bench: DRAM size capped by --max-mib %llu: the filters are "
                        "smaller than 4x the %llu MiB last-level cache\n",
                (unsigned long long)c->max_mib, (unsigned long long)(m->llc >> 20));
        n = cap;
    }
    uint64_t budget = memory_budget();
    double fit = floor((double)budget / BENCH_BYTES_PER_KEY);
    if (budget && n > fit) {
        fprintf(stderr, "blockbloom-bench: DRAM size capped by memory: %.0f keys take about %.1f "
                        "GiB, half of what this process may use (MemAvailable, its control "
                        "group's limit)\n", fit, (double)budget / 1073741824.0);
        n = fit;
    }
    return (uint64_t)n;
}

static const char *fits(const machine *m, uint64_t bytes) {
    if (bytes <= m->l1d) return "L1";
    if (bytes <= m->l2) return "L2";
    if (bytes <= m->llc) return "LLC";
    return "DRAM";
}

/* Whether `name` is in the comma-separated list (NULL: every name is). */
static bool wanted(const char *list, const char *name) {
    if (!list) return true;
    size_t len = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == 0)) return true;
    return false;
}

/* The new series, or NULL if --series leaves it out. */
static series *add_series(size_run *r, const cli *c, series_type t, bb_isa isa, const char *name) {
    if (!wanted(c->only, name) || r->nseries >= MAX_SERIES) return NULL;
    series *s = &r->series[r->nseries++];
    memset(s, 0, sizeof *s);
    s->type = t;
    s->isa = isa;
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

/* Whether native ISA `isa` has a kernel of its own for `kind` (not one it borrows from another
 * row of the library's table, which that row's series already times). */
static bool own_kernel(bb_isa isa, bb_kind kind) {
    bb_isa k;
    return bb_isa_kernel(isa, kind, BB_OP_CONTAINS, &k) == BB_OK && k == isa;
}

/* One series per kernel: the native ISAs of the library's table (bb_isa_at, scalar first),
 * so a new row is timed with no edit here. */
static void make_series(size_run *r, const cli *c) {
    static const struct {
        series_type type;
        bb_kind kind;
        const char *prefix;
    } per_kernel[] = {{S_BLOCKED, BB_BLOCKED, "blocked"},
                      {S_SPLIT, BB_SPLIT, "split"},
                      {S_SECTORIZED, BB_SECTORIZED, "sectorized"}};
    char name[48];
    r->series = calloc(MAX_SERIES, sizeof *r->series);
    for (size_t t = 0; t < sizeof per_kernel / sizeof *per_kernel; t++)
        for (size_t i = 0; i < bb_isa_count(); i++) {
            bb_isa isa = bb_isa_at(i);
            if (!bb_isa_native(isa) || !own_kernel(isa, per_kernel[t].kind)) continue;
            snprintf(name, sizeof name, "%s-%s", per_kernel[t].prefix, bb_isa_to_string(isa));
            series *s = add_series(r, c, per_kernel[t].type, isa, name);
            /* every operation on every blocked kernel (the dispatch check) */
            if (s && per_kernel[t].type == S_BLOCKED) s->concurrent = true;
        }
    add_series(r, c, S_CLASSIC, 0, "classic");
    add_series(r, c, S_LIBBLOOM, 0, "libbloom");
    add_series(r, c, S_FLOOR_XXH3, 0, "floor-xxh3");
    add_series(r, c, S_FLOOR_XXH3_GROUPED, 0, "floor-xxh3-grouped");
    add_series(r, c, S_FLOOR_LINE, 0, "floor-line");
    snprintf(name, sizeof name, "blocked-%s-x%d", bb_isa_to_string(c->o.best_isa), c->threads);
    series *th = add_series(r, c, S_THREADS, c->o.best_isa, name);
    /* Its concurrent adds run as the library's automatic choice does for this size. */
    if (th) th->threads = c->threads, th->conc_isa = BB_ISA_AUTO;
    /* -j1 is the same calls timed by the same (wall) clock with one thread: the reference
     * that load from other processes disturbs as much as the -jN row. */
    int jobs_of[2] = {1, c->threads};
    for (int i = 0; i < (c->threads > 1 ? 2 : 1); i++) {
        snprintf(name, sizeof name, "blocked-%s-j%d", bb_isa_to_string(c->o.best_isa), jobs_of[i]);
        series *jobs = add_series(r, c, S_JOBS, c->o.best_isa, name);
        if (jobs) jobs->threads = jobs_of[i], jobs->batch = c->batch;
    }
}

/* Creates every series of a size; false if blockbloom's own filters cannot be made. */
static bool create_all(size_run *r, const cli *c) {
    uint64_t bits;
    unsigned k;
    if (bb_size(BB_BLOCKED, r->n, c->o.fpr, &bits, &k) != BB_OK) return false;
    for (size_t i = 0; i < r->nseries; i++) {
        series *s = &r->series[i];
        if (!series_create(s, r->n, c->o.fpr, c->o.seed, bits / 8) && s->type != S_LIBBLOOM) {
            fprintf(stderr, "blockbloom-bench: n = %llu, %s: %s\n", (unsigned long long)r->n,
                    s->name, s->skip_why);
            return false;
        }
        if (s->type == S_THREADS)
            for (size_t j = 0; j < r->nseries; j++)
                if (r->series[j].type == S_BLOCKED && r->series[j].isa == c->o.best_isa)
                    s->shared = &r->series[j];
        if (s->type == S_THREADS && !s->shared) {
            s->skip = true;
            snprintf(s->skip_why, sizeof s->skip_why, "needs the blocked series of its kernel");
        }
    }
    return true;
}

static void plan_sizes(cli *c, const machine *m, size_run *runs, size_t *nruns) {
    *nruns = 0;
    if (!c->nsizes) {
        static const uint64_t fixed[] = {10000, 1000000, 10000000};
        static const char *const labels[] = {"L1/L2", "L1/L2", "LLC"};
        for (size_t i = 0; i < (c->quick ? 2u : 3u); i++) {
            snprintf(runs[*nruns].label, sizeof runs->label, "%s", labels[i]);
            runs[(*nruns)++].n = fixed[i];
        }
        if (!c->quick && !c->no_dram) {
            snprintf(runs[*nruns].label, sizeof runs->label, "DRAM");
            runs[(*nruns)++].n = dram_n(m, c);
        }
    } else {
        for (size_t i = 0; i < c->nsizes; i++) runs[(*nruns)++].n = c->sizes[i];
    }
    for (size_t i = 0; i < *nruns; i++) {
        uint64_t bits;
        unsigned k;
        bb_size(BB_BLOCKED, runs[i].n, c->o.fpr, &bits, &k);
        snprintf(runs[i].fits, sizeof runs[i].fits, "%s", fits(m, bits / 8));
        if (!runs[i].label[0]) snprintf(runs[i].label, sizeof runs[i].label, "%s", runs[i].fits);
    }
}

/* The sizes, each with its blocked filter and about what the run holds at it, on stderr
 * (stdout with --plan). false, with a message, if one needs more than the memory budget. */
static bool print_plan(const size_run *runs, size_t nruns, const cli *c, FILE *out) {
    uint64_t budget = memory_budget();
    bool ok = true;
    for (size_t i = 0; i < nruns; i++) {
        uint64_t bits = 0, need = runs[i].n * (uint64_t)BENCH_BYTES_PER_KEY;
        /* Longer keys: the three query sets and one slice of adds hold them, and an arena
         * may be twice its keys' bytes after it grew. */
        if (c->key_bytes > 20)
            need += 2 * (3 * (uint64_t)c->o.query_max + runs[i].n / (uint64_t)c->o.reps) *
                    (c->key_bytes - 20);
        unsigned k;
        bb_size(BB_BLOCKED, runs[i].n, c->o.fpr, &bits, &k);
        fprintf(out, "blockbloom-bench: %-5s n = %llu: blocked filter %.1f MiB, about %.2f GiB "
                     "for the whole run at this size\n", runs[i].label,
                (unsigned long long)runs[i].n, (double)bits / 8.0 / 1048576.0,
                (double)need / 1073741824.0);
        if (budget && need > budget) {
            fprintf(stderr, "blockbloom-bench: n = %llu needs about %.1f GiB, more than half of "
                            "the %.1f GiB this process may use; give a smaller --sizes\n",
                    (unsigned long long)runs[i].n, (double)need / 1073741824.0,
                    2.0 * (double)budget / 1073741824.0);
            ok = false;
        }
    }
    return ok;
}

/* --keys, else the npm names where datadir.h says, else generated keys. */
static void open_keys(keygen *g, const cli *c) {
    char buf[4096];
    if (c->generated || c->key_bytes) {
        keygen_open(g, NULL);
        if (c->key_bytes) g->key_bytes = c->key_bytes;
    } else if (c->keys) {
        if (!keygen_open(g, c->keys))
            fprintf(stderr, "blockbloom-bench: cannot read %s; using generated keys\n", c->keys);
    } else {
        keygen_open(g, bb_npm_names_path(buf, sizeof buf));
    }
}

static void join_args(char *buf, size_t cap, int argc, char **argv) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < argc && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? " " : "", argv[i]);
}

int main(int argc, char **argv) {
    cli c;
    defaults(&c);
    int pr = parse_args(&c, argc, argv);
    if (pr) return pr < 0 ? 0 : 2;
    if (c.quick) quick(&c);
    bb_set_isa(BB_ISA_AUTO);
    bb_isa_from_string(bb_isa_name(), &c.o.best_isa);
    tick_calibrate();
    machine m;
    machine_describe(&m);
    if (!m.llc) {
        fprintf(stderr, "blockbloom-bench: last-level cache size unknown; assuming 32 MiB\n");
        m.llc = UINT64_C(32) << 20;
    }
    c.o.warm_max_bytes = m.llc;
    size_run runs[MAX_SIZES];
    size_t nruns;
    memset(runs, 0, sizeof runs);
    plan_sizes(&c, &m, runs, &nruns);
    if (!print_plan(runs, nruns, &c, c.plan ? stdout : stderr)) return 2;
    if (c.plan) return 0;
    keygen g;
    open_keys(&g, &c);
    int status = 0;
    for (size_t i = 0; i < nruns && !status; i++) {
        fprintf(stderr, "blockbloom-bench: %s n = %llu ...\n", runs[i].label,
                (unsigned long long)runs[i].n);
        make_series(&runs[i], &c);
        if (!create_all(&runs[i], &c)) status = 1;
        else op_choices_note(&runs[i]), measure_size(&runs[i], &g, &c.o);
        for (size_t j = 0; j < runs[i].nseries; j++) series_destroy(&runs[i].series[j]);
    }
    bb_set_isa(BB_ISA_AUTO);
    if (!status) {
        char cmd[1024];
        join_args(cmd, sizeof cmd, argc, argv);
        if (!c.json || strcmp(c.json, "-") != 0) report_table(runs, nruns, &m, &c.o, &g);
        if (c.json && !report_json(c.json, runs, nruns, &m, &c.o, &g, cmd)) {
            fprintf(stderr, "blockbloom-bench: cannot write %s: %s\n", c.json, strerror(errno));
            status = 1;
        }
    }
    for (size_t i = 0; i < nruns; i++) free(runs[i].series);
    keygen_close(&g);
    return status;
}
