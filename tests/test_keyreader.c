/* SPDX-License-Identifier: MIT */
/*
 * test_keyreader.c - the CLI's key reader (src/cli/keys.c) fed the way real pipes feed it: a
 * standard input left non-blocking by the parent (O_NONBLOCK is a property of the pipe, shared
 * by every process that has it, and some runtimes set it), which must be waited for as a
 * blocking one, not fail with EAGAIN; and keys whose CR, LF or NUL falls at the reader's 64 KiB
 * read boundaries, from a file and through a pipe that delivers one byte per write, which must
 * give exactly the keys this file wrote (query prints each of them, CR stripped, in order);
 * and an error after the progress line ("\rblockbloom: read N keys ...", left open to be
 * overwritten), which must start a line of its own; and a standard output and error left
 * non-blocking, whose writes must wait while the pipe is full (query's lines, a binary
 * filter from build -o -, a message into a pipe already full), and a stderr nobody reads,
 * which must not keep a filter file's lock from its other writers, nor lose a message held
 * under that lock when memory runs out (preload library nomem_memstream.c); the prompt for a
 * terminal on stdin, which must come before the keys also under that lock; and a closed
 * stdin, which must not become the locked filter file. Same harness as test_cli.c (cliutil.h).
 */
#include "cliutil.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

TestSuite(keyreader, .init = enter_workdir, .fini = leave_workdir);

#define READ_BYTES 65536 /* the reader's read size, CLI_READ_BYTES */

static void pause_ms(long ms) {
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
}

/* Write p[0 .. len) to the pipe; false once the reader has gone (EPIPE: SIGPIPE is ignored
 * while the test writes, see feed_start), which the reader's exit status then explains. */
static bool write_all(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Around the writes to a spawned reader (which keeps the default SIGPIPE: it was spawned
 * before): a reader that fails early must not kill the test. */
static void (*feed_start(void))(int) { return signal(SIGPIPE, SIG_IGN); }
static void feed_end(void (*old)(int)) { signal(SIGPIPE, old); }

/* ==== A non-blocking standard input ========================================================= */

/* The keys arrive in three pieces with pauses between, so the reader finds the pipe empty
 * (EAGAIN) at least twice; it must wait, as it does on a blocking pipe, and read them all. */
Test(keyreader, a_non_blocking_stdin_is_waited_for) {
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK), 0);
    pid_t pid = spawn_cli(p[0], p[1], ".stdout", ARGS("build", "-o", "f.bb"));
    close(p[0]);
    static const char *const pieces[] = {"alpha\nbe", "ta\ngamma", "\ndelta\n"};
    void (*old)(int) = feed_start();
    for (size_t i = 0; i < 3 && (pause_ms(150), write_all(p[1], pieces[i], strlen(pieces[i]))); i++)
        continue;
    close(p[1]);
    feed_end(old);
    run_result r = wait_cli(pid, "build", NULL);
    expect_ok(&r, "build from a non-blocking pipe");
    run_free(&r);
    expect_info("f.bb", "keys_added", "4");
    expect_query("f.bb", "alpha\nbeta\ngamma\ndelta\n", "alpha\nbeta\ngamma\ndelta\n");
}

/* ==== A non-blocking standard output and error ============================================= */

/* `blockbloom args` with stdin from in_fd and stdout and stderr both out_fd (dup2: the same
 * open file, so its O_NONBLOCK flag with it); the child closes c1 and c2 (-1: none), the
 * test's ends of the pipes. */
