/* SPDX-License-Identifier: MIT */
/*
 * redis.c - `blockbloom redis SUBCOMMAND`: the BF.* vocabulary on stock Redis and Redis
 * Cluster through the Redis binding (include/blockbloom_redis.h; layout in docs/REDIS.md).
 * Keys come from files or standard input as in `query`, and go to the server in batches of
 * CLI_REDIS_BATCH keys: one pipeline per node per batch. Built only when hiredis is found
 * (BB_HAVE_REDIS); otherwise this file is empty and the command is not registered.
 */
#ifdef BB_HAVE_REDIS
#include "cli.h"

#include <blockbloom_redis.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#define CLI_REDIS_BATCH 1000
#define MAX_SEEDS 64

/* The connection options, in the command's help and in every subcommand's. */
#define CONNECT_HELP \
    "Connecting (docs/REDIS.md, \"Connecting\"):\n" \
    "  -u, --url=URL          the server: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], HOST:PORT\n" \
    "                         or HOST (default: $BB_REDIS_URL, else redis://127.0.0.1:6379)\n" \
    "      --cluster=URL      a Redis Cluster node, as --url (repeat for more seeds)\n" \
    "      --user=NAME        ACL user to AUTH as, when the URL names none\n" \
    "      --password-file=FILE  AUTH with the first line of FILE when the URL has no\n" \
    "                         password (default: $REDISCLI_AUTH, as redis-cli)\n" \
    "      --timeout=SECONDS  deadline of each request to the server (default 10)\n" \
    "      --wait=N           after each batch of writes, wait for N replicas (WAIT); fewer\n" \
    "                         is an error\n"

static const char usage[] =
    "Usage: blockbloom redis SUBCOMMAND [OPTION]... ARG...\n"
    "Keep Bloom filters in stock Redis or Redis Cluster (no module needed), with\n"
    "RedisBloom's commands, replies and defaults; layout in docs/REDIS.md.\n"
    "'blockbloom redis SUBCOMMAND --help' describes one subcommand.\n"
    "\n"
    "  reserve NAME ERROR_RATE CAPACITY [EXPANSION N] [NONSCALING]\n"
    "                                    create an empty filter (scaling by default)\n"
    "  add|madd NAME [FILE]...           add keys; print 1 (new) or 0 per key\n"
    "  insert NAME [OPTIONS] [ITEMS KEY...]  add, creating the filter as asked\n"
    "  exists|mexists NAME [FILE]...     print 1 (possibly present) or 0 per key\n"
    "  info NAME [FIELD]                 print the filter's parameters and count\n"
    "  card NAME                         print the number of keys added (adds that were new)\n"
    "  del NAME                          delete the filter\n"
    "  pull NAME -o FILE                 save the filter as a local filter file\n"
    "  push FILE NAME                    publish a local blocked filter file (--shards N)\n"
    "  push --slice I/N -n CAP FILE NAME publish a slice file of 'build --slice I/N'\n"
    "\n"
    CONNECT_HELP
    "  -h, --help             show this help (or a subcommand's) and exit\n"
    "\n"
    "Errors name the node (HOST:PORT) or quote RedisBloom's reply. Exit status: 0 success,\n"
    "1 error (server, network, timeout, bad filter, full), 2 usage error (also a bad URL).\n";

static const char connect_help[] = CONNECT_HELP;

static const char keys_help[] =
    "Keys are read one per line from the FILEs or standard input ('-': standard input), in\n"
    "batches of 1000, one pipeline per node per batch.\n"
    "  -c, --count            print only the count of 1s instead of one line per key\n"
    "  -0, --null             keys end with NUL instead of newline\n"
    "      --max-key-bytes=N  fail on a key longer than N bytes (default 16777216, 16 MiB)\n";

typedef struct sub_help {
    const char *name, *alias, *synopsis, *text;
    bool keys;
} sub_help;

