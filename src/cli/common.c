/* SPDX-License-Identifier: MIT */
/*
 * common.c - what every blockbloom subcommand shares apart from the key reader: messages on
 * stderr (always "blockbloom: ..."), the usage-error convention (exit 2 with a pointer to
 * --help), standard output and error that wait on a non-blocking pipe, the final write check
 * on stdout, the BB_ISA warning, and strict parsers for option values. The parsers accept the whole text or nothing: strtoull alone would take " 12",
 * "-1" (as 2^64 - 1) and "12abc", and strtod would take "nan" and "0x1p-3".
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Messages ------------------------------------------------------------------------------ */

bool cli_progress_open;

/* While a filter file's lock is held (cli_lock_filter), messages are kept in memory and
 * written when it is released (cli_unlock): a stderr that nobody reads (a full pipe) then
 * stalls only this run, never the other writers of that file waiting for its lock. NULL:
 * messages go straight to stderr (no lock held, or no memory for the buffer). */
static FILE *held;
static char *held_text;
static size_t held_len, held_whole = SIZE_MAX; /* bytes of whole messages, if some is cut */

static void hold_messages(void) {
    if (!held) held = open_memstream(&held_text, &held_len);
}

static void release_messages(void) {
    if (!held) return;
    fclose(held);
    held = NULL;
    if (held_text) fwrite(held_text, 1, held_whole < held_len ? held_whole : held_len, stderr);
    free(held_text);
    held_text = NULL;
    held_whole = SIZE_MAX;
}

/* False if some of it could not be written (a memstream without memory for more does not
 * set its error flag). */
static bool put_message(FILE *to, const char *fmt, va_list ap) {
    return fputs("blockbloom: ", to) >= 0 && vfprintf(to, fmt, ap) >= 0 && fputc('\n', to) != EOF;
}

/* Every message and the progress line go out under this lock: a read-ahead thread (keys.c)
 * reports beside the command's own thread. */
static pthread_mutex_t message_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set on the thread that reads a chunk of keys (keys.c, cli_readahead) while it reads it: its
 * messages wait here until the command has printed that chunk's keys (cli_put_deferred), so
 * that they come after them, and never come at all for a chunk it stops before. */
static _Thread_local FILE *deferred;
static _Thread_local size_t deferred_whole = SIZE_MAX; /* bytes of whole messages in it */

size_t cli_defer_messages(FILE *to) {
    size_t whole = deferred_whole;
    deferred = to;
    deferred_whole = SIZE_MAX;
    return whole;
}

void cli_progress_lock(void) { pthread_mutex_lock(&message_lock); }
void cli_progress_unlock(void) { pthread_mutex_unlock(&message_lock); }

/* A message the buffer found no memory for is cut: the whole ones before it go out, then it,
 * and the rest straight to stderr as they come. The caller holds message_lock. */
/* Before a message, with message_lock held. What was printed before it goes first, as
 * error(3) (and so grep) does: in a file that takes both streams, query's keys before a bad
 * one, then its message. And it is not glued to the end of the progress line. */
static void message_begins(void) {
    if (!held) fflush(stdout);
    if (cli_progress_open) fputc('\n', stderr);
    cli_progress_open = false;
}

static void vmessage_locked(const char *fmt, va_list ap) {
    message_begins();
    long before = held ? ftell(held) : -1;
    va_list again;
    va_copy(again, ap);
    if (!put_message(held ? held : stderr, fmt, ap) && held) {
        held_whole = before > 0 ? (size_t)before : 0;
        release_messages();
        put_message(stderr, fmt, again);
    }
    va_end(again);
}

