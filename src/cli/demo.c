/* SPDX-License-Identifier: MIT */
/*
 * demo.c - `blockbloom demo`, the project's main job: measured false-positive rates next to
 * the models, and the speed of every kernel, in one run of well under a minute.
 *
 * Part 1 needs no data: n = 1,000,000 keys user:0 .. user:999999 go into classic and blocked
 * filters sized for p = 10%, 1% and 0.1% (the blocked filter once per kernel this machine runs
 * natively), the never-inserted ghost:0 .. ghost:999999 are probed, and then the 1% filters
 * are overfilled with 2n keys. Part 2 repeats the 1% case on real strings, the npm package
 * names that scripts/fetch-npm-names.sh puts in data/npm-names.txt: the names on even lines
 * (0, 2, 4, ...) are inserted and those on odd lines probed, the truth about each probe coming
 * from an exact string set (never from a filter under test), so a repeated name would count as
 * a true positive and not as a false one.
 *
 * Keys are built once into one buffer with Arrow-style offsets and timed through
 * bb_add_arrow64 / bb_contains_arrow64, so the times are hashing plus filter, not key
 * formatting. Each time is the best of DEMO_REPEATS runs (CLOCK_MONOTONIC): the minimum is the
 * run least disturbed by the other processes of a shared machine. A false negative is a bug:
 * it is reported on stderr, marked in its row, and the exit status becomes 1.
 */
#include "cli.h"
#include "datadir.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DEMO_N 1000000u
#define DEMO_N_QUICK 100000u
#define DEMO_REPEATS 5
#define DEMO_P_MAIN 0.01 /* the overfill and npm rows */
/* Fixed, so every run builds the same filters and counts the same false positives. */
#define DEMO_SEED UINT64_C(0x5eed)

static const char usage[] =
    "Usage: blockbloom demo [OPTION]...\n"
    "Measure false-positive rates against their models, and add/query speed, of classic and\n"
    "blocked filters (the blocked one once per kernel this CPU runs).\n"
    "  Part 1: user:0 .. user:999999 inserted, ghost:0 .. ghost:999999 probed, p = 10%, 1%,\n"
    "          0.1%; then the 1% filters overfilled with 2,000,000 keys.\n"
    "  Part 2: the npm package names of FILE, even lines inserted, odd lines probed, p = 1%\n"
    "          (fetch them with blockbloom-fetch-npm-names, installed beside blockbloom; in\n"
    "          a source tree scripts/fetch-npm-names.sh; without them part 2 is skipped).\n"
    "\n"
    "      --data FILE  npm names, one per line (default: $BB_DATA_DIR/npm-names.txt, else\n"
    "                   data/npm-names.txt, else ~/.local/share/blockbloom/npm-names.txt)\n"
    "      --no-npm     skip part 2\n"
    "      --quick      100,000 keys instead of 1,000,000 (and the first 200,000 npm names)\n"
    "  -h, --help       show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 error or a false negative (a bug), 2 usage error.\n";

enum { OPT_DATA = 256, OPT_NO_NPM, OPT_QUICK };

static const struct option long_opts[] = {{"data", required_argument, NULL, OPT_DATA},
                                          {"no-npm", no_argument, NULL, OPT_NO_NPM},
                                          {"quick", no_argument, NULL, OPT_QUICK},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};

/* Kernels timed in part 1: the library's ISA table, walked, native ones only (bb_isa_native):
 * elsewhere bb_set_isa accepts NEON as SIMDe's portable emulation, which is correct but slow
 * and says nothing about NEON. */
#define N_DEMO_KERNELS bb_isa_count()

static const double demo_ps[] = {0.1, 0.01, 0.001};

typedef struct demo {
    const char *data_path;
    bool npm;          /* run part 2 */
    bool no_npm;       /* --no-npm: part 2 skipped on request, not for want of the names */
    size_t n;          /* keys per filter in part 1 */
    bb_isa start_isa;  /* kernel in use when the demo began, restored after each sweep */
    uint8_t *out;      /* answers of the largest batch */
    unsigned filters;  /* rows printed */
    unsigned failing;  /* rows with false negatives */
} demo;

