/* SPDX-License-Identifier: MIT */
/*
 * test_keylimit.c - the limit on one key's length (--max-key-bytes, default 16 MiB = 16777216
 * bytes; docs/CLI.md "Keys"): a key over it, from a file or from standard input, in line mode or
 * with -0, fails with "blockbloom: FILE:LINE: ..." naming the limit, exit 1, and writes
 * nothing (no new file, an existing filter byte for byte unchanged); a key exactly at the
 * limit is accepted and found, also when it spans the reader's 64 KiB reads; an endless
 * input (/dev/zero, `yes` through a pipe) ends the run at once with little memory. Same
 * harness as test_cli.c (cliutil.h); the endless runs are watched by run_bounded, which kills
 * the program when it outlives its deadline or its memory bound, so no test can hang or
 * exhaust the machine.
 */
#include "cliutil.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

TestSuite(keylimit, .init = enter_workdir, .fini = leave_workdir);

#define DEFAULT_LIMIT 16777216u /* 16 MiB, as documented */

/* A key of `len` bytes 'a'..'z' (never a delimiter or CR), NUL-terminated; caller frees. */
static char *letters(size_t len) {
    char *k = malloc(len + 1);
    cr_assert_not_null(k);
    for (size_t i = 0; i < len; i++) k[i] = (char)('a' + i % 26);
    k[len] = '\0';
    return k;
}

/* The run failed with exit 1 and its message names `where` ("FILE:LINE:"), the limit and
 * the option that changes it. */
static void expect_too_long(const run_result *r, const char *where, unsigned long limit,
                            const char *what) {
    expect_fail(r, 1, what);
    char want[160];
    snprintf(want, sizeof want, "blockbloom: %s", where);
    cr_assert(strstr(r->err, want), "%s: message lacks '%s': %s", what, want, r->err);
    snprintf(want, sizeof want, "limit of %lu bytes", limit);
    cr_assert(strstr(r->err, want), "%s: message lacks '%s': %s", what, want, r->err);
    cr_assert(strstr(r->err, "--max-key-bytes"), "%s: message lacks the option: %s", what, r->err);
}

static void expect_no_output_file(const char *path) {
    cr_assert(!exists(path), "a failed build created %s", path);
    cr_assert_eq(count_entries(".", ".tmp"), 0, "a temporary file was left behind");
}

/* The file at path still holds old[0 .. old_len). */
static void expect_unchanged(const char *path, const char *old, size_t old_len) {
    size_t len;
    char *now = read_bytes(path, &len);
    cr_assert(len == old_len && memcmp(now, old, len) == 0, "%s changed", path);
    free(now);
    cr_assert_eq(count_entries(".", ".tmp"), 0, "a temporary file was left behind");
}

/* ==== Over the limit: message, exit 1, nothing written ===================================== */

Test(keylimit, a_key_over_the_limit_in_a_file_fails_and_writes_nothing) {
    write_text("keys.txt", "one\ntwo\n123456789\nfour\n"); /* line 3 has 9 bytes */
    run_result r = RUN(NULL, "build", "--max-key-bytes", "8", "-o", "f.bb", "keys.txt");
    expect_too_long(&r, "keys.txt:3:", 8, "build");
    run_free(&r);
    expect_no_output_file("f.bb");

    /* With -n the keys are streamed into an existing filter object: still no file. */
    r = RUN(NULL, "build", "-n", "100", "--max-key-bytes=8", "-o", "f.bb", "keys.txt");
    expect_too_long(&r, "keys.txt:3:", 8, "build -n");
    run_free(&r);
    expect_no_output_file("f.bb");

    /* The line number counts from 1 in each file. */
    write_text("ok.txt", "alpha\nbeta\n");
    r = RUN(NULL, "build", "--max-key-bytes", "8", "-o", "f.bb", "ok.txt", "keys.txt");
    expect_too_long(&r, "keys.txt:3:", 8, "build of two files");
    run_free(&r);
    expect_no_output_file("f.bb");
}

Test(keylimit, a_key_over_the_limit_on_stdin_fails_and_writes_nothing) {
    run_result r = RUN("ok\nthis-is-too-long\n", "build", "--max-key-bytes", "10", "-o", "f.bb");
    expect_too_long(&r, "(standard input):2:", 10, "build from stdin");
    run_free(&r);
    expect_no_output_file("f.bb");
}

