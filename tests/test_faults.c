/* SPDX-License-Identifier: MIT */
/*
 * test_faults.c - the blockbloom CLI (BB_CLI) under faults, as a separate program:
 *  - SIGKILL at random moments of `build -o F` and `add F` (50 trials each): F is afterwards
 *    always either the old complete file or the new complete file, byte for byte; temporary
 *    files a kill leaves behind are named F.tmp.XXXXXX (recognisable) and harmless: a later
 *    build, add and query succeed with them present;
 *  - a full file system (a 64 KiB tmpfs), a read-only one (remounted ro), a path whose parent
 *    is a regular file, and a path that is a directory: exit 1 with the system's reason in the
 *    message, the old file intact and no temporary file left. The tmpfs checks need mount(2)
 *    (root with CAP_SYS_ADMIN); without it they are skipped, and say so;
 *  - a capacity that cannot be allocated, with and without an address-space limit
 *    (RLIMIT_AS, what `ulimit -v` sets), in the CLI and the library: "out of memory", exit 1,
 *    no crash; a capacity beyond 2^56 bits: usage error, exit 2; keys held in memory
 *    (build without -n, network entries) beyond a quarter of that limit, every byte counted,
 *    or beyond what the smallest limits leave: exit 1, a message naming the way out, no file,
 *    never an entry skipped as a bad line; one streamed key (a raised --max-key-bytes) past
 *    that quarter: the same;
 *  - small versions of scripts/stress-cli.sh: many empty lines, non-UTF-8 bytes and NUL bytes
 *    in line mode, a 4 MiB single-line key.
 * Expected filters are the files of complete runs of the same commands (the CLI's output is
 * a function of its input alone), and expected keys are the bytes this file writes.
 * Writes to stdout on a full device (/dev/full) are covered by test_cli.c.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blockbloom.h"
#include "testutil.h"

#ifndef BB_CLI
#error "BB_CLI (path of the blockbloom binary) must be defined by the build"
#endif

/* ASan reserves terabytes of address space for its shadow memory, so a program built with it
 * cannot start under a small RLIMIT_AS: those checks only run in non-ASan builds. */
#if defined(__SANITIZE_ADDRESS__)
#define BB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BB_ASAN 1
#endif
#endif
/* Helpers of those checks only: unused, not dead, in an ASan build. */
#define NON_ASAN_HELPER static __attribute__((unused))

/* ---- Working directory (one per test; Criterion runs tests in parallel) ------------------- */

static char workdir[64];

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static void enter_workdir(void) {
    strcpy(workdir, "/tmp/bb_test_faults_XXXXXX");
    cr_assert_not_null(mkdtemp(workdir), "mkdtemp failed");
    cr_assert_eq(chdir(workdir), 0);
}