static pid_t spawn_piped(int in_fd, int out_fd, int c1, int c2, const char *const *args) {
    const char *argv[32];
    make_argv(args, argv);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
    if (c1 >= 0) posix_spawn_file_actions_addclose(&fa, c1);
    if (c2 >= 0) posix_spawn_file_actions_addclose(&fa, c2);
    pid_t pid;
    int rc = posix_spawn(&pid, BB_CLI, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", BB_CLI, strerror(rc));
    return pid;
}

/* Run `blockbloom args` with stdin from /dev/null, stdout and stderr both the write end `w`
 * of a pipe whose read end is r. */
static pid_t spawn_into(int w, int r, const char *const *args) {
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    cr_assert_geq(devnull, 0, "/dev/null: %s", strerror(errno));
    pid_t pid = spawn_piped(devnull, w, r, -1, args);
    close(devnull);
    return pid;
}

/* Close our write end p[1], leave the pipe unread for 300 ms, then read p[0] to its end (at
 * most cap bytes) into *out (*got bytes) and close it; the wait status of pid. */
static int read_late(const int p[2], pid_t pid, size_t cap, char **out, size_t *got) {
    close(p[1]);
    pause_ms(300);
    *got = 0;
    cr_assert_not_null(*out = malloc(cap));
    for (ssize_t n; *got < cap && (n = read(p[0], *out + *got, cap - *got)) != 0;) {
        cr_assert(n > 0 || errno == EINTR, "read: %s", strerror(errno));
        if (n > 0) *got += (size_t)n;
    }
    close(p[0]);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    return ws;
}

/* 30,000 keys (330,000 bytes of output, five times a pipe's 64 KiB) found by query into a
 * pipe left non-blocking that nobody reads for 300 ms: stdio's writes meet a full pipe
 * (EAGAIN) and must wait, so the reader gets every key in order, then exit 0, where they
 * used to end with "write error on standard output: Resource temporarily unavailable". Then
 * a missing file, so the message on the same non-blocking stderr arrives whole. */
Test(keyreader, a_non_blocking_stdout_is_waited_for, .timeout = 60) {
    enum { N = 30000 };
    size_t cap = (size_t)N * 11 + 1, len = 0;
    char *keys = malloc(cap);
    cr_assert_not_null(keys);
    for (int i = 0; i < N; i++) len += (size_t)snprintf(keys + len, cap - len, "key-%06d\n", i);
    write_bytes("keys.txt", keys, len);
    run_result b = RUN(NULL, "build", "-o", "f.bb", "keys.txt");
    expect_ok(&b, "build");
    run_free(&b);
    static const struct {
        const char *args[5], *want;
        int status;
    } runs[] = {{{"query", "f.bb", "keys.txt"}, NULL, 0},
                {{"query", "f.bb", "no-such-file"}, "blockbloom: ", 1}};
    for (size_t i = 0; i < 2; i++) {
        int p[2];
        cr_assert_eq(pipe(p), 0);
        cr_assert_eq(fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK), 0);
        pid_t pid = spawn_into(p[1], p[0], runs[i].args);
        size_t got;
        char *out;
        int ws = read_late(p, pid, len + 4096, &out, &got);
        cr_assert(WIFEXITED(ws), "blockbloom died");
        cr_assert_eq(WEXITSTATUS(ws), runs[i].status, "%s: exit %d; output ends '%.*s'",
                     runs[i].args[2], WEXITSTATUS(ws), (int)(got < 200 ? got : 200),
                     out + (got < 200 ? 0 : got - 200));
        if (!runs[i].want)
            cr_assert(got == len && memcmp(out, keys, len) == 0,
                      "query printed %zu bytes, not the %zu of the keys", got, len);
        else
            cr_assert(got > 12 && memcmp(out, runs[i].want, 12) == 0 && out[got - 1] == '\n' &&
                          memmem(out, got, "no-such-file", 12),
                      "message: '%.*s'", (int)got, out);
        free(out);
    }
    free(keys);
}

/* The message itself into a full pipe: standard output and error the write end of a pipe left
 * non-blocking that this test first fills (to EAGAIN) and then leaves unread for 300 ms. An
 * unbuffered stderr's one write of the message meets the full pipe: it must wait and arrive
 * whole after the filler, where it used to be lost (exit 1 and nothing said). The test above
 * never fills the pipe before its message. */
Test(keyreader, a_message_into_a_full_non_blocking_stderr_is_waited_for, .timeout = 60) {
    write_text("keys.txt", "alpha\n");
    run_result b = RUN(NULL, "build", "-o", "f.bb", "keys.txt");
    expect_ok(&b, "build");
    run_free(&b);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK), 0);
    static const char fill[4096];
    size_t filled = 0;
    for (ssize_t n; (n = write(p[1], fill, sizeof fill)) > 0;) filled += (size_t)n;
    cr_assert(errno == EAGAIN && filled > 0, "filling the pipe: %s", strerror(errno));
    static const char *const args[] = {"query", "f.bb", "no-such-file", NULL};
    pid_t pid = spawn_into(p[1], p[0], args);
    size_t got;
    char *out;
    int ws = read_late(p, pid, filled + 4096, &out, &got);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 1, "query: status 0x%x", ws);
    static const char want[] =
        "blockbloom: cannot open 'no-such-file': No such file or directory\n";
    cr_assert(got == filled + strlen(want) && memcmp(out + filled, want, strlen(want)) == 0,
              "after the %zu filler bytes: '%.*s'", filled, (int)(got - filled), out + filled);
    free(out);
}