static void vmessage(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    long before = deferred && deferred_whole == SIZE_MAX ? ftell(deferred) : -1;
    if (deferred && deferred_whole == SIZE_MAX && !put_message(deferred, fmt, ap)) {
        deferred_whole = before > 0 ? (size_t)before : 0; /* the cut one is not written */
        deferred = NULL;
    }
    if (!deferred) { /* none held (or no memory left to hold it): now */
        pthread_mutex_lock(&message_lock);
        vmessage_locked(fmt, again);
        pthread_mutex_unlock(&message_lock);
    }
    va_end(again);
}

void cli_put_deferred(const char *text, size_t len) {
    if (!len) return;
    pthread_mutex_lock(&message_lock);
    message_begins();
    fwrite(text, 1, len, held ? held : stderr);
    pthread_mutex_unlock(&message_lock);
}

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

/* Held messages would keep the prompt from the user until the lock is released, that is
 * after the input it asks for: the run would look hung. It waits on the terminal anyway, so
 * writing to it now stalls no other writer any longer than the wait does. */
void cli_prompt(const char *fmt, ...) {
    pthread_mutex_lock(&message_lock); /* never deferred: the reader waits on the terminal */
    bool was_held = held != NULL;
    release_messages(); /* the messages before it first, in order */
    va_list ap;
    va_start(ap, fmt);
    vmessage_locked(fmt, ap);
    va_end(ap);
    if (was_held) hold_messages();
    pthread_mutex_unlock(&message_lock);
}

static void try_help(const char *cmd) {
    fprintf(stderr, "Try 'blockbloom %s%s--help' for more information.\n", cmd ? cmd : "",
            cmd ? " " : "");
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    try_help(cmd);
    return BB_EXIT_USAGE;
}

/* getopt_long has already printed "blockbloom: unrecognized option ..." (main.c hands every
 * subcommand argv[0] = "blockbloom", which is the prefix glibc uses); add the hint. */
int cli_bad_option(const char *cmd) {
    try_help(cmd);
    return BB_EXIT_USAGE;
}

/* For BB_E_IO the cause is errno's, so it leads ("No such file or directory", not
 * "input/output error (No such file or directory)"); a FIFO, socket or device, which the
 * library refuses to map or replace (errno ENODEV or EINVAL), is named as such. */
int cli_lib_error(const char *what, const char *path, bb_status s, int err) {
    struct stat st;
    char link[256];
    ssize_t len;
    if (s == BB_E_IO && err == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
        (len = readlink(path, link, sizeof link - 1)) >= 0) {
        link[len] = '\0'; /* a dangling link: bb_save refuses it (docs: bb_save) */
        cli_error("%s '%s': it is a symbolic link to '%s', which does not exist (create the "
                  "target or remove the link)", what, path, link);
    } else if (s == BB_E_IO && (err == ENODEV || err == EINVAL) && stat(path, &st) == 0 &&
        !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        cli_error("%s '%s': not a regular file (a FIFO, socket or device)", what, path);
    else if (s == BB_E_IO && err)
        cli_error("%s '%s': %s", what, path, strerror(err));
    else
        cli_error("%s '%s': %s", what, path, bb_strerror(s));
    return BB_EXIT_RUNTIME;
}

/* ---- Standard output and error on a non-blocking pipe -------------------------------------- */

/* A cookie stream's write: all of buf to fd `cookie`, waiting (poll) while the pipe is full
 * instead of failing with EAGAIN; the bytes written, or -1 on a real error (errno set). */
static ssize_t write_waiting(void *cookie, const char *buf, size_t len) {
    int fd = (int)(intptr_t)cookie;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, buf + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
        }
        return done ? (ssize_t)done : -1;
    }
    return (ssize_t)done;
}

/* *stream, writing to fd, replaced by a stream that waits as a blocking one would when fd is
 * non-blocking; left as it is otherwise or if the new stream cannot be had. */
static void wait_when_non_blocking(FILE **stream, int fd, bool unbuffered) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || !(fl & O_NONBLOCK)) return;
    FILE *f = fopencookie((void *)(intptr_t)fd, "w", (cookie_io_functions_t){.write = write_waiting});
    if (!f) return;
    setvbuf(f, NULL, unbuffered ? _IONBF : isatty(fd) ? _IOLBF : _IOFBF, 0); /* as stdio's own */
    *stream = f;
}

