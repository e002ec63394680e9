/* SPDX-License-Identifier: MIT */
/*
 * test_cli.c - the blockbloom command-line tool, run as a separate program (BB_CLI, the path
 * CMake passes) with posix_spawn: build / add / query / info round trips, the key rules
 * (CRLF, missing final newline, empty lines, NUL bytes, -0, stdin), the exit codes (0 success,
 * 1 runtime error, 2 usage error) with their "blockbloom:" messages, atomic output (a failed
 * build creates nothing), write errors on stdout (/dev/full), info --json's fields, --help,
 * and the variants' commands (counting/scalable builds, remove, export, merge).
 *
 * Every test runs in its own fresh mkdtemp directory, removed afterwards. The program's stdin,
 * stdout and stderr are files in that directory (no pipes, so no risk of a pipe-buffer
 * deadlock). Expected values are literals worked out by hand from the documented formulas
 * (e.g. classic bits = ceil(-n ln p / (ln 2)^2)), never asked from the library.
 */
#include "cliutil.h"

#include <signal.h>
#include <sys/resource.h>

TestSuite(cli, .init = enter_workdir, .fini = leave_workdir);

/* ==== Round trips ============================================================================ */

Test(cli, build_then_query_prints_every_key_and_v_prints_none) {
    char *keys = make_keys("keys.txt", "key-", 500);
    run_result r = RUN(NULL, "build", "-o", "f.bb", "keys.txt");
    expect_ok(&r, "build");
    cr_assert(strstr(r.err, "500 keys"), "summary does not mention 500 keys: %s", r.err);
    run_free(&r);
    cr_assert(exists("f.bb"));

    r = RUN(NULL, "query", "f.bb", "keys.txt");
    expect_ok(&r, "query");
    cr_assert_str_eq(r.out, keys, "query does not print every inserted key, in order");
    run_free(&r);

    r = RUN(NULL, "query", "-v", "f.bb", "keys.txt");
    expect_ok(&r, "query -v");
    cr_assert_str_eq(r.out, "", "query -v printed inserted keys (false negatives)");
    run_free(&r);

    r = RUN(NULL, "query", "-c", "f.bb", "keys.txt");
    expect_ok(&r, "query -c");
    cr_assert_str_eq(r.out, "500\n");
    run_free(&r);

    r = RUN(NULL, "query", "-c", "-v", "f.bb", "keys.txt");
    expect_ok(&r, "query -c -v");
    cr_assert_str_eq(r.out, "0\n");
    run_free(&r);
    free(keys);
}

Test(cli, count_and_invert_partition_absent_keys) {
    free(make_keys("in.txt", "in-", 1000));
    free(make_keys("out.txt", "out-", 2000));
    run_result r = RUN(NULL, "build", "-p", "0.01", "--seed", "7", "-o", "f.bb", "in.txt");
    expect_ok(&r, "build");
    run_free(&r);

    r = RUN(NULL, "query", "-c", "f.bb", "out.txt");
    expect_ok(&r, "query -c");
    long present = strtol(r.out, NULL, 10);
    run_free(&r);
    r = RUN(NULL, "query", "-v", "f.bb", "out.txt");
    expect_ok(&r, "query -v");
    long absent = 0;
    for (const char *p = r.out; (p = strchr(p, '\n')); p++) absent++;
    run_free(&r);
    cr_assert_eq(present + absent, 2000, "-c (%ld) and -v (%ld lines) do not add up to 2000",
                 present, absent);
    /* 2000 probes at p = 0.01: mean 20; 60 is beyond 8 standard deviations (a sanity bound,
     * the FPR itself is tested in test_fpr.c). */
    cr_assert_leq(present, 60, "%ld of 2000 absent keys reported present", present);
}

Test(cli, add_extends_a_filter_file) {
    char *a = make_keys("a.txt", "a-", 300);
    char *b = make_keys("b.txt", "b-", 300);
    run_result r = RUN(NULL, "build", "-n", "1000", "-o", "f.bb", "a.txt");
    expect_ok(&r, "build");
    run_free(&r);
    r = RUN(b, "add", "f.bb"); /* keys from stdin */
    expect_ok(&r, "add");
    run_free(&r);
    cr_assert_eq(count_entries(".", ".tmp"), 0, "add left a temporary file");

    r = RUN(NULL, "query", "-c", "f.bb", "a.txt", "b.txt");
    expect_ok(&r, "query");
    cr_assert_str_eq(r.out, "600\n");
    run_free(&r);
    expect_info("f.bb", "keys_added", "600");
    expect_info("f.bb", "capacity", "1000");
    free(a);
    free(b);
}

/* Several `add` runs on one file at once: each holds an flock on the file from load to rename,
 * so they take turns and no run's keys are dropped by another's rename (without the lock the
 * last rename wins and the others' keys become false negatives). */
Test(cli, concurrent_adds_to_one_file_keep_every_key) {
    enum { WRITERS = 4, KEYS = 150000 };
    run_result r = RUN(NULL, "build", "-n", "1000000", "-o", "f.bb");
    expect_ok(&r, "build");
    run_free(&r);
    char names[WRITERS][16];
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        snprintf(names[w], sizeof names[w], "k%d.txt", w);
        char prefix[8];
        snprintf(prefix, sizeof prefix, "w%d-", w);
        free(make_keys(names[w], prefix, KEYS));
    }
    for (int w = 0; w < WRITERS; w++) pids[w] = spawn_bg(ARGS("add", "f.bb", names[w]));
    for (int w = 0; w < WRITERS; w++) wait_ok(pids[w], "add");
    for (int w = 0; w < WRITERS; w++) {
        r = RUN(NULL, "query", "-c", "f.bb", names[w]);
        expect_ok(&r, "query");
        cr_assert_eq(strtol(r.out, NULL, 10), KEYS, "writer %d: only %s of %d keys found", w,
                     r.out, KEYS);
        run_free(&r);
    }
    expect_info("f.bb", "keys_added", "600000");
}

Test(cli, streaming_build_over_several_chunks) {
    /* More keys than one 64K chunk, with -n (streamed) and without (read whole). */
    char *keys = make_keys("keys.txt", "", 70000);
    run_result r = RUN(NULL, "build", "-n", "70000", "-o", "s.bb", "keys.txt");
    expect_ok(&r, "build -n");
    run_free(&r);
    r = RUN(NULL, "build", "-o", "w.bb", "keys.txt");
    expect_ok(&r, "build");
    run_free(&r);
    const char *files[] = {"s.bb", "w.bb"};
    for (int i = 0; i < 2; i++) {
        r = RUN(NULL, "query", "-c", "-v", files[i], "keys.txt");
        expect_ok(&r, "query");
        cr_assert_str_eq(r.out, "0\n", "%s misses keys", files[i]);
        run_free(&r);
        expect_info(files[i], "keys_added", "70000");
        expect_info(files[i], "capacity", "70000");
    }
    free(keys);
}