static void leave_workdir(void) {
    umount2("mnt", MNT_DETACH); /* a tmpfs test that failed half-way; harmless otherwise */
    if (chdir("/") == 0) nftw(workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(faults, .init = enter_workdir, .fini = leave_workdir);

/* ---- Files ------------------------------------------------------------------------------- */

static void write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* Whole file into a new buffer (NUL-terminated, not counted), or NULL if it cannot be read. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
        if ((n += got) == cap - 1) cr_assert_not_null(buf = realloc(buf, cap *= 2));
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static bool same_file(const char *path, const char *bytes, size_t len) {
    size_t n;
    char *now = read_file(path, &n);
    bool same = now && n == len && memcmp(now, bytes, len) == 0;
    free(now);
    return same;
}

/* Keys "<tag>-<i>\n" for i < n, written to path. */
static void write_keys(const char *path, const char *tag, size_t n) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s-%zu\n", tag, i);
    cr_assert_eq(fclose(f), 0);
}

/* Entries of dir whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot list %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* ---- Running the CLI ------------------------------------------------------------------------ */

typedef struct run_opts {
    const char *in;         /* stdin file; NULL = /dev/null */
    rlim_t as_limit;        /* RLIMIT_AS in bytes; 0 = unchanged */
    rlim_t data_limit;      /* RLIMIT_DATA (`ulimit -d`) in bytes; 0 = unchanged */
} run_opts;

/* Start BB_CLI argv[] with stdout to /dev/null and stderr to "err.txt"; returns its pid. */
static pid_t start(const char *const *argv, run_opts o) {
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
    if (pid == 0) {
        int in = open(o.in ? o.in : "/dev/null", O_RDONLY);
        int out = open("/dev/null", O_WRONLY);
        int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0) _exit(125);
        dup2(in, 0), dup2(out, 1), dup2(err, 2);
        if (o.as_limit) {
            struct rlimit rl = {o.as_limit, o.as_limit};
            if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(126);
        }
        if (o.data_limit) {
            struct rlimit rl = {o.data_limit, o.data_limit};
            if (setrlimit(RLIMIT_DATA, &rl) != 0) _exit(126);
        }
        execv(BB_CLI, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Wait for pid; its exit status, or 128 + signal. */
static int finish(pid_t pid) {
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run to completion; returns the exit status, and *err (may be NULL) gets stderr. */
static int run(char **err, run_opts o, const char *const *argv) {
    int status = finish(start(argv, o));
    size_t n;
    if (err) cr_assert_not_null(*err = read_file("err.txt", &n));
    return status;
}
#define ARGV(...) ((const char *const[]){BB_CLI, __VA_ARGS__, NULL})
#define RUN(err, ...) run(err, (run_opts){0}, ARGV(__VA_ARGS__))

/* Exit 1, a "blockbloom: " message that contains `reason`, no crash. */
static void expect_error(int status, const char *err, const char *reason, const char *what) {
    cr_expect_eq(status, 1, "%s: exit %d, want 1; stderr: %s", what, status, err);
    cr_expect(strncmp(err, "blockbloom: ", 12) == 0, "%s: message '%s'", what, err);
    cr_expect(strstr(err, reason) != NULL, "%s: message '%s' lacks '%s'", what, err, reason);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ============================================================================================
 * SIGKILL at random moments
 * ========================================================================================== */

#define KILL_TRIALS 50

/* Runs argv KILL_TRIALS times, killing it after a delay drawn uniformly from [0, 1.5 T) where
 * T is the time of a complete run (so that some runs finish and kills land in every phase:
 * reading, adding, writing the temporary file, fsync, rename). Before each trial F is reset
 * to `old`; after it F must be `old` or `fresh` exactly, and only F.tmp.* files may have
 * been added to the directory. Returns how many temporary files were left. */
static int kill_trials(const char *const *argv, const char *f, const char *old, size_t old_len,
                       const char *fresh, size_t fresh_len, double t_full) {
    uint64_t rng = 20240601;
    int n_old = 0, n_new = 0;
    for (int i = 0; i < KILL_TRIALS; i++) {
        write_bytes(f, old, old_len);
        double delay = (double)(tu_splitmix64(&rng) >> 11) / 9007199254740992.0 * 1.5 * t_full;
        pid_t pid = start(argv, (run_opts){0});
        struct timespec d = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
        nanosleep(&d, NULL);
        kill(pid, SIGKILL);
        int status = finish(pid);
        cr_assert(status == 0 || status == 128 + SIGKILL, "trial %d: exit %d", i, status);
        bool is_old = same_file(f, old, old_len), is_new = same_file(f, fresh, fresh_len);
        cr_assert(is_old || is_new, "trial %d (kill after %.1f ms): %s is neither the old nor "
                  "the new file", i, delay * 1e3, f);
        bb_filter *loaded = NULL;
        cr_assert_eq(bb_load(&loaded, f), BB_OK, "trial %d", i);
        bb_free(loaded);
        n_old += is_old;
        n_new += is_new;
    }
    cr_log_info("%s: %d kills left the old file, %d the new one", argv[1], n_old, n_new);
    /* Both outcomes must have happened, or the kills did not cover the run. */
    cr_expect_gt(n_old, 0, "no kill landed before the rename");
    cr_expect_gt(n_new, 0, "every kill landed before the rename");
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.tmp.", f);
    return count_prefixed(".", prefix);
}

/* Every entry is one of `known`, or a temporary file of f (f.tmp. plus 6 characters). */
static void expect_only_known_files(const char *f, const char *const *known, size_t n_known) {
    DIR *d = opendir(".");
    cr_assert_not_null(d);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.tmp.", f);
    for (struct dirent *e; (e = readdir(d));) {
        bool ok = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
        for (size_t i = 0; i < n_known; i++) ok |= strcmp(e->d_name, known[i]) == 0;
        ok |= strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
              strlen(e->d_name) == strlen(prefix) + 6;
        cr_expect(ok, "unexpected file '%s' after the kills", e->d_name);
    }
    closedir(d);
}

/* A later run succeeds with the stale temporary files present, and the filter answers. */
static void expect_later_runs_work(const char *f) {
    char *err;
    int st = RUN(&err, "build", "-n", "1000", "-o", f, "keys_a.txt");
    cr_expect_eq(st, 0, "build after the kills: %s", err);
    free(err);
    st = RUN(&err, "add", f, "keys_b.txt");
    cr_expect_eq(st, 0, "add after the kills: %s", err);
    free(err);
    bb_filter *loaded = NULL;
    cr_assert_eq(bb_load(&loaded, f), BB_OK);
    cr_expect(bb_contains(loaded, "a-7", 3) && bb_contains(loaded, "b-7", 3));
    bb_free(loaded);
}

/* The kill trials of `what` (a run of argv that turns f.bb from old into fresh), then what
 * they may leave behind: f.bb, the inputs and recognisable temporary files that later runs
 * work beside. Frees old and fresh. */
static void kill_and_check(const char *what, const char *const *argv, char *old, size_t old_len,
                           char *fresh, size_t new_len, double t_full) {
    int stale = kill_trials(argv, "f.bb", old, old_len, fresh, new_len, t_full);
    cr_log_info("%s: %d temporary files left by %d kills (run: %.0f ms)", what, stale,
                KILL_TRIALS, t_full * 1e3);
    const char *const known[] = {"keys_a.txt", "keys_b.txt", "f.bb", "err.txt"};
    expect_only_known_files("f.bb", known, 4);
    expect_later_runs_work("f.bb");
    free(old);
    free(fresh);
}

Test(faults, sigkill_during_build_leaves_old_or_new_file) {
    write_keys("keys_a.txt", "a", 1000);
    write_keys("keys_b.txt", "b", 100000);
    const char *const *argv = ARGV("build", "-n", "100000", "-o", "f.bb", "keys_b.txt");
    /* The new file: a complete run. The old one: a different, smaller filter. */
    double t0 = now_s();
    cr_assert_eq(run(NULL, (run_opts){0}, argv), 0);
    double t_full = now_s() - t0;
    size_t new_len, old_len;
    char *fresh = read_file("f.bb", &new_len);
    cr_assert_eq(RUN(NULL, "build", "-o", "f.bb", "keys_a.txt"), 0);
    char *old = read_file("f.bb", &old_len);
    cr_assert(old && fresh);

    kill_and_check("build", argv, old, old_len, fresh, new_len, t_full);
}

Test(faults, sigkill_during_add_leaves_old_or_new_file) {
    write_keys("keys_a.txt", "a", 1000);
    write_keys("keys_b.txt", "b", 100000);
    cr_assert_eq(RUN(NULL, "build", "-n", "150000", "-o", "f.bb", "keys_a.txt"), 0);
    size_t old_len, new_len;
    char *old = read_file("f.bb", &old_len);
    const char *const *argv = ARGV("add", "f.bb", "keys_b.txt");
    double t0 = now_s();
    cr_assert_eq(run(NULL, (run_opts){0}, argv), 0);
    double t_full = now_s() - t0;
    char *fresh = read_file("f.bb", &new_len);
    cr_assert(old && fresh);

    kill_and_check("add", argv, old, old_len, fresh, new_len, t_full);
}

/* ============================================================================================
 * Full, read-only and impossible destinations
 * ========================================================================================== */

/* A 64 KiB tmpfs at ./mnt, or false (and a skip notice) where mount(2) is not allowed. */
static bool mount_small_tmpfs(void) {
    cr_assert_eq(mkdir("mnt", 0755), 0);
    if (mount("tmpfs", "mnt", "tmpfs", 0, "size=64k") != 0) {
        tu_skip("faults: cannot mount a tmpfs (%s): full-disk and read-only checks not run",
                strerror(errno));
        return false;
    }
    return true;
}

/* Fills the file system holding `path` with one file, to the last byte it takes. */
static void fill_up(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    static const char zeros[4096];
    while (write(fd, zeros, sizeof zeros) > 0) continue;
    while (write(fd, zeros, 1) > 0) continue;
    cr_assert_eq(errno, ENOSPC);
    close(fd);
}

/* build and add onto `f` fail with `reason`, f keeps `old`, and no temp file is left. */
static void expect_refused(const char *f, const char *old, size_t old_len, const char *reason) {
    char *err;
    int st = RUN(&err, "build", "-n", "100000", "-o", f, "keys.txt");
    expect_error(st, err, reason, "build");
    free(err);
    st = RUN(&err, "add", f, "keys.txt");
    expect_error(st, err, reason, "add");
    free(err);
    cr_expect(same_file(f, old, old_len), "%s changed", f);
    cr_expect_eq(count_prefixed("mnt", "f.bb.tmp."), 0, "a temporary file was left");
}

Test(faults, full_and_read_only_file_systems_keep_the_old_file) {
    write_keys("keys.txt", "k", 20000);
    if (!mount_small_tmpfs()) return;
    /* A small filter fits; a 100000-key one (~120 KB) does not. */
    int st = RUN(NULL, "build", "-n", "10", "-o", "mnt/f.bb", "keys.txt");
    cr_expect_eq(st, 0);
    size_t old_len = 0;
    char *old = read_file("mnt/f.bb", &old_len);
    cr_expect_not_null(old);
    if (old) {
        char *err;
        st = RUN(&err, "build", "-n", "100000", "-o", "mnt/f.bb", "keys.txt");
        expect_error(st, err, "No space left on device", "build larger than the disk");
        free(err);
        fill_up("mnt/filler"); /* now even the small filter's temp file cannot be written */
        expect_refused("mnt/f.bb", old, old_len, "No space left on device");
        cr_expect_eq(unlink("mnt/filler"), 0);
        cr_expect_eq(mount(NULL, "mnt", NULL, MS_REMOUNT | MS_RDONLY, NULL), 0,
                     "remount read-only: %s", strerror(errno));
        expect_refused("mnt/f.bb", old, old_len, "Read-only file system");
        bb_filter *loaded = NULL;
        cr_expect_eq(bb_load(&loaded, "mnt/f.bb"), BB_OK);
        bb_free(loaded);
    }
    free(old);
    cr_expect_eq(umount("mnt"), 0, "umount: %s", strerror(errno));
}

Test(faults, parent_is_a_regular_file) {
    write_keys("keys.txt", "k", 10);
    write_bytes("plain", "x", 1);
    char *err;
    int st = RUN(&err, "build", "-o", "plain/f.bb", "keys.txt");
    expect_error(st, err, "Not a directory", "build under a regular file");
    free(err);
    st = RUN(&err, "add", "plain/f.bb", "keys.txt");
    expect_error(st, err, "plain/f.bb", "add under a regular file");
    free(err);
    cr_expect(same_file("plain", "x", 1));
}

Test(faults, path_is_a_directory) {
    write_keys("keys.txt", "k", 10);
    cr_assert_eq(mkdir("dir.bb", 0755), 0);
    static const char *const cmds[][4] = {
        {"build", "-o", "dir.bb", "keys.txt"}, {"add", "dir.bb", "keys.txt", NULL},
        {"query", "dir.bb", "keys.txt", NULL}, {"info", "dir.bb", NULL, NULL}};
    for (size_t i = 0; i < 4; i++) {
        char *err;
        int st = run(&err, (run_opts){0},
                     (const char *const[]){BB_CLI, cmds[i][0], cmds[i][1], cmds[i][2], cmds[i][3], NULL});
        expect_error(st, err, "dir.bb", cmds[i][0]);
        cr_expect(strstr(err, "Is a directory") != NULL, "%s: '%s' does not say why", cmds[i][0], err);
        free(err);
    }
    struct stat sb;
    cr_expect(stat("dir.bb", &sb) == 0 && S_ISDIR(sb.st_mode), "the directory was replaced");
    cr_expect_eq(count_prefixed("dir.bb", ""), 2, "files appeared inside the directory");
    cr_expect_eq(count_prefixed(".", "dir.bb.tmp."), 0, "a temporary file was left");
}

/* ============================================================================================
 * Memory
 * ========================================================================================== */

/* 10^14 keys at 1%: about 9.6e14 bits (120 TB), under the 2^56-bit limit, so the request is
 * valid and only the allocation can fail: exit 1, "out of memory", no file. */
Test(faults, unallocatable_capacity_is_out_of_memory) {
    write_keys("keys.txt", "k", 10);
    static const char *const kinds[] = {"blocked", "classic", "counting"};
    for (size_t i = 0; i < 3; i++) {
        char *err;
        int st = RUN(&err, "build", "--kind", kinds[i], "-n", "100000000000000", "-o", "f.bb",
                     "keys.txt");
        expect_error(st, err, "out of memory", kinds[i]);
        free(err);
        cr_expect_eq(access("f.bb", F_OK), -1, "%s: a file was written", kinds[i]);
    }
    char *err;
    int st = RUN(&err, "build", "-n", "100000000000000000", "-p", "1e-9", "-o", "f.bb", "keys.txt");
    cr_expect_eq(st, 2, "beyond 2^56 bits: exit %d, want 2 (usage); %s", st, err);
    cr_expect(strstr(err, "too large") != NULL, "message: %s", err);
    free(err);
}

Test(faults, address_space_limit_gives_out_of_memory) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    /* CLI: 10^9 keys at 1% need ~1.2 GB; the limit is 256 MiB. */
    write_keys("keys.txt", "k", 10);
    char *err;
    int st = run(&err, (run_opts){.as_limit = 256u << 20},
                 ARGV("build", "-n", "1000000000", "-o", "f.bb", "keys.txt"));
    expect_error(st, err, "out of memory", "build under RLIMIT_AS");
    free(err);
    cr_expect_eq(access("f.bb", F_OK), -1, "a file was written");

    /* Library, in a child under the same limit: every kind reports BB_E_NOMEM and NULL. */
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        struct rlimit rl = {256u << 20, 256u << 20};
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(100);
        static const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_COUNTING};
        for (int i = 0; i < 3; i++) {
            bb_filter *f = (bb_filter *)&rl; /* must be set to NULL */
            if (bb_create_for(&f, kinds[i], 1000000000, 0.01, 0) != BB_E_NOMEM || f) _exit(101 + i);
        }
        bb_filter *small = NULL;
        if (bb_create_for(&small, BB_BLOCKED, 1000, 0.01, 0) != BB_OK) _exit(110);
        bb_free(small);
        _exit(0);
    }
    cr_expect_eq(finish(pid), 0, "library under RLIMIT_AS: 101-103 = kind that did not report "
                 "BB_E_NOMEM, 110 = a small filter failed");
#endif
}

/* Addresses 10.x.y.z, one per line, for i < n. */
NON_ASAN_HELPER void write_addresses(const char *path, size_t n) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "10.%zu.%zu.%zu\n", (i >> 16) & 255, (i >> 8) & 255, i & 255);
    cr_assert_eq(fclose(f), 0);
}