static const sub_help helps[] = {
    {"reserve", NULL, "reserve NAME ERROR_RATE CAPACITY [EXPANSION N] [NONSCALING] [--shards N]",
     "BF.RESERVE: create an empty filter for CAPACITY keys (1 .. 2^30; 1M, 1e6 are accepted)\n"
     "at false-positive rate ERROR_RATE (0 < p < 1; above 0.25 taken as 0.25). By default it\n"
     "scales: when the adds that answered 1 reach the capacity of the newest sub-filter, a new\n"
     "one EXPANSION (default 2, up to 32768) times larger at half its error rate is added, so\n"
     "the filter stays at or below ERROR_RATE at any fill. NONSCALING (or EXPANSION 0): one\n"
     "filter; adding a new key past CAPACITY fails with 'ERR non scaling filter is full'.\n"
     "      --shards=N         shards per sub-filter (default: as many as hold at most 4 MiB)\n",
     false},
    {"add", "madd", "add|madd NAME [FILE]...",
     "BF.ADD, BF.MADD: add keys; print 1 for a key in no sub-filter before (new), else 0. A\n"
     "missing filter is created with RedisBloom's defaults: capacity 100, error rate 0.01,\n"
     "expansion 2.\n",
     true},
    {"insert", NULL, "insert NAME [CAPACITY C] [ERROR E] [EXPANSION N] [NOCREATE] [NONSCALING] [ITEMS KEY...]",
     "BF.INSERT: add the KEYs after ITEMS (without ITEMS: keys from standard input); a missing\n"
     "filter is created with the given CAPACITY, ERROR, EXPANSION and NONSCALING (defaults as\n"
     "add), or, with NOCREATE, not at all ('ERR not found'). An existing filter keeps its own.\n",
     true},
    {"exists", "mexists", "exists|mexists NAME [FILE]...",
     "BF.EXISTS, BF.MEXISTS: print 1 for a key possibly present, 0 for one surely absent. A\n"
     "missing filter answers 0 for every key.\n",
     true},
    {"info", NULL, "info NAME [CAPACITY|SIZE|FILTERS|ITEMS|EXPANSION] [-v]",
     "BF.INFO: Capacity, Size (bytes of the bit arrays), Number of filters, Number of items\n"
     "inserted, Expansion rate ('(nil)' for a filter that does not scale), in RedisBloom's\n"
     "order; with a FIELD only that value. A missing filter is 'ERR not found'.\n"
     "  -v, --verbose          then the layout's own fields: error rate, hashes, blocks,\n"
     "                         shards, bits set, cardinality estimate, seed\n",
     false},
    {"card", NULL, "card NAME",
     "BF.CARD: the number of adds that answered 1 (RedisBloom's count, exact with any number of\n"
     "writers); 0 for a missing filter.\n",
     false},
    {"del", NULL, "del NAME", "Delete the filter: its meta key first, then its shards and state.\n", false},
    {"pull", NULL, "pull NAME -o FILE",
     "Save the filter as a local filter file (atomically): a scaling filter as a scalable one\n"
     "(byte for byte 'blockbloom build --kind scalable' of the same keys in the same order),\n"
     "a NONSCALING or pushed one as a blocked one.\n"
     "  -o, --output=FILE      the file to write\n",
     false},
    {"push", NULL, "push FILE NAME [--shards N] | push --slice I/N -n CAP [-p P] FILE NAME",
     "Publish a local blocked filter file as NAME (which must not exist). It does not scale.\n"
     "      --shards=N         number of shards (default: as many as hold at most 4 MiB)\n"
     "      --slice=I/N, -n N, -p P, --seed=S, --hashes=K  a slice of 'build --slice I/N'\n"
     "                         (same -n, -p, --seed, --hashes as the build)\n"
     "      --keys=N           push --slice: keys the slices were built from (default 0)\n",
     false},
};

static int sub_usage(const char *sub) {
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++) {
        const sub_help *h = &helps[i];
        if (strcmp(sub, h->name) != 0 && !(h->alias && strcmp(sub, h->alias) == 0)) continue;
        printf("Usage: blockbloom redis %s\n%s%s%s  -h, --help             show this help and exit\n",
               h->synopsis, h->text, h->keys ? keys_help : "", connect_help);
        return cli_finish_stdout(BB_EXIT_OK);
    }
    return cli_usage_error("redis", "unknown subcommand '%s'", sub);
}

enum { OPT_CLUSTER = 256, OPT_SHARDS, OPT_SLICE, OPT_SEED, OPT_HASHES, OPT_KEYS, OPT_MAX_KEY,
       OPT_USER, OPT_PWFILE, OPT_TIMEOUT, OPT_WAIT };
#define MAX_OPERANDS 4096