Test(cli, jobs_give_the_bytes_and_output_of_one_thread) {
    /* 300,000 keys: several threads' worth of the library's 2^16 keys per thread, read whole
     * (one batch) and streamed (-n: chunks of 64K keys per thread). */
    char *keys = make_keys("keys.txt", "", 300000);
    const char *kinds[] = {"blocked", "split", "sectorized", "classic"};
    for (int i = 0; i < 4; i++) {
        char kind[32];
        snprintf(kind, sizeof kind, "--kind=%s", kinds[i]);
        run_result r = RUN(NULL, "build", kind, "-o", "one.bb", "keys.txt");
        expect_ok(&r, "build");
        run_free(&r);
        r = RUN(NULL, "build", kind, "-j", "3", "-o", "three.bb", "keys.txt");
        expect_ok(&r, "build -j 3");
        run_free(&r);
        r = RUN(NULL, "build", kind, "--jobs=2", "-n", "300000", "-o", "streamed.bb",
                "keys.txt");
        expect_ok(&r, "build --jobs=2 -n");
        run_free(&r);
        size_t n1, n3, ns;
        char *b1 = read_bytes("one.bb", &n1), *b3 = read_bytes("three.bb", &n3),
             *bs = read_bytes("streamed.bb", &ns);
        cr_assert(n1 == n3 && memcmp(b1, b3, n1) == 0, "%s: build -j 3 wrote other bytes",
                  kinds[i]);
        cr_assert(n1 == ns && memcmp(b1, bs, n1) == 0, "%s: build -j 2 -n wrote other bytes",
                  kinds[i]);
        free(b1);
        free(b3);
        free(bs);
    }
    /* add: into copies of one filter, with and without -j. */
    char *more = make_keys("more.txt", "absent-", 300000);
    for (int j = 0; j < 2; j++) {
        run_result r = RUN(NULL, "build", "-n", "600000", "-o", j ? "addj.bb" : "add1.bb",
                           "keys.txt");
        expect_ok(&r, "build -n");
        run_free(&r);
        r = j ? RUN(NULL, "add", "-j", "2", "addj.bb", "more.txt")
              : RUN(NULL, "add", "add1.bb", "more.txt");
        expect_ok(&r, j ? "add -j 2" : "add");
        run_free(&r);
    }
    size_t na1, naj;
    char *a1 = read_bytes("add1.bb", &na1), *aj = read_bytes("addj.bb", &naj);
    cr_assert(na1 == naj && memcmp(a1, aj, na1) == 0, "add -j 2 wrote other bytes");
    free(a1);
    free(aj);
    /* query: the keys plus as many absent ones, with and without -j. */
    run_result r1 = RUN(NULL, "query", "one.bb", "keys.txt", "more.txt");
    run_result rj = RUN(NULL, "query", "-j", "0", "one.bb", "keys.txt", "more.txt");
    expect_ok(&r1, "query");
    expect_ok(&rj, "query -j 0");
    cr_assert(strlen(r1.out) > strlen(keys), "query misses keys");
    cr_assert_str_eq(r1.out, rj.out, "query -j 0 printed other keys");
    run_free(&r1);
    run_free(&rj);
    run_result bad = RUN(NULL, "query", "-j", "x", "one.bb", "keys.txt");
    expect_fail(&bad, 2, "query -j x");
    run_free(&bad);
    bad = RUN(NULL, "build", "--jobs=100000", "-o", "no.bb", "keys.txt");
    expect_fail(&bad, 2, "build --jobs=100000");
    run_free(&bad);
    free(keys);
    free(more);
}

/* n URL-like keys of 200 to 1799 bytes (about 1000 on average) into path, each "PREFIX<i>/"
 * and then filler; returns the bytes written. */
static size_t make_long_keys(const char *path, const char *prefix, int n) {
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        int len = 200 + (int)((unsigned)i * 7919u % 1600u);
        int head = fprintf(fp, "%s%d/", prefix, i);
        for (int j = head; j < len; j++) fputc('a' + (i + j) % 26, fp);
        fputc('\n', fp);
        total += (size_t)len + 1;
    }
    cr_assert_eq(fclose(fp), 0);
    return total;
}

Test(cli, jobs_with_long_keys_give_the_bytes_and_output_of_one_thread) {
    /* 60,000 keys of about 1000 bytes (60 MB): fewer than two threads' 2^16 keys, but
     * enough key bytes for two threads when read whole; streamed (-n) in chunks of 16 MiB. */
    make_long_keys("long.txt", "https://example.org/in/", 60000);
    make_long_keys("absent.txt", "https://example.org/out/", 20000);
    run_result r = RUN(NULL, "build", "-n", "60000", "-o", "one.bb", "long.txt");
    expect_ok(&r, "build -n");
    run_free(&r);
    r = RUN(NULL, "build", "-n", "60000", "-j", "2", "-o", "two.bb", "long.txt");
    expect_ok(&r, "build -n -j 2");
    run_free(&r);
    r = RUN(NULL, "build", "-j", "2", "-o", "held.bb", "long.txt");
    expect_ok(&r, "build -j 2");
    run_free(&r);
    r = RUN(NULL, "build", "-o", "held1.bb", "long.txt");
    expect_ok(&r, "build");
    run_free(&r);
    size_t n1, n2, nh, nh1;
    char *b1 = read_bytes("one.bb", &n1), *b2 = read_bytes("two.bb", &n2);
    char *bh = read_bytes("held.bb", &nh), *bh1 = read_bytes("held1.bb", &nh1);
    cr_assert(n1 == n2 && memcmp(b1, b2, n1) == 0, "build -n -j 2 of long keys: other bytes");
    cr_assert(nh == nh1 && memcmp(bh, bh1, nh) == 0, "build -j 2 of long keys: other bytes");
    free(b1);
    free(b2);
    free(bh);
    free(bh1);
    expect_info("two.bb", "keys_added", "60000");
    /* Every key is found with -j 2, and the absent ones print the same false positives. */
    r = RUN(NULL, "query", "-c", "-v", "-j", "2", "two.bb", "long.txt");
    expect_ok(&r, "query -c -v -j 2");
    cr_assert_str_eq(r.out, "0\n", "query -j 2 misses long keys");
    run_free(&r);
    run_result q1 = RUN(NULL, "query", "one.bb", "absent.txt");
    run_result q2 = RUN(NULL, "query", "-j", "2", "one.bb", "absent.txt");
    expect_ok(&q1, "query");
    expect_ok(&q2, "query -j 2");
    cr_assert(strlen(q1.out) < 20000u * 1000u / 10u, "query prints too many absent keys");
    cr_assert_str_eq(q1.out, q2.out, "query -j 2 of long keys printed other keys");
    run_free(&q1);
    run_free(&q2);
}

/* ==== Key rules ============================================================================== */

