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
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CLI_REDIS_BATCH 1000
#define MAX_SEEDS 64

static const char usage[] =
    "Usage: blockbloom redis SUBCOMMAND [OPTION]... ARG...\n"
    "Keep a blocked filter in stock Redis or Redis Cluster (no module needed), with\n"
    "RedisBloom's commands; layout in docs/REDIS.md.\n"
    "\n"
    "  reserve NAME ERROR_RATE CAPACITY  create an empty filter (--shards N)\n"
    "  add|madd NAME [FILE]...           add keys; print 1 (new) or 0 per key\n"
    "  exists|mexists NAME [FILE]...     print 1 (possibly present) or 0 per key\n"
    "  info NAME                         print the filter's parameters and fill\n"
    "  card NAME                         print the estimated number of distinct keys\n"
    "  del NAME                          delete the filter\n"
    "  pull NAME -o FILE                 save the filter as a local filter file\n"
    "  push FILE NAME                    publish a local blocked filter file (--shards N)\n"
    "  push --slice I/N -n CAP FILE NAME publish a slice file of 'build --slice I/N'\n"
    "                                    (same -n, -p, --seed, --hashes as the build)\n"
    "\n"
    "Connecting (docs/REDIS.md, \"Connecting\"):\n"
    "  -u, --url=URL          the server: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], HOST:PORT\n"
    "                         or HOST (default: $BB_REDIS_URL, else redis://127.0.0.1:6379)\n"
    "      --cluster=URL      a Redis Cluster node, as --url (repeat for more seeds)\n"
    "      --user=NAME        ACL user to AUTH as, when the URL names none\n"
    "      --password-file=FILE  AUTH with the first line of FILE when the URL has no\n"
    "                         password (default: $REDISCLI_AUTH, as redis-cli)\n"
    "      --timeout=SECONDS  deadline of each request to the server (default 10)\n"
    "      --wait=N           after each batch of writes, wait for N replicas (WAIT); fewer\n"
    "                         is an error\n"
    "\n"
    "  -c, --count            print only the count of 1s instead of one line per key\n"
    "  -0, --null             keys end with NUL instead of newline\n"
    "      --max-key-bytes=N  fail on a key longer than N bytes, as 'blockbloom build'\n"
    "                         (default 16777216, 16 MiB)\n"
    "  -o, --output=FILE      pull: the file to write (atomically)\n"
    "      --shards=N         reserve, push: number of shards (default: 4 MiB each)\n"
    "      --slice=I/N, -n N, -p P, --seed=S, --hashes=K  push --slice: the slice geometry\n"
    "      --keys=N           push --slice: keys the slices were built from (the filter's\n"
    "                         keys_added, printed by 'build --slice'; default 0)\n"
    "  -h, --help             show this help and exit\n"
    "\n"
    "Errors name the node (HOST:PORT) or the server's reply. Exit status: 0 success, 1\n"
    "error (server, network, bad filter), 2 usage error.\n";

enum { OPT_CLUSTER = 256, OPT_SHARDS, OPT_SLICE, OPT_SEED, OPT_HASHES, OPT_KEYS, OPT_MAX_KEY,
       OPT_USER, OPT_PWFILE, OPT_TIMEOUT, OPT_WAIT };

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
    {NULL, 0, NULL, 0}};

