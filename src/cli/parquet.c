/* SPDX-License-Identifier: MIT */
/*
 * parquet.c - `blockbloom parquet info|probe|extract|index`: the dispatch to the
 * subcommands (probe and extract in parquet_probe.c, index in parquet_index.c), `parquet
 * info` itself, and the helpers they share. All of them read Parquet files through
 * libblockbloom_parquet (include/blockbloom_parquet.h), which validates every offset and
 * header; its messages are printed as "blockbloom: ... 'FILE': MESSAGE". Exit status: 0
 * success, 1 an error in a file (unreadable, not Parquet, corrupt, unsupported), 2 usage.
 *
 * `parquet info` prints, per file, one line per row group and column: whether the chunk
 * has a Bloom filter, its offset and length (header + bitset, as the footer says), the
 * bitset's size in bytes, its fill (fraction of bits set) and the distinct-count estimate
 * from that fill (bb_get_info of the BB_SPLIT filter); JSON also says whether the size is
 * a power of two ("pow2"). --json prints one JSON object per
 * file and line (JSON Lines).
 */
#include "parquet.h"
#include "parquet_dataset.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char usage[] =
    "Usage: blockbloom parquet COMMAND [OPTION]... ARG...\n"
    "Read and write the split-block Bloom filters (SBBF) of Parquet files.\n"
    "\n"
    "Commands:\n"
    "  info [--json] FILE...                     the Bloom filter of every column chunk\n"
    "  probe FILE... --column NAME [VALUE...]    which row groups may hold each VALUE\n"
    "  extract FILE --column NAME --row-group I -o OUT\n"
    "                                            a chunk's SBBF as a blockbloom filter file\n"
    "  index IN -o OUT --column NAME... [-p FPR] a copy of IN with fresh SBBFs\n"
    "\n"
    "A FILE may be a directory (every *.parquet file below it, as in a hive-partitioned\n"
    "dataset) or a glob pattern ('data/*/part-*.parquet').\n"
    "Run 'blockbloom parquet COMMAND --help' for the options of a command.\n"
    "Exit status: 0 success, 1 error (unreadable, corrupt or unsupported file), 2 usage "
    "error.\n";

static const char info_usage[] =
    "Usage: blockbloom parquet info [--json] FILE...\n"
    "For each Parquet FILE (a directory: every *.parquet file below it; or a glob\n"
    "pattern), row group and column: whether the chunk has a Bloom filter,\n"
    "its offset and length in the file (header and bitset), the bitset's bytes, its fill\n"
    "(fraction of bits set) and the number of distinct values estimated from the fill.\n"
    "\n"
    "      --json    one JSON object per FILE and line instead of the table\n"
    "  -h, --help    show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 usage error.\n";

/* ---- Shared helpers ------------------------------------------------------------------------- */

int cli_pq_open(const char *path, bb_pq_file **out) {
    if (bb_pq_open(out, path) == BB_OK) return BB_EXIT_OK;
    cli_error("cannot read Parquet file '%s': %s", path, bb_last_error());
    return BB_EXIT_RUNTIME;
}

int cli_pq_column(const char *path, const bb_pq_file *pf, const char *name, size_t *col) {
    if (bb_pq_find_column(pf, name, col) == BB_OK) return BB_EXIT_OK;
    cli_error("'%s': %s", path, bb_last_error());
    return BB_EXIT_RUNTIME;
}

int cli_pq_chunk_filter(const char *path, const bb_pq_file *pf, size_t rg, size_t col,
                        bb_filter **out, bool *pow2_out) {
    bool pow2 = true;
    bb_status s = bb_pq_chunk_filter(pf, rg, col, out, &pow2);
    if (pow2_out) *pow2_out = pow2;
    if (s == BB_E_ABSENT) return BB_EXIT_OK;
    if (s != BB_OK) {
        cli_error("'%s': %s", path, bb_last_error());
        return BB_EXIT_RUNTIME;
    }
    if (!pow2) {
        bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
        bb_info in = BB_INFO_INIT;
        bb_pq_column(pf, col, &ci);
        bb_get_info(*out, &in);
        cli_error("note: '%s': row group %zu, column '%s': filter of %" PRIu64
                  " bytes is not a power of two (accepted; Arrow's reader rejects it)",
                  path, rg, ci.name, in.bytes);
    }
    return BB_EXIT_OK;
}

/* ---- info ------------------------------------------------------------------------------------ */

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_number(double d) {
    if (isfinite(d))
        printf("%.17g", d);
    else
        printf("\"%s\"", isnan(d) ? "nan" : "inf");
}

typedef struct chunk_row {
    size_t rg;
    const char *column;
    bb_pq_chunk_info ci;
    bb_info fi;            /* of the filter, when ci.has_bloom */
    bool pow2;             /* its size is a power of two */
    bool incomplete;       /* its header left out a union (read as the spec's only value) */
} chunk_row;