Test(cli, crlf_keys_are_stored_without_cr) {
    build_from("f.bb", "alpha\r\nbeta\r\n");
    expect_query("f.bb", "alpha\nbeta\n", "alpha\nbeta\n");
    expect_query("f.bb", "beta\r\n", "beta\n"); /* printed without its CR */
}

Test(cli, missing_final_newline_still_gives_the_last_key) {
    build_from("f.bb", "one\ntwo");
    expect_info("f.bb", "keys_added", "2");
    expect_query("f.bb", "two", "two\n");
}

Test(cli, empty_lines_are_the_empty_key) {
    build_from("f.bb", "a\n\nb\n");
    expect_info("f.bb", "keys_added", "3");
    expect_query("f.bb", "\n", "\n");
}

Test(cli, nul_bytes_are_part_of_a_line) {
    static const char key[] = "x\0y\n"; /* one 3-byte key */
    run_result r = run_io(key, 4, NULL, ARGS("build", "-o", "f.bb"));
    expect_ok(&r, "build");
    run_free(&r);
    expect_info("f.bb", "keys_added", "1");
    r = run_io(key, 4, NULL, ARGS("query", "f.bb"));
    expect_ok(&r, "query");
    cr_assert_eq(r.out_len, 4);
    cr_assert(memcmp(r.out, key, 4) == 0, "the key with a NUL byte is not printed back whole");
    run_free(&r);
}

Test(cli, null_mode_splits_on_nul_and_keeps_newlines) {
    static const char keys[] = "a\nb\0c\r\0last"; /* "a\nb", "c\r", "last" */
    run_result r = run_io(keys, sizeof keys - 1, NULL, ARGS("build", "-0", "-o", "f.bb"));
    expect_ok(&r, "build -0");
    run_free(&r);
    expect_info("f.bb", "keys_added", "3");
    r = run_io(keys, sizeof keys - 1, NULL, ARGS("query", "-0", "f.bb"));
    expect_ok(&r, "query -0");
    static const char expected[] = "a\nb\0c\r\0last\0";
    cr_assert_eq(r.out_len, sizeof expected - 1);
    cr_assert(memcmp(r.out, expected, sizeof expected - 1) == 0, "query -0 output differs");
    run_free(&r);
}

Test(cli, stdin_is_read_without_files_and_for_dash) {
    write_text("more.txt", "file-key\n");
    run_result r = RUN("stdin-key\n", "build", "-o", "f.bb", "more.txt", "-");
    expect_ok(&r, "build FILE -");
    run_free(&r);
    expect_query("f.bb", "stdin-key\nfile-key\n", "stdin-key\nfile-key\n");
}

Test(cli, long_keys) {
    size_t len = 200000;
    char *key = malloc(len + 2);
    cr_assert_not_null(key);
    for (size_t i = 0; i < len; i++) key[i] = (char)('a' + i % 26);
    key[len] = '\n';
    key[len + 1] = '\0';
    build_from("f.bb", key);
    expect_query("f.bb", key, key);
    free(key);
}

Test(cli, zero_keys_give_a_capacity_one_filter_that_matches_nothing) {
    build_from("f.bb", "");
    jfield fs[32];
    size_t n = info_json("f.bb", fs, 32);
    static const char *const want[][2] = {
        {"capacity", "1"}, {"keys_added", "0"}, {"bits_set", "0"}};
    json_expect_all(fs, n, want, sizeof want / sizeof *want);
    expect_query("f.bb", "a\nb\n\n", ""); /* nothing printed is still exit 0 */
}

/* ==== info ==================================================================================== */

Test(cli, info_json_classic_fields) {
    /* Classic, n = 10^6, p = 0.01: the textbook m = ceil(-n ln 0.01 / (ln 2)^2) = 9585059 bits
     * (ceil(9585059 / 8) = 1198133 bytes), k = round(9.585059 ln 2) = 7, see
     * tests/test_sizing.c. */
    run_result r = RUN("k1\nk2\nk3\n", "build", "--kind", "classic", "-n", "1000000", "-p", "0.01",
                       "--seed", "0x2a", "-o", "c.bb");
    expect_ok(&r, "build");
    run_free(&r);
    jfield fs[32];
    size_t n = info_json("c.bb", fs, 32);
    static const char *const names[] = {
        "kind", "bits", "bytes", "k", "blocks", "capacity", "fpr_target", "keys_added",
        "fill_ratio", "fpr_estimate", "cardinality_estimate", "seed", "seed_hex",
        "format_version", "bits_set", "bits_per_key", "isa", "isa_add"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) json_get(fs, n, names[i]);
    static const char *const want[][2] = {
        {"kind", "\"classic\""}, {"bits", "9585059"},   {"bytes", "1198133"},
        {"k", "7"},              {"blocks", "0"},       {"capacity", "1000000"},
        {"keys_added", "3"},     {"seed", "42"},        {"seed_hex", "\"0x000000000000002a\""},
        {"format_version", "1"}, {"fpr_target", "0.01"},
        {"isa", "\"scalar\""}, {"isa_add", "\"scalar\""}}; /* classic: portable code */
    json_expect_all(fs, n, want, sizeof want / sizeof *want);
    /* 3 keys x 7 probes set at most 21 bits and, with 21 probes spread over 9.6M bits, all
     * but never fewer than one key's 7 (fixed keys and seed: the count is reproducible). */
    double set = json_double(fs, n, "bits_set");
    cr_assert(set >= 7 && set <= 21, "bits_set %g", set);
    cr_assert_float_eq(json_double(fs, n, "fill_ratio"), set / 9585059.0, 1e-15);
    cr_assert_float_eq(json_double(fs, n, "bits_per_key"), 9.585059, 1e-12);
}

Test(cli, info_blocked_geometry_and_text_form) {
    /* --bits-per-key 10 for 1000 keys: 10000 bits, rounded up to whole 512-bit blocks:
     * 20 blocks = 10240 bits. --hashes fixes k. */
    run_result r = RUN("x\n", "build", "-n", "1000", "--bits-per-key", "10", "--hashes", "5",
                       "-o", "b.bb");
    expect_ok(&r, "build");
    run_free(&r);
    jfield fs[32];
    size_t n = info_json("b.bb", fs, 32);
    static const char *const want[][2] = {{"kind", "\"blocked\""}, {"bits", "10240"},
                                          {"blocks", "20"},          {"bytes", "1280"},
                                          {"k", "5"},                {"seed", "0"}};
    json_expect_all(fs, n, want, sizeof want / sizeof *want);

    r = RUN(NULL, "info", "b.bb");
    expect_ok(&r, "info");
    cr_assert(strstr(r.out, "kind: blocked\n"), "text form: %s", r.out);
    cr_assert(strstr(r.out, "bits: 10240\n"), "text form: %s", r.out);
    cr_assert(strstr(r.out, "k: 5\n"), "text form: %s", r.out);
    run_free(&r);
}