typedef struct redis_opts {
    const char *url, *out;
    const char *seeds[MAX_SEEDS];
    size_t n_seeds;
    const char *password_file;
    bb_redis_options conn;
    bool count, nul, help;
    uint64_t shards, slice_i, slice_n, keys;
    bb_config cfg; /* push --slice */
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

static int parse_args(int argc, char **argv, redis_opts *o) {
    memset(o, 0, sizeof *o);
    o->conn.size = sizeof o->conn;
    int c;
    while ((c = getopt_long(argc, argv, "u:c0o:n:p:h", long_opts, NULL)) != -1) {
        int st = parse_opt(c, o);
        if (st != BB_EXIT_OK) return st;
    }
    if (o->url && o->n_seeds) return cli_usage_error("redis", "--url and --cluster exclude each other");
    if (!o->url && !o->n_seeds) o->url = getenv("BB_REDIS_URL");
    if (!o->url && !o->n_seeds) o->url = "redis://127.0.0.1:6379";
    return BB_EXIT_OK;
}

static int fail(bb_redis *r, bb_redis_status s) {
    const char *msg = r && bb_redis_error(r)[0] ? bb_redis_error(r) : bb_redis_strerror(s);
    /* The library's messages start with "redis" (+ host:port) or quote the server (ERR ...). */
    cli_error(strncmp(msg, "redis", 5) == 0 ? "%s" : "redis: %s", msg);
    return s == BB_REDIS_E_INVAL ? BB_EXIT_USAGE : BB_EXIT_RUNTIME;
}

/* ---- Keys ------------------------------------------------------------------------------------ */

/* One batch of keys: pointers into kb, then madd or mexists. */
static bb_redis_status key_batch(bb_redis *r, const char *name, bool add, const cli_keybuf *kb,
                                 size_t first, size_t n, uint8_t *out) {
    const void *keys[CLI_REDIS_BATCH];
    size_t lens[CLI_REDIS_BATCH];
    for (size_t i = 0; i < n; i++) {
        keys[i] = kb->data ? kb->data + kb->off[first + i] : NULL;
        lens[i] = (size_t)(kb->off[first + i + 1] - kb->off[first + i]);
    }
    return add ? bb_redis_madd(r, name, keys, lens, n, out)
               : bb_redis_mexists(r, name, keys, lens, n, out, NULL);
}

static int run_keys(bb_redis *r, const redis_opts *o, const char *name, bool add, char **files,
                    size_t n_files) {
    cli_keyreader rd;
    cli_keybuf kb = {0};
    cli_keyreader_init(&rd, files, n_files, o->nul, false);
    uint8_t out[CLI_REDIS_BATCH];
    uint64_t ones = 0;
    int st = BB_EXIT_OK;
    for (bool done = false; !done && st == BB_EXIT_OK;) {
        /* A failed fill (a key over the limit, a read error) keeps the keys before it: they
         * are sent and answered before the error ends the run, as `query` does. */
        int read_st = cli_keyreader_fill(&rd, &kb, CLI_CHUNK_KEYS, CLI_CHUNK_BYTES, &done);
        for (size_t i = 0; st == BB_EXIT_OK && i < kb.n; i += CLI_REDIS_BATCH) {
            size_t m = kb.n - i < CLI_REDIS_BATCH ? kb.n - i : CLI_REDIS_BATCH;
            bb_redis_status s = key_batch(r, name, add, &kb, i, m, out);
            if (s != BB_REDIS_OK) st = fail(r, s);
            for (size_t j = 0; st == BB_EXIT_OK && j < m; j++) {
                ones += out[j];
                if (!o->count) putchar(out[j] ? '1' : '0'), putchar('\n');
            }
        }
        if (st == BB_EXIT_OK) st = read_st;
    }
    cli_keyreader_close(&rd);
    cli_keybuf_free(&kb);
    if (st == BB_EXIT_OK && o->count) printf("%" PRIu64 "\n", ones);
    return cli_finish_stdout(st);
}

/* ---- The other subcommands --------------------------------------------------------------------- */

static int run_info(bb_redis *r, const char *name) {
    bb_redis_info in;
    bb_redis_status s = bb_redis_info_get(r, name, &in);
    if (s != BB_REDIS_OK) return fail(r, s);
    printf("Capacity: %" PRIu64 "\nError rate: %g\nSize: %" PRIu64 "\nNumber of filters: 1\n"
           "Number of items inserted: %" PRIu64 "\nExpansion rate: 0\nHashes: %u\n"
           "Blocks: %" PRIu64 "\nShards: %" PRIu64 "\nBlocks per shard: %" PRIu64 "\n"
           "Bits set: %" PRIu64 "\nCardinality estimate: %.0f\nSeed: %" PRIu64 "\n",
           in.capacity, in.error_rate, in.size_bytes, in.keys_added, in.k, in.blocks, in.shards,
           in.blocks_per_shard, in.bits_set, in.cardinality, in.seed);
    return cli_finish_stdout(BB_EXIT_OK);
}

static int run_reserve(bb_redis *r, const redis_opts *o, char **args) {
    double p;
    uint64_t n;
    /* Range errors are the library's (RedisBloom's texts); here only "is it a number". */
    if (!cli_parse_double(args[1], -1e300, 1e300, &p)) return bad("ERROR_RATE", args[1]);
    if (!cli_parse_count(args[2], 0, UINT64_MAX, &n)) return bad("CAPACITY", args[2]);
    bb_redis_status s = bb_redis_reserve(r, args[0], p, n, o->shards);
    if (s != BB_REDIS_OK) return fail(r, s);
    puts("OK");
    return cli_finish_stdout(BB_EXIT_OK);
}

static int run_pull(bb_redis *r, const redis_opts *o, const char *name) {
    if (!o->out) return cli_usage_error("redis", "pull needs -o FILE");
    bb_filter *f;
    bb_redis_status s = bb_redis_pull(r, name, &f);
    if (s != BB_REDIS_OK) return fail(r, s);
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
    bb_slice_info in;
    bb_slice_get_info(geo, &in);
    bb_slice_free(geo);
    in.keys_added = o->keys;
    uint8_t *data = NULL;
    uint64_t len;
    int st = read_file(path, &data, &len);
    bool published = false;
    bb_redis_status s = st ? BB_REDIS_OK : bb_redis_push_slice(r, &in, data, len, name, &published);
    free(data);
    if (st) return st;
    if (s != BB_REDIS_OK) return fail(r, s);
    printf("%s\n", published ? "OK published" : "OK");
    return cli_finish_stdout(BB_EXIT_OK);
}

static int run_push(bb_redis *r, redis_opts *o, const char *path, const char *name) {
    if (o->slice_n) return run_push_slice(r, o, path, name);
    bb_filter *f;
    bb_status bs = bb_open_mmap(&f, path);
    if (bs != BB_OK) return cli_lib_error("cannot open", path, bs, errno);
    bb_redis_status s = bb_redis_push(r, f, name, o->shards);
    bb_free(f);
    if (s != BB_REDIS_OK) return fail(r, s);
    puts("OK");
    return cli_finish_stdout(BB_EXIT_OK);
}

static int run_simple(bb_redis *r, const char *sub, const char *name) {
    bb_redis_status s;
    uint64_t card = 0;
    if (strcmp(sub, "card") == 0) s = bb_redis_card(r, name, &card);
    else s = bb_redis_del(r, name);
    if (s != BB_REDIS_OK) return fail(r, s);
    printf("%" PRIu64 "\n", strcmp(sub, "card") == 0 ? card : 1);
    return cli_finish_stdout(BB_EXIT_OK);
}

/* The subcommand with its operands args[0 .. n). */
static int dispatch(bb_redis *r, redis_opts *o, const char *sub, char **args, size_t n) {
    bool keys_add = !strcmp(sub, "add") || !strcmp(sub, "madd");
    bool keys_q = !strcmp(sub, "exists") || !strcmp(sub, "mexists");
    if ((keys_add || keys_q) && n >= 1) return run_keys(r, o, args[0], keys_add, args + 1, n - 1);
    if (!strcmp(sub, "reserve") && n == 3) return run_reserve(r, o, args);
    if (!strcmp(sub, "info") && n == 1) return run_info(r, args[0]);
    if ((!strcmp(sub, "card") || !strcmp(sub, "del")) && n == 1) return run_simple(r, sub, args[0]);
    if (!strcmp(sub, "pull") && n == 1) return run_pull(r, o, args[0]);
    if (!strcmp(sub, "push") && n == 2) return run_push(r, o, args[0], args[1]);
    return cli_usage_error("redis", "unknown subcommand '%s' or wrong number of operands", sub);
}

/* ---- Connecting ---------------------------------------------------------------------------------- */

/* The first line of path (without its line end) into buf: a password kept off the command
 * line and out of the environment. */
static int read_password(const char *path, char *buf, size_t cap) {
    FILE *in = fopen(path, "r");
    if (!in) {
        cli_error("cannot read the password file '%s': %s", path, strerror(errno));
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
        int st = read_password(o->password_file, password, sizeof password);
        if (st != BB_EXIT_OK) return st;
        o->conn.password = password;
    } else if (getenv("REDISCLI_AUTH") && *getenv("REDISCLI_AUTH")) {
        o->conn.password = getenv("REDISCLI_AUTH");
    }
    const char *const *urls = o->n_seeds ? o->seeds : &o->url;
    bb_redis_status s = bb_redis_open(r, urls, o->n_seeds ? o->n_seeds : 1, &o->conn);
    memset(password, 0, sizeof password);
    o->conn.password = NULL;
    return s == BB_REDIS_OK ? BB_EXIT_OK : fail(*r, s);
}

int bb_cmd_redis(int argc, char **argv) {
    redis_opts o;
    int st = parse_args(argc, argv, &o);
    if (st != BB_EXIT_OK) return st;
    if (o.help) return cli_help(usage);
    if (optind >= argc) return cli_usage_error("redis", "missing subcommand");
    o.conn.cluster = o.n_seeds > 0;
    bb_redis *r;
    st = connect_redis(&o, &r);
    if (st == BB_EXIT_OK)
        st = dispatch(r, &o, argv[optind], argv + optind + 1, (size_t)(argc - optind - 1));
    bb_redis_free(r);
    return st;
}
#endif
