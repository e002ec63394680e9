/* SPDX-License-Identifier: MIT */
/*
 * build.c - `blockbloom build`: create a filter file from keys, and the two steps it shares
 * with `add` (streaming keys into a filter, saving with a summary line).
 *
 * Without -n the capacity is the number of keys read, so every key is read into memory first
 * (one buffer plus offsets, ~8 bytes of overhead per key) and added in one bb_add_arrow64
 * call; with -n the filter exists before the first key and keys are streamed in chunks.
 * Zero keys without -n give a filter sized for one key (the smallest meaningful capacity; an
 * empty filter answers "absent" to everything either way). The file is written by bb_save,
 * which writes a temporary file, fsyncs and renames it, so a failed build leaves no file.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_FPR 0.01

static const char usage[] =
    "Usage: blockbloom build [OPTION]... -o OUT [FILE]...\n"
    "Create the filter file OUT holding the keys of the FILEs (standard input when no FILE\n"
    "or FILE is -), one key per line: LF ends a key and a CR before it is dropped; an empty\n"
    "line is the empty key.\n"
    "\n"
    "  -o, --output=OUT       file to write (replaced atomically; required); - for\n"
    "                         standard output; never one of the FILEs\n"
    "      --kind=KIND        blocked (default: one cache line per key), classic,\n"
    "                         counting (supports 'blockbloom remove'; 4x the size),\n"
    "                         scalable (grows past its capacity; FPR stays below -p),\n"
    "                         split (Apache Parquet's split-block filter, bit for bit;\n"
    "                         keys hashed with XXH64 as Parquet does, seed 0) or\n"
    "                         sectorized (one cache line per key, probes fixed to its\n"
    "                         64-bit words: ~2% larger than blocked; --hashes 1, 2, 4,\n"
    "                         8 or 16)\n"
    "  -n, --capacity=N       size for N keys (default: the number of keys read, held in\n"
    "                         memory first: at most a quarter of the memory available);\n"
    "                         with -n keys are streamed. N may be written 1000000,\n"
    "                         1_000_000, 1M (k, M, G, T: 10^3..10^12) or 1e6\n"
    "  -p, --fpr=P            target false-positive rate, 0 < P < 1 (default 0.01)\n"
    "      --bits-per-key=B   size as B bits per key instead of by -p\n"
    "      --hashes=K         probes per key, 1..16 (default: best for the size)\n"
    "      --seed=S           64-bit hash seed, decimal or 0x-hex (default 0)\n"
    "      --pow2             blocked, split, sectorized: a power-of-two size from 32 B\n"
    "                         (blocked, sectorized 64 B) to 128 MiB, as Parquet writers\n"
    "                         make (Arrow's reader needs it)\n"
    "      --fold-to=P        blocked, split, sectorized: after adding, halve the filter\n"
    "                         while its model FPR for the keys added stays <= P (build\n"
    "                         large from an estimate, shrink to what the keys need);\n"
    "                         without --pow2\n"
    "                         the block count is first rounded up to c x 2^j, c < 32\n"
    "                         (at most 1/16 more), so that it can be halved j times\n"
    "  -0, --null             keys end with NUL instead of newline; nothing is stripped\n"
    "      --max-key-bytes=N  fail (exit 1, no file written) on a key longer than N\n"
    "                         bytes, naming its file and line; default 16777216 (16 MiB)\n"
    "  -j, --jobs=N           hash and add on N threads (0: one per CPU; default 1); with\n"
    "                         -n and N >= 2 one more reads the next keys meanwhile. The\n"
    "                         file is byte for byte the one a single thread writes\n"
    "      --slice=I/N        write only slice I (0-based) of N of the blocked filter:\n"
    "                         its blocks' bytes, no header, in 1/N of the memory; needs -n.\n"
    "                         The N slice files concatenated are the filter's payload\n"
    "                         (docs/REDIS.md); 'blockbloom redis push --slice' stores one\n"
    "                         as its shard\n"
    "      --keys=KIND        network keys, one entry per line: url (Safe Browsing\n"
    "                         expressions), domain (names or hosts-file lines), cidr\n"
    "                         (ADDR[/LEN]) or 5tuple (PROTO SRC SPORT DST DPORT); '#'\n"
    "                         comments and blank lines skipped (docs/NETWORK.md)\n"
    "      --skip-invalid     with --keys: warn about bad lines instead of failing\n"
    "  -h, --help             show this help and exit\n"
    "\n"
    "A summary goes to standard error, ending with the kernel the adds ran on (info names\n"
    "the kernels of lookups and adds). Exit status: 0 success, 1 error, 2 usage error.\n";

enum { OPT_KIND = 256, OPT_BPK, OPT_HASHES, OPT_SEED, OPT_POW2, OPT_FOLD_TO, OPT_SLICE,
       OPT_KEYS, OPT_SKIP_INVALID, OPT_MAX_KEY };

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},   {"kind", required_argument, NULL, OPT_KIND},
    {"capacity", required_argument, NULL, 'n'}, {"fpr", required_argument, NULL, 'p'},
    {"bits-per-key", required_argument, NULL, OPT_BPK},
    {"hashes", required_argument, NULL, OPT_HASHES},
    {"seed", required_argument, NULL, OPT_SEED}, {"null", no_argument, NULL, '0'},
    {"slice", required_argument, NULL, OPT_SLICE},
    {"pow2", no_argument, NULL, OPT_POW2},      {"fold-to", required_argument, NULL, OPT_FOLD_TO},
    {"help", no_argument, NULL, 'h'},           {"keys", required_argument, NULL, OPT_KEYS},
    {"skip-invalid", no_argument, NULL, OPT_SKIP_INVALID},
    {"max-key-bytes", required_argument, NULL, OPT_MAX_KEY},
    {"jobs", required_argument, NULL, 'j'},     {NULL, 0, NULL, 0}};

typedef struct build_opts {
    bb_config cfg;
    const char *out;
    double fold_to; /* 0 = no folding */
    bool nul, help;
    uint64_t slice_i, slice_n; /* --slice I/N; slice_n 0 = the whole filter */
    bb_keys keys;      /* --keys (netkeys.c) */
    bool skip_invalid;
} build_opts;