/* A binary filter (build -o -: one fwrite of about 1.5 MB, 23 pipes full) into a pipe left
 * non-blocking and unread for 300 ms: the bytes must be those `build -o FILE` writes, then
 * the summary line (standard error is the same pipe, written after standard output is
 * flushed), exit 0. */
Test(keyreader, a_filter_to_a_non_blocking_stdout_is_whole, .timeout = 60) {
    free(make_keys("keys.txt", "k", 300000));
    run_result b = RUN(NULL, "build", "--kind", "counting", "-o", "f.bb", "keys.txt");
    expect_ok(&b, "build -o f.bb");
    run_free(&b);
    size_t len;
    char *want = read_bytes("f.bb", &len);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK), 0);
    static const char *const args[] = {"build", "--kind", "counting", "-o", "-", "keys.txt", NULL};
    pid_t pid = spawn_into(p[1], p[0], args);
    size_t got;
    char *out;
    int ws = read_late(p, pid, len + 4096, &out, &got);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "build -o -: status 0x%x", ws);
    static const char summary[] = "blockbloom: wrote (standard output): counting filter";
    cr_assert(got > len && memcmp(out, want, len) == 0, "build -o - wrote %zu bytes, not the "
              "%zu of build -o f.bb (first)", got, len);
    cr_assert(got - len > strlen(summary) && memcmp(out + len, summary, strlen(summary)) == 0 &&
                  out[got - 1] == '\n',
              "then: '%.*s'", (int)(got - len), out + len);
    free(out);
    free(want);
}

/* A stderr that nobody reads must not keep a filter file's lock from its other writers. The
 * first `add` reads its key from a pipe this test holds open, so it holds the lock as long as
 * the test wants; its standard output and error are a blocking pipe this test has filled, so
 * its summary line blocks. A second `add` of the same file is started and seen waiting for
 * the lock (/proc/locks lists blocked flock requests with "->"); then the first gets its key,
 * replaces the file and blocks on its summary. The second must then finish within 10 s: messages
 * wait in memory while the lock is held, where the lock used to stay held until this test
 * read the pipe. Both keys must then be in the file, and the first run's summary must arrive
 * after the filler. */
static bool exited_within(pid_t pid, long ms, int *ws) {
    for (long t = 0; t < ms; t += 10, pause_ms(10))
        if (waitpid(pid, ws, WNOHANG) == pid) return true;
    return false;
}

/* Whether /proc/locks has an flock of process pid: held, or with `waiting` requested. */
static bool has_flock(pid_t pid, bool waiting) {
    FILE *f = fopen("/proc/locks", "r");
    cr_assert_not_null(f, "/proc/locks: %s", strerror(errno));
    char line[256], want[64];
    snprintf(want, sizeof want, "%sFLOCK  ADVISORY  WRITE %ld ", waiting ? "-> " : "", (long)pid);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = strchr(line, ':');
        found = p && strncmp(p + 2, want, strlen(want)) == 0;
    }
    fclose(f);
    return found;
}

static void wait_for_flock(pid_t pid, bool waiting, const char *who) {
    for (long t = 0; t < 20000 && !has_flock(pid, waiting); t += 10) pause_ms(10);
    cr_assert(has_flock(pid, waiting), "%s never %s the lock", who, waiting ? "waited for" : "took");
}

