/* SPDX-License-Identifier: MIT */
/*
 * keys.c - the key reader shared by every command that reads keys (build, add, query,
 * remove, redis, the network kinds' numbered lines, parquet probe, demo --data): reads the
 * input files in order ("-" or no file at all = stdin) through one bounded read buffer,
 * and collects the keys of one chunk in a cli_keybuf (one growing byte buffer plus
 * Arrow-style 64-bit offsets) that the batch API takes in one call.
 *
 * Key rules (also in docs/CLI.md "Keys"): in line mode LF ends a key and one CR right before it (or
 * at the very end of the input) is dropped, so CRLF files give the same keys as LF files; an
 * empty line is the empty key; NUL bytes are ordinary key bytes. With -0 a NUL ends a key
 * and nothing is stripped. In both modes the last key needs no terminator.
 *
 * A key may be long but not endless: one longer than the limit (--max-key-bytes, default
 * CLI_MAX_KEY_DEFAULT) fails the command with its file and line number. The reader copies
 * the input's bytes straight from its read buffer to the end of the key buffer and checks
 * the length piece by piece, so an endless line (/dev/zero) stops after the limit plus one
 * read buffer of memory instead of growing one buffer until memory runs out, as getdelim
 * did. That is also one copy of each key instead of getdelim's two. Commands that hold all
 * their keys at once (build without -n, network entries) check them against a memory budget
 * (cli_held_keys_budget) instead of letting the OOM killer end them.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- The limit on one key ------------------------------------------------------------------ */

/* Process-wide, like the one command a run of the CLI executes: set while parsing options,
 * read by every key reader started afterwards. */
static size_t max_key_bytes = CLI_MAX_KEY_DEFAULT;

int cli_parse_max_key(const char *cmd, const char *text) {
    uint64_t v;
    if (!cli_parse_count(text, 1, CLI_MAX_KEY_LIMIT, &v))
        return cli_usage_error(cmd, "invalid value '%s' for --max-key-bytes: expected a whole "
                               "number of bytes from 1 to 2^62 - 1, written as for -n "
                               "(16777216 or 16_777_216; 16M and 1.6e7 are 16000000)", text);
    max_key_bytes = (size_t)v;
    return BB_EXIT_OK;
}

/* ---- Threads of the batch calls (-j) --------------------------------------------------------- */

static unsigned jobs = 1;

int cli_parse_jobs(const char *cmd, const char *text) {
    uint64_t v;
    if (!cli_parse_count(text, 0, BB_MAX_THREADS, &v))
        return cli_usage_error(cmd, "invalid value '%s' for -j/--jobs: expected a number of "
                               "threads from 1 to %u, or 0 for one per CPU", text,
                               BB_MAX_THREADS);
    jobs = (unsigned)v;
    return BB_EXIT_OK;
}

void cli_use_jobs(bb_filter *f) {
    if (jobs != 1) bb_set_threads(f, jobs); /* 0..BB_MAX_THREADS: cannot fail */
}

size_t cli_chunk_keys(const bb_filter *f) { return CLI_CHUNK_KEYS * bb_threads(f); }

bool cli_jobs_read_ahead(void) { return jobs != 1; }

/* ---- The memory held keys may take ---------------------------------------------------------- */

/* Linux lets a buffer grow past the machine's memory (overcommit), so holding every key of an
 * endless or huge input would not fail with an error: the OOM killer would end this process,
 * or another one (in a container, the control group's). A quarter of the smallest of the
 * memory available at the start, the control group's limit (cgroup.c), the address-space
 * limit (`ulimit -v`) and the data limit (`ulimit -d`, which bounds malloc's mmap too since
 * Linux 4.7) leaves room for the buffers' doubling (2x) and for the filter that is built
 * from them. */
static size_t budget; /* 0 until first asked for */

/* The smaller of two limits, 0 meaning unknown. */
static uint64_t least_known(uint64_t a, uint64_t b) { return !a || (b && b < a) ? b : a; }

/* rlim_cur of `resource`, 0 if unlimited or unknown. */
static uint64_t rlimit_of(int resource) {
    struct rlimit rl;
    return getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (uint64_t)rl.rlim_cur
                                                                          : 0;
}

size_t cli_held_keys_budget(void) {
    if (budget) return budget;
    uint64_t b = least_known(least_known(cli_mem_available(), cli_cgroup_memory_limit()),
                             least_known(rlimit_of(RLIMIT_AS), rlimit_of(RLIMIT_DATA)));
    budget = b == 0 || b / 4 > SIZE_MAX ? SIZE_MAX : (size_t)(b / 4);
    return budget;
}

