/* SPDX-License-Identifier: MIT */
/*
 * parquet_index.c - `blockbloom parquet index IN... -o OUT --column NAME... [-p FPR] [-j N]`:
 * a copy of the Parquet file IN with a fresh split-block Bloom filter for every chunk of the
 * named columns (bb_pq_index: pages copied byte for byte, filters sized from each chunk's
 * distinct count, footer re-encoded; OUT written atomically, IN only read); for a dataset
 * (parquet_dataset.c), a copy of each file below the directory OUT, N files at a time.
 */
#include "parquet.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parquet_dataset.h"

static const char usage[] =
    "Usage: blockbloom parquet index IN... -o OUT --column NAME... [-p FPR] [-j N]\n"
    "Write OUT, a copy of the Parquet file IN with a new split-block Bloom filter for\n"
    "every row group of each column NAME (give --column once per column). Pages are copied\n"
    "byte for byte; each filter is sized for its chunk's number of distinct values at the\n"
    "false-positive rate FPR, with a power-of-two size as Parquet readers expect. A\n"
    "column may be any leaf (of a struct or a list too) of type INT32, INT64, INT96,\n"
    "FLOAT, DOUBLE, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY, in any encoding of the format\n"
    "and any codec but LZO. OUT is written atomically: on error it is not created\n"
    "or changed; IN is never modified.\n"
    "A dataset - IN a directory (every *.parquet file below it), a glob pattern or several\n"
    "files - is written into the directory OUT, each file at its path below IN (so\n"
    "'date=2026-12-01/part-0.parquet' keeps its partition), each atomically; a file that\n"
    "fails is reported and the others go on (exit 1 at the end).\n"
    "\n"
    "  -o, --output OUT     the file (dataset: directory) to write (not IN)\n"
    "  -c, --column NAME    a column to index (its dotted path); repeatable\n"
    "  -p, --fpr FPR        false-positive rate of each filter, 0 < FPR < 1 (default 0.01)\n"
    "  -j, --jobs N         index up to N files at once (default 1), as many as fit in\n"
    "                       one memory budget (a quarter of the memory available)\n"
    "  -h, --help           show this help and exit\n"
    "\n"
    "A summary line goes to standard error, and on a terminal a progress line.\n"
    "Exit status: 0 success, 1 error, 2 usage error (also: OUT is IN).\n";

/* The filters index wrote into `out` (read back from its footer): their count and bytes. */
static void count_filters(const char *out, const bb_pq_index_opts *o, size_t *n_out,
                          size_t *rgs_out, uint64_t *bytes_out) {
    bb_pq_file *pf;
    *n_out = *rgs_out = 0;
    *bytes_out = 0;
    if (bb_pq_open(&pf, out) != BB_OK) return;
    size_t rgs = bb_pq_row_groups(pf);
    for (size_t j = 0; j < o->n_columns; j++) {
        size_t col;
        if (bb_pq_find_column(pf, o->columns[j], &col) != BB_OK) continue;
        for (size_t rg = 0; rg < rgs; rg++) {
            const void *bits;
            size_t len;
            if (bb_pq_chunk_bitset(pf, rg, col, &bits, &len, NULL) == BB_OK) {
                ++*n_out;
                *bytes_out += len;
            }
        }
    }
    *rgs_out = rgs;
    bb_pq_close(pf);
}

/* ---- Datasets: many files, -j N threads -------------------------------------------------
 * Each file is indexed on its own (bb_pq_index: its output written atomically), so a failed
 * file loses nothing and the others go on; a worker takes the next file by an atomic
 * counter. Messages and the terminal's progress line are written under one mutex.
 *
 * The jobs share one memory budget, the one that bounds keys held by `build`
 * (cli_held_keys_budget: a quarter of the memory available): a file starts only when its
 * worst case fits beside those of the files running, or when none runs (a file over the
 * budget alone runs alone, as with -j 1), so -j N never takes N times one file's memory past
 * the budget. */

typedef struct job {
    const cli_pq_inputs *in;
    const char *out_dir;
    const bb_pq_index_opts *o;
    atomic_size_t next;
    pthread_mutex_t lock;
    pthread_cond_t freed;      /* a file's memory went back to the budget */
    uint64_t budget, reserved; /* bytes: the budget, and the worst cases of the files running */
    unsigned running, most_running;
    size_t done, failed, filters, row_groups;
    uint64_t bytes;
    bool progress;
} job;