Test(keyreader, a_stalled_stderr_does_not_hold_the_file_lock, .timeout = 120) {
    write_text("b.txt", "beta\n");
    run_result r = RUN(NULL, "build", "-n", "100", "-o", "f.bb");
    expect_ok(&r, "build");
    run_free(&r);
    int p[2], q[2]; /* close-on-exec: the second add must not hold the first one's stdin open */
    cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
    cr_assert_eq(pipe2(q, O_CLOEXEC), 0);
    int fl = fcntl(p[1], F_GETFL);
    cr_assert_eq(fcntl(p[1], F_SETFL, fl | O_NONBLOCK), 0);
    static const char fill[4096];
    size_t filled = 0;
    for (ssize_t n; (n = write(p[1], fill, sizeof fill)) > 0;) filled += (size_t)n;
    cr_assert(errno == EAGAIN && filled > 0, "filling the pipe: %s", strerror(errno));
    cr_assert_eq(fcntl(p[1], F_SETFL, fl), 0); /* blocking again: the writer just waits */
    pid_t a = spawn_piped(q[0], p[1], p[0], q[1], ARGS("add", "f.bb", "-"));
    close(q[0]);
    wait_for_flock(a, false, "the first add");
    int devnull = open("/dev/null", O_RDONLY);
    pid_t b = spawn_cli(devnull, p[0], ".stdout", ARGS("add", "f.bb", "b.txt"));
    close(devnull);
    wait_for_flock(b, true, "the second add");
    void (*old)(int) = feed_start();
    cr_assert(write_all(q[1], "alpha\n", 6), "the first add did not take its key");
    close(q[1]);
    feed_end(old);
    int wb;
    bool b_done = exited_within(b, 10000, &wb);
    size_t got;
    char *out;
    int wa = read_late(p, a, filled + 4096, &out, &got);
    if (!b_done) cr_assert_eq(waitpid(b, &wb, 0), b);
    cr_assert(b_done, "the second add waited for the first, stalled on its full stderr");
    cr_assert(WIFEXITED(wa) && WEXITSTATUS(wa) == 0, "first add: status 0x%x", wa);
    cr_assert(WIFEXITED(wb) && WEXITSTATUS(wb) == 0, "second add: status 0x%x", wb);
    static const char summary[] = "blockbloom: wrote f.bb: blocked filter, 1 key,";
    cr_assert(got > filled + strlen(summary) && memcmp(out + filled, summary, strlen(summary)) == 0,
              "after the %zu filler bytes: '%.*s'", filled, (int)(got - filled), out + filled);
    free(out);
    expect_query("f.bb", "alpha\nbeta\n", "alpha\nbeta\n");
}

/* A terminal on stdin is announced ("reading keys from standard input (a terminal) ...")
 * before the reader waits on it, also by `add`, which reads its keys under the filter file's
 * lock, while messages wait in memory: the prompt must be on stderr while add still waits
 * for its keys, not only after them (the run would look hung). The terminal is a
 * pseudo-terminal this test holds the master of; its keys end with ^D (VEOF). */
static bool stderr_shows_within(const char *text, long ms) {
    for (long t = 0;; t += 10, pause_ms(10)) {
        char *err = read_bytes(".stderr", NULL);
        bool seen = strstr(err, text) != NULL;
        free(err);
        if (seen || t >= ms) return seen;
    }
}

Test(keyreader, the_terminal_prompt_comes_before_the_keys_under_a_lock, .timeout = 120) {
    run_result r = RUN(NULL, "build", "-n", "100", "-o", "f.bb");
    expect_ok(&r, "build");
    run_free(&r);
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    cr_assert_geq(m, 0, "posix_openpt: %s", strerror(errno));
    cr_assert(grantpt(m) == 0 && unlockpt(m) == 0, "pseudo-terminal: %s", strerror(errno));
    int s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
    cr_assert_geq(s, 0, "%s: %s", ptsname(m), strerror(errno));
    pid_t pid = spawn_cli(s, m, ".stdout", ARGS("add", "f.bb"));
    close(s);
    bool prompted = stderr_shows_within("blockbloom: reading keys from standard input (a "
                                        "terminal); end them with Ctrl-D\n", 10000);
    cr_assert(write_all(m, "alpha\n\004", 7), "the terminal: %s", strerror(errno));
    r = wait_cli(pid, "add", NULL);
    close(m);
    cr_assert(prompted, "no prompt while add waited for its keys; after them: '%s'", r.err);
    expect_ok(&r, "add from a terminal");
    cr_assert_not_null(strstr(r.err, "Ctrl-D\nblockbloom: wrote f.bb: blocked filter, 1 key,"),
                       "the prompt, then the summary: '%s'", r.err);
    run_free(&r);
    expect_query("f.bb", "alpha\n", "alpha\n");
}

