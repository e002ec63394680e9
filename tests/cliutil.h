/* SPDX-License-Identifier: MIT */
/*
 * cliutil.h - the harness of the command-line tests (test_cli.c, test_cli_usage.c): a fresh
 * mkdtemp working directory per test, file helpers, running BB_CLI (the path CMake passes)
 * with posix_spawn with stdin, stdout and stderr in files of that directory (no pipes, so no
 * pipe-buffer deadlock), the exit-status and message checks, and just enough JSON parsing to
 * check `info --json`. Header-only (static functions): each test file is its own executable.
 */
#ifndef BB_CLIUTIL_H
#define BB_CLIUTIL_H

#include <criterion/criterion.h>

#include "workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BB_CLI
#error "BB_CLI (path of the blockbloom binary) must be defined by the build"
#endif

extern char **environ;

/* ---- Working directory: workdir.h ---------------------------------------------------------- */

/* ---- Files ----------------------------------------------------------------------------------- */

static inline void write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static inline void write_text(const char *path, const char *text) {
    write_bytes(path, text, strlen(text));
}

/* Whole file, NUL-terminated (the NUL is not counted in *len). */
static char *read_bytes(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            buf = realloc(buf, cap *= 2);
            cr_assert_not_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static inline bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in a directory ("." and ".." excepted), and of those whose name holds
 * `part` (NULL: all). */
static inline int count_entries(const char *dir, const char *part) {
    int n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot list %s", dir);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!part || strstr(e->d_name, part)))
            n++;
    closedir(d);
    return n;
}

/* ---- Running the program --------------------------------------------------------------------- */

typedef struct run_result {
    int status;    /* exit status */
    char *out;     /* stdout (NUL-terminated) */
    size_t out_len;
    char *err;     /* stderr */
} run_result;

/* argv[] = BB_CLI, then args (NULL-terminated, without the program name), then NULL. */
static inline void make_argv(const char *const *args, const char *argv[32]) {
    size_t argc = 1;
    argv[0] = BB_CLI;
    for (; args[argc - 1]; argc++) {
        cr_assert_lt(argc, 31);
        argv[argc] = args[argc - 1];
    }
    argv[argc] = NULL;
}

/* Start BB_CLI with args (NULL-terminated, without the program name), stdin from in_fd
 * (close_fd >= 0 is closed in the child: the other end of a pipe), stdout to stdout_path and
 * stderr to .stderr; see wait_cli. */
static inline pid_t spawn_cli(int in_fd, int close_fd, const char *stdout_path,
                              const char *const *args) {
    const char *argv[32];
    make_argv(args, argv);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    if (close_fd >= 0) posix_spawn_file_actions_addclose(&fa, close_fd);
    posix_spawn_file_actions_addopen(&fa, 1, stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, ".stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, BB_CLI, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", BB_CLI, strerror(rc));
    return pid;
}

/* Wait for spawn_cli's run of command `cmd`: its exit status, stdout (read back from .stdout
 * unless it went to out_path) and stderr. */
static inline run_result wait_cli(pid_t pid, const char *cmd, const char *out_path) {
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_assert(WIFEXITED(ws), "blockbloom %s died (signal %d)", cmd,
              WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    run_result r = {.status = WEXITSTATUS(ws)};
    r.out = out_path ? strdup("") : read_bytes(".stdout", &r.out_len);
    r.err = read_bytes(".stderr", NULL);
    return r;
}

/* Run BB_CLI with args (NULL-terminated, without the program name). stdin gets in[0 .. in_len)
 * (empty when in is NULL); stdout goes to out_path (NULL: a file that is read back). */
static inline run_result run_io(const char *in, size_t in_len, const char *out_path,
                                const char *const *args) {
    write_bytes(".stdin", in ? in : "", in ? in_len : 0);
    int in_fd = open(".stdin", O_RDONLY);
    cr_assert_geq(in_fd, 0, "cannot open .stdin: %s", strerror(errno));
    pid_t pid = spawn_cli(in_fd, -1, out_path ? out_path : ".stdout", args);
    close(in_fd);
    return wait_cli(pid, args[0], out_path);
}

static inline size_t text_len(const char *s) { return s ? strlen(s) : 0; }

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
/* RUN(stdin text or NULL, arguments...) */
#define RUN(in, ...) run_io((in), text_len(in), NULL, ARGS(__VA_ARGS__))

static inline void run_free(run_result *r) {
    free(r->out);
    free(r->err);
}

/* Assert the run succeeded (exit 0). */
static inline void expect_ok(const run_result *r, const char *what) {
    cr_assert_eq(r->status, 0, "%s: exit %d, stderr: %s", what, r->status, r->err);
}

/* Assert exit `status` with a "blockbloom: " message on stderr. */
static inline void expect_fail(const run_result *r, int status, const char *what) {
    cr_assert_eq(r->status, status, "%s: exit %d, expected %d; stderr: %s", what, r->status,
                 status, r->err);
    cr_assert(strncmp(r->err, "blockbloom: ", 12) == 0, "%s: stderr is '%s'", what, r->err);
}

/* Start BB_CLI with args (NULL-terminated, without the program name) in the background, stdin
 * from /dev/null, stdout and stderr to /dev/null; returns its pid (see wait_ok). */
static inline pid_t spawn_bg(const char *const *args) {
    const char *argv[32];
    make_argv(args, argv);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, BB_CLI, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "cannot run %s: %s", BB_CLI, strerror(rc));
    return pid;
}

/* Wait for a spawn_bg process; assert it exited 0. */
static inline void wait_ok(pid_t pid, const char *what) {
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "%s failed (status 0x%x)", what, ws);
}