/* The worst case of one bb_pq_index run beyond its mapped input and pages, from the footer:
 * the set of distinct hashes of the largest chunk (32 bytes per value: 8-byte hashes, at most
 * half full) and every chunk's filter, held until the output is written (its split-block
 * size at FPR for num_values distinct values, rounded up to a power of two, 32 B to 128 MiB).
 * 0 if the footer cannot be read (bb_pq_index then fails at once, naming why). */
static uint64_t index_worst_case(const char *path, const bb_pq_index_opts *o) {
    bb_pq_file *pf;
    if (bb_pq_open(&pf, path) != BB_OK) return 0;
    uint64_t set = 0, filters = 0;
    for (size_t j = 0; j < o->n_columns; j++) {
        size_t col;
        if (bb_pq_find_column(pf, o->columns[j], &col) != BB_OK) continue;
        for (size_t rg = 0; rg < bb_pq_row_groups(pf); rg++) {
            bb_pq_chunk_info ci = BB_PQ_CHUNK_INFO_INIT;
            uint64_t bits = 0, bytes = 32;
            unsigned k;
            if (bb_pq_chunk(pf, rg, col, &ci) != BB_OK || ci.num_values <= 0) continue;
            uint64_t v = (uint64_t)ci.num_values;
            if (v > set / 32) set = v > UINT64_MAX / 32 ? UINT64_MAX : 32 * v;
            if (bb_size(BB_SPLIT, v, o->fpr, &bits, &k) != BB_OK) bits = UINT64_C(1) << 30;
            while (bytes < bits / 8 && bytes < (UINT64_C(128) << 20)) bytes *= 2;
            filters += bytes;
        }
    }
    bb_pq_close(pf);
    return set > UINT64_MAX - filters ? UINT64_MAX : set + filters;
}

/* mkdir -p of the directories in path before its last '/'. */
static bool make_parents(char *path) {
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        bool ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return true;
}

/* Wait until `need` fits in the budget beside the files running (or none runs); take it. */
static void reserve(job *j, uint64_t need) {
    pthread_mutex_lock(&j->lock);
    while (j->running && (j->reserved > j->budget || need > j->budget - j->reserved))
        pthread_cond_wait(&j->freed, &j->lock);
    j->reserved += need;
    if (++j->running > j->most_running) j->most_running = j->running;
    pthread_mutex_unlock(&j->lock);
}

static void index_one(job *j, const cli_pq_input *f) {
    uint64_t need = index_worst_case(f->path, j->o);
    reserve(j, need);
    size_t len = strlen(j->out_dir) + strlen(f->rel) + 2;
    char *out = malloc(len);
    char why[512] = ""; /* bb_pq_index's reason (this thread's bb_last_error), or errno's */
    bb_status s = BB_E_NOMEM;
    if (out) {
        snprintf(out, len, "%s/%s", j->out_dir, f->rel);
        bool ran = make_parents(out);
        s = ran ? bb_pq_index(f->path, out, j->o) : BB_E_IO;
        int e = errno;
        const char *detail = ran ? bb_last_error() : "";
        if (s == BB_E_IO && !detail[0]) detail = strerror(e);
        if (s != BB_OK) snprintf(why, sizeof why, "%s", detail);
    }
    size_t n = 0, rgs = 0;
    uint64_t bytes = 0;
    if (s == BB_OK) count_filters(out, j->o, &n, &rgs, &bytes);
    pthread_mutex_lock(&j->lock);
    if (j->progress && cli_progress_open) fputs("\r\033[K", stderr), cli_progress_open = false;
    if (s != BB_OK) {
        cli_error("cannot index '%s' into '%s': %s", f->path, out ? out : "?",
                  why[0] ? why : bb_strerror(s));
        j->failed++;
    }
    j->done++;
    j->reserved -= need;
    j->running--;
    pthread_cond_broadcast(&j->freed);
    j->filters += n;
    j->row_groups += rgs;
    j->bytes += bytes;
    if (j->progress) {
        fprintf(stderr, "\rblockbloom: parquet index: %zu of %zu files", j->done, j->in->n);
        cli_progress_open = true;
    }
    pthread_mutex_unlock(&j->lock);
    free(out);
}