/* Without -n every key is held until the last one is read, and network entries always are.
 * Past a quarter of the memory available (here of a 128 MiB address-space limit: 32 MiB)
 * the build fails with a message, naming -n for plain keys, instead of growing until the
 * OOM killer ends it (overcommit would let it grow past the machine's memory): an endless
 * input of empty keys (-0 from /dev/zero), 3M CIDR entries. Under the same limit 1M empty
 * keys and 1M entries still build. */
Test(faults, held_keys_beyond_the_memory_budget_fail_with_a_message, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    const rlim_t limit = 128u << 20;
    char *err;
    int st = run(&err, (run_opts){.in = "/dev/zero", .as_limit = limit},
                 ARGV("build", "-0", "-o", "f.bb"));
    expect_error(st, err, "the keys read so far take more than ", "build -0 < /dev/zero");
    cr_expect(strstr(err, "give -n") != NULL, "no hint of -n: %s", err);
    free(err);
    cr_expect_eq(access("f.bb", F_OK), -1, "a file was written");
    cr_expect_eq(count_prefixed(".", "f.bb.tmp"), 0, "a temporary file was left behind");

    write_addresses("many.txt", 3000000);
    st = run(&err, (run_opts){.as_limit = limit}, ARGV("build", "--keys", "cidr", "-o", "f.bb",
                                                       "many.txt"));
    expect_error(st, err, "the entries read so far take more than ", "build --keys cidr");
    free(err);
    cr_expect_eq(access("f.bb", F_OK), -1, "a file was written");

    FILE *z = fopen("empty-keys", "w");
    cr_assert_not_null(z);
    for (int i = 0; i < 1000000; i++) fputc('\0', z);
    cr_assert_eq(fclose(z), 0);
    st = run(&err, (run_opts){.as_limit = limit}, ARGV("build", "-0", "-o", "f.bb", "empty-keys"));
    cr_expect_eq(st, 0, "1M empty keys under the limit: exit %d; %s", st, err);
    free(err);
    write_addresses("some.txt", 1000000);
    st = run(&err, (run_opts){.as_limit = limit}, ARGV("build", "--keys", "cidr", "-o", "g.bb",
                                                       "some.txt"));
    cr_expect_eq(st, 0, "1M entries under the limit: exit %d; %s", st, err);
    free(err);
#endif
}