/* Whether `len` key bytes and the n + 1 offsets of n keys take more than the budget. */
static bool held_over(size_t len, size_t n) {
    size_t b = cli_held_keys_budget();
    return len > b || n >= (b - len) / sizeof(int64_t);
}

bool cli_keybuf_over_budget(const cli_keybuf *kb) { return held_over(kb->len, kb->n); }

int cli_keyreader_fill_held(cli_keyreader *r, cli_keybuf *kb, size_t max_keys, const char *hint) {
    bool done;
    r->held = hint;
    int st = cli_keyreader_fill(r, kb, max_keys, SIZE_MAX, &done);
    if (st == BB_EXIT_OK && cli_keybuf_over_budget(kb)) { /* exact: the reader checks per buffer */
        cli_held_keys_error("the keys", hint);
        st = BB_EXIT_RUNTIME;
    }
    return st;
}

void cli_held_keys_error(const char *what, const char *hint) {
    cli_error("%s read so far take more than %zu MiB, a quarter of the memory available to "
              "this process: nothing written%s", what, cli_held_keys_budget() >> 20, hint);
}

/* ---- The buffer ---------------------------------------------------------------------------- */

void cli_keybuf_free(cli_keybuf *kb) {
    free(kb->data);
    free(kb->off);
    memset(kb, 0, sizeof *kb);
}

/* Make room for `need` elements of `elem` bytes in *p, doubling (amortised O(1) appends). */
static bool reserve(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c = c > SIZE_MAX / 2 ? need : c * 2;
    if (c > SIZE_MAX / elem) return false;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static bool keybuf_reset(cli_keybuf *kb) {
    kb->n = 0;
    kb->len = 0;
    if (!reserve((void **)&kb->off, &kb->off_cap, 1, sizeof *kb->off)) return false;
    kb->off[0] = 0;
    return true;
}

/* Bytes of the key being read, after those already appended (its offset is not yet set). */
static bool keybuf_put(cli_keybuf *kb, const char *bytes, size_t len) {
    if (len > SIZE_MAX - kb->len || !reserve((void **)&kb->data, &kb->cap, kb->len + len, 1))
        return false;
    if (len) memcpy(kb->data + kb->len, bytes, len);
    kb->len += len;
    return true;
}

/* End the key being read at kb->len. */
static bool keybuf_end_key(cli_keybuf *kb) {
    if (kb->n > SIZE_MAX - 2 || !reserve((void **)&kb->off, &kb->off_cap, kb->n + 2, sizeof *kb->off))
        return false;
    kb->off[++kb->n] = (int64_t)kb->len;
    return true;
}

/* ---- The reader ---------------------------------------------------------------------------- */

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *const stdin_only[] = {(char *)"-"};
static const char stdin_name[] = "(standard input)";

void cli_keyreader_init(cli_keyreader *r, char *const *paths, size_t n_paths, bool nul_delim,
                        bool progress) {
    memset(r, 0, sizeof *r);
    r->paths = n_paths ? paths : stdin_only;
    r->n_paths = n_paths ? n_paths : 1;
    r->fd = -1;
    r->delim = nul_delim ? '\0' : '\n';
    r->max_key = max_key_bytes;
    r->progress = progress && (isatty(STDERR_FILENO) || getenv("BB_PROGRESS"));
    r->start = seconds_now();
}

/* A pipe, terminal or socket, whose chunks end early when no more input is ready. */
static void set_live(cli_keyreader *r) {
    struct stat st;
    r->live = fstat(r->fd, &st) == 0 && !S_ISREG(st.st_mode);
}

static int open_next(cli_keyreader *r) {
    const char *path = r->paths[r->next++];
    if (!r->buf && !(r->buf = malloc(CLI_READ_BYTES))) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    r->pos = r->end = 0;
    r->eof = false;
    r->line = 0;
    if (strcmp(path, "-") == 0) {
        r->fd = STDIN_FILENO;
        r->name = stdin_name;
        set_live(r);
        if (isatty(STDIN_FILENO)) /* else a forgotten FILE looks like a hang */
            cli_prompt("reading keys from standard input (a terminal); end them with Ctrl-D");
        return BB_EXIT_OK;
    }
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return BB_EXIT_RUNTIME;
    }
    r->name = path;
    set_live(r);
    return BB_EXIT_OK;
}