/* A standard input the caller closed (`add f.bb <&-`) must be an error, not the next file
 * opened: that is the filter file itself, opened for its lock (cli_lock_filter), and add
 * used to read the filter's own bytes as keys and save them in it (remove: decrement the
 * counters of the false positives among them). Same for remove; the file must be unchanged. */
static run_result run_stdin_closed(const char *const *args) {
    const char *argv[32];
    make_argv(args, argv);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, 0);
    posix_spawn_file_actions_addopen(&fa, 1, ".stdout", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, ".stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, BB_CLI, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", BB_CLI, strerror(rc));
    return wait_cli(pid, args[0], NULL);
}

Test(keyreader, a_closed_stdin_is_an_error_not_the_locked_filter) {
    static const char *const kinds[] = {"blocked", "counting"};
    static const char *const cmds[] = {"add", "remove"};
    for (size_t i = 0; i < 2; i++) {
        run_result r = RUN("alpha\nbeta\n", "build", "--kind", kinds[i], "-n", "100", "-o", "f.bb");
        expect_ok(&r, "build");
        run_free(&r);
        size_t len, now_len;
        char *before = read_bytes("f.bb", &len);
        r = run_stdin_closed(ARGS(cmds[i], "f.bb"));
        expect_fail(&r, 1, cmds[i]);
        cr_assert_not_null(strstr(r.err, "standard input"), "%s: '%s'", cmds[i], r.err);
        run_free(&r);
        char *now = read_bytes("f.bb", &now_len);
        cr_assert(now_len == len && memcmp(now, before, len) == 0,
                  "%s with stdin closed changed the filter", cmds[i]);
        free(before);
        free(now);
    }
}

#ifdef BB_NOMEM_PRELOAD /* not in the sanitizer builds (tests/CMakeLists.txt) */
/* Messages held under a filter file's lock beyond the BUFSIZ (8 KiB) a memstream starts with
 * (add's twenty bad lines of a file with a long name, each quoting 200 bytes of its line), when
 * memory runs out for more (the preload library refuses the growth): every message must still
 * come, whole and in order, the last one saying why add failed. They used to stop, cut, at 8 KiB. */
Test(keyreader, held_messages_survive_no_memory_to_hold_more) {
    run_result r = RUN("example.com\n", "build", "--keys", "domain", "-n", "100", "-o", "d.bb");
    expect_ok(&r, "build");
    run_free(&r);
    char name[210];
    memset(name, 'n', 200);
    strcpy(name + 200, ".txt");
    FILE *f = fopen(name, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 30; i++) fprintf(f, "bad..%0300d\n", i);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(setenv("LD_PRELOAD", BB_NOMEM_PRELOAD, 1), 0);
    cr_assert_eq(setenv("BB_NOMEM_LOG", "nomem.log", 1), 0);
    r = RUN(NULL, "add", "d.bb", name);
    unsetenv("LD_PRELOAD");
    unsetenv("BB_NOMEM_LOG");
    cr_assert(exists("nomem.log"), "no memstream growth was refused: nothing tested");
    expect_fail(&r, 1, "add of 30 bad lines");
    size_t lines = 0;
    for (const char *p = r.err; *p; lines++) {
        const char *end = strchr(p, '\n');
        cr_assert(end && strncmp(p, "blockbloom: ", 12) == 0, "line %zu cut: '%s'", lines, p);
        if (lines < 20) {
            char want[32];
            snprintf(want, sizeof want, ".txt:%zu: ", lines + 1);
            cr_assert_not_null(memmem(p, (size_t)(end - p), want, strlen(want)),
                               "line %zu is not bad line %zu: '%.*s'", lines, lines + 1,
                               (int)(end - p), p);
        }
        p = end + 1;
    }
    cr_assert_eq(lines, 22, "%zu lines: '%s'", lines, r.err);
    cr_assert_not_null(strstr(r.err, "\nblockbloom: 10 more bad lines not shown (30 in all)\n"
                                     "blockbloom: 30 bad lines: nothing written"), "'%s'", r.err);
    run_free(&r);
}
#endif

/* ==== Terminators at the read boundaries ===================================================== */