/* demo --data holds every name of the file, as build without -n holds its keys: 3M names
 * (13 bytes + 8 each, more than the 32 MiB budget of a 128 MiB limit) fail part 2 with the
 * budget's message, exit 1; --quick reads only the first 200,000 and passes under the same
 * limit. */
Test(faults, demo_names_beyond_the_memory_budget_fail_with_a_message, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    write_keys("names.txt", "name", 3000000);
    char *err;
    int st = run(&err, (run_opts){.as_limit = 128u << 20},
                 ARGV("demo", "--quick", "--data", "names.txt"));
    cr_expect_eq(st, 0, "demo --quick under the limit: exit %d; %s", st, err);
    free(err);
    st = run(&err, (run_opts){.as_limit = 128u << 20}, ARGV("demo", "--data", "names.txt"));
    expect_error(st, err, "read so far take more than 32 MiB", "demo --data of 3M names");
    free(err);
#endif
}

/* f.bb built from the one key line `keys` with option `opt` `val`; returns its bytes (*len). */
NON_ASAN_HELPER char *built_filter(const char *keys, const char *opt, const char *val,
                                  size_t *len) {
    write_bytes("one.txt", keys, strlen(keys));
    cr_assert_eq(RUN(NULL, "build", opt, val, "-o", "f.bb", "one.txt"), 0);
    char *old = read_file("f.bb", len);
    cr_assert_not_null(old);
    return old;
}