/* ---- Key columns --------------------------------------------------------------------------
 * A `keys` is a view of n Arrow-style keys, key i = data[off[i] .. off[i + 1]); off[0] need not
 * be 0, so one buffer can hold two columns back to back. */
typedef struct keys {
    const char *data;
    const int64_t *off;
    size_t n;
} keys;

static keys keys_of(const cli_keybuf *kb, size_t first, size_t n) {
    return (keys){.data = kb->data, .off = kb->off + first, .n = n};
}

static const char *key_at(keys k, size_t i, size_t *len) {
    *len = (size_t)(k.off[i + 1] - k.off[i]);
    return k.data + k.off[i];
}

/* Allocate kb for n keys of at most `bytes` bytes in all. */
static bool keybuf_alloc(cli_keybuf *kb, size_t n, size_t bytes) {
    memset(kb, 0, sizeof *kb);
    if (n >= SIZE_MAX / sizeof *kb->off) return false;
    kb->data = malloc(bytes ? bytes : 1);
    kb->off = malloc((n + 1) * sizeof *kb->off);
    if (!kb->data || !kb->off) {
        cli_keybuf_free(kb);
        return false;
    }
    kb->cap = bytes;
    kb->off_cap = n + 1;
    kb->off[0] = 0;
    return true;
}

/* kb := "<prefix>0" .. "<prefix><n-1>". */
static bool numbered_keys(cli_keybuf *kb, const char *prefix, size_t n) {
    char digits[32];
    size_t width = strlen(prefix) + (size_t)snprintf(digits, sizeof digits, "%zu", n) + 1;
    if (n > SIZE_MAX / width || !keybuf_alloc(kb, n, n * width)) return false;
    for (size_t i = 0; i < n; i++) { /* the NUL each key ends with is overwritten by the next */
        kb->len += (size_t)snprintf(kb->data + kb->len, kb->cap - kb->len, "%s%zu", prefix, i);
        kb->off[i + 1] = (int64_t)kb->len;
    }
    kb->n = n;
    return true;
}

/* out := the keys of `in` at even positions, then those at odd positions: the even column is
 * keys_of(out, 0, (n + 1) / 2), the odd one keys_of(out, (n + 1) / 2, n / 2). */
static bool split_even_odd(const cli_keybuf *in, cli_keybuf *out) {
    if (!keybuf_alloc(out, in->n, in->len)) return false;
    keys all = keys_of(in, 0, in->n);
    for (size_t parity = 0; parity < 2; parity++) {
        for (size_t i = parity; i < in->n; i += 2) {
            size_t len;
            const char *key = key_at(all, i, &len);
            if (len) memcpy(out->data + out->len, key, len); /* key is NULL if all are empty */
            out->len += len;
            out->off[++out->n] = (int64_t)out->len;
        }
    }
    return true;
}

/* ---- Exact membership: the truth about each npm probe ---------------------------------------
 * Open addressing with linear probing over slot[] (index + 1 of a key, 0 = empty), at most half
 * full. Keys are compared in full, so a collision of the 64-bit FNV-1a hash (Fowler, Noll, Vo)
 * can cost time but never a wrong answer; FNV-1a is deliberately not the filters' XXH3. The
 * high bits of hash * 2^64/golden-ratio (Knuth's multiplicative hashing) pick the slot. */
typedef struct strset {
    keys k;
    uint32_t *slot;
    unsigned shift; /* 64 - log2(slots) */
    size_t mask;
} strset;

