/* SPDX-License-Identifier: MIT */
/*
 * parquet_probe.c - `blockbloom parquet probe` and `blockbloom parquet extract`.
 *
 * probe answers the pruning question, "which row groups can skip this value?", for many
 * files at once: every file's filters of the column are loaded once (a copy of each SBBF
 * bitset), then the values, from the command line or one per line on standard input, are
 * read in chunks of 64K, encoded as the column's PLAIN values for each file (the column's
 * physical and logical type decide how the text is read: bb_pq_encode_value) and tested
 * with one bb_contains_arrow64 per row group and chunk. Output, one line per file, row
 * group and value: FILE TAB ROW_GROUP TAB VALUE TAB ANSWER, ANSWER being "present"
 * (possibly present: the row group must be read), "absent" (definitely not: skip it) or
 * "unfiltered" (the chunk has no filter: it must be read).
 *
 * extract writes one chunk's SBBF as a blockbloom file of the BB_SPLIT kind (bb_save:
 * atomic), usable with query, info and merge.
 */
#include "parquet.h"
#include "parquet_dataset.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char probe_usage[] =
    "Usage: blockbloom parquet probe [OPTION]... FILE... --column NAME [VALUE...]\n"
    "For each Parquet FILE (a directory: every *.parquet file below it; or a glob\n"
    "pattern), row group and VALUE, say whether the row group's Bloom filter\n"
    "of column NAME may hold the value. The operands before --column are the FILEs, those\n"
    "after it the VALUEs; with no VALUE, values are read from standard input, one per line\n"
    "(as 'blockbloom query' reads keys). A value is read as the column's type: a decimal\n"
    "integer for INT32/INT64 (DECIMAL: a decimal number; DATE: YYYY-MM-DD), a number for\n"
    "FLOAT/DOUBLE, the bytes themselves for strings and binary (a DECIMAL in a\n"
    "FIXED_LEN_BYTE_ARRAY: a decimal number too).\n"
    "Output lines: FILE<TAB>ROW_GROUP<TAB>VALUE<TAB>present|absent|unfiltered, where\n"
    "absent means the row group can be skipped and unfiltered that it has no filter.\n"
    "\n"
    "  -c, --column NAME  the column (its dotted path)\n"
    "  -0, --null         standard input values end with NUL instead of newline\n"
    "  -h, --help         show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 error (file, column or value), 2 usage error.\n";

static const char extract_usage[] =
    "Usage: blockbloom parquet extract FILE --column NAME --row-group I -o OUT\n"
    "Write the Bloom filter of column NAME in row group I of the Parquet FILE as the\n"
    "blockbloom filter file OUT (kind split), usable with query, info and merge.\n"
    "OUT is written atomically: on error it is not created or changed. A summary line\n"
    "goes to standard error.\n"
    "\n"
    "  -c, --column NAME    the column (its dotted path)\n"
    "  -r, --row-group I    the row group, from 0\n"
    "  -o, --output OUT     the filter file to write (not FILE)\n"
    "  -h, --help           show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 error (also: the chunk has no filter), 2 usage error.\n";

/* ---- probe: the files' filters --------------------------------------------------------------- */

typedef struct probe_file {
    const char *path;
    bb_pq_file *pf;
    size_t col, n_rg;
    bb_filter **filters;     /* per row group; NULL: no filter */
} probe_file;

static int load_file(probe_file *f, const char *column) {
    int st = cli_pq_open(f->path, &f->pf);
    if (st == BB_EXIT_OK) st = cli_pq_column(f->path, f->pf, column, &f->col);
    if (st != BB_EXIT_OK) return st;
    f->n_rg = bb_pq_row_groups(f->pf);
    if (!(f->filters = calloc(f->n_rg ? f->n_rg : 1, sizeof *f->filters))) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    for (size_t rg = 0; rg < f->n_rg && st == BB_EXIT_OK; rg++)
        st = cli_pq_chunk_filter(f->path, f->pf, rg, f->col, &f->filters[rg], NULL);
    return st;
}