/* ---- Shared with add ------------------------------------------------------------------------ */

static int add_chunk(bb_filter *f, const cli_keybuf *kb) {
    bb_status s = bb_add_arrow64(f, kb->data, kb->off, kb->n);
    if (s == BB_OK) return BB_EXIT_OK;
    if (s == BB_E_TOO_LARGE) /* only a scalable filter's next sub-filter can be */
        cli_error("cannot add keys: too large: the scalable filter's next sub-filter would need "
                  "more than 2^56 bits (8 PiB), the largest filter");
    else
        cli_error("cannot add keys: %s", bb_strerror(s));
    return BB_EXIT_RUNTIME;
}

int cli_add_stream(bb_filter *f, cli_keyreader *r) {
    cli_readahead a;
    cli_readahead_start(&a, r, cli_chunk_keys(f), CLI_CHUNK_BYTES, cli_jobs_read_ahead());
    int st = BB_EXIT_OK;
    for (bool done = false; !done && st == BB_EXIT_OK;) {
        const cli_keybuf *chunk;
        st = cli_readahead_next(&a, &chunk, &done);
        cli_readahead_report(&a); /* a failed chunk is not added: its message at once */
        if (st == BB_EXIT_OK) st = add_chunk(f, chunk);
    }
    cli_readahead_stop(&a);
    return st;
}

/* The model FPR is taken at the distinct keys, not at keys_added: a key added twice sets no new
 * bit, so after adding 3.5M keys twice the model at 7M (0.123) says nothing of the real rate
 * (1.05%). The distinct count is estimated from the fill (bb_info's cardinality_estimate) and
 * used when it is clearly below keys_added (by more than 10%, far beyond the estimate's noise
 * of well under 1% at these sizes); keys_added itself is reported unchanged. */