static uint64_t fnv1a64(const char *p, size_t len) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Slot holding `key`, or the empty slot where it would go. */
static size_t strset_slot(const strset *s, const char *key, size_t len) {
    size_t i = (size_t)((fnv1a64(key, len) * UINT64_C(0x9e3779b97f4a7c15)) >> s->shift);
    for (;; i = (i + 1) & s->mask) {
        if (!s->slot[i]) return i;
        size_t other_len;
        const char *other = key_at(s->k, s->slot[i] - 1, &other_len);
        if (other_len == len && memcmp(other, key, len) == 0) return i;
    }
}

static bool strset_has(const strset *s, const char *key, size_t len) {
    return s->slot[strset_slot(s, key, len)] != 0;
}

/* Set of the keys of k; *repeats gets the number of keys equal to an earlier one. */
static bool strset_build(strset *s, keys k, uint64_t *repeats) {
    if (k.n >= UINT32_MAX / 2) return false;
    unsigned bits = 1;
    while (((size_t)1 << bits) < 2 * k.n) bits++;
    s->k = k;
    s->shift = 64 - bits;
    s->mask = ((size_t)1 << bits) - 1;
    s->slot = calloc(s->mask + 1, sizeof *s->slot);
    if (!s->slot) return false;
    *repeats = 0;
    for (size_t i = 0; i < k.n; i++) {
        size_t len;
        const char *key = key_at(k, i, &len);
        size_t at = strset_slot(s, key, len);
        if (s->slot[at])
            ++*repeats;
        else
            s->slot[at] = (uint32_t)(i + 1);
    }
    return true;
}

/* ---- One filter, measured ------------------------------------------------------------------ */
typedef struct trial {
    bb_kind kind;
    uint64_t capacity;    /* n the filter is sized for */
    double p;             /* target FPR it is sized for */
    keys ins;             /* inserted */
    keys probes;          /* queried and timed */
    const uint8_t *truth; /* truth[i]: probe i was inserted; NULL = no probe was */
} trial;

typedef struct row {
    const char *kind, *kernel;
    double p;
    uint64_t keys, bits, bytes;
    unsigned k;
    uint64_t fn;             /* inserted keys (and present probes) answered "absent" */
    double fpr, model;
    double add_ns, query_ns; /* per key */
} row;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Best-of-DEMO_REPEATS ns per key of one batch call over `k`: adding it to the emptied f when
 * out is NULL, else querying it, the answers left in out[0 .. k.n). */
static bb_status time_batch(bb_filter *f, keys k, uint8_t *out, double *ns_per_key) {
    double best = 0;
    for (int rep = 0; rep < DEMO_REPEATS; rep++) {
        bb_status s = out ? BB_OK : bb_clear(f);
        double t0 = now_ns();
        if (s == BB_OK)
            s = out ? bb_contains_arrow64(f, k.data, k.off, k.n, out, NULL)
                    : bb_add_arrow64(f, k.data, k.off, k.n);
        double t = now_ns() - t0;
        if (s != BB_OK) return s;
        if (rep == 0 || t < best) best = t;
    }
    *ns_per_key = k.n ? best / (double)k.n : 0.0;
    return BB_OK;
}

/* Score the probe answers in out[] against the truth: FPR over the truly absent probes; a
 * truly present probe answered "absent" is a false negative. */
static void score_probes(const trial *t, const uint8_t *out, row *r) {
    uint64_t absent = 0, false_pos = 0;
    for (size_t i = 0; i < t->probes.n; i++) {
        if (t->truth && t->truth[i]) {
            r->fn += !out[i];
        } else {
            absent++;
            false_pos += out[i];
        }
    }
    r->fpr = absent ? (double)false_pos / (double)absent : 0.0;
}

static bb_status measure(bb_filter *f, const trial *t, uint8_t *out, row *r) {
    size_t present = 0;
    bb_status s = time_batch(f, t->ins, NULL, &r->add_ns);
    if (s == BB_OK) s = bb_contains_arrow64(f, t->ins.data, t->ins.off, t->ins.n, out, &present);
    if (s != BB_OK) return s;
    r->fn = t->ins.n - present;
    s = time_batch(f, t->probes, out, &r->query_ns);
    if (s != BB_OK) return s;
    score_probes(t, out, r);
    bb_info info = BB_INFO_INIT;
    s = bb_get_info(f, &info);
    if (s == BB_OK) s = bb_fpr_model(t->kind, t->ins.n, info.bits, info.k, &r->model);
    r->bits = info.bits;
    r->bytes = info.bytes;
    r->k = info.k;
    return s;
}