/* ---- JSON: just enough to check one flat object of strings and numbers ----------------------
 * (RFC 8259 grammar for numbers; strings here never contain escapes.) */

typedef struct jfield {
    char name[64];
    char value[96]; /* a string's content without quotes, or a number's text */
    bool is_string;
} jfield;

/* Length of the JSON number at p (RFC 8259, section 6), 0 if there is none. */
static inline size_t json_number(const char *p) {
    const char *s = p;
    if (*s == '-') s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9') s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return (size_t)(s - p);
}

/* Copy the string at *p (after its opening quote) into out; advance past the closing quote. */
static inline void json_string(const char **p, char *out, size_t cap) {
    const char *end = strchr(*p, '"');
    cr_assert_not_null(end, "unterminated JSON string");
    size_t n = (size_t)(end - *p);
    cr_assert_lt(n, cap, "JSON string too long");
    cr_assert_null(memchr(*p, '\\', n), "unexpected escape in JSON string");
    memcpy(out, *p, n);
    out[n] = '\0';
    *p = end + 1;
}

/* Parse `{"a":1,"b":"x"}\n` into fs; returns the number of fields. Fails the test on any
 * deviation from that shape. */
static inline size_t json_parse(const char *text, jfield *fs, size_t max) {
    const char *p = text;
    size_t n = 0;
    cr_assert_eq(*p++, '{', "JSON does not start with '{': %s", text);
    do {
        cr_assert_lt(n, max);
        jfield *f = &fs[n++];
        cr_assert_eq(*p++, '"', "expected a key at: %s", p - 1);
        json_string(&p, f->name, sizeof f->name);
        cr_assert_eq(*p++, ':', "expected ':' after \"%s\"", f->name);
        if (*p == '"') {
            p++;
            f->is_string = true;
            json_string(&p, f->value, sizeof f->value);
        } else {
            size_t len = json_number(p);
            cr_assert(len > 0 && len < sizeof f->value, "bad JSON value for \"%s\": %s", f->name,
                      p);
            memcpy(f->value, p, len);
            f->value[len] = '\0';
            f->is_string = false;
            p += len;
        }
    } while (*p == ',' && p++);
    cr_assert_eq(*p++, '}', "expected '}' at: %s", p - 1);
    cr_assert_str_eq(p, "\n", "trailing text after the JSON object");
    return n;
}