static const struct option long_opts[] = {
    {"url", required_argument, NULL, 'u'},       {"cluster", required_argument, NULL, OPT_CLUSTER},
    {"count", no_argument, NULL, 'c'},           {"null", no_argument, NULL, '0'},
    {"output", required_argument, NULL, 'o'},    {"shards", required_argument, NULL, OPT_SHARDS},
    {"slice", required_argument, NULL, OPT_SLICE}, {"capacity", required_argument, NULL, 'n'},
    {"fpr", required_argument, NULL, 'p'},       {"seed", required_argument, NULL, OPT_SEED},
    {"hashes", required_argument, NULL, OPT_HASHES}, {"keys", required_argument, NULL, OPT_KEYS},
    {"help", no_argument, NULL, 'h'},        {"max-key-bytes", required_argument, NULL, OPT_MAX_KEY},
    {"user", required_argument, NULL, OPT_USER}, {"password-file", required_argument, NULL, OPT_PWFILE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT}, {"wait", required_argument, NULL, OPT_WAIT},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0}};

typedef struct redis_opts {
    const char *url, *out;
    const char *seeds[MAX_SEEDS];
    size_t n_seeds;
    const char *password_file;
    bb_redis_options conn;
    bool count, nul, help, verbose;
    uint64_t shards, slice_i, slice_n, keys;
    bb_config cfg; /* push --slice */
    char *operands[MAX_OPERANDS]; /* the subcommand, then its operands, in order */
    size_t n_operands;
} redis_opts;

static int bad(const char *what, const char *arg) {
    return cli_usage_error("redis", "invalid value '%s' for %s", arg, what);
}

static int parse_opt(int c, redis_opts *o) {
    uint64_t v;
    switch (c) {
    case 'u': o->url = optarg; break;
    case OPT_CLUSTER:
        if (o->n_seeds == MAX_SEEDS) return cli_usage_error("redis", "too many --cluster nodes");
        o->seeds[o->n_seeds++] = optarg;
        break;
    case 'c': o->count = true; break;
    case '0': o->nul = true; break;
    case 'o': o->out = optarg; break;
    case 'h': o->help = true; break;
    case 'v': o->verbose = true; break;
    case OPT_SHARDS:
        if (!cli_parse_u64(optarg, 1, UINT64_MAX, false, &o->shards)) return bad("--shards", optarg);
        break;
    case OPT_SLICE:
        if (!cli_parse_slice(optarg, &o->slice_i, &o->slice_n)) return bad("--slice", optarg);
        break;
    case 'n':
        if (!cli_parse_count(optarg, 1, UINT64_MAX, &o->cfg.capacity)) return bad("-n", optarg);
        break;
    case 'p':
        if (!cli_parse_double(optarg, 0.0, 1.0, &o->cfg.fpr)) return bad("-p", optarg);
        break;
    case OPT_SEED:
        if (!cli_parse_u64(optarg, 0, UINT64_MAX, true, &o->cfg.seed)) return bad("--seed", optarg);
        break;
    case OPT_KEYS:
        if (!cli_parse_count(optarg, 0, UINT64_MAX, &o->keys)) return bad("--keys", optarg);
        break;
    case OPT_HASHES:
        if (!cli_parse_u64(optarg, 1, BB_MAX_K, false, &v)) return bad("--hashes", optarg);
        o->cfg.k = (unsigned)v;
        break;
    case OPT_MAX_KEY: return cli_parse_max_key("redis", optarg);
    case OPT_USER: o->conn.user = optarg; break;
    case OPT_PWFILE: o->password_file = optarg; break;
    case OPT_TIMEOUT: {
        double sec;
        if (!cli_parse_double(optarg, 0.0, 86400.0, &sec) || sec < 0.001) return bad("--timeout", optarg);
        o->conn.timeout_ms = (uint32_t)(sec * 1000.0 + 0.5);
        break;
    }
    case OPT_WAIT:
        if (!cli_parse_u64(optarg, 0, 1000, false, &v)) return bad("--wait", optarg);
        o->conn.wait_replicas = (unsigned)v;
        break;
    default: return cli_bad_option("redis");
    }
    return BB_EXIT_OK;
}

/* A negative number ("-0.1", "-5", "-1e3"), which is an operand (RedisBloom's value), not an
 * option; "-0" alone stays --null. */
