/* SPDX-License-Identifier: MIT */
/*
 * info.c - `blockbloom info [--json] FILTER`: describe a filter file from bb_get_info on a
 * memory-mapped copy (nothing is loaded into memory). One table of fields feeds both output
 * forms, so the "key: value" lines and the JSON object always carry the same keys.
 *
 * JSON: integers are printed exactly and doubles with %.17g (enough digits to round-trip an
 * IEEE double); non-finite doubles, which JSON cannot express, become the strings "inf",
 * "-inf" and "nan" (cardinality_estimate is infinite when the filter is saturated). The seed
 * is a JSON number too, although parsers that store numbers as doubles (JavaScript) lose
 * seeds above 2^53, so it is repeated exactly as the string "seed_hex".
 *
 * A scalable filter also lists its sub-filters: lines "subfilter.I.NAME: value", or in JSON
 * the array "subfilter_list" of one object per sub-filter, oldest first.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>

static const char usage[] =
    "Usage: blockbloom info [OPTION]... FILTER\n"
    "Describe the filter file FILTER: kind, size, probes, capacity, keys added, fill and\n"
    "the false-positive rate and number of distinct keys estimated from the fill; for a\n"
    "counting filter the saturated counters, for a scalable one its growth parameters and\n"
    "each sub-filter. After 'blockbloom merge', keys_added is the sum over the inputs: an\n"
    "upper bound on the distinct keys, which cardinality_estimate estimates. isa and\n"
    "isa_add name the kernels this program runs lookups and adds of keys on for this\n"
    "filter: they depend on the CPU, the kind and, on some CPUs, the filter's size.\n"
    "\n"
    "      --json    print one JSON object instead of 'key: value' lines\n"
    "  -h, --help    show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 usage error.\n";

typedef enum field_type { FIELD_STR, FIELD_U64, FIELD_DBL } field_type;

typedef struct field {
    const char *name;
    field_type type;
    const char *s;
    uint64_t u;
    double d;
} field;

#define STR(n, v) {.name = n, .type = FIELD_STR, .s = (v)}
#define U64(n, v) {.name = n, .type = FIELD_U64, .u = (v)}
#define DBL(n, v) {.name = n, .type = FIELD_DBL, .d = (v)}

/* The value of f as text: JSON (quoted strings, %.17g) or human (%.6g). */
static void format_value(const field *f, bool json, char *buf, size_t cap) {
    const char *q = json ? "\"" : "";
    if (f->type == FIELD_STR)
        snprintf(buf, cap, "%s%s%s", q, f->s, q);
    else if (f->type == FIELD_U64)
        snprintf(buf, cap, "%" PRIu64, f->u);
    else if (isnan(f->d))
        snprintf(buf, cap, "%snan%s", q, q);
    else if (isinf(f->d))
        snprintf(buf, cap, "%s%sinf%s", q, f->d < 0 ? "-" : "", q);
    else
        snprintf(buf, cap, json ? "%.17g" : "%.10g", f->d);
}

/* JSON members "a":1,"b":2 (no braces), or "PREFIXa: 1" lines. */
static void print_fields(const field *fs, size_t n, bool json, const char *prefix) {
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        format_value(&fs[i], json, buf, sizeof buf);
        if (json)
            printf("%s\"%s\":%s", i ? "," : "", fs[i].name, buf);
        else
            printf("%s%s: %s\n", prefix, fs[i].name, buf);
    }
}

/* The sub-filters of a scalable filter (see the file comment). */
static bb_status print_subfilters(const bb_filter *f, uint64_t count, bool json) {
    if (json) fputs(",\"subfilter_list\":[", stdout);
    for (uint64_t i = 0; i < count; i++) {
        bb_info si = BB_INFO_INIT;
        bb_status s = bb_subfilter_info(f, (size_t)i, &si);
        if (s != BB_OK) return s;
        const field fs[] = {
            U64("capacity", si.capacity),    DBL("fpr_target", si.fpr_target),
            U64("bits", si.bits),            U64("bytes", si.bytes),
            U64("k", si.k),                  U64("keys_added", si.keys_added),
            U64("bits_set", si.bits_set),    DBL("fill_ratio", si.fill_ratio),
            DBL("fpr_estimate", si.fpr_estimate),
        };
        char prefix[32];
        snprintf(prefix, sizeof prefix, "subfilter.%" PRIu64 ".", i);
        if (json) fputs(i ? ",{" : "{", stdout);
        print_fields(fs, sizeof fs / sizeof *fs, json, prefix);
        if (json) putchar('}');
    }
    if (json) putchar(']');
    return BB_OK;
}

static int describe(const char *path, bool json) {
    bb_filter *f;
    bb_status s = bb_open_mmap(&f, path);
    if (s != BB_OK) return cli_lib_error("cannot open filter", path, s, errno);
    bb_info in = BB_INFO_INIT;
    s = bb_get_info(f, &in);
    if (s != BB_OK) {
        bb_free(f);
        return cli_lib_error("cannot describe filter", path, s, 0);
    }
    char seed_hex[2 + 16 + 1];
    snprintf(seed_hex, sizeof seed_hex, "0x%016" PRIx64, in.seed);
    bb_key_scheme ks = {0}; /* what the keys are: plain, or a network kind (--keys) */
    bb_get_key_scheme(f, &ks);
    const field fs[] = {
        STR("kind", bb_kind_name(in.kind)),
        U64("format_version", in.format_version),
        STR("keys", bb_keys_name(ks.keys)),
        U64("bits", in.bits),
        U64("bytes", in.bytes),
        U64("k", in.k),
        U64("blocks", in.blocks),
        U64("capacity", in.capacity),
        DBL("fpr_target", in.fpr_target),
        DBL("bits_per_key", in.bits_per_key),
        U64("seed", in.seed),
        STR("seed_hex", seed_hex),
        U64("keys_added", in.keys_added),
        U64("bits_set", in.bits_set),
        DBL("fill_ratio", in.fill_ratio),
        DBL("fpr_estimate", in.fpr_estimate),
        DBL("cardinality_estimate", in.cardinality_estimate),
        U64("saturated_counters", in.saturated_counters),
        U64("subfilters", in.subfilters),
        DBL("growth", in.growth),
        DBL("tightening", in.tightening),
        U64("no_scale", (in.flags & BB_NO_SCALE) != 0),
        STR("isa", cli_kernel_name(f, BB_OP_CONTAINS_KEYS)),
        STR("isa_add", cli_kernel_name(f, BB_OP_ADD_KEYS)),
    };
    if (json) putchar('{');
    print_fields(fs, sizeof fs / sizeof *fs, json, "");
    if (in.kind == BB_SCALABLE) s = print_subfilters(f, in.subfilters, json);
    bb_free(f);
    if (json) puts("}");
    if (s != BB_OK) return cli_lib_error("cannot describe filter", path, s, 0);
    return cli_finish_stdout(BB_EXIT_OK);
}

int bb_cmd_info(int argc, char **argv) {
    cli_simple_opts o = {0};
    int st0 = cli_parse_simple("info", usage, "J", argc, argv, &o);
    if (st0 >= 0) return st0;
    if (optind >= argc) return cli_usage_error("info", "missing FILTER (the filter file)");
    if (argc - optind > 1)
        return cli_usage_error("info", "one FILTER only, got '%s' too", argv[optind + 1]);
    return describe(argv[optind], o.json);
}
