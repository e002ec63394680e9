/* SPDX-License-Identifier: MIT */
/*
 * query.c - `blockbloom query [-v] [-c] [-q] [-H] [-0] FILTER [FILE]...`: like `grep -Fx`, print the
 * input keys that are possibly in the filter (-v: the ones that are definitely not; -c: only
 * how many would be printed). The filter is memory-mapped (bb_open_mmap: validated, never
 * copied), keys are read in chunks of 64K and tested with one bb_contains_arrow64 call per
 * chunk, which hashes and prefetches in groups. Keys are printed as read (a stripped CR is
 * not restored), each followed by the input delimiter (LF, or NUL with -0).
 * "Nothing printed" is a success: exit status 0, unlike grep's 1; with -q the status is
 * grep's (0 some key selected, 1 none, 2 any error). -H prefixes keys (or -c counts) with
 * their file's name; the files are then read one at a time.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: blockbloom query [OPTION]... FILTER [FILE]...\n"
    "Print the keys of the FILEs (standard input when no FILE or FILE is -) that are\n"
    "possibly in the filter file FILTER, like 'grep -Fx'. Keys are read as by\n"
    "'blockbloom build' and printed as read, one per line (NUL-terminated with -0).\n"
    "\n"
    "  -v, --invert-match  print the keys that are definitely not in the filter\n"
    "  -c, --count         print only the number of keys that would be printed\n"
    "  -q, --quiet         print nothing; the exit status says whether some key would\n"
    "                      have been printed (as grep -q: 0 yes, 1 no, 2 error)\n"
    "  -H, --with-filename  prefix each key (with -c: each file's count) with its\n"
    "                      FILE and ':'\n"
    "  -0, --null          keys end with NUL instead of newline; nothing is stripped\n"
    "      --max-key-bytes=N  fail on a key longer than N bytes, as 'blockbloom build'\n"
    "                      (default 16777216, 16 MiB)\n"
    "  -j, --jobs=N        hash and test on N threads (0: one per CPU; default 1); with\n"
    "                      N >= 2 one more reads the next keys meanwhile. The output is\n"
    "                      the same as with one\n"
    "      --keys=KIND     lines are URLs, host names, addresses or 5-tuples (url,\n"
    "                      domain, cidr, 5tuple) tested as 'build --keys' stored them;\n"
    "                      default: the kind the filter was built with\n"
    "  -o, --show-match    with --keys: add a TAB and what matched (expression,\n"
    "                      parent domain or range)\n"
    "      --pcap=CAPTURE  test the packets of a pcap file instead of lines; prints\n"
    "                      time, protocol, addresses and ports of each match\n"
    "      --match=WHICH   with --pcap: src, dst or any (default) address in a cidr\n"
    "                      filter; 5tuple for a 5tuple filter (its default)\n"
    "  -h, --help          show this help and exit\n"
    "\n"
    "Exit status: 0 success (also when nothing is printed), 1 error, 2 usage error;\n"
    "with -q: 0 some key possibly present (with -v: some key absent), 1 none, 2 error.\n"
    "A script tests one key with: printf '%s\\n' KEY | blockbloom query -q FILTER\n";

enum { OPT_KEYS = 256, OPT_PCAP, OPT_MATCH, OPT_MAX_KEY };

static const struct option long_opts[] = {
    {"invert-match", no_argument, NULL, 'v'}, {"count", no_argument, NULL, 'c'},
    {"quiet", no_argument, NULL, 'q'},        {"with-filename", no_argument, NULL, 'H'},
    {"null", no_argument, NULL, '0'},         {"help", no_argument, NULL, 'h'},
    {"keys", required_argument, NULL, OPT_KEYS}, {"show-match", no_argument, NULL, 'o'},
    {"pcap", required_argument, NULL, OPT_PCAP}, {"match", required_argument, NULL, OPT_MATCH},
    {"max-key-bytes", required_argument, NULL, OPT_MAX_KEY},
    {"jobs", required_argument, NULL, 'j'},
    {NULL, 0, NULL, 0}};

/* -q's exit status is grep's, so `if blockbloom query -q ...` reads as in shell scripts;
 * every error, usage or not, is then 2 (never 1, which means "none"). */