static bool negative_number(const char *a) {
    if (a[0] != '-' || !(isdigit((unsigned char)a[1]) || a[1] == '.') || strcmp(a, "-0") == 0) return false;
    char *end;
    errno = 0;
    (void)strtod(a, &end);
    return *end == '\0';
}

/* Options anywhere (POSIX getopt stops at each operand, which is collected here in order, so
 * that a negative number between operands is one of them). */
static int parse_args(int argc, char **argv, redis_opts *o) {
    memset(o, 0, sizeof *o);
    o->conn.size = sizeof o->conn;
    o->cfg.size = sizeof o->cfg;
    optind = 0; /* glibc: start afresh, so that "+" (stop at operands) takes effect */
    for (bool first = true; first || optind < argc; first = false) {
        const char *a = first ? NULL : argv[optind];
        if (a && strcmp(a, "--") == 0) {
            while (++optind < argc) {
                if (o->n_operands == MAX_OPERANDS) return cli_usage_error("redis", "too many operands");
                o->operands[o->n_operands++] = argv[optind];
            }
            break;
        }
        if (a && (a[0] != '-' || a[1] == '\0' || negative_number(a))) {
            if (o->n_operands == MAX_OPERANDS) return cli_usage_error("redis", "too many operands");
            o->operands[o->n_operands++] = argv[optind++];
            continue;
        }
        int c = getopt_long(argc, argv, "+u:c0o:n:p:hv", long_opts, NULL);
        if (c == -1) continue;
        int st = parse_opt(c, o);
        if (st != BB_EXIT_OK) return st;
    }
    if (o->url && o->n_seeds) return cli_usage_error("redis", "--url and --cluster exclude each other");
    if (!o->url && !o->n_seeds) o->url = getenv("BB_REDIS_URL");
    if (!o->url && !o->n_seeds) o->url = "redis://127.0.0.1:6379";
    return BB_EXIT_OK;
}

static int fail(bb_redis *r, bb_status s) {
    const char *msg = r && bb_last_error()[0] ? bb_last_error() : bb_strerror(s);
    /* The library's messages start with "redis" (+ host:port) or quote the server (ERR ...). */
    cli_error(strncmp(msg, "redis", 5) == 0 ? "%s" : "redis: %s", msg);
    return s == BB_E_INVAL ? BB_EXIT_USAGE : BB_EXIT_RUNTIME;
}

/* ---- Keys ------------------------------------------------------------------------------------ */

/* What a batch of keys goes to: madd (ins NULL: add's defaults), insert, or mexists. */
typedef struct key_job {
    const char *name;
    bool add;
    const bb_redis_params *ins;
} key_job;

/* One batch of keys: pointers into kb, then madd, insert or mexists. */
static bb_status key_batch(bb_redis *r, const key_job *job, const void **keys,
                           size_t *lens, size_t n, uint8_t *out) {
    if (!job->add) return bb_redis_mexists(r, job->name, keys, lens, n, out, NULL);
    return job->ins ? bb_redis_insert(r, job->name, job->ins, keys, lens, n, out)
                    : bb_redis_madd(r, job->name, keys, lens, n, out);
}

/* The answers of a batch (out[j] = 2: refused, RedisBloom stops answering there). */
static void print_answers(const redis_opts *o, const uint8_t *out, size_t m, uint64_t *ones) {
    for (size_t j = 0; j < m && out[j] != 2; j++) {
        *ones += out[j];
        if (!o->count) putchar(out[j] ? '1' : '0'), putchar('\n');
    }
}

static int run_batch(bb_redis *r, const redis_opts *o, const key_job *job, const void **keys,
                     size_t *lens, size_t m, uint64_t *ones) {
    uint8_t out[CLI_REDIS_BATCH];
    bb_status s = key_batch(r, job, keys, lens, m, out);
    if (s == BB_E_FULL) print_answers(o, out, m, ones);
    if (s != BB_OK) return fail(r, s);
    print_answers(o, out, m, ones);
    return BB_EXIT_OK;
}