/* build over an existing filter, add and remove: the file keeps every byte it had, although
 * the keys before the long one were read (and added to or removed from the filter in
 * memory: c.bb holds them, so a remove that saved would change it). */
Test(keylimit, an_existing_filter_is_unchanged_by_build_add_and_remove) {
    build_from("f.bb", "a\nb\n");
    run_result r = RUN("new-1\nnew-2\n", "build", "--kind", "counting", "-o", "c.bb");
    expect_ok(&r, "build counting");
    run_free(&r);
    static const char keys[] = "new-1\nnew-2\nnew-3-is-long\n";
    write_text("keys.txt", keys);
    static const struct {
        bool from_stdin;
        const char *args[7], *where;
    } runs[] = {
        {false, {"build", "--max-key-bytes", "8", "-o", "f.bb", "keys.txt"}, "keys.txt:3:"},
        {false, {"add", "--max-key-bytes", "8", "f.bb", "keys.txt"}, "keys.txt:3:"},
        {true, {"add", "--max-key-bytes=8", "f.bb"}, "(standard input):3:"},
        {false, {"remove", "--max-key-bytes", "8", "c.bb", "keys.txt"}, "keys.txt:3:"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        const char *target = i == 3 ? "c.bb" : "f.bb";
        size_t len;
        char *old = read_bytes(target, &len);
        r = run_io(runs[i].from_stdin ? keys : NULL, runs[i].from_stdin ? sizeof keys - 1 : 0,
                   NULL, runs[i].args);
        expect_too_long(&r, runs[i].where, 8, runs[i].args[0]);
        run_free(&r);
        expect_unchanged(target, old, len);
        free(old);
    }
}

Test(keylimit, query_stops_at_a_key_over_the_limit) {
    build_from("f.bb", "a\n");
    run_result r = RUN("a\nbbbbbb\na\n", "query", "--max-key-bytes", "5", "f.bb");
    expect_too_long(&r, "(standard input):2:", 5, "query");
    /* docs/CLI.md "query": the keys before the long one were printed (they share its chunk). */
    cr_assert_str_eq(r.out, "a\n", "query: the key before the long one was not printed");
    run_free(&r);
    write_text("keys.txt", "a\nzz\nzz-but-far-too-long\n");
    r = RUN(NULL, "query", "-v", "--max-key-bytes", "5", "f.bb", "keys.txt");
    expect_too_long(&r, "keys.txt:3:", 5, "query -v");
    cr_assert_str_eq(r.out, "zz\n", "query -v: the key before the long one was not printed");
    run_free(&r);
    /* -q: every error is exit status 2 (grep's convention), with the same message. */
    r = RUN("bbbbbb\n", "query", "-q", "--max-key-bytes", "5", "f.bb");
    cr_assert_eq(r.status, 2, "query -q: exit %d; stderr: %s", r.status, r.err);
    cr_assert(strstr(r.err, "blockbloom: (standard input):1:"), "query -q: %s", r.err);
    run_free(&r);
    /* -q after a found key: exit 0, as grep -q, whether or not the long key shares its chunk. */
    r = RUN("a\nbbbbbb\n", "query", "-q", "--max-key-bytes", "5", "f.bb");
    cr_assert_eq(r.status, 0, "query -q, a found key before the long one: exit %d; %s", r.status, r.err);
    run_free(&r);
}

Test(keylimit, null_mode_names_the_key_number) {
    static const char keys[] = "ok\0also ok\0x\ny\nz-long\0"; /* key 3 has 10 bytes */
    run_result r = run_io(keys, sizeof keys - 1, NULL,
                          ARGS("build", "-0", "--max-key-bytes", "9", "-o", "f.bb"));
    expect_too_long(&r, "(standard input): key 3 (NUL-terminated)", 9, "build -0");
    run_free(&r);
    expect_no_output_file("f.bb");
    /* A CR is a key byte with -0: "12345678\r" is 9 bytes, over a limit of 8. */
    r = run_io("12345678\r\0", 10, NULL, ARGS("build", "-0", "--max-key-bytes", "8", "-o", "f.bb"));
    expect_too_long(&r, "(standard input): key 1", 8, "build -0, CR counted");
    run_free(&r);
    expect_no_output_file("f.bb");
}

/* The default is the documented 16 MiB: one byte more fails without any option. */
Test(keylimit, the_default_limit_is_16_mib) {
    char *key = letters(DEFAULT_LIMIT + 1);
    write_bytes("long.txt", key, DEFAULT_LIMIT + 1);
    run_result r = RUN(NULL, "build", "-o", "f.bb", "long.txt");
    expect_too_long(&r, "long.txt:1:", DEFAULT_LIMIT, "build, default limit");
    run_free(&r);
    expect_no_output_file("f.bb");

    write_bytes("long.txt", key, DEFAULT_LIMIT); /* exactly the limit */
    r = RUN(NULL, "build", "-o", "f.bb", "long.txt");
    expect_ok(&r, "build of a 16 MiB key");
    run_free(&r);
    r = RUN(NULL, "query", "-c", "f.bb", "long.txt");
    expect_ok(&r, "query of a 16 MiB key");
    cr_assert_str_eq(r.out, "1\n");
    run_free(&r);
    free(key);
}

/* ==== At the limit: accepted and found ======================================================= */

Test(keylimit, keys_exactly_at_the_limit_are_accepted_and_found) {
    /* 8 bytes each: LF-terminated, CRLF (the CR is stripped before the check) and the last
     * one unterminated with a final CR (stripped too). */
    static const char keys[] = "12345678\nabcdefgh\r\nABCDEFGH\r";
    write_text("keys.txt", keys);
    run_result r = RUN(NULL, "build", "--max-key-bytes", "8", "-o", "f.bb", "keys.txt");
    expect_ok(&r, "build at the limit");
    run_free(&r);
    expect_info("f.bb", "keys_added", "3");
    r = RUN(NULL, "query", "--max-key-bytes", "8", "f.bb", "keys.txt");
    expect_ok(&r, "query at the limit");
    cr_assert_str_eq(r.out, "12345678\nabcdefgh\nABCDEFGH\n");
    run_free(&r);
    /* One byte more before the CR is over. */
    r = RUN("123456789\r\n", "add", "--max-key-bytes", "8", "f.bb");
    expect_too_long(&r, "(standard input):1:", 8, "9 bytes and a CR");
    run_free(&r);

    /* -0: 8 bytes, then the unterminated last key. */
    static const char nul[] = "1234\n678\0abcdefgh";
    r = run_io(nul, sizeof nul - 1, NULL, ARGS("build", "-0", "--max-key-bytes", "8", "-o", "n.bb"));
    expect_ok(&r, "build -0 at the limit");
    run_free(&r);
    r = run_io(nul, sizeof nul - 1, NULL, ARGS("query", "-0", "-c", "n.bb"));
    expect_ok(&r, "query -0");
    cr_assert_str_eq(r.out, "2\n");
    run_free(&r);
}

/* Keys of exactly the limit spanning the reader's 64 KiB reads (at offsets 0, 100001, ...)
 * are accepted whole; the first one a byte longer, in the middle of a read, is refused. */
Test(keylimit, keys_at_the_limit_across_read_boundaries) {
    enum { LIMIT = 100000, KEYS = 5 };
    char *key = letters(LIMIT);
    FILE *f = fopen("keys.txt", "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < KEYS; i++) {
        key[0] = (char)('0' + i); /* distinct keys */
        fprintf(f, "%s\n", key);
    }
    cr_assert_eq(fclose(f), 0);
    run_result r = RUN(NULL, "build", "--max-key-bytes", "100000", "-o", "f.bb", "keys.txt");
    expect_ok(&r, "build of keys at the limit");
    run_free(&r);
    expect_info("f.bb", "keys_added", "5");
    r = RUN(NULL, "query", "-c", "--max-key-bytes", "1e5", "f.bb", "keys.txt");
    expect_ok(&r, "query of keys at the limit");
    cr_assert_str_eq(r.out, "5\n");
    run_free(&r);

    f = fopen("keys.txt", "ab");
    cr_assert_not_null(f);
    fprintf(f, "%sX\nshort\n", key);
    cr_assert_eq(fclose(f), 0);
    r = RUN(NULL, "build", "--max-key-bytes", "100000", "-o", "g.bb", "keys.txt");
    expect_too_long(&r, "keys.txt:6:", LIMIT, "a key one byte over");
    run_free(&r);
    expect_no_output_file("g.bb");
    free(key);
}

/* ==== Endless inputs ========================================================================== */

typedef struct bounded_run {
    int status;          /* exit status, -1 if killed */
    long peak_kib;       /* the child's peak resident memory (getrusage's ru_maxrss) */
    double seconds;
    char *err;
} bounded_run;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Resident memory of pid in KiB from /proc, 0 if unknown. */
static long rss_kib(pid_t pid) {
    char path[64];
    long pages = 0, rss = 0;
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(f);
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Run BB_CLI args with stdin from `in_fd`, stderr to a file; kill it (status -1) once it has
 * run `deadline` seconds or holds more than `max_kib` of memory, so an endless read can
 * neither hang the test nor exhaust the machine. */
static bounded_run run_bounded(int in_fd, const char *const *args, double deadline, long max_kib) {
    const char *argv[32];
    make_argv(args, argv);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, ".stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    double t0 = now_seconds();
    int rc = posix_spawn(&pid, BB_CLI, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", BB_CLI, strerror(rc));
    bounded_run b = {.status = -1};
    int ws;
    struct rusage ru;
    bool killed = false;
    for (;;) {
        pid_t got = wait4(pid, &ws, WNOHANG, &ru);
        cr_assert_neq(got, -1, "wait4: %s", strerror(errno));
        if (got == pid) break;
        if (!killed && (now_seconds() - t0 > deadline || rss_kib(pid) > max_kib)) {
            kill(pid, SIGKILL);
            killed = true;
        }
        struct timespec d = {0, 2000000};
        nanosleep(&d, NULL);
    }
    b.seconds = now_seconds() - t0;
    b.peak_kib = ru.ru_maxrss;
    if (!killed && WIFEXITED(ws)) b.status = WEXITSTATUS(ws);
    b.err = read_bytes(".stderr", NULL);
    return b;
}

/* Generous bounds: the run needs milliseconds and about limit + 64 KiB + the program itself
 * (an ASan build maps more); an unbounded reader is killed at these. */
#define ENDLESS_SECONDS 20.0
#define ENDLESS_MAX_KIB (160L << 10)

static void expect_endless_fails(const bounded_run *b, const char *where, const char *what) {
    cr_assert_neq(b->status, -1, "%s: still running after %.1f s or above %ld KiB: killed",
                  what, b->seconds, ENDLESS_MAX_KIB);
    cr_assert_eq(b->status, 1, "%s: exit %d; stderr: %s", what, b->status, b->err);
    cr_assert(strstr(b->err, where), "%s: message lacks '%s': %s", what, where, b->err);
    cr_assert_lt(b->peak_kib, ENDLESS_MAX_KIB, "%s: peak memory %ld KiB", what, b->peak_kib);
}

static int open_or_fail(const char *path) {
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "cannot open %s", path);
    return fd;
}

Test(keylimit, an_endless_file_fails_at_once, .timeout = 120) {
    int devnull = open_or_fail("/dev/null");
    bounded_run b = run_bounded(devnull, ARGS("build", "--max-key-bytes", "1000", "-o", "f.bb",
                                              "/dev/zero"), ENDLESS_SECONDS, ENDLESS_MAX_KIB);
    expect_endless_fails(&b, "blockbloom: /dev/zero:1: line longer than the key limit of 1000 "
                             "bytes", "build /dev/zero");
    free(b.err);
    expect_no_output_file("f.bb");
    close(devnull);
}

/* What a user runs: no option; the default limit ends it after 16 MiB of the endless line. */
Test(keylimit, an_endless_file_fails_at_once_with_the_default_limit, .timeout = 120) {
    int devnull = open_or_fail("/dev/null");
    bounded_run b = run_bounded(devnull, ARGS("build", "-o", "f.bb", "/dev/zero"),
                                ENDLESS_SECONDS, ENDLESS_MAX_KIB);
    expect_endless_fails(&b, "blockbloom: /dev/zero:1: line longer than the key limit of "
                             "16777216 bytes", "build /dev/zero, default limit");
    free(b.err);
    expect_no_output_file("f.bb");
    close(devnull);
}

Test(keylimit, an_endless_stdin_fails_at_once, .timeout = 120) {
    build_from("f.bb", "a\n");
    int zero = open_or_fail("/dev/zero");
    bounded_run b = run_bounded(zero, ARGS("query", "--max-key-bytes", "4096", "f.bb"),
                                ENDLESS_SECONDS, ENDLESS_MAX_KIB);
    expect_endless_fails(&b, "blockbloom: (standard input):1:", "query < /dev/zero");
    free(b.err);
    close(zero);
}

/* -0 with `yes` through a pipe: "y\n" forever and never a NUL, one endless key. */
Test(keylimit, an_endless_pipe_in_null_mode_fails_at_once, .timeout = 120) {
    int p[2];
    cr_assert_eq(pipe(p), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    pid_t yes;
    char *yes_argv[] = {(char *)"yes", NULL};
    cr_assert_eq(posix_spawnp(&yes, "yes", &fa, NULL, yes_argv, environ), 0, "cannot run yes");
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    bounded_run b = run_bounded(p[0], ARGS("build", "-0", "--max-key-bytes", "100000", "-o",
                                           "f.bb"), ENDLESS_SECONDS, ENDLESS_MAX_KIB);
    close(p[0]); /* yes then ends with SIGPIPE */
    kill(yes, SIGTERM);
    waitpid(yes, NULL, 0);
    expect_endless_fails(&b, "blockbloom: (standard input): key 1 (NUL-terminated) longer than "
                             "the key limit of 100000 bytes", "build -0 < yes");
    free(b.err);
    expect_no_output_file("f.bb");
}

/* ==== The option ============================================================================== */

Test(keylimit, bad_values_are_usage_errors_and_help_documents_the_option) {
    build_from("f.bb", "a\n");
    static const char *const cmds[][2] = {{"build", "-o"}, {"add", NULL}, {"query", NULL},
                                          {"remove", NULL}};
    static const char *const bad[] = {"0", "-1", "abc", "12x", "1.5"};
    for (size_t c = 0; c < 4; c++) {
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            run_result r = cmds[c][1]
                ? RUN("a\n", cmds[c][0], "--max-key-bytes", bad[i], "-o", "x.bb")
                : RUN("a\n", cmds[c][0], "--max-key-bytes", bad[i], "f.bb");
            char what[64];
            snprintf(what, sizeof what, "%s --max-key-bytes %s", cmds[c][0], bad[i]);
            expect_fail(&r, 2, what);
            cr_assert(strstr(r.err, "--max-key-bytes"), "%s: %s", what, r.err);
            run_free(&r);
        }
        run_result r = RUN(NULL, cmds[c][0], "--help");
        expect_ok(&r, "--help");
        cr_assert(strstr(r.out, "--max-key-bytes=N") && strstr(r.out, "16777216"),
                  "%s --help does not document --max-key-bytes: %s", cmds[c][0], r.out);
        run_free(&r);
    }
    cr_assert(!exists("x.bb"));
}

/* The network key kinds read lines through the same reader. */
Test(keylimit, network_keys_obey_the_limit) {
    write_text("hosts.txt", "example.com\nads.example.net\n");
    run_result r = RUN(NULL, "build", "--keys", "domain", "--max-key-bytes", "12", "-o", "d.bb",
                       "hosts.txt");
    expect_too_long(&r, "hosts.txt:2:", 12, "build --keys domain");
    run_free(&r);
    expect_no_output_file("d.bb");
}

/* N is written as -n is (docs/CLI.md "Keys"): suffixes are decimal, so 1K is 1000 bytes, not 1024;
 * the largest value is 2^62 - 1, and the usage error says so. */
Test(keylimit, values_are_written_as_for_n) {
    char *key = letters(1001);
    write_bytes("k1001.txt", key, 1001);
    write_bytes("k1000.txt", key, 1000);
    free(key);
    run_result r = RUN(NULL, "build", "--max-key-bytes", "1K", "-o", "f.bb", "k1001.txt");
    expect_too_long(&r, "k1001.txt:1:", 1000, "1K and 1001 bytes");
    run_free(&r);
    r = RUN(NULL, "build", "--max-key-bytes", "1e3", "-o", "f.bb", "k1000.txt");
    expect_ok(&r, "1e3 and 1000 bytes");
    run_free(&r);
    r = RUN("a\n", "build", "--max-key-bytes", "4611686018427387903", "-o", "g.bb");
    expect_ok(&r, "2^62 - 1");
    run_free(&r);
    r = RUN("a\n", "build", "--max-key-bytes", "4611686018427387904", "-o", "h.bb");
    expect_fail(&r, 2, "2^62");
    cr_assert(strstr(r.err, "2^62 - 1") && strstr(r.err, "16M and 1.6e7 are 16000000"),
              "the usage error does not give the range and the suffixes: %s", r.err);
    run_free(&r);
    cr_assert(!exists("h.bb"));
}