/* The run (status st, stderr err, freed here) failed with `reason`, f.bb still holds
 * old[0 .. len) and no temporary file of it was left. */
static void expect_failed_unchanged(int st, char *err, const char *reason, const char *old,
                                    size_t len, const char *what) {
    expect_error(st, err, reason, what);
    free(err);
    cr_expect(same_file("f.bb", old, len), "%s: f.bb was changed", what);
    cr_expect_eq(count_prefixed(".", "f.bb.tmp"), 0, "%s: a temporary file was left", what);
}

/* Build without -n under a 128 MiB address-space limit, held-keys budget 32 MiB = 33554432
 * bytes of key bytes plus 8 per offset (n keys have n + 1). Exit 0 expected, or exit 1
 * with the budget's message, an old f.bb byte for byte as it was and no temporary file. */
NON_ASAN_HELPER void expect_held_build(bool fits, const char *what, const char *in,
                                       const char *const *argv) {
    static const char old[] = "not a filter, and must stay so\n";
    write_bytes("f.bb", old, sizeof old - 1);
    char *err;
    int st = run(&err, (run_opts){.in = in, .as_limit = 128u << 20}, argv);
    if (!fits) {
        expect_failed_unchanged(st, err, "the keys read so far take more than 32 MiB", old,
                                sizeof old - 1, what);
        return;
    }
    cr_expect_eq(st, 0, "%s: exit %d; %s", what, st, err);
    cr_expect_eq(count_prefixed(".", "f.bb.tmp"), 0, "%s: a temporary file was left", what);
    free(err);
}

/* A sparse file of `len` zero bytes: in line mode one key of `len` NUL bytes. */
NON_ASAN_HELPER void write_zeros(const char *path, off_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0 && ftruncate(fd, len) == 0 && close(fd) == 0, "%s", path);
}

/* The budget bounds every byte held, the key being read included, at its exact edge: one key
 * of 33554416 bytes (+ 2 offsets = the budget) builds and one byte more fails; so does an
 * endless line with the key limit raised past the budget (it was "out of memory" once
 * realloc failed, and without a limit it would have grown to the machine's memory). Keys of
 * 7 bytes take 15 each, plus the first offset: 2236961 of them fit (33554423 bytes), 2236962
 * do not (33554438; they were let grow to 4194304 keys, 60 MiB, as if offsets took no
 * memory). -0 empty keys take 8 each: 4194303 fit, 4194304 do not. */