static int run_keys(bb_redis *r, const redis_opts *o, const key_job *job, char **files,
                    size_t n_files) {
    cli_keyreader rd;
    cli_keybuf kb = {0};
    cli_keyreader_init(&rd, files, n_files, o->nul, false);
    uint64_t ones = 0;
    int st = BB_EXIT_OK;
    for (bool done = false; !done && st == BB_EXIT_OK;) {
        /* A failed fill (a key over the limit, a read error) keeps the keys before it: they
         * are sent and answered before the error ends the run, as `query` does. */
        int read_st = cli_keyreader_fill(&rd, &kb, CLI_CHUNK_KEYS, CLI_CHUNK_BYTES, &done);
        for (size_t i = 0; st == BB_EXIT_OK && i < kb.n; i += CLI_REDIS_BATCH) {
            size_t m = kb.n - i < CLI_REDIS_BATCH ? kb.n - i : CLI_REDIS_BATCH;
            const void *keys[CLI_REDIS_BATCH];
            size_t lens[CLI_REDIS_BATCH];
            for (size_t j = 0; j < m; j++) {
                keys[j] = kb.data ? kb.data + kb.off[i + j] : NULL;
                lens[j] = (size_t)(kb.off[i + j + 1] - kb.off[i + j]);
            }
            st = run_batch(r, o, job, keys, lens, m, &ones);
        }
        if (st == BB_EXIT_OK) st = read_st;
    }
    cli_keyreader_close(&rd);
    cli_keybuf_free(&kb);
    if (st == BB_EXIT_OK && o->count) printf("%" PRIu64 "\n", ones);
    return cli_finish_stdout(st);
}

/* insert's ITEMS from the command line, in batches. */
static int run_items(bb_redis *r, const redis_opts *o, const key_job *job, char **items, size_t n) {
    uint64_t ones = 0;
    int st = BB_EXIT_OK;
    for (size_t i = 0; st == BB_EXIT_OK && i < n; i += CLI_REDIS_BATCH) {
        size_t m = n - i < CLI_REDIS_BATCH ? n - i : CLI_REDIS_BATCH;
        const void *keys[CLI_REDIS_BATCH];
        size_t lens[CLI_REDIS_BATCH];
        for (size_t j = 0; j < m; j++) keys[j] = items[i + j], lens[j] = strlen(items[i + j]);
        st = run_batch(r, o, job, keys, lens, m, &ones);
    }
    if (st == BB_EXIT_OK && o->count) printf("%" PRIu64 "\n", ones);
    return cli_finish_stdout(st);
}

/* ---- Numbers as RedisBloom reads them ------------------------------------------------------------ */

/* An error rate: any number (the range is the library's check, RedisBloom's text), else
 * RedisBloom's "ERR bad error rate" (BF.INSERT: "Bad error rate"). */
static bool parse_rate(const char *text, double *p) {
    return cli_parse_double(text, -1e300, 1e300, p);
}

/* A capacity: a count as for build -n (1M, 1e6, 1_000), or a negative whole number, which
 * is out of range (*n = 0: the library's range text), else false ("ERR bad capacity"). */
static bool parse_cap(const char *text, uint64_t *n) {
    if (cli_parse_count(text, 0, UINT64_MAX, n)) return true;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    *n = 0;
    return *end == '\0' && end != text && errno == 0 && v < 0;
}

/* EXPANSION's value: 0 .. 2^64-1 (the library checks the range) or a negative number. */
static bool parse_expansion(const char *text, uint64_t *x, bool *negative) {
    *negative = false;
    if (cli_parse_u64(text, 0, UINT64_MAX, false, x)) return true;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    *negative = *end == '\0' && end != text && errno == 0 && v < 0;
    return *negative;
}

static int redis_error(const char *text) { /* a refusal RedisBloom would reply with */
    cli_error("redis: %s", text);
    return BB_EXIT_USAGE;
}

static const char expansion_range[] = "ERR expansion must be in the range [0, 32768]";

/* ---- The other subcommands --------------------------------------------------------------------- */