/* ==== Errors ================================================================================== */

Test(cli, bad_usage_exits_2_with_a_message) {
    build_from("f.bb", "a\n");
    static const char *const cases[][8] = {
        {"build", "--bogus", "-o", "x.bb"},
        {"build", "-o", "x.bb", "-p", "2"},
        {"build", "-o", "x.bb", "-p", "0"},
        {"build", "-o", "x.bb", "-p", "nan"},
        {"build", "-o", "x.bb", "-n", "abc"},
        {"build", "-o", "x.bb", "-n", "0"},
        {"build", "-o", "x.bb", "-n", "-5"},
        {"build", "-o", "x.bb", "-n", "12x"},
        {"build", "-o", "x.bb", "--hashes", "17"},
        {"build", "-o", "x.bb", "--hashes", "0"},
        {"build", "-o", "x.bb", "--seed", "-1"},
        {"build", "-o", "x.bb", "-p", "0.1", "--bits-per-key", "8"},
        {"build", "-o", "x.bb", "--kind", "quantum"},
        {"build", "-o", "x.bb", "--bits-per-key", "-3"},
        {"build"},           /* no -o */
        {"build", "-o"},     /* -o without its argument */
        {"query"},           /* no FILTER */
        {"query", "-x", "f.bb"},
        {"add"},
        {"info"},
        {"info", "f.bb", "f.bb"},
        {"frobnicate"},
        {"--bogus"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *const *c = cases[i];
        run_result r = run_io("", 0, NULL, c);
        char what[128];
        snprintf(what, sizeof what, "case %zu (%s %s ...)", i, c[0], c[1] ? c[1] : "");
        expect_fail(&r, 2, what);
        cr_assert_str_eq(r.out, "", "%s wrote to stdout", what);
        run_free(&r);
    }
    cr_assert(!exists("x.bb"), "a usage error created the output file");
    /* No arguments at all. */
    run_result r = run_io("", 0, NULL, (const char *const[]){NULL});
    expect_fail(&r, 2, "no arguments");
    run_free(&r);
}

Test(cli, missing_input_file_exits_1) {
    run_result r = RUN(NULL, "build", "-o", "f.bb", "no-such-file.txt");
    expect_fail(&r, 1, "build from a missing file");
    cr_assert(strstr(r.err, "no-such-file.txt"), "message lacks the file name: %s", r.err);
    cr_assert(strstr(r.err, "No such file"), "message lacks strerror: %s", r.err);
    run_free(&r);
    cr_assert(!exists("f.bb"), "a failed build created its output");

    build_from("f.bb", "a\n");
    r = RUN(NULL, "query", "f.bb", "no-such-file.txt");
    expect_fail(&r, 1, "query a missing file");
    run_free(&r);
    r = RUN(NULL, "query", "no-such-filter.bb");
    expect_fail(&r, 1, "query a missing filter");
    cr_assert(strstr(r.err, "no-such-filter.bb"), "message lacks the file name: %s", r.err);
    run_free(&r);
    r = RUN(NULL, "info", "no-such-filter.bb");
    expect_fail(&r, 1, "info of a missing filter");
    run_free(&r);
}

Test(cli, unwritable_output_exits_1_and_creates_nothing) {
    run_result r = RUN("a\n", "build", "-o", "/nonexistent-dir/x.bb");
    expect_fail(&r, 1, "build into a missing directory");
    run_free(&r);
    cr_assert(!exists("/nonexistent-dir"));

    cr_assert_eq(mkdir("sub", 0755), 0);
    r = RUN("a\n", "build", "-o", "sub");
    expect_fail(&r, 1, "build onto a directory");
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat("sub", &st), 0);
    cr_assert(S_ISDIR(st.st_mode), "the directory was replaced");
    cr_assert_eq(count_entries("sub", NULL), 0, "files were left inside the directory");
    cr_assert_eq(count_entries(".", ".tmp"), 0, "a temporary file was left behind");
}

/* Under a file-size limit (ulimit -f) a write past it raises SIGXFSZ, whose default action
 * kills the process mid-save, with no message and the half-written temporary file left
 * behind. The CLI ignores the signal, so that write fails with EFBIG instead and the usual
 * clean-up and message follow: exit 1, no temporary file, an existing target untouched. */
Test(cli, file_size_limit_fails_cleanly_without_temp_files) {
    free(make_keys("keys.txt", "key-", 100000)); /* a filter of ~117 KiB */
    build_from("f.bb", "a\n");
    size_t old_len;
    char *old = read_bytes("f.bb", &old_len);
    struct rlimit saved, lim;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
    lim = saved;
    lim.rlim_cur = 64 * 1024;
    signal(SIGXFSZ, SIG_DFL); /* what a shell gives the program: the CLI must ignore it */
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    run_result fresh = RUN(NULL, "build", "-o", "big.bb", "keys.txt");
    run_result over = RUN(NULL, "build", "-o", "f.bb", "keys.txt");
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
    expect_fail(&fresh, 1, "build past the file-size limit");
    cr_assert(strstr(fresh.err, "big.bb"), "message lacks the file name: %s", fresh.err);
    expect_fail(&over, 1, "build over a filter past the file-size limit");
    cr_assert(!exists("big.bb"), "a partial filter was created");
    cr_assert_eq(count_entries(".", ".tmp"), 0, "a temporary file was left behind");
    size_t len;
    char *now = read_bytes("f.bb", &len);
    cr_assert(len == old_len && memcmp(now, old, len) == 0, "the existing filter changed");
    free(now);
    free(old);
    run_free(&fresh);
    run_free(&over);
}

Test(cli, corrupt_filter_exits_1_and_add_leaves_it_alone) {
    char *keys = make_keys("keys.txt", "k", 100);
    build_from("f.bb", keys);
    size_t len;
    char *bytes = read_bytes("f.bb", &len);
    cr_assert_gt(len, 64);
    bytes[len - 10] ^= 0x5a; /* flip bits in the payload */
    write_bytes("bad.bb", bytes, len);
    const char *const cmds[][4] = {{"info", "bad.bb"}, {"query", "bad.bb", "keys.txt"},
                                   {"add", "bad.bb", "keys.txt"}};
    for (size_t i = 0; i < 3; i++) {
        run_result r = run_io("", 0, NULL, cmds[i]);
        expect_fail(&r, 1, cmds[i][0]);
        cr_assert(strstr(r.err, "bad.bb"), "message lacks the file name: %s", r.err);
        cr_assert_str_eq(r.out, "");
        run_free(&r);
    }
    size_t len2;
    char *after = read_bytes("bad.bb", &len2);
    cr_assert(len2 == len && memcmp(after, bytes, len) == 0, "add changed the corrupt file");

    write_text("text.bb", "this is not a filter\n");
    run_result r = RUN(NULL, "info", "text.bb");
    expect_fail(&r, 1, "info of a text file");
    run_free(&r);
    write_text("empty.bb", "");
    r = RUN(NULL, "query", "empty.bb");
    expect_fail(&r, 1, "query with an empty filter file");
    run_free(&r);
    free(after);
    free(bytes);
    free(keys);
}