static void *worker(void *arg) {
    job *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->in->n;) index_one(j, &j->in->v[i]);
    return NULL;
}

static int by_rel(const void *a, const void *b) {
    return strcmp((*(const cli_pq_input *const *)a)->rel, (*(const cli_pq_input *const *)b)->rel);
}

/* Two inputs of one path below their roots would overwrite each other's output. */
static int check_distinct(const cli_pq_inputs *in, const char *out_dir) {
    const cli_pq_input **v = malloc(in->n * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < in->n; i++) v[i] = &in->v[i];
    qsort(v, in->n, sizeof *v, by_rel);
    int st = BB_EXIT_OK;
    for (size_t i = 1; i < in->n && st == BB_EXIT_OK; i++)
        if (strcmp(v[i - 1]->rel, v[i]->rel) == 0) {
            cli_error("'%s' and '%s' would both be written to '%s/%s': index them apart",
                      v[i - 1]->path, v[i]->path, out_dir, v[i]->rel);
            st = BB_EXIT_USAGE;
        }
    free(v);
    return st;
}

static int index_dataset(const cli_pq_inputs *in, const char *out_dir, const bb_pq_index_opts *o,
                         unsigned threads) {
    int st = check_distinct(in, out_dir);
    if (st != BB_EXIT_OK) return st;
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create the output directory '%s': %s", out_dir, strerror(errno));
        return BB_EXIT_RUNTIME;
    }
    struct stat sb;
    if (stat(out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        cli_error("'%s' is not a directory (OUT of a dataset is the directory to write it into)",
                  out_dir);
        return BB_EXIT_RUNTIME;
    }
    job j = {.in = in, .out_dir = out_dir, .o = o, .progress = isatty(STDERR_FILENO),
             .budget = cli_held_keys_budget()};
    atomic_init(&j.next, 0);
    pthread_mutex_init(&j.lock, NULL);
    pthread_cond_init(&j.freed, NULL);
    unsigned asked = threads;
    if (threads > in->n) threads = (unsigned)in->n;
    pthread_t *tids = calloc(threads, sizeof *tids);
    unsigned started = 0;
    for (; tids && started + 1 < threads; started++)
        if (pthread_create(&tids[started], NULL, worker, &j) != 0) break;
    worker(&j); /* this thread works too */
    for (unsigned t = 0; t < started; t++) pthread_join(tids[t], NULL);
    free(tids);
    pthread_cond_destroy(&j.freed);
    pthread_mutex_destroy(&j.lock);
    if (cli_progress_open) fputs("\n", stderr), cli_progress_open = false;
    char budget[48] = "unknown";
    if (j.budget != SIZE_MAX) snprintf(budget, sizeof budget, "%.1f MiB", j.budget / 1048576.0);
    cli_error("wrote %zu of %zu files under %s: %zu split-block filters in %zu row groups, %"
              PRIu64 " bytes of bitsets, FPR %g each; at most %u of -j %u files at once "
              "(memory budget %s)", j.done - j.failed, in->n, out_dir, j.filters, j.row_groups,
              j.bytes, o->fpr, j.most_running, asked, budget);
    return j.failed ? BB_EXIT_RUNTIME : BB_EXIT_OK;
}

/* The real path of `path`, which need not exist yet: its nearest existing ancestor's real
 * path and the rest. false if even "." cannot be resolved or the result is too long. */
static bool real_path_of(const char *path, char real[PATH_MAX]) {
    if (realpath(path, real)) return true;
    char parent[PATH_MAX];
    if (snprintf(parent, sizeof parent, "%s", path) >= (int)sizeof parent) return false;
    char *slash = strrchr(parent, '/');
    const char *leaf = slash ? slash + 1 : parent;
    char up[PATH_MAX];
    if (!slash) snprintf(up, sizeof up, ".");
    else if (slash == parent) snprintf(up, sizeof up, "/");
    else *slash = '\0', snprintf(up, sizeof up, "%s", parent);
    char base[PATH_MAX];
    if (!real_path_of(up, base)) return false;
    return snprintf(real, PATH_MAX, "%s/%s", strcmp(base, "/") ? base : "", leaf) < PATH_MAX;
}