static const jfield *json_get(const jfield *fs, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(fs[i].name, name) == 0) return &fs[i];
    cr_assert_fail("JSON has no \"%s\"", name);
    return NULL;
}

/* Field `name` is `json`, written as in JSON: "\"classic\"" for a string, "7" for a number. */
static inline void json_expect(const jfield *fs, size_t n, const char *name, const char *json) {
    const jfield *f = json_get(fs, n, name);
    bool want_string = json[0] == '"';
    cr_assert_eq(f->is_string, want_string, "\"%s\" is%s a string", name,
                 f->is_string ? "" : " not");
    size_t len = strlen(json) - (want_string ? 2 : 0);
    cr_assert(strlen(f->value) == len && strncmp(f->value, json + want_string, len) == 0,
              "\"%s\" is %s, expected %s", name, f->value, json);
}

/* Every {name, json} pair of `want` (see json_expect). */
static inline void json_expect_all(const jfield *fs, size_t n, const char *const (*want)[2],
                            size_t count) {
    for (size_t i = 0; i < count; i++) json_expect(fs, n, want[i][0], want[i][1]);
}

static inline double json_double(const jfield *fs, size_t n, const char *name) {
    const jfield *f = json_get(fs, n, name);
    cr_assert(!f->is_string, "\"%s\" is not a number", name);
    return strtod(f->value, NULL);
}

/* info --json of `path`, parsed into fs. */
static inline size_t info_json(const char *path, jfield *fs, size_t max) {
    run_result r = RUN(NULL, "info", "--json", path);
    expect_ok(&r, "info --json");
    size_t n = json_parse(r.out, fs, max);
    run_free(&r);
    return n;
}

/* The number field `name` of FILTER's info --json is `text`. */
static inline void expect_info(const char *filter, const char *name, const char *text) {
    jfield fs[32];
    size_t n = info_json(filter, fs, 32);
    json_expect(fs, n, name, text);
}

/* `query FILTER` with `in` on stdin exits 0 and prints exactly `expected`. */
static inline void expect_query(const char *filter, const char *in, const char *expected) {
    run_result r = RUN(in, "query", filter);
    expect_ok(&r, "query");
    cr_assert_str_eq(r.out, expected, "query of '%s' printed '%s'", in, r.out);
    run_free(&r);
}

/* ---- Helpers for key files ---------------------------------------------------------------- */

/* Write n keys "<prefix><i>\n" to path; returns the text (caller frees). */
static inline char *make_keys(const char *path, const char *prefix, int n) {
    size_t cap = (size_t)n * 32 + 1, len = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    text[0] = '\0';
    for (int i = 0; i < n; i++) len += (size_t)snprintf(text + len, cap - len, "%s%d\n", prefix, i);
    write_bytes(path, text, len);
    return text;
}

/* Build path from the given keys text (stdin) with the default options. */
static inline void build_from(const char *path, const char *keys) {
    run_result r = RUN(keys, "build", "-o", path);
    expect_ok(&r, "build");
    run_free(&r);
}

/* A control-group memory limit for the CLI run from here: the cgroup v2 group of
 * /proc/self/cgroup laid out below ./cg with memory.max = limit, and BB_CGROUP_ROOT naming
 * ./cg (cgroup.c reads the limit there instead of /sys/fs/cgroup). false without a v2 line. */
static inline bool lay_out_cgroup_limit(const char *limit) {
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096], dir[9000], cwd[1024];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "0::/", 4) != 0) continue;
        cr_assert_not_null(getcwd(cwd, sizeof cwd));
        snprintf(dir, sizeof dir, "mkdir -p 'cg%s' && printf '%s\\n' > 'cg%s/memory.max'",
                 line + 3, limit, line + 3);
        cr_assert_eq(system(dir), 0);
        snprintf(dir, sizeof dir, "%s/cg", cwd);
        cr_assert_eq(setenv("BB_CGROUP_ROOT", dir, 1), 0);
        found = true;
    }
    if (f) fclose(f);
    return found;
}

#endif /* BB_CLIUTIL_H */