static bb_status run_trial(const trial *t, uint8_t *out, row *r) {
    *r = (row){.kind = bb_kind_name(t->kind),
               /* under the automatic choice adds and lookups may run on different kernels */
               .kernel = t->kind != BB_BLOCKED                  ? "-"
                         : bb_isa_selected() == BB_ISA_AUTO ? "auto"
                                                            : bb_isa_name(),
               .p = t->p,
               .keys = t->ins.n};
    bb_filter *f;
    bb_status s = bb_create_for(&f, t->kind, t->capacity, t->p, DEMO_SEED);
    if (s != BB_OK) return s;
    s = measure(f, t, out, r);
    bb_free(f);
    return s;
}

/* ---- Tables ---------------------------------------------------------------------------------- */
#define ROW_FMT "%-7s  %-10s  %5s  %9s  %10s  %9s  %8s  %2s  %3s  %10s  %10s  %6s  %8s\n"

static void print_table_head(const char *explanation) {
    printf("\n%s\n", explanation);
    printf(ROW_FMT, "kind", "kernel", "p", "keys", "bits", "KiB", "bits/key", "k", "FN",
           "FPR", "model FPR", "add ns", "query ns");
}

static void print_row(demo *d, const row *r) {
    char p[16], keys_s[24], bits[24], kib[24], bpk[16], k[8], fn[24], fpr[24], model[24],
        add[16], query[16];
    snprintf(p, sizeof p, "%g%%", r->p * 100);
    snprintf(keys_s, sizeof keys_s, "%" PRIu64, r->keys);
    snprintf(bits, sizeof bits, "%" PRIu64, r->bits);
    snprintf(kib, sizeof kib, "%.1f", (double)r->bytes / 1024);
    snprintf(bpk, sizeof bpk, "%.2f", r->keys ? (double)r->bits / (double)r->keys : 0.0);
    snprintf(k, sizeof k, "%u", r->k);
    snprintf(fn, sizeof fn, "%" PRIu64, r->fn);
    snprintf(fpr, sizeof fpr, "%.4f%%", r->fpr * 100);
    snprintf(model, sizeof model, "%.4f%%", r->model * 100);
    snprintf(add, sizeof add, "%.1f", r->add_ns);
    snprintf(query, sizeof query, "%.1f", r->query_ns);
    printf(ROW_FMT, r->kind, r->kernel, p, keys_s, bits, kib, bpk, k, fn, fpr, model, add,
           query);
    d->filters++;
    if (r->fn) {
        d->failing++;
        printf("^^^ FALSE NEGATIVES: %" PRIu64 " inserted key(s) answered \"absent\" ^^^\n",
               r->fn);
        fflush(stdout);
        cli_error("FALSE NEGATIVES: %s filter, kernel %s, p = %g%%: %" PRIu64
                  " inserted key(s) answered \"absent\"; a Bloom filter never does that: a bug",
                  r->kind, r->kernel, r->p * 100, r->fn);
    }
}

/* Measure and print one filter; BB_EXIT_RUNTIME (reported) if the library fails. */
static int trial_row(demo *d, const trial *t) {
    row r;
    bb_status s = run_trial(t, d->out, &r);
    if (s != BB_OK) {
        cli_error("demo: %s filter, p = %g, %zu keys: %s", bb_kind_name(t->kind), t->p,
                  t->ins.n, bb_strerror(s));
        return BB_EXIT_RUNTIME;
    }
    print_row(d, &r);
    return BB_EXIT_OK;
}