Test(cli, write_error_on_stdout_exits_1) {
    free(make_keys("keys.txt", "k", 100));
    build_from("f.bb", "k1\n");
    const char *const cmds[][5] = {{"query", "f.bb", "keys.txt"},
                                   {"query", "-c", "f.bb", "keys.txt"},
                                   {"info", "--json", "f.bb"},
                                   {"--help"}};
    for (size_t i = 0; i < 4; i++) {
        run_result r = run_io("", 0, "/dev/full", cmds[i]);
        expect_fail(&r, 1, cmds[i][0]);
        cr_assert(strstr(r.err, "write error"), "no write error reported: %s", r.err);
        run_free(&r);
    }
}

Test(cli, unknown_bb_isa_warns_but_works) {
    build_from("f.bb", "a\n");
    cr_assert_eq(setenv("BB_ISA", "bogus", 1), 0);
    run_result r = RUN("a\n", "query", "f.bb");
    expect_ok(&r, "query with BB_ISA=bogus");
    cr_assert_str_eq(r.out, "a\n");
    cr_assert(strstr(r.err, "blockbloom: BB_ISA=bogus not available, using "),
              "no warning: %s", r.err);
    run_free(&r);
    cr_assert_eq(setenv("BB_ISA", "scalar", 1), 0);
    r = RUN(NULL, "info", "--json", "f.bb");
    expect_ok(&r, "info with BB_ISA=scalar");
    cr_assert_str_eq(r.err, "", "unexpected message: %s", r.err);
    cr_assert(strstr(r.out, "\"isa\":\"scalar\""), "BB_ISA=scalar not used: %s", r.out);
    run_free(&r);
}

/* ==== Help and version ======================================================================== */