static void print_summary(const bb_filter *f, const char *path) {
    bb_info in = BB_INFO_INIT;
    if (bb_get_info(f, &in) != BB_OK) return;
    uint64_t n = in.keys_added;
    char distinct[48] = "", capacity[48] = "", per_key[128];
    double est = in.cardinality_estimate;
    if (isfinite(est) && est < 0.9 * (double)n) {
        n = (uint64_t)llround(est);
        snprintf(distinct, sizeof distinct, " (~%" PRIu64 " distinct)", n);
    }
    /* Bits per key added and per key of capacity are different figures (198.37 against 9.92
     * for 50,000 keys in a filter sized for 10^6), so each is named. */
    int w = 0;
    if (in.keys_added)
        w = snprintf(per_key, sizeof per_key, "%.2f bits/key added, ",
                     (double)in.bits / (double)in.keys_added);
    if (in.capacity) {
        snprintf(capacity, sizeof capacity, ", capacity %" PRIu64, in.capacity);
        snprintf(per_key + w, sizeof per_key - (size_t)w, "%.2f bits/key of capacity, ",
                 in.bits_per_key);
    } else if (w) {
        per_key[w] = '\0';
    } else {
        per_key[0] = '\0';
    }
    double model = 0.0;
    if (bb_fpr_model(in.kind, n, in.bits, in.k, &model) != BB_OK)
        model = in.fpr_estimate; /* scalable: no single geometry, use its estimate */
    cli_error("wrote %s: %s filter, %" PRIu64 " key%s%s%s, %" PRIu64 " bits (%.1f KiB), k=%u, "
              "%smodel FPR %.3g, adds on %s",
              path, bb_kind_name(in.kind), in.keys_added, in.keys_added == 1 ? "" : "s", distinct,
              capacity, in.bits, (double)in.bytes / 1024.0, in.k, per_key, model,
              cli_kernel_name(f, BB_OP_ADD_KEYS));
    /* Overfull: more distinct keys than the filter was sized for, and so a model above its p
     * (two filters built each for its own 10^6 keys merge into 2 x 10^6 keys at 12.3%). A
     * scalable filter grows instead, so it is never overfull. */
    if (in.kind != BB_SCALABLE && in.capacity && in.fpr_target > 0 && n > in.capacity &&
        model > in.fpr_target) {
        /* Three digits, or six where three would print the two rates alike (0.01004, 0.01). */
        char got[32], made[32];
        for (int digits = 3; digits <= 6; digits += 3) {
            snprintf(got, sizeof got, "%.*g", digits, model);
            snprintf(made, sizeof made, "%.*g", digits, in.fpr_target);
            if (strcmp(got, made) != 0) break;
        }
        cli_error("warning: %" PRIu64 " keys exceed the capacity %" PRIu64 " this filter was "
                  "sized for: its model false-positive rate %s is above the %s it was made "
                  "for (build it again with -n %" PRIu64 " or more)",
                  n, in.capacity, got, made, n);
    }
    if (model > 0.5)
        cli_error("warning: the model false-positive rate %.3g is above 50%%: most absent keys "
                  "will be answered present (give more bits, a larger -n or a smaller -p)",
                  model);
}

/* OUT "-": the serialized filter on stdout, as query's output goes there; never to a
 * terminal, which would only show binary noise. */
static int write_stdout(const bb_filter *f) {
    if (isatty(STDOUT_FILENO)) {
        cli_error("not writing a binary filter to a terminal (-o -); redirect standard output");
        return BB_EXIT_USAGE;
    }
    uint64_t size = 0;
    bb_status s = bb_serialized_size(f, &size);
    uint8_t *buf = s == BB_OK && size <= SIZE_MAX ? malloc((size_t)size) : NULL;
    if (!buf) return cli_lib_error("cannot write", "-", s == BB_OK ? BB_E_NOMEM : s, 0);
    s = bb_serialize(f, buf, (size_t)size, NULL);
    if (s == BB_OK) fwrite(buf, 1, (size_t)size, stdout);
    free(buf);
    if (s != BB_OK) return cli_lib_error("cannot write", "-", s, 0);
    return cli_finish_stdout(BB_EXIT_OK);
}

/* A build's save: an empty result is still written (exit 0), but said, since it is most
 * often a producer that failed (`zcat missing.gz | blockbloom build -o f.bb`) or an empty
 * file, not a wish for an empty filter. */
int cli_save_output(const bb_filter *f, const char *path) {
    int lock = -1;
    int st = cli_lock_output(path, &lock);
    if (st == BB_EXIT_OK) st = cli_save_and_report(f, path);
    bb_info in = BB_INFO_INIT;
    if (st == BB_EXIT_OK && bb_get_info(f, &in) == BB_OK && in.keys_added == 0)
        cli_error("warning: no keys were read, so the filter is empty (was the input empty, or "
                  "did the command feeding it fail?)");
    cli_unlock(lock);
    return st;
}

int cli_save_and_report(const bb_filter *f, const char *path) {
    if (strcmp(path, "-") == 0) {
        int st = write_stdout(f);
        if (st == BB_EXIT_OK) print_summary(f, "(standard output)");
        return st;
    }
    bb_status s = bb_save(f, path);
    if (s != BB_OK) return cli_lib_error("cannot write", path, s, errno);
    print_summary(f, path);
    return BB_EXIT_OK;
}