static void close_current(cli_keyreader *r) {
    if (r->fd >= 0 && r->name != stdin_name) close(r->fd); /* a file may be fd 0 too */
    r->fd = -1;
}

/* Refill the read buffer; at the end of the input it stays empty and r->eof is set. An input
 * left non-blocking (O_NONBLOCK belongs to the pipe, so whoever else holds it may have set
 * it) is waited for with poll, as a blocking read would wait, instead of failing on EAGAIN. */
static int refill(cli_keyreader *r) {
    ssize_t got;
    /* A read-ahead thread (cli_readahead) may be cancelled only here, where it waits for
     * input that may never come (a pipe, a terminal) and holds nothing; elsewhere it runs
     * with cancellation disabled. The main thread's state is left as it was. */
    int was;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &was);
    while ((got = read(r->fd, r->buf, CLI_READ_BYTES)) < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) break;
        struct pollfd ready = {.fd = r->fd, .events = POLLIN};
        if (poll(&ready, 1, -1) < 0 && errno != EINTR) break;
    }
    int err = errno;
    pthread_setcancelstate(was, NULL);
    errno = err;
    if (got < 0) {
        cli_error("cannot read '%s': %s", r->name, strerror(errno));
        return BB_EXIT_RUNTIME;
    }
    r->pos = 0;
    r->end = (size_t)got;
    r->eof = got == 0;
    return BB_EXIT_OK;
}

/* Whether a read of the live input would return at once (data, its end or an error). */
static bool input_ready(const cli_keyreader *r) {
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    int n;
    while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR) continue;
    return n != 0;
}

static int too_long(const cli_keyreader *r) {
    if (r->delim == '\n')
        cli_error("%s:%" PRIu64 ": line longer than the key limit of %zu bytes (raise it "
                  "with --max-key-bytes)", r->name, r->line + 1, r->max_key);
    else
        cli_error("%s: key %" PRIu64 " (NUL-terminated) longer than the key limit of %zu bytes "
                  "(raise it with --max-key-bytes)", r->name, r->line + 1, r->max_key);
    return BB_EXIT_RUNTIME;
}

/* Past the budget: all the keys held, or, when they are streamed, the one being read (a
 * --max-key-bytes above the memory; an endless line would otherwise grow to the OOM killer). */
static int over_budget(const cli_keyreader *r) {
    size_t mib = cli_held_keys_budget() >> 20;
    if (r->held)
        cli_held_keys_error("the keys", r->held);
    else if (r->delim == '\n')
        cli_error("%s:%" PRIu64 ": line longer than %zu MiB, a quarter of the memory available "
                  "to this process", r->name, r->line + 1, mib);
    else
        cli_error("%s: key %" PRIu64 " (NUL-terminated) longer than %zu MiB, a quarter of the "
                  "memory available to this process", r->name, r->line + 1, mib);
    return BB_EXIT_RUNTIME;
}

/* Held keys can also run out of memory below the budget (a small `ulimit -v`, most of it
 * taken by the libraries, and the buffers' doubling): the way out is named all the same. */
static int no_memory(const cli_keyreader *r) {
    cli_error("out of memory reading keys from '%s'%s", r->name, r->held ? r->held : "");
    return BB_EXIT_RUNTIME;
}

/* Read one key into kb; *got = false at the end of the current input. The key's bytes go
 * to kb as they come, a read buffer at a time, and stop once they pass the limit (plus the
 * one CR that line mode strips), or once they pass the budget, with every key before them
 * when keys are held (r->held). The budget is checked on each piece that does not end the
 * key (less the CR it may end with), so that no key, streamed or held, grows past it by more
 * than a read buffer, and for held keys before each refill; never once per key, which would
 * slow every read (the holder checks kb exactly at the end: cli_keybuf_over_budget). */