/* The blocked trial once per native kernel, then back to the kernel the demo started with. */
static int blocked_rows(demo *d, trial t) {
    t.kind = BB_BLOCKED;
    int st = BB_EXIT_OK;
    for (size_t i = 0; i < N_DEMO_KERNELS && st == BB_EXIT_OK; i++)
        if (bb_isa_native(bb_isa_at(i)) && bb_set_isa(bb_isa_at(i)) == BB_OK) st = trial_row(d, &t);
    bb_set_isa(d->start_isa);
    return st;
}

/* ---- Part 1: user:i in, ghost:i probed ------------------------------------------------------- */
static int part1_tables(demo *d, keys users, keys users2, keys ghosts) {
    char text[768];
    snprintf(text, sizeof text,
             "Part 1: user:0 .. user:%zu inserted, ghost:0 .. ghost:%zu (never inserted) probed;\n"
             "filters sized by bb_size for %zu keys at p. FN = inserted keys answered absent "
             "(must be 0);\nFPR = probes answered present; model FPR: classic (1-e^{-kn/m})^k "
             "(Bloom 1970), blocked the\nPoisson-weighted block model (Putze-Sanders-Singler "
             "2007) with the exact in-block term.\nMeasured FPR has a noise of about "
             "sqrt(p/probes), e.g. 0.03%% at p = 10%%. ns per key: best of %d runs\nthrough the "
             "Arrow batch API, hashing included; query = the absent ghosts, a prefilter's\n"
             "common case.",
             users.n - 1, ghosts.n - 1, users.n, DEMO_REPEATS);
    print_table_head(text);
    int st = BB_EXIT_OK;
    for (size_t i = 0; i < sizeof demo_ps / sizeof *demo_ps && st == BB_EXIT_OK; i++) {
        trial t = {.kind = BB_CLASSIC, .capacity = users.n, .p = demo_ps[i], .ins = users,
                   .probes = ghosts};
        if (i) putchar('\n');
        st = trial_row(d, &t);
        if (st == BB_EXIT_OK) st = blocked_rows(d, t);
    }
    if (st != BB_EXIT_OK) return st;

    snprintf(text, sizeof text,
             "Overfill: the %g%% filters sized for %zu keys get %zu (user:0 .. user:%zu).\n"
             "The FPR climbs as the model says (taken at the real n), and still no false "
             "negative.",
             DEMO_P_MAIN * 100, users.n, users2.n, users2.n - 1);
    print_table_head(text);
    trial t = {.kind = BB_CLASSIC, .capacity = users.n, .p = DEMO_P_MAIN, .ins = users2,
               .probes = ghosts};
    st = trial_row(d, &t);
    t.kind = BB_BLOCKED;
    if (st == BB_EXIT_OK) st = trial_row(d, &t);
    return st;
}

static int part1(demo *d) {
    cli_keybuf users, ghosts;
    if (!numbered_keys(&users, "user:", 2 * d->n)) {
        cli_error("demo: out of memory building %zu keys", 2 * d->n);
        return BB_EXIT_RUNTIME;
    }
    if (!numbered_keys(&ghosts, "ghost:", d->n)) {
        cli_keybuf_free(&users);
        cli_error("demo: out of memory building %zu keys", d->n);
        return BB_EXIT_RUNTIME;
    }
    int st = part1_tables(d, keys_of(&users, 0, d->n), keys_of(&users, 0, 2 * d->n),
                          keys_of(&ghosts, 0, d->n));
    cli_keybuf_free(&users);
    cli_keybuf_free(&ghosts);
    return st;
}

/* ---- Part 2: npm package names --------------------------------------------------------------- */