Test(faults, the_held_keys_budget_counts_every_byte_held, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    write_zeros("edge", 33554416);
    write_zeros("edge+1", 33554417);
    expect_held_build(true, "a key at the budget", NULL,
                      ARGV("build", "--max-key-bytes", "1G", "-o", "f.bb", "edge"));
    expect_held_build(false, "a key 1 byte over the budget", NULL,
                      ARGV("build", "--max-key-bytes", "1G", "-o", "f.bb", "edge+1"));
    expect_held_build(false, "an endless line, key limit 1G", "/dev/zero",
                      ARGV("build", "--max-key-bytes", "1G", "-o", "f.bb"));
    FILE *f = fopen("seven.txt", "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < 2236961; i++) fprintf(f, "%07zu\n", i);
    cr_assert_eq(fclose(f), 0);
    write_bytes("one-more.txt", "abcdefg\n", 8);
    expect_held_build(true, "2236961 keys of 7 bytes", NULL,
                      ARGV("build", "-o", "f.bb", "seven.txt"));
    expect_held_build(false, "2236962 keys of 7 bytes", NULL,
                      ARGV("build", "-o", "f.bb", "seven.txt", "one-more.txt"));
    write_zeros("empties", 4194303);
    write_zeros("one-empty", 1);
    expect_held_build(true, "4194303 empty keys", NULL,
                      ARGV("build", "-0", "-o", "f.bb", "empties"));
    expect_held_build(false, "4194304 empty keys", NULL,
                      ARGV("build", "-0", "-o", "f.bb", "empties", "one-empty"));
#endif
}

/* Commands that stream their keys hold one key at a time, but with --max-key-bytes raised past
 * the memory that key alone could outgrow it: an endless line (/dev/zero) under a 128 MiB
 * limit, key limit 1G, stops at the budget (32 MiB) with a message naming the line, instead
 * of "out of memory" once realloc failed (and, without a limit, the OOM killer). add and
 * remove leave the (counting) filter as it was. */
Test(faults, a_streamed_key_past_the_budget_fails_with_a_message, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    size_t len;
    char *old = built_filter("a\n", "--kind", "counting", &len);
    static const char *const what[] = {"query", "add", "build -n", "remove"};
    for (int i = 0; i < 4; i++) {
        const char *const *argv =
            i == 0   ? ARGV("query", "--max-key-bytes", "1G", "f.bb")
            : i == 1 ? ARGV("add", "--max-key-bytes", "1G", "f.bb")
            : i == 2 ? ARGV("build", "-n", "10", "--max-key-bytes", "1G", "-o", "g.bb")
                     : ARGV("remove", "--max-key-bytes", "1G", "f.bb");
        char *err;
        int st = run(&err, (run_opts){.in = "/dev/zero", .as_limit = 128u << 20}, argv);
        expect_failed_unchanged(st, err, "(standard input):1: line longer than 32 MiB, a "
                                "quarter of the memory available to this process", old, len,
                                what[i]);
        cr_expect_eq(access("g.bb", F_OK), -1, "%s: g.bb was written", what[i]);
    }
    free(old);
#endif
}

/* add to a filter built with --keys holds its entries as build --keys does: the 3M CIDR
 * entries that fail that build under a 128 MiB limit (above) fail the add with the budget's
 * message and leave the filter byte for byte as it was, no temporary file. */
Test(faults, add_of_too_many_entries_leaves_the_filter, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    size_t len;
    char *old = built_filter("10.0.0.0/8\n", "--keys", "cidr", &len);
    write_addresses("many.txt", 3000000);
    char *err;
    int st = run(&err, (run_opts){.as_limit = 128u << 20}, ARGV("add", "f.bb", "many.txt"));
    expect_failed_unchanged(st, err, "the entries read so far take more than 32 MiB", old, len,
                            "add of 3M entries");
    free(old);
#endif
}

/* `ulimit -d` (RLIMIT_DATA, which also bounds malloc's mmap since Linux 4.7) limits the
 * held keys as `ulimit -v` does: under 128 MiB the budget is 32 MiB. It used to be ignored:
 * realloc failed first, "out of memory", as if the limit were unknown. */
Test(faults, a_data_limit_bounds_the_held_keys_too, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_DATA checks need a build without AddressSanitizer");
#else
    const char *const *argv[] = {ARGV("build", "-0", "-o", "f.bb"),
                                 ARGV("build", "--max-key-bytes", "1G", "-o", "f.bb")};
    for (int i = 0; i < 2; i++) {
        char *err;
        int st = run(&err, (run_opts){.in = "/dev/zero", .data_limit = 128u << 20}, argv[i]);
        expect_error(st, err, "the keys read so far take more than 32 MiB", argv[i][2]);
        free(err);
        cr_expect_eq(access("f.bb", F_OK), -1, "a file was written");
    }
#endif
}

/* ---- Control groups laid out for BB_CGROUP_ROOT -------------------------------------------- */

/* mkdir -p, then `text` into dir/name. */
NON_ASAN_HELPER void put_cgroup_file(const char *dir, const char *name, const char *text) {
    char path[4096];
    for (size_t i = 1; dir[i - 1]; i++) /* each prefix that ends before a '/' or at the end */
        if (dir[i] == '/' || dir[i] == '\0') {
            snprintf(path, sizeof path, "%.*s", (int)i, dir);
            cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path,
                      strerror(errno));
        }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_bytes(path, text, strlen(text));
}