static void free_file(probe_file *f) {
    for (size_t rg = 0; f->filters && rg < f->n_rg; rg++) bb_free(f->filters[rg]);
    free(f->filters);
    bb_pq_close(f->pf);
}

/* ---- probe: one chunk of values against one file --------------------------------------------- */

typedef struct encoded {
    cli_keybuf kb;           /* the values as PLAIN encodings */
    uint8_t *present;
} encoded;

static int encode_all(const probe_file *f, const cli_keybuf *in, cli_keybuf *out) {
    out->len = 0;
    out->n = 0;
    if (!out->off || out->off_cap < in->n + 1) {
        int64_t *o = realloc(out->off, (in->n + 1) * sizeof *o);
        if (!o) goto nomem;
        out->off = o;
        out->off_cap = in->n + 1;
    }
    /* A PLAIN value is at most 16 bytes, or the text itself. */
    size_t need = in->len + 16 * in->n + 1;
    if (out->cap < need) {
        char *d = realloc(out->data, need);
        if (!d) goto nomem;
        out->data = d;
        out->cap = need;
    }
    out->off[0] = 0;
    for (size_t i = 0; i < in->n; i++) {
        uint8_t buf[16];
        const void *v;
        size_t vlen;
        const char *text = in->data + in->off[i];
        size_t tlen = (size_t)(in->off[i + 1] - in->off[i]);
        if (bb_pq_encode_value(f->pf, f->col, tlen ? text : "", tlen, buf, &v, &vlen) !=
            BB_OK) {
            cli_error("'%s': %s", f->path, bb_last_error());
            return BB_EXIT_RUNTIME;
        }
        if (vlen) memcpy(out->data + out->len, v, vlen);
        out->len += vlen;
        out->off[++out->n] = (int64_t)out->len;
    }
    return BB_EXIT_OK;
nomem:
    cli_error("out of memory");
    return BB_EXIT_RUNTIME;
}

static int probe_chunk(const probe_file *f, const cli_keybuf *values, encoded *e) {
    int st = encode_all(f, values, &e->kb);
    for (size_t rg = 0; rg < f->n_rg && st == BB_EXIT_OK; rg++) {
        const bb_filter *flt = f->filters[rg];
        if (flt) {
            bb_status s = bb_contains_arrow64(flt, e->kb.data, e->kb.off, e->kb.n, e->present,
                                              NULL);
            if (s != BB_OK) {
                cli_error("'%s': cannot probe: %s", f->path, bb_strerror(s));
                return BB_EXIT_RUNTIME;
            }
        }
        for (size_t i = 0; i < values->n; i++) {
            const char *answer = !flt ? "unfiltered" : e->present[i] ? "present" : "absent";
            printf("%s\t%zu\t", f->path, rg);
            fwrite(values->data + values->off[i], 1,
                   (size_t)(values->off[i + 1] - values->off[i]), stdout);
            printf("\t%s\n", answer);
        }
    }
    return st;
}

/* ---- probe: arguments ------------------------------------------------------------------------ */

typedef struct probe_args {
    const char *column;
    bool nul, help;
    char **files, **values;  /* operands before and after --column */
    size_t n_files, n_values;
} probe_args;