/* OUT may not be one of the key FILEs: `build -o keys.txt keys.txt` would replace the keys
 * by their filter. Same file = same device and inode (links and other spellings too). */
static int check_output_not_input(const char *out, char *const *files, size_t n) {
    struct stat so, si;
    if (strcmp(out, "-") == 0 || stat(out, &so) != 0) return BB_EXIT_OK;
    for (size_t i = 0; i < n; i++)
        if (strcmp(files[i], "-") != 0 && stat(files[i], &si) == 0 && si.st_dev == so.st_dev &&
            si.st_ino == so.st_ino)
            return cli_usage_error("build", "-o %s is the key file '%s': refusing to replace "
                                   "the keys with their filter", out, files[i]);
    return BB_EXIT_OK;
}

/* ---- Options --------------------------------------------------------------------------------- */

static int parse_kind(const char *text, bb_kind *out) {
    if (strcmp(text, "blocked") == 0)
        *out = BB_BLOCKED;
    else if (strcmp(text, "classic") == 0)
        *out = BB_CLASSIC;
    else if (strcmp(text, "counting") == 0)
        *out = BB_COUNTING;
    else if (strcmp(text, "scalable") == 0)
        *out = BB_SCALABLE;
    else if (strcmp(text, "split") == 0)
        *out = BB_SPLIT;
    else if (strcmp(text, "sectorized") == 0)
        *out = BB_SECTORIZED;
    else
        return cli_usage_error("build", "unknown kind '%s' (expected blocked, classic, counting, "
                               "scalable, split or sectorized)", text);
    return BB_EXIT_OK;
}

/* What each numeric option takes, for its usage error. */
static const struct value_opt {
    int c;
    const char *name, *expect;
} value_opts[] = {
    {'n', "-n", "a whole number >= 1 (1000000, 1_000_000, 1M or 1e6)"},
    {'p', "-p", "a number between 0 and 1, both excluded"},
    {OPT_BPK, "--bits-per-key", "a number > 0"},
    {OPT_HASHES, "--hashes", "a whole number from 1 to 16"},
    {OPT_SEED, "--seed", "a 64-bit whole number, decimal or 0x-hex"},
    {OPT_FOLD_TO, "--fold-to", "a number between 0 and 1, both excluded"},
};

static int bad_value(int c, const char *arg) {
    for (size_t i = 0; i < sizeof value_opts / sizeof *value_opts; i++)
        if (value_opts[i].c == c)
            return cli_usage_error("build", "invalid value '%s' for %s: expected %s", arg,
                                   value_opts[i].name, value_opts[i].expect);
    return cli_usage_error("build", "invalid value '%s'", arg);
}

/* One option's value into o. */
static int parse_value(int c, const char *arg, build_opts *o) {
    uint64_t k = 0;
    bool ok = true;
    switch (c) {
    case OPT_KIND: return parse_kind(arg, &o->cfg.kind);
    case OPT_KEYS: return cli_parse_keys("build", arg, &o->keys);
    case OPT_SKIP_INVALID: o->skip_invalid = true; break;
    case OPT_MAX_KEY: return cli_parse_max_key("build", arg);
    case 'j': return cli_parse_jobs("build", arg);
    case 'n': ok = cli_parse_count(arg, 1, UINT64_MAX, &o->cfg.capacity); break;
    case 'p': ok = cli_parse_double(arg, 0.0, 1.0, &o->cfg.fpr); break;
    case OPT_BPK: ok = cli_parse_double(arg, 0.0, (double)BB_MAX_BITS, &o->cfg.bits_per_key); break;
    case OPT_HASHES:
        ok = cli_parse_u64(arg, 1, BB_MAX_K, false, &k);
        o->cfg.k = (unsigned)k;
        break;
    case OPT_SEED: ok = cli_parse_u64(arg, 0, UINT64_MAX, true, &o->cfg.seed); break;
    case OPT_SLICE:
        if (!cli_parse_slice(arg, &o->slice_i, &o->slice_n))
            return cli_usage_error("build", "invalid value '%s' for --slice: expected I/N with "
                                   "0 <= I < N", arg);
        break;
    case OPT_FOLD_TO: ok = cli_parse_double(arg, 0.0, 1.0, &o->fold_to); break;
    case OPT_POW2: o->cfg.flags |= BB_POW2_BYTES; break;
    }
    return ok ? BB_EXIT_OK : bad_value(c, arg);
}