static int run_info(bb_redis *r, const redis_opts *o, const char *name, const char *field) {
    static const char *const fields[] = {"capacity", "size", "filters", "items", "expansion"};
    int want = -1;
    for (int i = 0; field && i < 5; i++)
        if (strcasecmp(field, fields[i]) == 0) want = i;
    if (field && want < 0) return redis_error("Invalid information value");
    bb_redis_info in = BB_REDIS_INFO_INIT;
    bb_status s = bb_redis_info_get(r, name, &in);
    if (s != BB_OK) return fail(r, s);
    char expansion[24] = "(nil)";
    if (in.expansion) snprintf(expansion, sizeof expansion, "%" PRIu64, in.expansion);
    if (want >= 0) {
        uint64_t v[] = {in.capacity, in.size_bytes, in.filters, in.keys_added};
        if (want < 4) printf("%" PRIu64 "\n", v[want]);
        else puts(expansion);
        return cli_finish_stdout(BB_EXIT_OK);
    }
    printf("Capacity: %" PRIu64 "\nSize: %" PRIu64 "\nNumber of filters: %" PRIu64 "\n"
           "Number of items inserted: %" PRIu64 "\nExpansion rate: %s\n",
           in.capacity, in.size_bytes, in.filters, in.keys_added, expansion);
    if (o->verbose)
        printf("Error rate: %g\nHashes: %u\nBlocks: %" PRIu64 "\nShards: %" PRIu64 "\n"
               "Blocks per shard: %" PRIu64 "\nBits set: %" PRIu64 "\nCardinality estimate: %.0f\n"
               "Seed: %" PRIu64 "\n",
               in.error_rate, in.k, in.blocks, in.shards, in.blocks_per_shard, in.bits_set,
               in.cardinality, in.seed);
    return cli_finish_stdout(BB_EXIT_OK);
}

/* BF.RESERVE NAME RATE CAP [EXPANSION n] [NONSCALING], with its texts. */
static int run_reserve(bb_redis *r, const redis_opts *o, char **args, size_t n) {
    bb_redis_params p = {.size = sizeof p, .shards = o->shards};
    bool expansion_given = false, neg;
    if (!parse_rate(args[1], &p.error_rate)) return redis_error("ERR bad error rate");
    if (!(p.error_rate > 0.0 && p.error_rate < 1.0))
        return redis_error("ERR error rate must be in the range (0.000000, 1.000000)");
    if (!parse_cap(args[2], &p.capacity)) return redis_error("ERR bad capacity");
    if (p.capacity == 0 || p.capacity > BB_REDIS_MAX_CAPACITY)
        return redis_error("ERR capacity must be in the range [1, 1073741824]");
    for (size_t i = 3; i < n; i++) {
        if (strcasecmp(args[i], "NONSCALING") == 0) {
            p.nonscaling = true;
        } else if (strcasecmp(args[i], "EXPANSION") == 0) {
            if (i + 1 == n) return redis_error("ERR no expansion");
            if (!parse_expansion(args[++i], &p.expansion, &neg)) return redis_error("ERR bad expansion");
            if (neg || p.expansion > 32768) return redis_error(expansion_range);
            expansion_given = true;
        } else {
            return cli_usage_error("redis", "reserve: unknown argument '%s' (EXPANSION N or "
                                   "NONSCALING)", args[i]);
        }
    }
    if (expansion_given && p.expansion == 0) p.nonscaling = true; /* EXPANSION 0 = NONSCALING */
    else if (expansion_given && p.nonscaling) return redis_error("Nonscaling filters cannot expand");
    bb_status s = bb_redis_reserve_params(r, args[0], &p);
    if (s != BB_OK) return fail(r, s);
    puts("OK");
    return cli_finish_stdout(BB_EXIT_OK);
}

/* BF.INSERT NAME [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] [ITEMS k...]. */
static int run_insert(bb_redis *r, const redis_opts *o, char **args, size_t n) {
    bb_redis_params p = {.size = sizeof p, .shards = o->shards};
    bool expansion_given = false, neg;
    size_t i = 1;
    for (; i < n && strcasecmp(args[i], "ITEMS") != 0; i++) {
        const char *a = args[i];
        bool has_value = !strcasecmp(a, "CAPACITY") || !strcasecmp(a, "ERROR") || !strcasecmp(a, "EXPANSION");
        if (has_value && i + 1 == n) return cli_usage_error("redis", "insert: %s needs a value", a);
        if (!strcasecmp(a, "CAPACITY")) {
            if (!parse_cap(args[++i], &p.capacity) || p.capacity == 0 || p.capacity > BB_REDIS_MAX_CAPACITY)
                return redis_error("Bad capacity");
        } else if (!strcasecmp(a, "ERROR")) {
            if (!parse_rate(args[++i], &p.error_rate) || !(p.error_rate > 0.0 && p.error_rate < 1.0))
                return redis_error("Bad error rate");
        } else if (!strcasecmp(a, "EXPANSION")) {
            if (!parse_expansion(args[++i], &p.expansion, &neg) || neg || p.expansion > 32768)
                return redis_error("Bad expansion");
            expansion_given = true;
        } else if (!strcasecmp(a, "NOCREATE")) {
            p.nocreate = true;
        } else if (!strcasecmp(a, "NONSCALING")) {
            p.nonscaling = true;
        } else {
            return redis_error("Unknown argument received");
        }
    }
    if (expansion_given && p.expansion == 0) p.nonscaling = true;
    if (p.nonscaling) p.expansion = 0; /* BF.INSERT: NONSCALING wins over EXPANSION */
    key_job job = {args[0], true, &p};
    if (i < n && i + 1 == n) return cli_usage_error("redis", "insert: ITEMS needs at least one key");
    if (i < n) return run_items(r, o, &job, args + i + 1, n - i - 1);
    return run_keys(r, o, &job, NULL, 0);
}