/* A standard descriptor the caller closed (`<&-`, `2>&-`) would be taken by the next file
 * opened: add's stdin would then be the filter file it locks (cli_lock_filter) and its own
 * bytes its keys. Each is held by /dev/null opened the other way, so that using it still
 * fails with EBADF as on a closed one. In order: the lowest closed one is what open returns. */
void cli_stdio_claim(void) {
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
            open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
}

void cli_stdio_wait(void) {
    wait_when_non_blocking(&stdout, STDOUT_FILENO, false);
    wait_when_non_blocking(&stderr, STDERR_FILENO, true);
}

int cli_finish_stdout(int status) {
    int err = fflush(stdout) == 0 ? 0 : errno;
    if (!err && !ferror(stdout)) return status;
    cli_error("write error on standard output: %s", err ? strerror(err) : "write failed");
    return BB_EXIT_RUNTIME;
}

int cli_help(const char *text) {
    fputs(text, stdout);
    return cli_finish_stdout(BB_EXIT_OK);
}

void cli_check_isa_env(void) {
    const char *env = getenv("BB_ISA");
    bb_isa isa;
    if (!env || !*env || (bb_isa_from_string(env, &isa) == BB_OK && bb_isa_available(isa)))
        return; /* unset or empty: the automatic choice, as the library does */
    cli_error("BB_ISA=%s not available, using %s", env, bb_isa_name());
}

const char *cli_kernel_name(const bb_filter *f, bb_op op) {
    bb_isa isa;
    return bb_isa_kernel_for(bb_isa_selected(), f, op, &isa) == BB_OK ? bb_isa_to_string(isa)
                                                                       : "-";
}

/* ---- Option values --------------------------------------------------------------------------- */

bool cli_parse_u64(const char *text, uint64_t min, uint64_t max, bool allow_hex, uint64_t *out) {
    static const char dec[] = "0123456789", hex[] = "0123456789abcdefABCDEF";
    int base = 10;
    if (allow_hex && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text += 2;
        base = 16;
    }
    size_t n = strspn(text, base == 16 ? hex : dec);
    if (n == 0 || text[n] != '\0') return false;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, base);
    if (errno == ERANGE || v < min || v > max) return false;
    *out = v;
    return true;
}

/* strtod sets ERANGE for subnormal results too (5e-324 is inside (0, 1)), so ERANGE is not
 * checked: an underflow to 0 or an overflow to infinity fails the range test instead. */
bool cli_parse_double(const char *text, double lo, double hi, double *out) {
    size_t n = strspn(text, "0123456789.eE+-");
    if (n == 0 || text[n] != '\0') return false;
    char *end;
    double v = strtod(text, &end);
    if (*end != '\0' || !isfinite(v) || !(v > lo && v < hi)) return false;
    *out = v;
    return true;
}

/* Digits with single '_' between them, then an optional SI suffix; or a number in exponent
 * form whose value is whole (1e6, 2.5e6). Exact: no double is involved for the digit form. */
bool cli_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
    static const struct { char c; uint64_t mul; } si[] = {
        {'k', UINT64_C(1000)}, {'K', UINT64_C(1000)}, {'M', UINT64_C(1000000)},
        {'G', UINT64_C(1000000000)}, {'T', UINT64_C(1000000000000)}};
    uint64_t v = 0, mul = 1;
    const char *p = text;
    bool digit = false;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return false;
            v = v * 10 + (uint64_t)(*p - '0');
            digit = true;
        } else if (*p == '_' && digit && p[1] >= '0' && p[1] <= '9') {
            continue;
        } else {
            break;
        }
    }
    if (!digit) return false;
    if (*p && !p[1])
        for (size_t i = 0; i < sizeof si / sizeof *si; i++)
            if (*p == si[i].c) mul = si[i].mul, p++;
    if (*p) { /* exponent form: the whole text must be a whole number in range */
        double d;
        if (!cli_parse_double(text, 0.0, 0x1p64, &d) || d != floor(d)) return false;
        v = (uint64_t)d;
    } else if (v > UINT64_MAX / mul) {
        return false;
    } else {
        v *= mul;
    }
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

