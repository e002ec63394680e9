/*
 * query.c - `blockbloom query [-v] [-c] [-0] FILTER [FILE]...`: like `grep -Fx`, print the
 * input keys that are possibly in the filter (-v: the ones that are definitely not; -c: only
 * how many would be printed). The filter is memory-mapped (bb_open_mmap: validated, never
 * copied), keys are read in chunks of 64K and tested with one bb_contains_arrow64 call per
 * chunk, which hashes and prefetches in groups. Keys are printed as read (a stripped CR is
 * not restored), each followed by the input delimiter (LF, or NUL with -0).
 * "Nothing printed" is a success: exit status 0, unlike grep's 1.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

static const char usage[] =
    "Usage: blockbloom query [OPTION]... FILTER [FILE]...\n"
    "Print the keys of the FILEs (standard input when no FILE or FILE is -) that are\n"
    "possibly in the filter file FILTER, like 'grep -Fx'. Keys are read as by\n"
    "'blockbloom build' and printed as read, one per line (NUL-terminated with -0).\n"
    "\n"
    "  -v, --invert-match  print the keys that are definitely not in the filter\n"
    "  -c, --count         print only the number of keys that would be printed\n"
    "  -0, --null          keys end with NUL instead of newline; nothing is stripped\n"
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
    "Exit status: 0 success (also when nothing is printed), 1 error, 2 usage error.\n";

enum { OPT_KEYS = 256, OPT_PCAP, OPT_MATCH };

static const struct option long_opts[] = {
    {"invert-match", no_argument, NULL, 'v'}, {"count", no_argument, NULL, 'c'},
    {"null", no_argument, NULL, '0'},         {"help", no_argument, NULL, 'h'},
    {"keys", required_argument, NULL, OPT_KEYS}, {"show-match", no_argument, NULL, 'o'},
    {"pcap", required_argument, NULL, OPT_PCAP}, {"match", required_argument, NULL, OPT_MATCH},
    {NULL, 0, NULL, 0}};

typedef struct query_opts {
    bool invert, count, nul, help;
    cli_netquery_opts net; /* --keys, -o, --pcap, --match (netquery.c, pcap.c) */
} query_opts;

/* Print the chunk's keys whose answer is `want`. */
static void print_keys(const cli_keybuf *kb, const uint8_t *present, uint8_t want, int delim) {
    for (size_t i = 0; i < kb->n; i++) {
        size_t len = (size_t)(kb->off[i + 1] - kb->off[i]);
        if (present[i] != want) continue;
        if (len) fwrite(kb->data + kb->off[i], 1, len, stdout); /* data is NULL if all are empty */
        putchar(delim);
    }
}

/* Test every key of r against f; print them (or count them into *count). */
static int run_query(const bb_filter *f, const query_opts *o, cli_keyreader *r, cli_keybuf *kb,
                     uint64_t *count) {
    uint8_t *present = malloc(CLI_CHUNK_KEYS);
    if (!present) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    int st = BB_EXIT_OK;
    bool done = false;
    while (!done && !ferror(stdout)) {
        st = cli_keyreader_fill(r, kb, CLI_CHUNK_KEYS, CLI_CHUNK_BYTES, &done);
        if (st != BB_EXIT_OK) break;
        size_t hits = 0;
        bb_status s = bb_contains_arrow64(f, kb->data, kb->off, kb->n, present, &hits);
        if (s != BB_OK) {
            cli_error("cannot query keys: %s", bb_strerror(s));
            st = BB_EXIT_RUNTIME;
            break;
        }
        if (o->count)
            *count += o->invert ? kb->n - hits : hits;
        else
            print_keys(kb, present, o->invert ? 0 : 1, r->delim);
    }
    free(present);
    return st;
}

static int parse_args(int argc, char **argv, query_opts *o) {
    *o = (query_opts){0};
    int c;
    while ((c = getopt_long(argc, argv, "vc0ho", long_opts, NULL)) != -1) {
        int st = BB_EXIT_OK;
        switch (c) {
        case 'v': o->invert = true; break;
        case 'c': o->count = true; break;
        case '0': o->nul = true; break;
        case 'h': o->help = true; break;
        case 'o': o->net.show_match = true; break;
        case OPT_KEYS: st = cli_parse_keys("query", optarg, &o->net.keys); break;
        case OPT_PCAP: o->net.pcap = optarg; break;
        case OPT_MATCH: o->net.match = optarg; break;
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

int bb_cmd_query(int argc, char **argv) {
    query_opts o;
    int st = parse_args(argc, argv, &o);
    if (st != BB_EXIT_OK) return st;
    if (o.help) return cli_help(usage);
    const char *path = argv[optind++];
    bb_filter *f;
    bb_status s = bb_open_mmap(&f, path);
    if (s != BB_OK) return cli_lib_error("cannot open filter", path, s, errno);
    if (o.net.pcap || cli_uses_net_keys(f, &o.net)) {
        st = o.net.pcap ? cli_pcap_query(f, &o.net)
                        : cli_net_query(f, &o.net, argv + optind, (size_t)(argc - optind));
        bb_free(f);
        return cli_finish_stdout(st);
    }

    /* Larger than the default (st_blksize, often 4 KiB) to cut write calls on big outputs;
     * a terminal keeps its line buffering. */
    static char outbuf[1 << 16];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    cli_keyreader r;
    cli_keybuf kb = {0};
    uint64_t count = 0;
    cli_keyreader_init(&r, argv + optind, (size_t)(argc - optind), o.nul, false);
    st = run_query(f, &o, &r, &kb, &count);
    cli_keyreader_close(&r);
    cli_keybuf_free(&kb);
    bb_free(f);
    if (st == BB_EXIT_OK && o.count) printf("%" PRIu64 "\n", count);
    return cli_finish_stdout(st);
}