static int read_key(cli_keyreader *r, cli_keybuf *kb, bool *got) {
    size_t cr = r->delim == '\n', start = kb->len, limit = r->max_key + cr;
    bool seen = false, ended = false; /* a byte or terminator of this key / its terminator */
    while (!ended) {
        if (r->pos == r->end) {
            if (r->held && !r->eof && held_over(kb->len, kb->n)) return over_budget(r);
            int st = r->eof ? BB_EXIT_OK : refill(r);
            if (st != BB_EXIT_OK) return st;
            if (r->eof) break;
        }
        const char *p = r->buf + r->pos;
        size_t avail = r->end - r->pos;
        const char *d = memchr(p, r->delim, avail);
        size_t n = d ? (size_t)(d - p) : avail;
        if (n > limit - (kb->len - start)) return too_long(r);
        if (!d && n > cr &&
            held_over(kb->len - (r->held ? 0 : start) + n - cr, r->held ? kb->n + 1 : 0))
            return over_budget(r);
        if (!keybuf_put(kb, p, n)) return no_memory(r);
        r->pos += n + (d != NULL);
        seen = true;
        ended = d != NULL;
    }
    *got = seen;
    if (!seen) return BB_EXIT_OK;
    if (r->delim == '\n' && kb->len > start && kb->data[kb->len - 1] == '\r') kb->len--;
    if (kb->len - start > r->max_key) return too_long(r);
    if (!keybuf_end_key(kb)) return no_memory(r);
    r->line++;
    return BB_EXIT_OK;
}

/* "blockbloom: read N keys (R keys/s)", overwritten in place (\r) on the terminal. */
static void show_progress_locked(const cli_keyreader *r) {
    double dt = seconds_now() - r->start;
    fprintf(stderr, "\rblockbloom: read %" PRIu64 " keys (%.0f keys/s)", r->total,
            dt > 0 ? (double)r->total / dt : 0.0);
    cli_progress_open = true;
}

static void show_progress(const cli_keyreader *r) {
    cli_progress_lock();
    show_progress_locked(r);
    cli_progress_unlock();
}

static void count_key(cli_keyreader *r) {
    r->total++;
    if (r->progress && r->total % CLI_PROGRESS_EVERY == 0) show_progress(r);
}

int cli_keyreader_fill(cli_keyreader *r, cli_keybuf *kb, size_t max_keys, size_t max_bytes,
                       bool *done) {
    *done = false;
    if (!keybuf_reset(kb)) {
        cli_error("out of memory");
        return BB_EXIT_RUNTIME;
    }
    while (kb->n < max_keys && kb->len < max_bytes) {
        if (r->fd < 0) {
            if (r->next == r->n_paths) {
                *done = true;
                return BB_EXIT_OK;
            }
            int st = open_next(r);
            if (st != BB_EXIT_OK) return st;
        }
        /* A partial chunk now rather than a full one later, unless every key is wanted at
         * once (r->held). */
        if (kb->n && r->live && !r->held && r->pos == r->end && !r->eof && !input_ready(r))
            return BB_EXIT_OK;
        bool got = false; /* set by read_key whenever it returns BB_EXIT_OK */
        int st = read_key(r, kb, &got);
        if (st != BB_EXIT_OK) return st;
        if (got)
            count_key(r);
        else
            close_current(r);
    }
    return BB_EXIT_OK;
}

/* ---- Reading ahead -------------------------------------------------------------------------
 * With -j N >= 2 the next chunk is read on a thread of its own while the command adds or
 * looks up the one before it. Reading (a memchr and a copy per key, the read calls) is about
 * half of a streamed build, and it ran between the batch calls, so `build -n -j 2` of 36M npm
 * names with a counter appended took 1.78 s against 1.69 s on one thread; reading ahead, 1.23
 * s (and `query -c -j 2` 0.88 s against 1.43; means of 10, Intel Xeon family 6 model CFh). The
 * batch calls keep their N threads: giving them N - 1 beside the reader measured the same.
 * Two buffers: the consumer holds one while the reader fills the other, so the reader is at
 * most one chunk ahead, and the chunks reach the consumer in input order. */

/* Fill slot i, holding the fill's messages (all of them errors that end it) in msg[i]. No
 * memory for that: the chunk fails with nomem set, for the consumer to report in its place. */
static int fill_slot(cli_readahead *a, unsigned i, bool *done) {
    free(a->msg[i]);
    a->msg[i] = NULL;
    a->msg_len[i] = 0;
    a->nomem[i] = false;
    *done = false;
    /* In a->msgs, so that cli_readahead_stop closes it if the read is cancelled. */
    if (!(a->msgs = open_memstream(&a->msg[i], &a->msg_len[i]))) {
        cli_keybuf_free(&a->slot[i]);
        a->nomem[i] = true;
        return BB_EXIT_RUNTIME;
    }
    cli_defer_messages(a->msgs);
    int st = cli_keyreader_fill(a->r, &a->slot[i], a->max_keys, a->max_bytes, done);
    size_t whole = cli_defer_messages(NULL);
    fclose(a->msgs);
    a->msgs = NULL;
    if (whole < a->msg_len[i]) a->msg_len[i] = whole; /* a message cut short by no memory */
    return st;
}