/* Two empty keys ("\n\r\n" or two NULs), then six long keys whose terminator lands two
 * bytes before, one before, on, and one after a read boundary (offsets 65536 * i + shift),
 * every other one with a CR before its LF in line mode, then an unterminated last key that
 * ends in a CR (stripped as well). Returns the input; *want gets what query prints: each
 * key, CR stripped, followed by the delimiter. */
#define BOUNDARY_KEYS 9
static char *boundary_input(char delim, size_t *len, char **want, size_t *want_len) {
    static const int shifts[] = {-2, -1, 0, 1, 0, -1};
    size_t cap = 8 * READ_BYTES, n = 0, w = 0;
    char *in = malloc(cap), *out = malloc(cap);
    cr_assert(in && out);
    if (delim == '\n') {
        memcpy(in, "\n\r\n", 3);
        n = 3;
    } else {
        memcpy(in, "\0\0", 2);
        n = 2;
    }
    out[w++] = delim;
    out[w++] = delim;
    for (size_t i = 0; i < sizeof shifts / sizeof *shifts; i++) {
        size_t at = (i + 1) * READ_BYTES + (size_t)(ptrdiff_t)shifts[i], start = n;
        bool cr = delim == '\n' && i % 2 == 0;
        for (; n < at - cr; n++) in[n] = (char)('a' + (n + i) % 26);
        memcpy(out + w, in + start, n - start);
        w += n - start;
        if (cr) in[n++] = '\r';
        in[n++] = delim; /* at offset `at` */
        out[w++] = delim;
    }
    static const char last[] = "last-key";
    memcpy(in + n, last, sizeof last - 1);
    memcpy(out + w, last, sizeof last - 1);
    n += sizeof last - 1;
    w += sizeof last - 1;
    if (delim == '\n') in[n++] = '\r';
    out[w++] = delim;
    *len = n;
    *want = out;
    *want_len = w;
    return in;
}

static void check_boundaries(bool nul, bool trickle) {
    size_t len, want_len;
    char *want, *in = boundary_input(nul ? '\0' : '\n', &len, &want, &want_len);
    write_bytes("keys.txt", in, len);
    const char *mode = nul ? "-0" : "--max-key-bytes=16M";
    run_result r = RUN(NULL, "build", mode, "-o", "f.bb", "keys.txt");
    expect_ok(&r, "build");
    run_free(&r);
    if (!trickle) {
        r = RUN(NULL, "query", mode, "f.bb", "keys.txt");
    } else { /* one byte per write through a pipe: every read gets whatever is there */
        int p[2];
        cr_assert_eq(pipe(p), 0);
        pid_t pid = spawn_cli(p[0], p[1], ".stdout", ARGS("query", mode, "f.bb"));
        close(p[0]);
        void (*old)(int) = feed_start();
        for (size_t i = 0; i < len && write_all(p[1], in + i, 1); i++)
            continue;
        close(p[1]);
        feed_end(old);
        r = wait_cli(pid, "query", NULL);
    }
    expect_ok(&r, "query");
    cr_assert(r.out_len == want_len && memcmp(r.out, want, want_len) == 0,
              "%s%s: query printed %zu bytes, not the %zu of the keys written", nul ? "-0" : "lines",
              trickle ? ", trickled" : "", r.out_len, want_len);
    run_free(&r);
    expect_info("f.bb", "keys_added", "9");
    free(in);
    free(want);
}

Test(keyreader, terminators_at_read_boundaries_in_a_file) {
    check_boundaries(false, false);
    check_boundaries(true, false);
}

Test(keyreader, terminators_at_read_boundaries_one_byte_at_a_time, .timeout = 120) {
    check_boundaries(false, true);
    check_boundaries(true, true);
}

/* ==== Messages after the progress line ======================================================= */

/* With the progress line on (a terminal, or BB_PROGRESS), "blockbloom: read N keys ..." is
 * left without a newline to be overwritten in place; an error after it (here a long key
 * after a million short ones) must still start a line of its own, and the progress line must
 * not be repeated after it. */