Test(cli, help_for_every_command_exits_0_on_stdout) {
    static const char *const cases[][3] = {
        {"--help"}, {"-h"}, {"help"}, {"build", "--help"}, {"add", "--help"},
        {"query", "--help"}, {"info", "--help"}, {"demo", "--help"}, {"help", "query"},
        {"build", "-h"}, {"remove", "--help"}, {"merge", "--help"}, {"export", "--help"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_result r = run_io("", 0, NULL, cases[i]);
        char what[64];
        snprintf(what, sizeof what, "%s %s", cases[i][0], cases[i][1] ? cases[i][1] : "");
        expect_ok(&r, what);
        cr_assert(strstr(r.out, "Usage: blockbloom"), "%s: no usage on stdout: %s", what, r.out);
        cr_assert_str_eq(r.err, "", "%s wrote to stderr", what);
        run_free(&r);
    }
    run_result r = RUN(NULL, "--version");
    expect_ok(&r, "--version");
    cr_assert(strncmp(r.out, "blockbloom ", 11) == 0, "version: %s", r.out);
    run_free(&r);
}

/* ==== Variants: counting, scalable, remove, export, merge ===================================
 * "Byte-identical" is checked on the files themselves: a counting filter exported after a
 * remove, and a merge of two halves, must equal (cmp) the blocked filter built directly from
 * the keys that remain / from all the keys. */

static bool same_file(const char *a, const char *b) {
    size_t la, lb;
    char *x = read_bytes(a, &la), *y = read_bytes(b, &lb);
    bool same = la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static void run_ok(const char *const *args, const char *what) {
    run_result r = run_io(NULL, 0, NULL, args);
    expect_ok(&r, what);
    run_free(&r);
}

Test(cli, counting_remove_then_export_equals_blocked_of_remaining_keys) {
    free(make_keys("all.txt", "k", 3000));
    free(make_keys("gone.txt", "k", 1000)); /* k0 .. k999: a subset of all.txt */
    char *rest = malloc(3000 * 16), *p = rest;
    for (int i = 1000; i < 3000; i++) p += sprintf(p, "k%d\n", i);
    write_text("rest.txt", rest);
    run_ok(ARGS("build", "--kind", "counting", "-n", "3000", "-o", "c.bb", "all.txt"), "build");
    expect_info("c.bb", "kind", "\"counting\"");
    expect_info("c.bb", "saturated_counters", "0");
    run_result r = RUN(NULL, "remove", "c.bb", "gone.txt");
    expect_ok(&r, "remove");
    cr_assert(strstr(r.err, "2000 keys"), "summary: %s", r.err);
    run_free(&r);
    expect_info("c.bb", "keys_added", "2000");
    run_ok(ARGS("export", "-o", "e.bb", "c.bb"), "export");
    run_ok(ARGS("build", "-n", "3000", "-o", "b.bb", "rest.txt"), "build blocked");
    cr_assert(same_file("e.bb", "b.bb"), "export differs from the blocked filter of the rest");
    expect_query("e.bb", "k1500\n", "k1500\n");
    free(rest);
}

Test(cli, remove_skips_absent_keys_and_refuses_other_kinds) {
    run_ok(ARGS("build", "--kind", "counting", "-n", "100", "-o", "c.bb"), "build");
    run_result r = RUN("never-added\n", "remove", "c.bb");
    expect_ok(&r, "remove of an absent key");
    cr_assert(strstr(r.err, "1 of 1 keys were not in the filter"), "stderr: %s", r.err);
    run_free(&r);
    build_from("b.bb", "a\n");
    r = RUN("a\n", "remove", "b.bb");
    expect_fail(&r, 1, "remove from a blocked filter");
    cr_assert(strstr(r.err, "only counting filters"), "stderr: %s", r.err);
    run_free(&r);
    r = RUN(NULL, "export", "-o", "x.bb", "b.bb");
    expect_fail(&r, 1, "export of a blocked filter");
    run_free(&r);
    cr_assert(!exists("x.bb"));
}

Test(cli, merge_of_halves_equals_the_whole_and_names_mismatches) {
    free(make_keys("h1.txt", "a", 2000));
    free(make_keys("h2.txt", "b", 2000));
    char *both = malloc(2 * 2000 * 16), *p = both;
    for (int i = 0; i < 2000; i++) p += sprintf(p, "a%d\n", i);
    for (int i = 0; i < 2000; i++) p += sprintf(p, "b%d\n", i);
    write_text("all.txt", both);
    const char *kinds[] = {"blocked", "classic", "counting", "split", "sectorized"};
    for (int i = 0; i < 5; i++) {
        run_ok(ARGS("build", "--kind", kinds[i], "-n", "4000", "-o", "1.bb", "h1.txt"), "b1");
        run_ok(ARGS("build", "--kind", kinds[i], "-n", "4000", "-o", "2.bb", "h2.txt"), "b2");
        run_ok(ARGS("build", "--kind", kinds[i], "-n", "4000", "-o", "w.bb", "all.txt"), "bw");
        run_ok(ARGS("merge", "-o", "m.bb", "1.bb", "2.bb"), "merge");
        cr_assert(same_file("m.bb", "w.bb"), "%s: merge of halves differs from the whole",
                  kinds[i]);
    }
    run_ok(ARGS("build", "-n", "4000", "--seed", "7", "-o", "s.bb", "h2.txt"), "seed 7");
    run_ok(ARGS("build", "-n", "4000", "-o", "1.bb", "h1.txt"), "b1");
    run_result r = RUN(NULL, "merge", "-o", "x.bb", "1.bb", "s.bb");
    expect_fail(&r, 1, "merge with another seed");
    cr_assert(strstr(r.err, "differ in seed"), "stderr: %s", r.err);
    run_free(&r);
    cr_assert(!exists("x.bb"), "a refused merge writes nothing");
    r = RUN(NULL, "merge", "-o", "x.bb", "1.bb");
    expect_fail(&r, 2, "merge of one file");
    run_free(&r);
    /* Same geometry, other key scheme: named as such (it read "sub-filter layout (1 vs 1 ...)"). */
    write_text("names.txt", "example.com\n");
    run_ok(ARGS("build", "-n", "4000", "--keys", "domain", "-o", "d.bb", "names.txt"), "domain");
    r = RUN(NULL, "merge", "-o", "x.bb", "1.bb", "d.bb");
    expect_fail(&r, 1, "merge of plain and domain keys");
    cr_assert(strstr(r.err, "differ in keys (--keys plain vs domain)"), "stderr: %s", r.err);
    run_free(&r);
    cr_assert(!exists("x.bb"), "a refused merge writes nothing");
    free(both);
}

Test(cli, scalable_build_grows_and_info_lists_sub_filters) {
    free(make_keys("k.txt", "s", 3000));
    run_ok(ARGS("build", "--kind", "scalable", "-n", "100", "-p", "0.01", "-o", "s.bb", "k.txt"),
           "build scalable");
    expect_query("s.bb", "s0\ns2999\n", "s0\ns2999\n");
    jfield fs[32];
    run_result r = RUN(NULL, "info", "s.bb");
    expect_ok(&r, "info");
    /* 100 + 200 + 400 + 800 + 1600 >= 3000 keys: five sub-filters, the first tightened. */
    cr_assert(strstr(r.out, "subfilters: 5\n"), "%s", r.out);
    cr_assert(strstr(r.out, "subfilter.0.capacity: 100\n"), "%s", r.out);
    cr_assert(strstr(r.out, "subfilter.0.fpr_target: 0.005\n"), "%s", r.out);
    cr_assert(strstr(r.out, "subfilter.4.capacity: 1600\n"), "%s", r.out);
    run_free(&r);
    r = RUN(NULL, "info", "--json", "s.bb");
    expect_ok(&r, "info --json");
    char *list = strstr(r.out, ",\"subfilter_list\":[{\"capacity\":100,");
    cr_assert_not_null(list, "%s", r.out);
    strcpy(list, "}\n"); /* the flat part, for the flat parser */
    size_t n = json_parse(r.out, fs, 32);
    json_expect(fs, n, "kind", "\"scalable\"");
    json_expect(fs, n, "subfilters", "5");
    json_expect(fs, n, "growth", "2");
    run_free(&r);
}

/* Split-block (Parquet) builds: 1000 keys at 1% take the smallest z with the split model
 * sum_i Pois(i; 1000/z) (1 - (31/32)^i)^8 <= 0.01, z = 42 (10,752 bits; worked out by
 * bisection outside this library, as test_split.c's pinned sizes). --pow2 -n 10^6 starts at
 * 2 MiB (10^6 keys need 1,316,160 bytes), and --fold-to 0.01 with 1000 keys halves it down to
 * 64 blocks (model 0.117%; at 32 blocks it is 3.1%). (Merges: the merge test above.) */
Test(cli, split_build_query_info_and_fold) {
    free(make_keys("k.txt", "p", 1000));
    run_ok(ARGS("build", "--kind", "split", "-o", "s.bb", "k.txt"), "build split");
    expect_query("s.bb", "p0\np999\n", "p0\np999\n");
    run_result r = RUN(NULL, "info", "s.bb");
    expect_ok(&r, "info");
    cr_assert(strstr(r.out, "kind: split\n"), "%s", r.out);
    cr_assert(strstr(r.out, "bits: 10752\n"), "%s", r.out);
    cr_assert(strstr(r.out, "k: 8\n"), "%s", r.out);
    cr_assert(strstr(r.out, "blocks: 42\n"), "%s", r.out);
    run_free(&r);
    run_ok(ARGS("build", "--kind", "split", "-n", "1000000", "--pow2", "--fold-to", "0.01", "-o",
                "f.bb", "k.txt"), "build --fold-to");
    r = RUN(NULL, "info", "f.bb");
    expect_ok(&r, "info folded");
    cr_assert(strstr(r.out, "bits: 16384\n"), "%s", r.out);
    cr_assert(strstr(r.out, "bytes: 2048\n"), "%s", r.out);
    run_free(&r);
    expect_query("f.bb", "p0\np500\np999\n", "p0\np500\np999\n");
    r = RUN(NULL, "build", "--kind", "classic", "--pow2", "-o", "x.bb", "k.txt");
    expect_fail(&r, 2, "--pow2 on classic");
    run_free(&r);
    r = RUN(NULL, "build", "--kind", "counting", "--fold-to", "0.01", "-o", "x.bb", "k.txt");
    expect_fail(&r, 2, "--fold-to on counting");
    run_free(&r);
    r = RUN(NULL, "build", "--kind", "split", "--hashes", "7", "-o", "x.bb", "k.txt");
    expect_fail(&r, 2, "split with k 7");
    run_free(&r);
    r = RUN(NULL, "build", "--kind", "split", "--fold-to", "1.5", "-o", "x.bb", "k.txt");
    expect_fail(&r, 2, "--fold-to 1.5");
    run_free(&r);
    cr_assert(!exists("x.bb"), "refused builds write nothing");
}

/* Sectorized builds: 1000 keys at 1% take the fewest lines over k = 1, 2, 4, 8, 16 with the
 * sectorized model (src/sizing.c) <= 0.01: 20 lines at k = 8 (worked out by bisection outside
 * this library, as test_sectorized.c's pinned sizes). --pow2 -n 10^6 starts at 2 MiB (10^6
 * keys need 19,726 lines, 1,262,464 bytes), and --fold-to 0.01 with 1000 keys halves it to 32
 * lines (model 0.080%; at 16 lines it is 2.6%). */
Test(cli, sectorized_build_query_info_and_fold) {
    free(make_keys("k.txt", "p", 1000));
    run_ok(ARGS("build", "--kind", "sectorized", "-o", "s.bb", "k.txt"), "build sectorized");
    expect_query("s.bb", "p0\np999\n", "p0\np999\n");
    run_result r = RUN(NULL, "info", "s.bb");
    expect_ok(&r, "info");
    cr_assert(strstr(r.out, "kind: sectorized\n"), "%s", r.out);
    cr_assert(strstr(r.out, "bits: 10240\n"), "%s", r.out);
    cr_assert(strstr(r.out, "k: 8\n"), "%s", r.out);
    run_free(&r);
    run_ok(ARGS("build", "--kind", "sectorized", "-n", "1000000", "--pow2", "--fold-to", "0.01",
                "-o", "f.bb", "k.txt"), "build --fold-to");
    r = RUN(NULL, "info", "f.bb");
    expect_ok(&r, "info folded");
    cr_assert(strstr(r.out, "bits: 16384\n"), "%s", r.out);
    cr_assert(strstr(r.out, "bytes: 2048\n"), "%s", r.out);
    run_free(&r);
    expect_query("f.bb", "p0\np500\np999\n", "p0\np500\np999\n");
    r = RUN(NULL, "build", "--kind", "sectorized", "--hashes", "3", "-o", "x.bb", "k.txt");
    expect_fail(&r, 2, "sectorized with k 3");
    run_free(&r);
    cr_assert(!exists("x.bb"), "refused builds write nothing");
}

/* --fold-to without --pow2: 10^6 keys at 1% size to 19,372 blocks (9,918,464 bits, as
 * `blockbloom build -n 1000000` reports), an even count that halves only twice, to 4,843. The build now
 * rounds the count up to c 2^j with c < 32: 19,372 / 2^10 = 18.92 -> 19 x 1024 = 19,456 blocks,
 * which folds down to 38 blocks for 1000 keys (at 19 blocks, lambda = 52.6, the model is
 * 1.08% > 1%; at the mean load alone the in-block fill 1 - e^{-6 x 52.6 / 512} = 0.46 gives
 * 0.46^6 = 0.95%, and the spread of loads raises it). Before, it stopped at 4,843 blocks (and
 * a split filter for 10^6 keys, 20,565 blocks, odd, did not fold at all). */
Test(cli, fold_to_without_pow2_folds) {
    free(make_keys("k.txt", "p", 1000));
    run_ok(ARGS("build", "--kind", "blocked", "-n", "1000000", "-p", "0.01", "--fold-to", "0.01",
                "-o", "f.bb", "k.txt"), "build --fold-to");
    run_result r = RUN(NULL, "info", "f.bb");
    expect_ok(&r, "info folded");
    cr_assert(strstr(r.out, "blocks: 38\n"), "%s", r.out);
    cr_assert(strstr(r.out, "bits: 19456\n"), "%s", r.out);
    run_free(&r);
    expect_query("f.bb", "p0\np500\np999\n", "p0\np500\np999\n");
}

/* OUT a dangling symlink: refused with a message naming the link's target, nothing written,
 * the link kept (parquet index and extract do the same: tests/parquet/oracle.mjs). */
Test(cli, build_onto_dangling_symlink) {
    free(make_keys("k.txt", "p", 10));
    cr_assert_eq(symlink("missing_dir/f.bb", "dl.bb"), 0);
    run_result r = RUN(NULL, "build", "-o", "dl.bb", "k.txt");
    expect_fail(&r, 1, "build onto a dangling link");
    cr_assert(strstr(r.err, "symbolic link to 'missing_dir/f.bb', which does not exist"), "%s",
              r.err);
    run_free(&r);
    struct stat st;
    cr_assert(lstat("dl.bb", &st) == 0 && S_ISLNK(st.st_mode), "the link is kept");
}

/* ==== Filters that are poor are written, and said ============================================= */

/* 50,000 keys in a filter sized for 10^6 at 1%: 9,918,464 bits (the blocked size, pinned in
 * tests/test_sizing.c), so 9918464 / 50000 = 198.37 bits per key added and 9.92 per key of
 * capacity, each under its own name; one key is "1 key". */
Test(cli, summary_names_bits_per_key_added_and_of_capacity) {
    free(make_keys("k.txt", "k", 50000));
    run_result r = RUN(NULL, "build", "-n", "1000000", "-p", "0.01", "-o", "f.bb", "k.txt");
    expect_ok(&r, "build");
    cr_assert(strstr(r.err, "50000 keys, capacity 1000000, 9918464 bits"), "%s", r.err);
    cr_assert(strstr(r.err, "198.37 bits/key added, 9.92 bits/key of capacity"), "%s", r.err);
    cr_assert_null(strstr(r.err, "warning"), "%s", r.err);
    run_free(&r);
    r = RUN("one\n", "build", "-o", "one.bb");
    expect_ok(&r, "build of one key");
    cr_assert(strstr(r.err, "filter, 1 key, capacity 1,"), "%s", r.err);
    run_free(&r);
}

/* An empty input, a producer that failed before writing anything (the shell's pipe from
 * `zcat missing.gz`), or Ctrl-D at once: the filter is written, exit 0, with a warning. */
Test(cli, build_of_no_keys_warns_and_still_writes) {
    write_text("empty.txt", "");
    run_result r = RUN(NULL, "build", "-o", "e.bb", "empty.txt");
    expect_ok(&r, "build of an empty file");
    cr_assert(strstr(r.err, "0 keys"), "%s", r.err);
    cr_assert(strstr(r.err, "blockbloom: warning: no keys were read, so the filter is empty"),
              "%s", r.err);
    run_free(&r);
    cr_assert(exists("e.bb"));
    r = RUN("", "build", "-n", "1000", "-o", "e2.bb");
    expect_ok(&r, "build -n of empty stdin");
    cr_assert(strstr(r.err, "warning: no keys were read"), "%s", r.err);
    run_free(&r);
    cr_assert(exists("e2.bb"));
    r = RUN("a\n", "build", "-o", "a.bb");
    expect_ok(&r, "build of one key");
    cr_assert_null(strstr(r.err, "warning"), "%s", r.err);
    run_free(&r);
}

/* Two filters, each built for its own 30,000 keys at 1% (297,984 bits, k = 6), merged: 60,000
 * keys in a filter sized for 30,000, model 12.2% against the 1% it was made for. */
Test(cli, merge_past_capacity_warns) {
    free(make_keys("a.txt", "a", 30000));
    free(make_keys("b.txt", "b", 30000));
    run_result r = RUN(NULL, "build", "-o", "a.bb", "a.txt");
    expect_ok(&r, "build a");
    run_free(&r);
    r = RUN(NULL, "build", "-o", "b.bb", "b.txt");
    expect_ok(&r, "build b");
    run_free(&r);
    r = RUN(NULL, "merge", "-o", "m.bb", "a.bb", "b.bb");
    expect_ok(&r, "merge");
    cr_assert(strstr(r.err, "60000 keys, capacity 30000"), "%s", r.err);
    cr_assert(strstr(r.err, "blockbloom: warning: 60000 keys exceed the capacity 30000 this "
                            "filter was sized for: its model false-positive rate 0.122 is above "
                            "the 0.01 it was made for"), "%s", r.err);
    run_free(&r);
    cr_assert(exists("m.bb"));
    r = RUN(NULL, "build", "-n", "60000", "-o", "big.bb", "a.txt");
    expect_ok(&r, "build with room");
    run_free(&r);
    r = RUN(NULL, "add", "big.bb", "b.txt");
    expect_ok(&r, "add within capacity");
    cr_assert_null(strstr(r.err, "warning"), "%s", r.err);
    run_free(&r);
}

/* query's -o is grep's --only-matching; `query -o out.txt F KEYS`, written as if -o took the
 * output file, reads out.txt as the filter: the failure says what -o is here and what was
 * meant, only when the next argument is a filter. */
Test(cli, query_o_out_file_gets_a_hint) {
    run_result r = RUN("a\n", "build", "-o", "f.bb");
    expect_ok(&r, "build");
    run_free(&r);
    write_text("k.txt", "a\n");
    r = RUN(NULL, "query", "-o", "out.txt", "f.bb", "k.txt");
    expect_fail(&r, 1, "query -o out.txt f.bb");
    cr_assert(strstr(r.err, "cannot open filter 'out.txt'"), "%s", r.err);
    cr_assert(strstr(r.err, "blockbloom: -o shows matches here (--show-match, as grep's -o), so "
                            "'out.txt' was read as the filter; did you mean `blockbloom query "
                            "f.bb ... > out.txt`?"), "%s", r.err);
    run_free(&r);
    cr_assert(!exists("out.txt"));
    r = RUN(NULL, "query", "-o", "out.txt", "k.txt");
    expect_fail(&r, 1, "query -o out.txt k.txt");
    cr_assert_null(strstr(r.err, "did you mean"), "no hint when k.txt is no filter: %s", r.err);
    run_free(&r);
}

/* --password-file: a FIFO with no writer blocked the open forever, whatever --timeout said; it
 * now ends after --timeout (1 s here) with a message, before any connection, so no server is
 * needed. A directory is refused; a pipe that delivers (the shell's <(...)) is read. */
Test(cli, redis_password_file_waits_no_longer_than_the_timeout, .timeout = 30) {
    cr_assert_eq(mkfifo("pw.fifo", 0600), 0);
    cr_assert_eq(mkdir("pw.dir", 0700), 0);
    run_result r = RUN(NULL, "redis", "-u", "redis://127.0.0.1:1", "--password-file", "pw.fifo",
                       "--timeout", "1", "info", "a");
    if (r.status == 127 || strstr(r.err, "not built")) {
        run_free(&r);
        return; /* a CLI without the Redis binding has no redis command to check */
    }
    expect_fail(&r, 1, "password file FIFO");
    cr_assert(strstr(r.err, "no password arrived from 'pw.fifo' within 1 s (--timeout)"), "%s",
              r.err);
    run_free(&r);
    r = RUN(NULL, "redis", "-u", "redis://127.0.0.1:1", "--password-file", "pw.dir", "info", "a");
    expect_fail(&r, 1, "password file directory");
    cr_assert(strstr(r.err, "the password file 'pw.dir' is a directory"), "%s", r.err);
    run_free(&r);
}

/* `parquet index DIR -o DIR/sub` wrote into its own input, and each later run indexed the
 * outputs of the one before, one level deeper: it is a usage error (exit 2) now, checked
 * before any file is read (so an empty directory does). A sibling whose name merely starts
 * the same ("ds2") is not inside. */
Test(cli, parquet_index_output_inside_its_input_directory) {
    cr_assert_eq(mkdir("ds", 0700), 0);
    run_result r = RUN(NULL, "parquet", "index", "ds", "-o", "ds/inside", "-c", "x");
    if (strstr(r.err, "unknown command") || strstr(r.err, "not built")) {
        run_free(&r);
        return; /* a CLI built without Parquet support */
    }
    expect_fail(&r, 2, "index ds -o ds/inside");
    cr_assert(strstr(r.err, "OUT 'ds/inside' is inside the input directory 'ds'"), "%s", r.err);
    run_free(&r);
    r = RUN(NULL, "parquet", "index", "ds", "-o", "./ds/a/b", "-c", "x");
    expect_fail(&r, 2, "index ds -o ./ds/a/b");
    run_free(&r);
    r = RUN(NULL, "parquet", "index", "ds", "-o", "ds2", "-c", "x");
    cr_assert_eq(r.status, 1, "a sibling is not inside: exit %d, %s", r.status, r.err);
    cr_assert_null(strstr(r.err, "inside the input"), "%s", r.err);
    run_free(&r);
}

/* `parquet index -j N` on a dataset: the jobs share the held-keys budget (a quarter of the
 * memory limit), so with a 64 KiB control-group limit (16 KiB of budget) and three copies of
 * examples/sales.parquet, whose filters alone need more, the files run one at a time; with no
 * limit the budget is larger and the run says so. Each output is still written. */
Test(cli, parquet_index_jobs_share_one_memory_budget) {
    cr_assert_eq(mkdir("ds", 0700), 0);
    static const char *const files[] = {"ds/a.parquet", "ds/b.parquet", "ds/c.parquet"};
    char cmd[600];
    for (size_t i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "cp '%s/examples/sales.parquet' '%s'", BB_SOURCE_DIR, files[i]);
        cr_assert_eq(system(cmd), 0);
    }
    run_result r = RUN(NULL, "parquet", "index", "ds", "-o", "out", "-c", "customer_id", "-j", "3");
    if (strstr(r.err, "unknown command") || strstr(r.err, "not built")) {
        run_free(&r);
        return; /* a CLI built without Parquet support */
    }
    expect_ok(&r, "index -j 3 without a limit");
    cr_assert(strstr(r.err, "wrote 3 of 3 files under out:"), "%s", r.err);
    cr_assert(strstr(r.err, " of -j 3 files at once (memory budget "), "%s", r.err);
    run_free(&r);
    cr_assert(lay_out_cgroup_limit("65536"), "no cgroup v2 line in /proc/self/cgroup");
    r = RUN(NULL, "parquet", "index", "ds", "-o", "out2", "-c", "customer_id", "-j", "3");
    unsetenv("BB_CGROUP_ROOT");
    expect_ok(&r, "index -j 3 with a 64 KiB limit");
    cr_assert(strstr(r.err, "wrote 3 of 3 files under out2:"), "%s", r.err);
    cr_assert(strstr(r.err, "at most 1 of -j 3 files at once (memory budget 0.0 MiB)"), "%s",
              r.err);
    cr_assert(exists("out2/a.parquet") && exists("out2/b.parquet") && exists("out2/c.parquet"));
    run_free(&r);
}