/* ---- The small commands' options ------------------------------------------------------------ */

int cli_parse_simple(const char *cmd, const char *usage, const char *allowed, int argc,
                     char **argv, cli_simple_opts *o) {
    enum { OPT_JSON = 256, OPT_MAX_KEY };
    static const struct { struct option opt; char letter; } all[] = {
        {{"null", no_argument, NULL, '0'}, '0'},
        {{"output", required_argument, NULL, 'o'}, 'o'},
        {{"json", no_argument, NULL, OPT_JSON}, 'J'},
        {{"max-key-bytes", required_argument, NULL, OPT_MAX_KEY}, 'm'},
        {{"jobs", required_argument, NULL, 'j'}, 'j'}};
    struct option longs[sizeof all / sizeof *all + 2];
    char shorts[12] = "h";
    size_t nl = 0, ns = 1;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        if (!strchr(allowed, all[i].letter)) continue;
        longs[nl++] = all[i].opt;
        if (all[i].opt.val >= OPT_JSON) continue; /* long only */
        shorts[ns++] = all[i].letter;
        if (all[i].opt.has_arg == required_argument) shorts[ns++] = ':';
    }
    longs[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[nl] = (struct option){NULL, 0, NULL, 0};
    bool help = false;
    int c, st;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        switch (c) {
        case '0': o->nul = true; break;
        case 'o': o->out = optarg; break;
        case OPT_JSON: o->json = true; break;
        case OPT_MAX_KEY:
            if ((st = cli_parse_max_key(cmd, optarg)) != BB_EXIT_OK) return st;
            break;
        case 'j':
            if ((st = cli_parse_jobs(cmd, optarg)) != BB_EXIT_OK) return st;
            break;
        case 'h': help = true; break;
        default: return cli_bad_option(cmd);
        }
    }
    if (help) return cli_help(usage);
    if (strchr(allowed, 'o') && !o->out) return cli_usage_error(cmd, "missing -o OUT (the file to write)");
    return -1;
}

/* ---- Serialising writers of one filter file -------------------------------------------------- */

int cli_lock_filter(const char *path, int *fd_out) {
    struct stat st;
    *fd_out = -1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return BB_EXIT_OK; /* not a file (a FIFO would block open): loading will say why */
    for (;;) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return cli_lib_error("cannot open filter", path, BB_E_IO, errno);
        struct stat locked, now;
        if (flock(fd, LOCK_EX) != 0 || fstat(fd, &locked) != 0) {
            int e = errno;
            close(fd);
            return cli_lib_error("cannot lock filter", path, BB_E_IO, e);
        }
        /* A writer that held the lock before us replaced the file (rename): our descriptor
         * is the old inode, so take the lock again on the file the path names now. */
        if (stat(path, &now) == 0 && now.st_ino == locked.st_ino && now.st_dev == locked.st_dev) {
            *fd_out = fd;
            hold_messages();
            return BB_EXIT_OK;
        }
        close(fd);
    }
}

int cli_lock_output(const char *path, int *fd_out) {
    struct stat st;
    *fd_out = -1;
    if (strcmp(path, "-") == 0) return BB_EXIT_OK;                   /* stdout */
    if (stat(path, &st) != 0 && errno == ENOENT) return BB_EXIT_OK; /* a new file: no writer */
    return cli_lock_filter(path, fd_out);
}

void cli_unlock(int fd) {
    if (fd < 0) return;
    close(fd);
    release_messages();
}