/* In a container or a systemd unit with MemoryMax, the control group's limit ends the process
 * (the cgroup OOM killer), whatever MemAvailable says of the machine: it bounds the held keys
 * as ulimit -v does. The groups this process is in (/proc/self/cgroup; the CLI run from here
 * is in the same ones) are laid out under cg/ (BB_CGROUP_ROOT, as tests cannot create
 * control groups) with a 128 MiB limit, for cgroup v2 (memory.max) and v1
 * (memory/.../memory.limit_in_bytes), in the group itself and, with no limit of its own
 * ("max", v1's 2^63 - 4096), in its parent: the budget is 32 MiB each time. A 1 GiB
 * RLIMIT_AS keeps a run that ignored the groups at 256 MiB (it used to). */
Test(faults, a_control_group_limit_bounds_the_held_keys, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) {
        tu_skip("faults: no /proc/self/cgroup, no control groups to lay out");
        return;
    }
    char cwd[1024], root[1100], line[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(root, sizeof root, "%s/cg", cwd);
    cr_assert_eq(setenv("BB_CGROUP_ROOT", root, 1), 0);
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c = strchr(line, ':'), *path = c ? strchr(c + 1, ':') + 1 : NULL;
        bool v2 = c && c + 1 == path - 1 && line[0] == '0';
        if (!path || (!v2 && !strstr(c, "memory")) || path[0] != '/') continue;
        const char *file = v2 ? "memory.max" : "memory.limit_in_bytes";
        const char *none = v2 ? "max\n" : "9223372036854771712\n";
        char group[4096], parent[4096];
        snprintf(group, sizeof group, "%s%s%s", root, v2 ? "" : "/memory",
                 strcmp(path, "/") == 0 ? "" : path);
        snprintf(parent, sizeof parent, "%s", group);
        char *slash = strrchr(parent + strlen(root), '/');
        for (int where = 0; where < 2; where++) {
            if (where == 1 && !(slash && slash > parent + strlen(root) + (v2 ? 0 : 7)))
                continue; /* the group is the root: no parent */
            nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
            put_cgroup_file(group, file, where == 0 ? "134217728\n" : none);
            if (where == 1) {
                *slash = '\0';
                put_cgroup_file(parent, file, "134217728\n");
                *slash = '/';
            }
            char *err;
            int st = run(&err, (run_opts){.in = "/dev/zero", .as_limit = 1u << 30},
                         ARGV("build", "-0", "-o", "f.bb"));
            char what[200];
            snprintf(what, sizeof what, "cgroup %s, limit on the %s", v2 ? "v2" : "v1 memory",
                     where ? "parent" : "group");
            expect_error(st, err, "the keys read so far take more than 32 MiB", what);
            free(err);
            cases++;
        }
    }
    fclose(f);
    cr_log_info("control groups: %d layouts", cases);
    cr_assert_gt(cases, 0, "no v2 or v1 memory group in /proc/self/cgroup");
#endif
}

/* The smallest address-space limit, in MiB, that `build` starts under. */
NON_ASAN_HELPER rlim_t smallest_start_mib(void) {
    write_bytes("one.txt", "a\n", 2);
    rlim_t mib = 8;
    while (mib < 128 && run(NULL, (run_opts){.as_limit = mib << 20},
                            ARGV("build", "-o", "one.bb", "one.txt")) != 0)
        mib++;
    cr_assert_lt(mib, 128, "build does not start under a 128 MiB limit");
    return mib;
}

/* Under the smallest address-space limits the CLI starts with (libraries take most of them),
 * a buffer's doubling fails before the budget is reached: the build must still say that -n
 * streams the keys, not only "out of memory" (seen from 19 to 26 MiB on 2026-12-01, x86-64
 * Debian 12). Each limit from the first one `build` runs under to 12 MiB more. */
Test(faults, held_keys_out_of_memory_names_the_way_out, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    rlim_t mib = smallest_start_mib();
    for (rlim_t end = mib + 12; mib <= end; mib++) {
        char *err;
        int st = run(&err, (run_opts){.in = "/dev/zero", .as_limit = mib << 20},
                     ARGV("build", "-0", "-o", "f.bb"));
        cr_expect_eq(st, 1, "%u MiB: exit %d; %s", (unsigned)mib, st, err);
        cr_expect(strstr(err, "give -n N (--capacity) to stream them instead") != NULL,
                  "%u MiB: %s", (unsigned)mib, err);
        free(err);
        cr_expect_eq(access("f.bb", F_OK), -1, "%u MiB: a file was written", (unsigned)mib);
        cr_expect_eq(count_prefixed(".", "f.bb.tmp"), 0, "%u MiB: a temporary file", (unsigned)mib);
    }
#endif
}