static void print_row(const chunk_row *r, bool json, bool first) {
    if (json) {
        printf("%s{\"row_group\":%zu,\"column\":", first ? "" : ",", r->rg);
        json_string(r->column);
        printf(",\"codec\":\"%s\",\"num_values\":%" PRId64 ",\"bloom_filter\":%s",
               r->ci.codec_name, r->ci.num_values, r->ci.has_bloom ? "true" : "false");
        if (r->ci.has_bloom) {
            printf(",\"offset\":%" PRId64 ",\"length\":%" PRId64 ",\"bytes\":%" PRIu64
                   ",\"pow2\":%s,\"bloom_header_incomplete\":%s,\"fill_ratio\":",
                   r->ci.bloom_offset, r->ci.bloom_length, r->fi.bytes, r->pow2 ? "true" : "false",
                   r->incomplete ? "true" : "false");
            json_number(r->fi.fill_ratio);
            fputs(",\"cardinality_estimate\":", stdout);
            json_number(r->fi.cardinality_estimate);
        }
        putchar('}');
    } else if (r->ci.has_bloom) {
        printf("%zu\t%s\tyes\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\t%.4f\t%.0f\n", r->rg,
               r->column, r->ci.bloom_offset, r->ci.bloom_length, r->fi.bytes,
               r->fi.fill_ratio, r->fi.cardinality_estimate);
    } else {
        printf("%zu\t%s\tno\t-\t-\t-\t-\t-\n", r->rg, r->column);
    }
}

static int describe(const char *path, bool json) {
    bb_pq_file *pf;
    int st = cli_pq_open(path, &pf);
    if (st != BB_EXIT_OK) return st;
    size_t n_rg = bb_pq_row_groups(pf), n_col = bb_pq_columns(pf);
    if (json) {
        fputs("{\"file\":", stdout);
        json_string(path);
        printf(",\"row_groups\":%zu,\"columns\":[", n_rg);
        for (size_t c = 0; c < n_col; c++) {
            bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
            bb_pq_column(pf, c, &ci);
            fputs(c ? ",{\"name\":" : "{\"name\":", stdout);
            json_string(ci.name);
            printf(",\"type\":\"%s\",\"logical\":", bb_pq_type_name(ci.type));
            json_string(ci.logical);
            printf(",\"flat\":%s}", ci.flat ? "true" : "false");
        }
        fputs("],\"chunks\":[", stdout);
    } else {
        printf("%s: %zu row groups, %zu columns\n"
               "row_group\tcolumn\tbloom\toffset\tlength\tbytes\tfill\tdistinct_estimate\n",
               path, n_rg, n_col);
    }
    for (size_t rg = 0; rg < n_rg && st == BB_EXIT_OK; rg++)
        for (size_t c = 0; c < n_col && st == BB_EXIT_OK; c++) {
            chunk_row row = {.rg = rg, .ci = BB_PQ_CHUNK_INFO_INIT, .fi = BB_INFO_INIT};
            bb_pq_column_info ci = BB_PQ_COLUMN_INFO_INIT;
            bb_pq_column(pf, c, &ci);
            row.column = ci.name;
            bb_filter *f = NULL;
            if (bb_pq_chunk(pf, rg, c, &row.ci) != BB_OK) {
                st = cli_pq_chunk_filter(path, pf, rg, c, &f, NULL); /* prints why */
                st = st == BB_EXIT_OK ? BB_EXIT_RUNTIME : st;
                break;
            }
            if (row.ci.has_bloom) {
                st = cli_pq_chunk_filter(path, pf, rg, c, &f, &row.pow2);
                if (st == BB_EXIT_OK) bb_get_info(f, &row.fi);
                bb_free(f);
                row.incomplete = !bb_pq_chunk_bloom_header_complete(pf, rg, c);
                if (st == BB_EXIT_OK && row.incomplete && !json)
                    cli_error("note: '%s': row group %zu, column '%s': Bloom filter header "
                              "incomplete (algorithm, hash or compression left out; read as "
                              "BLOCK, XXHASH, UNCOMPRESSED, the only ones the spec defines)",
                              path, rg, ci.name);
            }
            if (st == BB_EXIT_OK) print_row(&row, json, rg == 0 && c == 0);
        }
    if (json) puts("]}");
    bb_pq_close(pf);
    return st;
}

static int cmd_info(int argc, char **argv) {
    cli_simple_opts o = {0};
    int st = cli_parse_simple("parquet info", info_usage, "J", argc, argv, &o);
    if (st >= 0) return st;
    if (optind >= argc) return cli_usage_error("parquet info", "missing FILE (a Parquet file)");
    cli_pq_inputs in;
    st = cli_pq_expand(argv + optind, (size_t)(argc - optind), &in);
    for (size_t i = 0; i < in.n && st == BB_EXIT_OK; i++) st = describe(in.v[i].path, o.json);
    cli_pq_inputs_free(&in);
    return cli_finish_stdout(st);
}

/* ---- Dispatch -------------------------------------------------------------------------------- */

int bb_cmd_parquet(int argc, char **argv) {
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } subs[] = {{"info", cmd_info},
                {"probe", cli_parquet_probe},
                {"extract", cli_parquet_extract},
                {"index", cli_parquet_index}};
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (argc < 2) return cli_usage_error("parquet", "missing command (info, probe, extract, index)");
        return cli_help(usage);
    }
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        if (strcmp(argv[1], subs[i].name) == 0) {
            argv[1] = argv[0]; /* "blockbloom", getopt's message prefix */
            optind = 0;
            return subs[i].run(argc - 1, argv + 1);
        }
    return cli_usage_error("parquet", "unknown parquet command '%s'", argv[1]);
}