static void *readahead_main(void *arg) {
    cli_readahead *a = arg;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL); /* enabled in refill() only */
    for (unsigned i = 0;; i ^= 1) {
        pthread_mutex_lock(&a->lock);
        while (a->full[i] && !a->stop) pthread_cond_wait(&a->cv, &a->lock);
        bool stop = a->stop;
        pthread_mutex_unlock(&a->lock);
        if (stop) break;
        bool done;
        int st = fill_slot(a, i, &done);
        pthread_mutex_lock(&a->lock);
        a->st[i] = st;
        a->done[i] = done;
        a->full[i] = true;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->lock);
        if (st != BB_EXIT_OK || done) break;
    }
    return NULL;
}

void cli_readahead_start(cli_readahead *a, cli_keyreader *r, size_t max_keys, size_t max_bytes,
                         bool ahead) {
    memset(a, 0, sizeof *a);
    a->r = r;
    a->max_keys = max_keys;
    a->max_bytes = max_bytes;
    a->held = -1;
    if (!ahead) return;
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->cv, NULL);
    /* The reader needs little stack (a read buffer of its own is on the heap): 256 KiB
     * instead of the default 8 MiB keeps -j within the address space that -j 1 needs under
     * a `ulimit -v`. No thread (no resources for one): read in line, as without -j. */
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok) pthread_attr_setstacksize(&attr, (size_t)256 << 10);
    a->threaded = pthread_create(&a->thread, attr_ok ? &attr : NULL, readahead_main, a) == 0;
    if (attr_ok) pthread_attr_destroy(&attr);
    if (!a->threaded) {
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->lock);
    }
}

int cli_readahead_next(cli_readahead *a, const cli_keybuf **kb, bool *done) {
    unsigned i;
    int st;
    if (!a->threaded) {
        i = 0;
        st = fill_slot(a, 0, done);
    } else {
        pthread_mutex_lock(&a->lock);
        if (a->held >= 0) { /* the consumer is done with it: the reader may refill it */
            a->full[a->held] = false;
            pthread_cond_broadcast(&a->cv);
        }
        i = a->next;
        while (!a->full[i]) pthread_cond_wait(&a->cv, &a->lock);
        st = a->st[i];
        *done = a->done[i];
        a->next = i ^ 1;
        pthread_mutex_unlock(&a->lock);
    }
    a->held = (int)i;
    if (a->nomem[i]) /* before the first input is opened it has no name yet */
        cli_error("out of memory reading keys%s%s%s", a->r->name ? " from '" : "",
                  a->r->name ? a->r->name : "", a->r->name ? "'" : "");
    *kb = &a->slot[i];
    return st;
}

void cli_readahead_report(cli_readahead *a) {
    if (a->held < 0) return;
    unsigned i = (unsigned)a->held;
    if (a->msg[i]) cli_put_deferred(a->msg[i], a->msg_len[i]);
    free(a->msg[i]);
    a->msg[i] = NULL;
    a->msg_len[i] = 0;
}

void cli_readahead_stop(cli_readahead *a) {
    if (a->threaded) {
        pthread_mutex_lock(&a->lock);
        a->stop = true;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->lock);
        /* A reader blocked on an input that has nothing more yet (a stopped query -q, a
         * failed add) is cancelled in its read; one that is filling a chunk finishes it. */
        pthread_cancel(a->thread);
        pthread_join(a->thread, NULL);
        if (a->msgs) fclose(a->msgs); /* cancelled while reading a chunk */
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->lock);
        a->threaded = false;
    }
    for (int i = 0; i < 2; i++) { /* messages of a chunk not reported are dropped with it */
        cli_keybuf_free(&a->slot[i]);
        free(a->msg[i]);
        a->msg[i] = NULL;
    }
}

void cli_keyreader_close(cli_keyreader *r) {
    close_current(r);
    cli_progress_lock();
    if (cli_progress_open) { /* the final count, unless a message (an error) came after it */
        show_progress_locked(r);
        fputc('\n', stderr);
        cli_progress_open = false;
    }
    cli_progress_unlock();
    free(r->buf);
    r->buf = NULL;
}

/* ---- For the network key kinds (netkeys.c), which build their own keys ------------------ */

bool cli_keybuf_reset(cli_keybuf *kb) { return keybuf_reset(kb); }

bool cli_keybuf_append(cli_keybuf *kb, const char *key, size_t len) {
    return keybuf_put(kb, key, len) && keybuf_end_key(kb);
}