enum { QUIET_FOUND = 0, QUIET_NONE = 1, QUIET_ERROR = 2 };

typedef struct query_opts {
    bool invert, count, quiet, with_name, nul, help;
    cli_netquery_opts net; /* --keys, -o, --pcap, --match (netquery.c, pcap.c) */
} query_opts;

/* Print the chunk's keys whose answer is `want`, each after `prefix` (NULL: none) and ':'.
 * Only this thread writes stdout (the read-ahead thread's messages go to stderr), so the
 * stream is locked once per chunk instead of twice per key: printing 36M present keys (npm
 * names with a counter) took 2.14 s instead of 2.43 on one thread (means of 10, Intel Xeon
 * family 6 model CFh), and 1.37 s with -j 2 and reading ahead. */
static void print_keys(const cli_keybuf *kb, const uint8_t *present, uint8_t want, int delim,
                       const char *prefix) {
    flockfile(stdout);
    for (size_t i = 0; i < kb->n; i++) {
        size_t len = (size_t)(kb->off[i + 1] - kb->off[i]);
        if (present[i] != want) continue;
        if (prefix) fputs_unlocked(prefix, stdout), putc_unlocked(':', stdout);
        if (len)
            fwrite_unlocked(kb->data + kb->off[i], 1, len, stdout); /* data: NULL if all empty */
        putc_unlocked(delim, stdout);
    }
    funlockfile(stdout);
}

/* Test every key of r against f; print them (or count them into *count). -q stops at the
 * first key that would be printed, as grep -q does. */
static int run_query(const bb_filter *f, const query_opts *o, cli_keyreader *r, const char *prefix,
                     uint64_t *count) {
    size_t chunk = cli_chunk_keys(f);
    uint8_t *present = malloc(chunk);
    if (!present) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    int st = BB_EXIT_OK;
    bool done = false;
    cli_readahead a;
    cli_readahead_start(&a, r, chunk, CLI_CHUNK_BYTES, cli_jobs_read_ahead());
    while (!done && !ferror(stdout) && !(o->quiet && *count)) {
        /* A failed fill (a key over the limit, a read error) keeps the whole keys before
         * the failure: they are answered and printed before the error ends the run, as grep
         * prints the lines before a read error (docs/CLI.md "query"). */
        const cli_keybuf *keys;
        st = cli_readahead_next(&a, &keys, &done);
        if (st != BB_EXIT_OK && !keys->n) {
            cli_readahead_report(&a);
            break;
        }
        size_t hits = 0;
        bb_status s = bb_contains_arrow64(f, keys->data, keys->off, keys->n, present, &hits);
        if (s != BB_OK) {
            cli_error("cannot query keys: %s", bb_strerror(s));
            st = BB_EXIT_RUNTIME;
            break;
        }
        *count += o->invert ? keys->n - hits : hits;
        if (!o->count && !o->quiet) print_keys(keys, present, o->invert ? 0 : 1, r->delim, prefix);
        /* The error after the keys before it; none once -q has found a key before it. */
        if (!(o->quiet && *count)) cli_readahead_report(&a);
        if (st != BB_EXIT_OK) break;
    }
    cli_readahead_stop(&a);
    free(present);
    return st;
}

static int parse_args(int argc, char **argv, query_opts *o) {
    *o = (query_opts){0};
    int c;
    while ((c = getopt_long(argc, argv, "vcqH0hoj:", long_opts, NULL)) != -1) {
        int st = BB_EXIT_OK;
        switch (c) {
        case 'v': o->invert = true; break;
        case 'c': o->count = true; break;
        case 'q': o->quiet = true; break;
        case 'H': o->with_name = true; break;
        case '0': o->nul = true; break;
        case 'h': o->help = true; break;
        case 'o': o->net.show_match = true; break;
        case OPT_KEYS: st = cli_parse_keys("query", optarg, &o->net.keys); break;
        case OPT_PCAP: o->net.pcap = optarg; break;
        case OPT_MATCH: o->net.match = optarg; break;
        case OPT_MAX_KEY: st = cli_parse_max_key("query", optarg); break;
        case 'j': st = cli_parse_jobs("query", optarg); break;
        default: return cli_bad_option("query");
        }
        if (st != BB_EXIT_OK) return st;
    }
    if (o->nul && (o->net.keys || o->net.pcap))
        return cli_usage_error("query", "-0 does not apply to --keys or --pcap (they read lines "
                               "or packets)");
    o->net.invert = o->invert;
    o->net.count = o->count;
    if (!o->help && optind >= argc)
        return cli_usage_error("query", "missing FILTER (the filter file)");
    return BB_EXIT_OK;
}