/* getopt would permute the operands; their side of --column matters, so parse by hand. */
static int parse_probe(int argc, char **argv, probe_args *a) {
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (options && strcmp(s, "--") == 0) {
            options = false;
        } else if (options && (!strcmp(s, "-h") || !strcmp(s, "--help"))) {
            a->help = true;
        } else if (options && (!strcmp(s, "-0") || !strcmp(s, "--null"))) {
            a->nul = true;
        } else if (options && (!strcmp(s, "-c") || !strcmp(s, "--column") ||
                               !strncmp(s, "--column=", 9))) {
            if (a->column) return cli_usage_error("parquet probe", "--column given twice");
            if (!strncmp(s, "--column=", 9)) {
                a->column = s + 9;
            } else if (i + 1 < argc) {
                a->column = argv[++i];
            } else {
                return cli_usage_error("parquet probe", "--column needs a NAME");
            }
        } else if (options && s[0] == '-' && s[1]) {
            return cli_usage_error("parquet probe", "unknown option '%s'", s);
        } else if (a->column) {
            a->values[a->n_values++] = argv[i];
        } else {
            a->files[a->n_files++] = argv[i];
        }
    }
    if (a->help) return BB_EXIT_OK;
    if (!a->n_files) return cli_usage_error("parquet probe", "missing FILE (a Parquet file)");
    if (!a->column) return cli_usage_error("parquet probe", "missing --column NAME");
    return BB_EXIT_OK;
}

/* Values from the command line, as one key buffer. */
static int values_from_args(const probe_args *a, cli_keybuf *kb) {
    size_t total = 0;
    for (size_t i = 0; i < a->n_values; i++) total += strlen(a->values[i]);
    kb->data = malloc(total + 1);
    kb->off = malloc((a->n_values + 1) * sizeof *kb->off);
    if (!kb->data || !kb->off) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    kb->off[0] = 0;
    for (size_t i = 0; i < a->n_values; i++) {
        size_t l = strlen(a->values[i]);
        memcpy(kb->data + kb->len, a->values[i], l);
        kb->len += l;
        kb->off[i + 1] = (int64_t)kb->len;
    }
    kb->n = a->n_values;
    return BB_EXIT_OK;
}

static int probe_all(probe_file *files, size_t n_files, const probe_args *a) {
    cli_keybuf values = {0};
    encoded e = {{0}, malloc(a->n_values > CLI_CHUNK_KEYS ? a->n_values : CLI_CHUNK_KEYS)};
    int st = e.present ? BB_EXIT_OK : BB_EXIT_RUNTIME;
    if (st != BB_EXIT_OK) cli_error("out of memory");
    if (st == BB_EXIT_OK && a->n_values) {
        if ((st = values_from_args(a, &values)) == BB_EXIT_OK)
            for (size_t i = 0; i < n_files && st == BB_EXIT_OK; i++)
                st = probe_chunk(&files[i], &values, &e);
    } else if (st == BB_EXIT_OK) {
        cli_keyreader r;
        cli_keyreader_init(&r, NULL, 0, a->nul, false);
        for (bool done = false; !done && st == BB_EXIT_OK && !ferror(stdout);) {
            /* As query does: the values read before a failed fill (a value over the key
             * limit, a read error) are still probed and printed, then the error ends the run. */
            int fill = cli_keyreader_fill(&r, &values, CLI_CHUNK_KEYS, CLI_CHUNK_BYTES, &done);
            for (size_t i = 0; i < n_files && st == BB_EXIT_OK && (fill == BB_EXIT_OK || values.n); i++)
                st = probe_chunk(&files[i], &values, &e);
            if (st == BB_EXIT_OK) st = fill;
        }
        cli_keyreader_close(&r);
    }
    cli_keybuf_free(&values);
    cli_keybuf_free(&e.kb);
    free(e.present);
    return st;
}