Test(keyreader, an_error_after_the_progress_line_starts_its_own_line) {
    enum { N = 1000001 };
    FILE *f = fopen("keys.txt", "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < N; i++) fprintf(f, "%d\n", i);
    fputs("this-key-is-too-long\n", f);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(setenv("BB_PROGRESS", "1", 1), 0);
    run_result r = RUN(NULL, "build", "--max-key-bytes", "10", "-o", "f.bb", "keys.txt");
    unsetenv("BB_PROGRESS");
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert(strncmp(r.err, "\rblockbloom: read 1000000 keys (", 32) == 0,
              "no progress line first: '%s'", r.err);
    const char *msg = strstr(r.err, "\nblockbloom: keys.txt:1000002: line longer than");
    cr_assert_not_null(msg, "the error does not start a line: '%s'", r.err);
    cr_assert_eq(strchr(msg + 1, '\n'), r.err + strlen(r.err) - 1,
                 "more after the error's line: '%s'", r.err);
    run_free(&r);
}

/* ==== Reading ahead (-j N >= 2) ============================================================= */

/* grep -q stops at the first match without reading on; so must query -q when the input is a
 * pipe that stays open with nothing more in it. The reader hands on the keys it has when a
 * pipe has no more ready (else the match would wait for a full chunk of 2^16 keys), and with
 * -j 2, where the keys are read on a thread of their own a chunk ahead, that thread, waiting
 * in read(2) for the next chunk, is cancelled, where joining it would wait for the writer. */
Test(keyreader, query_q_with_jobs_stops_on_an_open_pipe, .timeout = 60) {
    run_result r = RUN("alpha\nbeta\n", "build", "-o", "f.bb");
    expect_ok(&r, "build");
    run_free(&r);
    for (int j = 0; j < 2; j++) {
        int p[2];
        cr_assert_eq(pipe(p), 0);
        pid_t pid =
            spawn_cli(p[0], p[1], ".stdout",
                      j ? ARGS("query", "-q", "-j", "2", "f.bb") : ARGS("query", "-q", "f.bb"));
        close(p[0]);
        /* 20,000 absent keys first, in the same write as the match: looking them up keeps
         * the command busy long after the reader has gone back to waiting on the pipe. */
        static char feed[20000 * 12 + 8];
        size_t len = 0;
        for (int i = 0; i < 20000; i++) len += (size_t)sprintf(feed + len, "gamma%d\n", i);
        len += (size_t)sprintf(feed + len, "beta\n");
        void (*old)(int) = feed_start();
        cr_assert(write_all(p[1], feed, len), "write: %s", strerror(errno));
        int ws;
        bool exited = exited_within(pid, 10000, &ws);
        if (!exited) kill(pid, SIGKILL), waitpid(pid, &ws, 0);
        close(p[1]);
        feed_end(old);
        cr_assert(exited, "query -q%s still ran 10 s after its match", j ? " -j 2" : "");
        cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "query -q%s: wait status %d",
                  j ? " -j 2" : "", ws);
    }
}

/* A chunk's messages wait until the keys before them are answered and printed, and stdout
 * is flushed before a message: a key over the limit is reported after the keys before it, on
 * the last line of stdout and stderr merged in one file, wherever the chunks begin (2^16 keys
 * per thread, so at other keys for -j 1, 2 and 3), byte for byte the same for every -j. query -q that found a key before the bad one exits
 * 0 with nothing on stderr, as grep -q, which never reads it. build -n and add stop there the
 * same way, writing nothing. */