/* The FILEs paths[0 .. n) (none: stdin) through run_query: as one stream, or with -H one at
 * a time, so that each key (or count) is printed with the name of its file. */
static int query_files(const bb_filter *f, const query_opts *o, char *const *paths, size_t n,
                       uint64_t *total) {
    static char *const stdin_only[] = {(char *)"-"};
    size_t runs = o->with_name ? (n ? n : 1) : 1;
    int st = BB_EXIT_OK;
    for (size_t i = 0; st == BB_EXIT_OK && i < runs && !(o->quiet && *total); i++) {
        char *const *these = o->with_name ? (n ? paths + i : stdin_only) : paths;
        size_t count = o->with_name ? 1 : n;
        const char *name = !o->with_name ? NULL
                           : strcmp(these[0], "-") == 0 ? "(standard input)" : these[0];
        cli_keyreader r;
        uint64_t hits = 0;
        cli_keyreader_init(&r, these, count, o->nul, false);
        st = run_query(f, o, &r, name, &hits);
        cli_keyreader_close(&r);
        *total += hits;
        if (st == BB_EXIT_OK && o->count && !o->quiet && name) printf("%s:%" PRIu64 "\n", name, hits);
    }
    return st;
}

/* -o is grep's --only-matching here, while every other subcommand takes -o OUT: `query -o
 * out.txt F KEYS` reads out.txt as the filter. When that fails and the next argument is a
 * filter, say so. */
static void hint_show_match(const query_opts *o, const char *path, const char *next) {
    bb_filter *g = NULL;
    if (!o->net.show_match || !next || bb_open_mmap(&g, next) != BB_OK) return;
    bb_free(g);
    cli_error("-o shows matches here (--show-match, as grep's -o), so '%s' was read as the "
              "filter; did you mean `blockbloom query %s ... > %s`?", path, next, path);
}

int bb_cmd_query(int argc, char **argv) {
    query_opts o;
    int st = parse_args(argc, argv, &o);
    if (st != BB_EXIT_OK) return st;
    if (o.help) return cli_help(usage);
    const char *path = argv[optind++];
    bb_filter *f;
    bb_status s = bb_open_mmap(&f, path);
    if (s != BB_OK) {
        st = cli_lib_error("cannot open filter", path, s, errno);
        hint_show_match(&o, path, argc - optind > 0 ? argv[optind] : NULL);
        return o.quiet ? QUIET_ERROR : st;
    }
    cli_use_jobs(f);
    if (o.net.pcap || cli_uses_net_keys(f, &o.net)) {
        if (o.quiet || o.with_name) {
            bb_free(f);
            return cli_usage_error("query", "-q and -H apply to plain keys only, not to --keys "
                                   "or --pcap queries");
        }
        st = o.net.pcap ? cli_pcap_query(f, &o.net)
                        : cli_net_query(f, &o.net, argv + optind, (size_t)(argc - optind));
        bb_free(f);
        return cli_finish_stdout(st);
    }

    /* Larger than the default (st_blksize, often 4 KiB) to cut write calls on big outputs;
     * a terminal keeps its line buffering. */
    static char outbuf[1 << 16];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    uint64_t count = 0;
    st = query_files(f, &o, argv + optind, (size_t)(argc - optind), &count);
    bb_free(f);
    if (st == BB_EXIT_OK && o.count && !o.quiet && !o.with_name) printf("%" PRIu64 "\n", count);
    st = cli_finish_stdout(st);
    /* As grep -q: a key found is exit 0 even if an error came after it (POSIX grep, -q), so
     * the answer does not depend on whether the error fell in the found key's chunk. */
    if (o.quiet) return count ? QUIET_FOUND : st != BB_EXIT_OK ? QUIET_ERROR : QUIET_NONE;
    return st;
}