int cli_parquet_probe(int argc, char **argv) {
    probe_args a = {0};
    a.files = calloc((size_t)argc, sizeof *a.files);
    a.values = calloc((size_t)argc, sizeof *a.values);
    if (!a.files || !a.values) {
        free(a.files);
        free(a.values);
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    int st = parse_probe(argc, argv, &a);
    probe_file *files = NULL;
    if (st == BB_EXIT_OK && a.help) {
        st = cli_help(probe_usage);
    } else if (st == BB_EXIT_OK) {
        static char outbuf[1 << 16];
        if (!isatty(STDOUT_FILENO)) setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
        cli_pq_inputs in = {0};
        st = cli_pq_expand(a.files, a.n_files, &in);
        if (st == BB_EXIT_OK && !(files = calloc(in.n, sizeof *files))) {
            cli_error("out of memory");
            st = BB_EXIT_RUNTIME;
        }
        for (size_t i = 0; i < in.n && st == BB_EXIT_OK; i++) {
            files[i].path = in.v[i].path;
            st = load_file(&files[i], a.column);
        }
        if (st == BB_EXIT_OK) st = probe_all(files, in.n, &a);
        for (size_t i = 0; files && i < in.n; i++) free_file(&files[i]);
        cli_pq_inputs_free(&in);
        st = cli_finish_stdout(st);
    }
    free(files);
    free(a.files);
    free(a.values);
    return st;
}

/* ---- extract --------------------------------------------------------------------------------- */

/* OUT naming the Parquet file itself (the same path, a symlink or a hard link to it) would
 * replace the user's data with a filter file: refused, as `parquet index` refuses it. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int cli_parquet_extract(int argc, char **argv) {
    static const struct option longs[] = {{"column", required_argument, NULL, 'c'},
                                          {"row-group", required_argument, NULL, 'r'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *column = NULL, *out = NULL, *rg_text = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "c:r:o:h", longs, NULL)) != -1) {
        switch (c) {
        case 'c': column = optarg; break;
        case 'r': rg_text = optarg; break;
        case 'o': out = optarg; break;
        case 'h': return cli_help(extract_usage);
        default: return cli_bad_option("parquet extract");
        }
    }
    static const char cmd[] = "parquet extract";
    uint64_t rg;
    if (optind >= argc) return cli_usage_error(cmd, "missing FILE (a Parquet file)");
    if (argc - optind > 1) return cli_usage_error(cmd, "one FILE only ('%s' is extra)", argv[optind + 1]);
    if (!column) return cli_usage_error(cmd, "missing --column NAME");
    if (!rg_text) return cli_usage_error(cmd, "missing --row-group I");
    if (!cli_parse_u64(rg_text, 0, SIZE_MAX, false, &rg))
        return cli_usage_error(cmd, "--row-group '%s' is not a number", rg_text);
    if (!out) return cli_usage_error(cmd, "missing -o OUT (the filter file to write)");
    const char *path = argv[optind];
    if (same_file(path, out)) {
        cli_error("cannot write filter to '%s': it is the input file '%s'", out, path);
        return BB_EXIT_RUNTIME;
    }
    bb_pq_file *pf;
    size_t col;
    bb_filter *f = NULL;
    int st = cli_pq_open(path, &pf);
    if (st != BB_EXIT_OK) return st;
    if ((st = cli_pq_column(path, pf, column, &col)) == BB_EXIT_OK) {
        if (rg >= bb_pq_row_groups(pf)) {
            cli_error("'%s' has %zu row groups: no row group %" PRIu64, path,
                      bb_pq_row_groups(pf), rg);
            st = BB_EXIT_RUNTIME;
        } else if ((st = cli_pq_chunk_filter(path, pf, (size_t)rg, col, &f, NULL)) == BB_EXIT_OK &&
                   !f) {
            cli_error("'%s': row group %" PRIu64 ", column '%s': no Bloom filter", path, rg,
                      column);
            st = BB_EXIT_RUNTIME;
        }
    }
    if (st == BB_EXIT_OK) {
        bb_status s = bb_save(f, out);
        bb_info in = BB_INFO_INIT;
        if (s != BB_OK)
            st = cli_lib_error("cannot write filter", out, s, errno);
        else if (bb_get_info(f, &in) == BB_OK) /* the line build prints, for this filter */
            cli_error("wrote %s: split filter of row group %" PRIu64 ", column '%s', %" PRIu64
                      " bytes, fill %.4f, ~%.0f distinct values", out, rg, column, in.bytes,
                      in.fill_ratio, in.cardinality_estimate);
    }
    bb_free(f);
    bb_pq_close(pf);
    return st;
}