/* Whether OUT is the input directory `in` or below it (by real paths): `index ds -o ds/sub`
 * wrote into ds, and each later run indexed the outputs of the one before, one level deeper. */
static bool out_inside_dir(const char *out, const char *in) {
    struct stat st;
    char in_real[PATH_MAX], out_real[PATH_MAX];
    if (stat(in, &st) != 0 || !S_ISDIR(st.st_mode) || !realpath(in, in_real) ||
        !real_path_of(out, out_real))
        return false;
    size_t n = strlen(in_real);
    if (n == 1) return true; /* the input is "/" */
    return strncmp(out_real, in_real, n) == 0 && (out_real[n] == '/' || out_real[n] == '\0');
}

int cli_parquet_index(int argc, char **argv) {
    static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                          {"column", required_argument, NULL, 'c'},
                                          {"fpr", required_argument, NULL, 'p'},
                                          {"jobs", required_argument, NULL, 'j'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    static const char cmd[] = "parquet index";
    const char **columns = calloc((size_t)argc, sizeof *columns);
    if (!columns) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    bb_pq_index_opts o = {.size = sizeof o, .columns = columns, .fpr = 0.01};
    const char *out = NULL;
    int c, st = -1;
    unsigned threads = 1;
    uint64_t jobs;
    while (st < 0 && (c = getopt_long(argc, argv, "o:c:p:j:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'c':
            for (size_t i = 0; i < o.n_columns; i++)
                if (strcmp(columns[i], optarg) == 0)
                    st = cli_usage_error(cmd, "--column '%s' given twice", optarg);
            columns[o.n_columns++] = optarg;
            break;
        case 'p':
            if (!cli_parse_double(optarg, 0, 1, &o.fpr))
                st = cli_usage_error(cmd, "-p '%s' is not a rate between 0 and 1", optarg);
            break;
        case 'j':
            if (!cli_parse_u64(optarg, 1, 256, false, &jobs))
                st = cli_usage_error(cmd, "-j '%s' is not a number of files at once (1 to 256)",
                                     optarg);
            threads = (unsigned)jobs;
            break;
        case 'h': st = cli_help(usage); break;
        default: st = cli_bad_option(cmd);
        }
    }
    if (st < 0) {
        if (optind >= argc)
            st = cli_usage_error(cmd, "missing IN (the Parquet file to copy)");
        else if (!out)
            st = cli_usage_error(cmd, "missing -o OUT (the file to write)");
        else if (!o.n_columns)
            st = cli_usage_error(cmd, "missing --column NAME (a column to index)");
    }
    for (int i = optind; st < 0 && i < argc; i++)
        if (strcmp(argv[i], out) == 0)
            st = cli_usage_error(cmd, "OUT '%s' is IN: index writes a copy, never over its "
                                 "input", out);
    for (int i = optind; st < 0 && i < argc; i++)
        if (out_inside_dir(out, argv[i]))
            st = cli_usage_error(cmd, "OUT '%s' is inside the input directory '%s': a later run "
                                 "would read its outputs as inputs; write it elsewhere", out,
                                 argv[i]);
    cli_pq_inputs in = {0};
    if (st < 0 && (st = cli_pq_expand(argv + optind, (size_t)(argc - optind), &in)) == BB_EXIT_OK) {
        size_t n, rgs;
        uint64_t bytes;
        if (in.dataset) {
            st = index_dataset(&in, out, &o, threads);
        } else if (bb_pq_index(in.v[0].path, out, &o) != BB_OK) {
            cli_error("cannot index '%s' into '%s': %s", in.v[0].path, out, bb_last_error());
            st = BB_EXIT_RUNTIME;
        } else {
            count_filters(out, &o, &n, &rgs, &bytes);
            cli_error("wrote %s: %zu split-block filter%s (%zu column%s x %zu row group%s), %" PRIu64
                      " bytes of bitsets, FPR %g each", out, n, n == 1 ? "" : "s", o.n_columns,
                      o.n_columns == 1 ? "" : "s", rgs, rgs == 1 ? "" : "s", bytes, o.fpr);
        }
    }
    cli_pq_inputs_free(&in);
    free(columns);
    return st;
}