static run_result run_merged(const char *const *args) {
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open(".merged", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    cr_assert(in >= 0 && out >= 0, "%s", strerror(errno));
    pid_t pid = spawn_piped(in, out, -1, -1, args);
    close(in);
    close(out);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_assert(WIFEXITED(ws), "blockbloom %s died", args[0]);
    run_result r = {.status = WEXITSTATUS(ws)};
    r.out = read_bytes(".merged", &r.out_len);
    r.err = strdup("");
    return r;
}

static void check_message_order(int bad) {
    enum { N = 200000 };
    FILE *f = fopen("keys.txt", "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < N; i++)
        fprintf(f, i == bad ? "key-%d-and-then-far-too-long-for-the-limit\n" : "key-%d\n", i);
    cr_assert_eq(fclose(f), 0);
    run_result r = RUN(NULL, "build", "-o", "f.bb", "--max-key-bytes", "1000", "keys.txt");
    expect_ok(&r, "build");
    run_free(&r);
    char msg[128];
    snprintf(msg, sizeof msg, "blockbloom: keys.txt:%d: line longer than the key limit of 20 bytes",
             bad + 1);
    char before[32];
    snprintf(before, sizeof before, "key-%d\n", bad - 1);
    run_result q1 = run_merged(ARGS("query", "--max-key-bytes", "20", "f.bb", "keys.txt"));
    cr_assert_eq(q1.status, 1, "query: exit %d", q1.status);
    const char *at = strstr(q1.out, msg);
    cr_assert_not_null(at, "query: no message naming line %d", bad + 1);
    const char *prev = strstr(q1.out, before);
    cr_assert(prev && prev < at && at[-1] == '\n' && strchr(at, '\n') == q1.out + q1.out_len - 1,
              "query: the key before it, then the message on the last line of the merged "
              "output (message at byte %td of %zu)",
              at - q1.out, q1.out_len);
    static const char *const jobs[] = {"2", "3"};
    for (int j = 0; j < 2; j++) {
        run_result qj =
            run_merged(ARGS("query", "-j", jobs[j], "--max-key-bytes", "20", "f.bb", "keys.txt"));
        cr_assert_eq(qj.status, 1, "query -j %s: exit %d", jobs[j], qj.status);
        const char *atj = strstr(qj.out, msg);
        cr_assert(q1.out_len == qj.out_len && memcmp(q1.out, qj.out, q1.out_len) == 0,
                  "bad key at line %d: query -j %s printed its keys and message otherwise than "
                  "query (%zu and %zu bytes; message at %td and %td)",
                  bad + 1, jobs[j], q1.out_len, qj.out_len, at - q1.out,
                  atj ? atj - qj.out : (ptrdiff_t)-1);
        run_free(&qj);
    }
    run_free(&q1);
    for (int j = 0; j < 3; j++) {
        r = j ? RUN(NULL, "query", "-q", "-j", jobs[j - 1], "--max-key-bytes", "20", "f.bb",
                    "keys.txt")
              : RUN(NULL, "query", "-q", "--max-key-bytes", "20", "f.bb", "keys.txt");
        cr_assert_eq(r.status, 0, "query -q -j %s: exit %d", j ? jobs[j - 1] : "1", r.status);
        cr_assert_str_empty(r.err, "query -q -j %s found key-0, yet: '%s'", j ? jobs[j - 1] : "1",
                            r.err);
        run_free(&r);
    }
    for (int j = 0; j < 2; j++) {
        r = j ? RUN(NULL, "build", "-j", "2", "-n", "200000", "--max-key-bytes", "20", "-o",
                    "no.bb", "keys.txt")
              : RUN(NULL, "build", "-n", "200000", "--max-key-bytes", "20", "-o", "no.bb",
                    "keys.txt");
        expect_fail(&r, 1, j ? "build -j 2 -n" : "build -n");
        cr_assert_not_null(strstr(r.err, msg), "build%s: '%s'", j ? " -j 2" : "", r.err);
        cr_assert_eq(access("no.bb", F_OK), -1, "build%s -n left a file", j ? " -j 2" : "");
        run_free(&r);
        struct stat st0, st1;
        cr_assert_eq(stat("f.bb", &st0), 0);
        r = j ? RUN(NULL, "add", "-j", "2", "--max-key-bytes", "20", "f.bb", "keys.txt")
              : RUN(NULL, "add", "--max-key-bytes", "20", "f.bb", "keys.txt");
        expect_fail(&r, 1, j ? "add -j 2" : "add");
        cr_assert_not_null(strstr(r.err, msg), "add%s: '%s'", j ? " -j 2" : "", r.err);
        cr_assert_eq(stat("f.bb", &st1), 0);
        cr_assert(st0.st_ino == st1.st_ino && st0.st_mtime == st1.st_mtime,
                  "add%s replaced the filter after an error", j ? " -j 2" : "");
        run_free(&r);
    }
}

Test(keyreader, read_ahead_keeps_messages_in_order, .timeout = 240) {
    check_message_order(100000); /* chunks begin at 65,536 (-j 1), 0 (-j 2), 0 (-j 3) */
    check_message_order(150000); /* 131,072 (-j 1, -j 2), 0 (-j 3) */
}