static int parse_args(int argc, char **argv, build_opts *o) {
    memset(o, 0, sizeof *o);
    o->cfg.size = sizeof o->cfg;
    int c;
    while ((c = getopt_long(argc, argv, "o:n:p:0hj:", long_opts, NULL)) != -1) {
        int st = BB_EXIT_OK;
        switch (c) {
        case 'o': o->out = optarg; break;
        case '0': o->nul = true; break;
        case 'h': o->help = true; break;
        case '?': return cli_bad_option("build");
        default: st = parse_value(c, optarg ? optarg : "", o); break;
        }
        if (st != BB_EXIT_OK) return st;
    }
    if (o->help) return BB_EXIT_OK;
    if (o->cfg.fpr != 0.0 && o->cfg.bits_per_key != 0.0)
        return cli_usage_error("build", "-p and --bits-per-key exclude each other");
    if (!o->out) return cli_usage_error("build", "missing -o OUT (the filter file to write)");
    if (o->cfg.kind == BB_SCALABLE && (o->cfg.bits_per_key != 0.0 || o->cfg.k))
        return cli_usage_error("build", "--bits-per-key and --hashes do not apply to --kind "
                               "scalable (each sub-filter is sized from -p)");
    if (o->slice_n && (o->cfg.kind != BB_BLOCKED || !o->cfg.capacity))
        return cli_usage_error("build", "--slice needs -n (the whole filter's capacity) and "
                               "--kind blocked");
    if (o->slice_n && o->fold_to != 0.0)
        return cli_usage_error("build", "--fold-to does not apply to --slice (a slice cannot "
                               "shrink alone)");
    bool folds = o->cfg.kind == BB_BLOCKED || o->cfg.kind == BB_SPLIT ||
                 o->cfg.kind == BB_SECTORIZED;
    if ((o->cfg.flags & BB_POW2_BYTES) && !folds)
        return cli_usage_error("build", "--pow2 applies to --kind blocked, split and sectorized "
                               "only");
    if (o->fold_to != 0.0 && !folds)
        return cli_usage_error("build", "--fold-to applies to --kind blocked, split and "
                               "sectorized only");
    if (o->cfg.kind == BB_SPLIT && o->cfg.k && o->cfg.k != 8)
        return cli_usage_error("build", "--kind split always probes 8 bits per key (--hashes=8)");
    if (o->cfg.kind == BB_SECTORIZED && o->cfg.k && o->cfg.k != 1 && o->cfg.k != 2 &&
        o->cfg.k != 4 && o->cfg.k != 8 && o->cfg.k != 16)
        return cli_usage_error("build", "--kind sectorized probes 1, 2, 4, 8 or 16 bits per key "
                               "(--hashes)");
    if (o->cfg.bits_per_key == 0.0 && o->cfg.fpr == 0.0) o->cfg.fpr = DEFAULT_FPR;
    if (o->keys && o->nul) return cli_usage_error("build", "--keys reads lines; -0 does not apply");
    if (o->skip_invalid && !o->keys) return cli_usage_error("build", "--skip-invalid needs --keys");
    if (o->keys && o->fold_to != 0.0)
        return cli_usage_error("build", "--fold-to does not apply with --keys");
    if (o->keys && o->slice_n) return cli_usage_error("build", "--slice does not apply with --keys");
    return BB_EXIT_OK;
}

/* ---- The command ----------------------------------------------------------------------------- */

static int create(const bb_config *cfg, bb_filter **f) {
    bb_status s = bb_create(f, cfg);
    if (s == BB_OK) {
        cli_use_jobs(*f);
        return BB_EXIT_OK;
    }
    if (s == BB_E_TOO_LARGE)
        cli_error("cannot create the filter: too large: it would need more than 2^56 bits "
                  "(8 PiB), the largest filter; ask for fewer keys (-n), a larger -p or fewer bits per key");
    else
        cli_error("cannot create the filter: %s", bb_strerror(s));
    /* Only the options can make a filter invalid or too large; memory is a runtime matter. */
    return s == BB_E_NOMEM ? BB_EXIT_RUNTIME : BB_EXIT_USAGE;
}