static int run_pull(bb_redis *r, const redis_opts *o, const char *name) {
    if (!o->out) return cli_usage_error("redis", "pull needs -o FILE");
    bb_filter *f;
    bb_status s = bb_redis_pull(r, name, &f);
    if (s != BB_OK) return fail(r, s);
    int st = cli_save_and_report(f, o->out);
    bb_free(f);
    return st;
}

static int read_file(const char *path, uint8_t **data, uint64_t *len) {
    FILE *in = fopen(path, "rb");
    long size = -1;
    if (in && fseek(in, 0, SEEK_END) == 0) size = ftell(in);
    if (size < 0 || fseek(in, 0, SEEK_SET) != 0 || !(*data = malloc((size_t)size + 1)) ||
        fread(*data, 1, (size_t)size, in) != (size_t)size) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        if (in) fclose(in);
        return BB_EXIT_RUNTIME;
    }
    fclose(in);
    *len = (uint64_t)size;
    return BB_EXIT_OK;
}

static int run_push_slice(bb_redis *r, redis_opts *o, const char *path, const char *name) {
    if (!o->cfg.capacity) return cli_usage_error("redis", "push --slice needs -n (as the build)");
    if (o->cfg.fpr == 0.0) o->cfg.fpr = 0.01;
    bb_slice *geo;
    bb_status bs = bb_slice_create(&geo, &o->cfg, o->slice_i, o->slice_n);
    if (bs != BB_OK) return cli_lib_error("cannot make slice geometry for", path, bs, 0);
    bb_slice_info in = BB_SLICE_INFO_INIT;
    bb_slice_get_info(geo, &in);
    bb_slice_free(geo);
    in.keys_added = o->keys;
    uint8_t *data = NULL;
    uint64_t len;
    int st = read_file(path, &data, &len);
    bool published = false;
    bb_status s = st ? BB_OK : bb_redis_push_slice(r, &in, data, len, name, &published);
    free(data);
    if (st) return st;
    if (s != BB_OK) return fail(r, s);
    printf("%s\n", published ? "OK published" : "OK");
    return cli_finish_stdout(BB_EXIT_OK);
}

static int run_push(bb_redis *r, redis_opts *o, const char *path, const char *name) {
    if (o->slice_n) return run_push_slice(r, o, path, name);
    bb_filter *f;
    bb_status bs = bb_open_mmap(&f, path);
    if (bs != BB_OK) return cli_lib_error("cannot open", path, bs, errno);
    bb_status s = bb_redis_push(r, f, name, o->shards);
    bb_free(f);
    if (s != BB_OK) return fail(r, s);
    puts("OK");
    return cli_finish_stdout(BB_EXIT_OK);
}

static int run_simple(bb_redis *r, const char *sub, const char *name) {
    bb_status s;
    uint64_t card = 0;
    if (strcmp(sub, "card") == 0) s = bb_redis_card(r, name, &card);
    else s = bb_redis_del(r, name);
    if (s != BB_OK) return fail(r, s);
    printf("%" PRIu64 "\n", strcmp(sub, "card") == 0 ? card : 1);
    return cli_finish_stdout(BB_EXIT_OK);
}