/* The names of d->data_path (at most max of them) in *all; BB_EXIT_RUNTIME if reading fails. */
static int read_names(const demo *d, size_t max, cli_keybuf *all) {
    char *const paths[] = {(char *)d->data_path};
    cli_keyreader r;
    memset(all, 0, sizeof *all);
    cli_keyreader_init(&r, paths, 1, false, true);
    int st = cli_keyreader_fill_held(&r, all, max, ""); /* every name held, as by build */
    cli_keyreader_close(&r);
    if (st == BB_EXIT_OK && all->n < 2) {
        cli_error("demo: '%s' holds fewer than 2 names", d->data_path);
        st = BB_EXIT_RUNTIME;
    }
    return st;
}

/* truth[i] = probe i equals an inserted name (exact string comparison); *repeats_out = inserted
 * names that repeat an earlier one; returns the number of true probes, or -1 without memory. */
static int64_t probe_truth(keys ins, keys probes, uint8_t *truth, uint64_t *repeats_out) {
    strset set;
    if (!strset_build(&set, ins, repeats_out)) return -1;
    int64_t present = 0;
    for (size_t i = 0; i < probes.n; i++) {
        size_t len;
        const char *key = key_at(probes, i, &len);
        truth[i] = strset_has(&set, key, len);
        present += truth[i];
    }
    free(set.slot);
    return present;
}

static int part2_table(demo *d, size_t n_names, keys ins, keys probes) {
    uint8_t *truth = malloc(probes.n);
    uint64_t repeats = 0;
    int64_t present = truth ? probe_truth(ins, probes, truth, &repeats) : -1;
    if (present < 0) {
        free(truth);
        cli_error("demo: out of memory checking %zu npm names", n_names);
        return BB_EXIT_RUNTIME;
    }
    char text[640];
    snprintf(text, sizeof text,
             "Part 2: %zu npm package names from %s:\nthe %zu on even lines inserted, the %zu "
             "on odd lines probed, filters sized for p = %g%%.\nTruth from an exact string "
             "set, not a filter: %" PRIu64 " inserted names repeat an earlier one, %" PRId64
             "\nprobes equal an inserted name (true positives, left out of the FPR). query = "
             "the odd-line probes.",
             n_names, d->data_path, ins.n, probes.n, DEMO_P_MAIN * 100, repeats, present);
    print_table_head(text);
    trial t = {.kind = BB_CLASSIC, .capacity = ins.n, .p = DEMO_P_MAIN, .ins = ins,
               .probes = probes, .truth = truth};
    int st = trial_row(d, &t);
    t.kind = BB_BLOCKED;
    if (st == BB_EXIT_OK) st = trial_row(d, &t);
    free(truth);
    return st;
}

static int part2(demo *d) {
    cli_keybuf all, cols;
    int st = read_names(d, d->n == DEMO_N_QUICK ? 2 * (size_t)DEMO_N_QUICK : SIZE_MAX, &all);
    if (st != BB_EXIT_OK) {
        cli_keybuf_free(&all);
        return st;
    }
    bool ok = split_even_odd(&all, &cols);
    size_t n_names = all.n, n_even = (all.n + 1) / 2;
    cli_keybuf_free(&all);
    if (!ok) {
        cli_error("demo: out of memory holding %zu npm names", n_names);
        return BB_EXIT_RUNTIME;
    }
    uint8_t *out = realloc(d->out, n_names - n_even > n_even ? n_names - n_even : n_even);
    if (!out) {
        cli_keybuf_free(&cols);
        cli_error("demo: out of memory");
        return BB_EXIT_RUNTIME;
    }
    d->out = out;
    st = part2_table(d, n_names, keys_of(&cols, 0, n_even),
                     keys_of(&cols, n_even, n_names - n_even));
    cli_keybuf_free(&cols);
    return st;
}

/* A readable, non-empty names file? If not, say how to get one: with --data that is an
 * error (the user asked for that file); without it, part 1 runs alone. */