/* Network entries that memory cannot hold are not bad lines: `build --keys cidr
 * --skip-invalid` under the smallest limits used to warn "out of memory" for each entry past
 * the first realloc that failed, skip them and write a filter without them (exit 0: false
 * negatives); without --skip-invalid it tried every remaining line and blamed them as "bad
 * lines". 1.2M IPv4 entries hold 5 + 8 bytes each (docs/NETWORK.md, CIDR ranges), 15.6 MB, more than a
 * quarter of any limit below 59 MiB: exit 1, never a "bad line", no file. */
Test(faults, entries_out_of_memory_fail_the_build, .timeout = 120) {
#ifdef BB_ASAN
    tu_skip("faults: RLIMIT_AS checks need a build without AddressSanitizer");
#else
    write_addresses("entries.txt", 1200000);
    rlim_t mib = smallest_start_mib();
    cr_assert_lt(mib + 12, 59, "the CLI needs %u MiB to start", (unsigned)mib);
    for (rlim_t end = mib + 12; mib <= end; mib += 3) {
        for (int skip = 0; skip < 2; skip++) {
            char *err;
            run_opts o = {.as_limit = mib << 20};
            int st = skip ? run(&err, o, ARGV("build", "--keys", "cidr", "--skip-invalid", "-o",
                                              "f.bb", "entries.txt"))
                          : run(&err, o, ARGV("build", "--keys", "cidr", "-o", "f.bb",
                                              "entries.txt"));
            cr_expect_eq(st, 1, "%u MiB%s: exit %d; %.300s", (unsigned)mib,
                         skip ? ", --skip-invalid" : "", st, err);
            cr_expect(strstr(err, "bad line") == NULL, "%u MiB%s: %.300s", (unsigned)mib,
                      skip ? ", --skip-invalid" : "", err);
            free(err);
            cr_expect_eq(access("f.bb", F_OK), -1, "%u MiB: a file was written", (unsigned)mib);
        }
    }
#endif
}

/* ============================================================================================
 * Unusual key input (small versions of scripts/stress-cli.sh)
 * ========================================================================================== */

static bb_filter *load(const char *path) {
    bb_filter *f = NULL;
    cr_assert_eq(bb_load(&f, path), BB_OK, "cannot load %s", path);
    return f;
}

Test(faults, many_empty_lines_are_one_key_added_many_times) {
    enum { N = 200000 };
    char *lines = malloc(N);
    cr_assert_not_null(lines);
    memset(lines, '\n', N);
    write_bytes("empty.txt", lines, N);
    free(lines);
    cr_assert_eq(RUN(NULL, "build", "-o", "f.bb", "empty.txt"), 0);
    bb_filter *f = load("f.bb");
    bb_info info = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &info), BB_OK);
    cr_expect_eq(info.keys_added, N);
    cr_expect_eq(info.capacity, N);
    cr_expect(bb_contains(f, "", 0));
    /* One distinct key: k bits at most. */
    cr_expect_leq(info.bits_set, info.k);
    bb_free(f);
}

Test(faults, nul_and_non_utf8_bytes_are_key_bytes_in_line_mode) {
    static const char input[] = "\xff\xfe\xfd\n"       /* not UTF-8 */
                                "a\0b\n"               /* NUL inside */
                                "\0\n"                 /* a lone NUL */
                                "\xc3\x28\r\n"         /* invalid UTF-8 pair, CRLF */
                                "\x80";                /* continuation byte, no newline */
    write_bytes("odd.txt", input, sizeof input - 1);
    cr_assert_eq(RUN(NULL, "build", "-o", "f.bb", "odd.txt"), 0);
    bb_filter *f = load("f.bb");
    static const struct { const char *k; size_t len; } keys[] = {
        {"\xff\xfe\xfd", 3}, {"a\0b", 3}, {"\0", 1}, {"\xc3\x28", 2}, {"\x80", 1}};
    for (size_t i = 0; i < 5; i++) cr_expect(bb_contains(f, keys[i].k, keys[i].len), "key %zu", i);
    bb_info info = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &info), BB_OK);
    cr_expect_eq(info.keys_added, 5);
    /* The pieces a NUL or the CR would give if mishandled are (almost surely) absent. */
    cr_expect(!bb_contains(f, "a", 1) || !bb_contains(f, "\xc3\x28\r", 3));
    bb_free(f);
}

Test(faults, four_mib_single_line_key) {
    enum { LEN = 4 << 20 };
    char *key = malloc(LEN);
    cr_assert_not_null(key);
    uint64_t rng = 7;
    for (size_t i = 0; i < LEN; i++) {
        key[i] = (char)(tu_splitmix64(&rng) & 0xFF);
        if (key[i] == '\n') key[i] = ' ';
    }
    write_bytes("long.txt", key, LEN); /* no newline: the whole file is one key */
    cr_assert_eq(RUN(NULL, "build", "-o", "f.bb", "long.txt"), 0);
    bb_filter *f = load("f.bb");
    bool ends_cr = key[LEN - 1] == '\r'; /* a final CR would be stripped */
    cr_expect(bb_contains(f, key, ends_cr ? LEN - 1 : LEN));
    bb_info info = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &info), BB_OK);
    cr_expect_eq(info.keys_added, 1);
    bb_free(f);
    free(key);
}