/* The subcommand with its operands args[0 .. n). */
static int dispatch(bb_redis *r, redis_opts *o, const char *sub, char **args, size_t n) {
    bool keys_add = !strcmp(sub, "add") || !strcmp(sub, "madd");
    bool keys_q = !strcmp(sub, "exists") || !strcmp(sub, "mexists");
    if ((keys_add || keys_q) && n >= 1) {
        key_job job = {args[0], keys_add, NULL};
        return run_keys(r, o, &job, args + 1, n - 1);
    }
    if (!strcmp(sub, "reserve") && n >= 3) return run_reserve(r, o, args, n);
    if (!strcmp(sub, "insert") && n >= 1) return run_insert(r, o, args, n);
    if (!strcmp(sub, "info") && (n == 1 || n == 2)) return run_info(r, o, args[0], n == 2 ? args[1] : NULL);
    if ((!strcmp(sub, "card") || !strcmp(sub, "del")) && n == 1) return run_simple(r, sub, args[0]);
    if (!strcmp(sub, "pull") && n == 1) return run_pull(r, o, args[0]);
    if (!strcmp(sub, "push") && n == 2) return run_push(r, o, args[0], args[1]);
    return cli_usage_error("redis", "unknown subcommand '%s' or wrong number of operands", sub);
}

/* ---- Connecting ---------------------------------------------------------------------------------- */

/* The first line of path (without its line end) into buf: a password kept off the command
 * line and out of the environment. A regular file, or a pipe (`--password-file <(pass show
 * redis)`) or device (/dev/null) that delivers within the request timeout: a blocking open
 * of a FIFO with no writer would wait forever, whatever --timeout says, so the open is
 * O_NONBLOCK and poll waits at most timeout_ms for the first byte. A directory is refused. */
static int read_password(const char *path, char *buf, size_t cap, uint32_t timeout_ms) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        cli_error("cannot read the password file '%s': %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return BB_EXIT_RUNTIME;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("the password file '%s' is a directory", path);
        close(fd);
        return BB_EXIT_RUNTIME;
    }
    if (!S_ISREG(st.st_mode)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, timeout_ms ? (int)timeout_ms : 10000);
        if (r == 0) {
            cli_error("no password arrived from '%s' within %.3g s (--timeout)", path,
                      (timeout_ms ? timeout_ms : 10000) / 1000.0);
            close(fd);
            return BB_EXIT_RUNTIME;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    }
    FILE *in = fdopen(fd, "r");
    if (!in) {
        cli_error("cannot read the password file '%s': %s", path, strerror(errno));
        close(fd);
        return BB_EXIT_RUNTIME;
    }
    bool got = fgets(buf, (int)cap, in) != NULL;
    fclose(in);
    size_t len = got ? strcspn(buf, "\r\n") : 0;
    if (got && len == strlen(buf) && len == cap - 1) {
        cli_error("the password file '%s' has a first line over %zu bytes", path, cap - 2);
        return BB_EXIT_RUNTIME;
    }
    buf[len] = '\0';
    if (len == 0) {
        cli_error("the password file '%s' is empty", path);
        return BB_EXIT_RUNTIME;
    }
    return BB_EXIT_OK;
}

/* AUTH's password when the URL has none: --password-file, else $REDISCLI_AUTH (redis-cli's). */
static int connect_redis(redis_opts *o, bb_redis **r) {
    char password[1024];
    *r = NULL;
    if (o->password_file) {
        int st = read_password(o->password_file, password, sizeof password, o->conn.timeout_ms);
        if (st != BB_EXIT_OK) return st;
        o->conn.password = password;
    } else if (getenv("REDISCLI_AUTH") && *getenv("REDISCLI_AUTH")) {
        o->conn.password = getenv("REDISCLI_AUTH");
    }
    const char *const *urls = o->n_seeds ? o->seeds : &o->url;
    bb_status s = bb_redis_open(r, urls, o->n_seeds ? o->n_seeds : 1, &o->conn);
    memset(password, 0, sizeof password);
    o->conn.password = NULL;
    return s == BB_OK ? BB_EXIT_OK : fail(*r, s);
}

int bb_cmd_redis(int argc, char **argv) {
    redis_opts o;
    int st = parse_args(argc, argv, &o);
    if (st != BB_EXIT_OK) return st;
    if (o.help) return o.n_operands ? sub_usage(o.operands[0]) : cli_help(usage);
    if (o.n_operands == 0) return cli_usage_error("redis", "missing subcommand");
    o.conn.cluster = o.n_seeds > 0;
    bb_redis *r;
    st = connect_redis(&o, &r);
    if (st == BB_EXIT_OK) st = dispatch(r, &o, o.operands[0], o.operands + 1, o.n_operands - 1);
    bb_redis_free(r);
    return st;
}
#endif