static int npm_names_check(demo *d, bool explicit) {
    struct stat st;
    int e = stat(d->data_path, &st) == 0 ? 0 : errno;
    if (!e && st.st_size > 0) return BB_EXIT_OK;
    if (explicit) {
        cli_error("demo: cannot use --data '%s': %s", d->data_path, e ? strerror(e) : "empty file");
        return BB_EXIT_RUNTIME;
    }
    cli_error("npm names not found at %s; fetch them with blockbloom-fetch-npm-names (in a "
              "source tree: scripts/fetch-npm-names.sh) \u2014 running part 1 only",
              d->data_path);
    d->npm = false;
    return BB_EXIT_OK;
}

/* ---- The command ----------------------------------------------------------------------------- */

static void print_header(const demo *d) {
    printf("blockbloom %s demo: auto = lookups on %s, adds on %s (this CPU runs:",
           bb_version_string(), bb_isa_name(), bb_isa_name_for(BB_OP_ADD_KEYS));
    for (size_t i = 0; i < N_DEMO_KERNELS; i++)
        if (bb_isa_native(bb_isa_at(i))) printf(" %s", bb_isa_to_string(bb_isa_at(i)));
    printf("); seed 0x%" PRIx64 "; %zu keys per filter%s\n", DEMO_SEED, d->n,
           d->n == DEMO_N_QUICK ? " (--quick)" : "");
}

/* parse_args' result once --help has been printed: the command is done and succeeded. */
#define DEMO_HELP_SHOWN (-1)

static int parse_args(demo *d, int argc, char **argv) {
    int c;
    while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
        switch (c) {
        case OPT_DATA: d->data_path = optarg; break;
        case OPT_NO_NPM: d->npm = false, d->no_npm = true; break;
        case OPT_QUICK: d->n = DEMO_N_QUICK; break;
        case 'h': return cli_help(usage) == BB_EXIT_OK ? DEMO_HELP_SHOWN : BB_EXIT_RUNTIME;
        default: return cli_bad_option("demo");
        }
    }
    if (optind < argc) return cli_usage_error("demo", "unexpected argument '%s'", argv[optind]);
    return BB_EXIT_OK;
}

static int run(demo *d) {
    double t0 = now_ns();
    print_header(d);
    int st = part1(d);
    if (st == BB_EXIT_OK && d->npm) st = part2(d);
    if (st == BB_EXIT_OK && !d->npm && d->no_npm)
        printf("\nPart 2 (npm names) skipped: --no-npm was given.\n");
    else if (st == BB_EXIT_OK && !d->npm)
        printf("\nPart 2 (npm names) skipped: no names at %s.\n"
               "Fetch them (the npm registry's package names, one per line) with\n"
               "blockbloom-fetch-npm-names, or scripts/fetch-npm-names.sh in a source tree, then\n"
               "run the demo again; --data FILE takes any list of names, one per line.\n",
               d->data_path);
    if (st != BB_EXIT_OK) return st;
    printf("\n%u filters in %.1f s: ", d->filters, (now_ns() - t0) / 1e9);
    if (d->failing) {
        printf("FAILED: %u of them gave FALSE NEGATIVES (a bug).\n", d->failing);
        return BB_EXIT_RUNTIME;
    }
    printf("no false negative.\n");
    return BB_EXIT_OK;
}

int bb_cmd_demo(int argc, char **argv) {
    char default_data[4096];
    demo d = {.npm = true, .n = DEMO_N};
    int st = parse_args(&d, argc, argv);
    bool explicit = d.data_path != NULL;
    if (!explicit) d.data_path = bb_npm_names_path(default_data, sizeof default_data);
    if (st != BB_EXIT_OK) return st == DEMO_HELP_SHOWN ? BB_EXIT_OK : st;
    d.start_isa = bb_isa_selected();
    d.out = malloc(2 * d.n); /* part 1's largest batch: the overfill keys; part 2 grows it */
    if (!d.out) {
        cli_error("demo: out of memory");
        return BB_EXIT_RUNTIME;
    }
    if (d.npm) st = npm_names_check(&d, explicit);
    if (st == BB_EXIT_OK) st = run(&d);
    free(d.out);
    return cli_finish_stdout(st);
}