/* --fold-to without --pow2: bb_fold halves only an even block count, and the usual sizes are
 * odd (10^6 keys at 1%: 20,565 blocks), so the filter would never fold. Round the block count
 * up to c 2^j with c < 32 (at most 1/16 more bits; 20,565 -> 21 x 2^10 = 21,504, +4.6%), which
 * can be halved j times; the k stays the one sized for the unrounded filter, and more bits
 * only lower its FPR. */
#define FOLD_TOP_BITS 5u

static uint64_t round_for_folding(uint64_t blocks) {
    unsigned j = 0;
    while ((blocks >> j) >= (UINT64_C(1) << FOLD_TOP_BITS)) j++;
    uint64_t c = (blocks + (UINT64_C(1) << j) - 1) >> j;
    return c << j;
}

static int create_foldable(const bb_config *cfg, bb_filter **f) {
    int st = create(cfg, f);
    bb_info in = BB_INFO_INIT;
    if (st != BB_EXIT_OK || (cfg->flags & BB_POW2_BYTES)) return st;
    if (bb_get_info(*f, &in) != BB_OK || !in.blocks) return st;
    uint64_t blocks = round_for_folding(in.blocks);
    if (blocks == in.blocks) return st;
    bb_config c = {.size = sizeof c,
                   .kind = cfg->kind,
                   .capacity = cfg->capacity,
                   .seed = cfg->seed,
                   .bits = in.bits / in.blocks * blocks,
                   .k = in.k};
    bb_free(*f);
    *f = NULL;
    return create(&c, f);
}

/* No -n: read every key, size the filter for their number, add them in one batch. Keys
 * that outgrow the memory they may take (cli_held_keys_budget) fail the build, with -n as
 * the way out, rather than grow until the OOM killer ends it. */
static int build_from_all(build_opts *o, cli_keyreader *r, cli_keybuf *kb, bb_filter **f) {
    int st = cli_keyreader_fill_held(r, kb, SIZE_MAX,
                                     "; give -n N (--capacity) to stream them instead");
    if (st != BB_EXIT_OK) return st;
    o->cfg.capacity = kb->n ? kb->n : 1;
    st = o->fold_to != 0.0 ? create_foldable(&o->cfg, f) : create(&o->cfg, f);
    return st == BB_EXIT_OK ? add_chunk(*f, kb) : st;
}

/* -n given: create first, then stream. */
static int build_streaming(const build_opts *o, cli_keyreader *r, bb_filter **f) {
    int st = o->fold_to != 0.0 ? create_foldable(&o->cfg, f) : create(&o->cfg, f);
    return st == BB_EXIT_OK ? cli_add_stream(*f, r) : st;
}

/* --fold-to: shrink before saving, so no larger file is ever written. */
static int fold(bb_filter *f, double p) {
    bb_status s = bb_fold_to_fpr(f, p);
    if (s == BB_OK) return BB_EXIT_OK;
    cli_error("cannot fold the filter: %s", bb_strerror(s));
    return BB_EXIT_RUNTIME;
}

int bb_cmd_build(int argc, char **argv) {
    build_opts o;
    int st = parse_args(argc, argv, &o);
    if (st != BB_EXIT_OK) return st;
    if (o.help) return cli_help(usage);
    st = check_output_not_input(o.out, argv + optind, (size_t)(argc - optind));
    if (st != BB_EXIT_OK) return st;
    if (o.keys)
        return cli_net_build(&o.cfg, o.keys, o.out, o.skip_invalid, argv + optind,
                             (size_t)(argc - optind));
    cli_keyreader r;
    cli_keybuf kb = {0};
    bb_filter *f = NULL;
    cli_keyreader_init(&r, argv + optind, (size_t)(argc - optind), o.nul, true);
    if (o.slice_n) {
        st = cli_build_slice(&o.cfg, o.slice_i, o.slice_n, &r, &kb, o.out);
        cli_keyreader_close(&r);
        cli_keybuf_free(&kb);
        return st;
    }
    st = o.cfg.capacity ? build_streaming(&o, &r, &f) : build_from_all(&o, &r, &kb, &f);
    cli_keyreader_close(&r);
    cli_keybuf_free(&kb);
    if (st == BB_EXIT_OK && o.fold_to != 0.0) st = fold(f, o.fold_to);
    if (st == BB_EXIT_OK) st = cli_save_output(f, o.out);
    bb_free(f);
    return st;
}
