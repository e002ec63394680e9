/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the blockbloom command's source files share: one entry point per subcommand
 * (one file each), the exit codes, the messages and option-value parsers of common.c, and the
 * key reader of keys.c. Only the CLI includes this; the helpers are prefixed cli_ so that they
 * are never mistaken for library API (bb_).
 *
 * Every subcommand gets argv with argv[0] = "blockbloom" (the prefix of getopt's own
 * messages) and getopt reset (optind = 0), parses it with getopt_long and returns one of the
 * exit codes below. It prints its own messages: data to stdout, messages to stderr, each
 * message starting with "blockbloom: ".
 */
#ifndef BB_CLI_H
#define BB_CLI_H

#include "blockbloom.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in docs/CLI.md, "Exit status"). A query that prints nothing is a
 * success (0), unlike grep. */
enum { BB_EXIT_OK = 0, BB_EXIT_RUNTIME = 1, BB_EXIT_USAGE = 2 };

int bb_cmd_build(int argc, char **argv);
int bb_cmd_add(int argc, char **argv);
int bb_cmd_query(int argc, char **argv);
int bb_cmd_info(int argc, char **argv);
int bb_cmd_remove(int argc, char **argv);
int bb_cmd_merge(int argc, char **argv);
int bb_cmd_export(int argc, char **argv);
int bb_cmd_demo(int argc, char **argv);
int bb_cmd_bench(int argc, char **argv);
int bb_cmd_redis(int argc, char **argv); /* redis.c, only with BB_HAVE_REDIS */
#ifdef BB_WITH_PARQUET
int bb_cmd_parquet(int argc, char **argv); /* parquet.c: info, probe, extract, index */
#endif

/* ---- Messages (common.c) ------------------------------------------------------------------ */

/** Print "blockbloom: <fmt...>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** cli_error for the prompt before reading keys from a terminal: on stderr at once, even
 *  while a lock holds messages back (cli_lock_filter), after the messages held so far. */
void cli_prompt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Set (by keys.c) while the progress line "\rblockbloom: read N keys ..." is on stderr
 *  without its newline: the next message first ends it, so it starts a line of its own. */
extern bool cli_progress_open;
/** The lock every message takes; hold it to write the progress line (cli_progress_open). */
void cli_progress_lock(void);
void cli_progress_unlock(void);
/** This thread's messages go into `to` (NULL: straight out again), to be written later with
 *  cli_put_deferred, in the order of the command's other output (the key reader's chunks,
 *  keys.c). Returns how many bytes of whole messages the stream it replaces holds (SIZE_MAX:
 *  all it holds; less if no memory cut one short). */
size_t cli_defer_messages(FILE *to);
/** Write len bytes of deferred messages as cli_error writes its own. */
void cli_put_deferred(const char *text, size_t len);

/** Print "blockbloom: <fmt...>" and a hint to run `blockbloom CMD --help` on stderr; returns
 *  BB_EXIT_USAGE so that callers can `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** After getopt_long returned '?' (it has printed what was wrong, prefixed "blockbloom: "
 *  because main passes argv[0] = "blockbloom"): print the --help hint, return BB_EXIT_USAGE. */
int cli_bad_option(const char *cmd);

/** Report a failed library call on `path`: "blockbloom: <what> '<path>': <cause>", the cause
 *  being strerror(err) for BB_E_IO (or "not a regular file ..."), else bb_strerror(s).
 *  Returns BB_EXIT_RUNTIME. */
int cli_lib_error(const char *what, const char *path, bb_status s, int err);

/** Closed standard descriptors are each taken by /dev/null opened for the other direction
 *  (their use still fails), so that no file opened later becomes one. Call first of all. */
void cli_stdio_claim(void);

/** A standard output or error left non-blocking (O_NONBLOCK belongs to the pipe, shared with
 *  every process that has it, so it is not ours to clear; some runtimes set it) would fail
 *  stdio's writes with EAGAIN once the pipe is full, and stdio would drop what it held: such
 *  a stream is replaced by one that waits (poll) as a blocking one would. Call next. */
void cli_stdio_wait(void);

/** Flush stdout and report a write error on it (full disk, closed pipe, /dev/full); returns
 *  `status` when all went well, BB_EXIT_RUNTIME otherwise. Call once, at the end. */
int cli_finish_stdout(int status);

/** Print a --help text on stdout; BB_EXIT_OK, or BB_EXIT_RUNTIME if stdout fails. */
int cli_help(const char *text);

/** Warn when BB_ISA names an instruction set that is unknown or not available here (the
 *  library then silently picks the best one; the user should know). */
void cli_check_isa_env(void);
/* The kernel that runs `op` on f in this process ("scalar", ...; "-" if its kind has no such
 * operation): a kind may run another ISA's kernel than the blocked kind's, and a CPU's row
 * may put adds into large filters on another kernel than small ones. */
const char *cli_kernel_name(const bb_filter *f, bb_op op);

/* ---- The small commands' options (common.c) ---------------------------------------------- */

/** Options of add, remove, info, merge and export: -h/--help always, plus those named in
 *  `allowed`: '0' (-0/--null), 'o' (-o/--output OUT, then required), 'j' (--json), 'm'
 *  (--max-key-bytes N, see cli_parse_max_key). */
typedef struct cli_simple_opts {
    bool nul, json;
    const char *out;
} cli_simple_opts;

/** Parse argv with getopt_long into *o (zero it first). Returns -1 to go on (operands start
 *  at optind), or the exit code to return: help printed (0), or a usage error (2). */
int cli_parse_simple(const char *cmd, const char *usage, const char *allowed, int argc,
                     char **argv, cli_simple_opts *o);

/* ---- Serialising writers (common.c) -------------------------------------------------------- */

/** Take an exclusive flock(2) on the filter file `path` for a load-add-replace cycle (add,
 *  remove), so that two such runs on one file take turns instead of the later rename dropping
 *  the other's keys. Retries when the file was replaced while waiting. *fd_out holds the lock
 *  until closed (after the save); messages (cli_error) wait in memory until then, so that a
 *  stalled stderr does not keep the lock from the file's other writers. Returns
 *  BB_EXIT_OK, or BB_EXIT_RUNTIME after a message. */
int cli_lock_filter(const char *path, int *fd_out);

/** The same lock for a command that writes `path` without reading it first (build -o, merge
 *  -o, export -o): taken when the file exists (so an add or remove in progress on it finishes
 *  first and the next one loads what this command wrote), nothing (*fd_out = -1) when it
 *  does not. Returns as cli_lock_filter. */
int cli_lock_output(const char *path, int *fd_out);

/** Release a lock of cli_lock_filter / cli_lock_output (fd -1: none was taken), then write
 *  the messages kept while it was held. */
void cli_unlock(int fd);

/* ---- Option values (common.c): usage error unless the whole text is a valid number ------ */

/** Decimal digits only (or 0x + hex digits when `allow_hex`), value in [min, max]. */
bool cli_parse_u64(const char *text, uint64_t min, uint64_t max, bool allow_hex, uint64_t *out);
/** A finite decimal number with lo < value < hi (both bounds exclusive). */
bool cli_parse_double(const char *text, double lo, double hi, double *out);
/** A count of keys in [min, max]: digits, optionally grouped with '_' (1_000_000), optionally
 *  with an SI suffix k/K, M, G or T (x 10^3 .. 10^12: 1M), or a whole number in exponent form
 *  (1e6, 2.5e6). */
bool cli_parse_count(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* ---- Keys (keys.c) -------------------------------------------------------------------------
 * Keys are read one per line (LF ends a key, one CR before it is dropped; a NUL byte is an
 * ordinary byte of the key) or NUL-terminated (-0; CR is then kept). An empty line is the
 * empty key; a last key without its terminator still counts. They are collected in one
 * growing buffer with Arrow-style 64-bit offsets, key i being data[off[i] .. off[i+1]), so a
 * whole chunk goes to bb_add_arrow64 / bb_contains_arrow64 in one call. */
typedef struct cli_keybuf {
    char *data;       /* concatenated key bytes (no terminators) */
    size_t len, cap;  /* bytes used / allocated */
    int64_t *off;     /* n + 1 offsets, off[0] = 0 */
    size_t n, off_cap;
} cli_keybuf;

/** Release the buffer's memory and zero it. */
void cli_keybuf_free(cli_keybuf *kb);

/** The most memory (key bytes plus 8-byte offsets) that keys held all at once may take: a
 *  quarter of the smallest of MemAvailable, RLIMIT_AS, RLIMIT_DATA and the control group's
 *  memory limit, read once; SIZE_MAX if unknown. */
size_t cli_held_keys_budget(void);

/** The memory limit of this process's control group in bytes (cgroup.c: v2 memory.max or
 *  v1 memory.limit_in_bytes, the smallest up the group's path), 0 if none is found. */
uint64_t cli_cgroup_memory_limit(void);
/** MemAvailable from /proc/meminfo in bytes, 0 if unknown (cgroup.c). */
uint64_t cli_mem_available(void);

/** Whether kb's keys (their bytes and n + 1 offsets) take more than cli_held_keys_budget(). */
bool cli_keybuf_over_budget(const cli_keybuf *kb);

/** Print "WHAT read so far take more than N MiB, ...: nothing written" followed by `hint`
 *  (e.g. "; give -n ..."). */
void cli_held_keys_error(const char *what, const char *hint);

typedef struct cli_keyreader {
    char *const *paths; /* input files, "-" = stdin; none = stdin */
    size_t n_paths, next;
    int fd;             /* current input or -1 */
    const char *name;   /* its name for messages */
    uint64_t line;      /* keys read from it: the line (or -0 key) number of the last one */
    int delim;          /* '\n' or '\0' */
    size_t max_key;     /* longest key accepted, in bytes (after a stripped CR) */
    bool progress;      /* show "read N keys (R keys/s)" every CLI_PROGRESS_EVERY keys */
    const char *held;   /* set by cli_keyreader_fill_held when every key is held at once: the
                         * read fails once they take more than cli_held_keys_budget()
                         * (checked per read buffer, exactly at the end), with
                         * cli_held_keys_error("the keys", held) */
    uint64_t total;     /* keys read so far */
    double start;       /* CLOCK_MONOTONIC seconds at init, for the rate */
    char *buf;          /* read buffer: CLI_READ_BYTES, bytes buf[pos .. end) not yet used */
    size_t pos, end;
    bool eof;           /* the current input has ended */
    bool live;          /* it is no regular file (a pipe, a terminal): a chunk ends early
                         * at a key's end when no more input is ready, so answers do not
                         * wait for a full chunk of a slow producer (`tail -f | query`) */
} cli_keyreader;

/* One read(2) of the inputs: 64 KiB, 16 pages of the page cache per system call. */
#define CLI_READ_BYTES ((size_t)64 << 10)

/* The default limit on one key (--max-key-bytes), 16 MiB. The longest keys people filter are
 * URLs: Chrome accepts up to 2 MiB, the most of any browser (servers usually refuse more
 * than 8-64 KiB); domain names have at most 253 bytes, npm names 214, and log lines are cut
 * well below 1 MiB (journald at 48 KiB, Docker's json-file at 16 KiB). 16 MiB is 8 times the
 * longest of these, and CLI_CHUNK_BYTES, so a streamed chunk stays within twice its byte
 * bound; an endless line (/dev/zero) fails after 16 MiB of memory and a few milliseconds. */
#define CLI_MAX_KEY_DEFAULT ((size_t)16 << 20)
/* The largest --max-key-bytes accepted: a quarter of the address space (no real limit), so
 * that the length arithmetic never wraps. */
#define CLI_MAX_KEY_LIMIT ((uint64_t)(SIZE_MAX / 4))

/** `--max-key-bytes N` of `cmd`: set the limit for every key reader started afterwards (one
 *  setting per process, as one run executes one command). Returns BB_EXIT_OK, or the usage
 *  error after its message. */
int cli_parse_max_key(const char *cmd, const char *text);

/** `-j/--jobs N` of `cmd` (build, query): the batch calls of the filter the command then
 *  uses run on N threads (0: one per CPU; bb_set_threads). One setting per process, as
 *  --max-key-bytes. Returns BB_EXIT_OK, or the usage error after its message. */
int cli_parse_jobs(const char *cmd, const char *text);
/** Give f the -j setting (nothing without -j). */
void cli_use_jobs(bb_filter *f);
/** Keys per streamed chunk for f: CLI_CHUNK_KEYS per thread of its batch calls, so that each
 *  thread's share of a chunk stays what one thread gets without -j. */
size_t cli_chunk_keys(const bb_filter *f);

#define CLI_PROGRESS_EVERY 1000000u

/* Streaming chunks (add, build -n, query): 64K keys amortise each batch call and keep its
 * offsets and answers (9 bytes a key) in L2; the byte bound caps memory when keys are long. */
#define CLI_CHUNK_KEYS ((size_t)1 << 16)
#define CLI_CHUNK_BYTES ((size_t)16 << 20)

/** Prepare to read the files paths[0 .. n_paths) in order (stdin when n_paths is 0). The
 *  progress line is shown only when asked for and stderr is a terminal (or the environment
 *  has BB_PROGRESS, for tests). Reading a terminal's stdin is announced on stderr. */
void cli_keyreader_init(cli_keyreader *r, char *const *paths, size_t n_paths, bool nul_delim,
                        bool progress);

/**
 * Empty `kb`, then append keys until it holds max_keys keys or max_bytes bytes (the key that
 * crosses max_bytes is kept whole) or the input ends, or, from a pipe or terminal, until no
 * more input is ready after a whole key (but when r->held). Sets *done once every input is
 * read.
 * Returns BB_EXIT_OK, or BB_EXIT_RUNTIME after printing what failed (open, read, memory, a
 * key longer than r->max_key: "FILE:LINE: line longer than the key limit of N bytes").
 */
int cli_keyreader_fill(cli_keyreader *r, cli_keybuf *kb, size_t max_keys, size_t max_bytes,
                       bool *done);

/** cli_keyreader_fill of up to max_keys keys that are all held at once (build without -n,
 *  demo --data): fails once they take more than cli_held_keys_budget(), with
 *  cli_held_keys_error("the keys", hint). */
int cli_keyreader_fill_held(cli_keyreader *r, cli_keybuf *kb, size_t max_keys, const char *hint);

/** Close the current input and end the progress line. */
void cli_keyreader_close(cli_keyreader *r);

/** Chunks of a key reader, read one chunk ahead on a thread of their own (with -j N >= 2)
 *  or in line. A chunk's messages (the errors that end it: a key over the limit, a file that
 *  cannot be opened or read) wait until cli_readahead_report, which the command calls once
 *  it has answered or printed the chunk's keys: so they come after the keys before them,
 *  wherever the chunks begin, and not at all if the command stops first (query -q found a
 *  key before the error, as grep -q never reads it). Fields are the implementation's. */
typedef struct cli_readahead {
    cli_keyreader *r;
    size_t max_keys, max_bytes;
    bool threaded;
    cli_keybuf slot[2]; /* the chunks: one held by the consumer, one being read */
    char *msg[2];       /* the messages of reading each (cli_defer_messages) */
    size_t msg_len[2];
    FILE *msgs; /* the open stream of msg[] of the chunk being read */
    int st[2];
    bool done[2], full[2], nomem[2], stop;
    int held; /* the slot the consumer holds, -1 none */
    unsigned next;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cv;
} cli_readahead;

/** Start reading r in chunks of up to max_keys keys or max_bytes bytes (as
 *  cli_keyreader_fill), on a thread of their own when `ahead`. */
void cli_readahead_start(cli_readahead *a, cli_keyreader *r, size_t max_keys, size_t max_bytes,
                         bool ahead);
/** The next chunk, in input order, with cli_keyreader_fill's status and *done (on a failure
 *  it holds the whole keys before it): *kb stays valid until the next call or
 *  cli_readahead_stop. */
int cli_readahead_next(cli_readahead *a, const cli_keybuf **kb, bool *done);
/** Write the messages of the chunk last taken. */
void cli_readahead_report(cli_readahead *a);
/** Stop the reader (joined before this returns; no input is read after it) and free its
 *  chunks and unreported messages. Then r may be closed. */
void cli_readahead_stop(cli_readahead *a);
/** Whether -j asks for more than one thread (so the key reader gets its own). */
bool cli_jobs_read_ahead(void);

/* ---- Shared by build and add (build.c) ---------------------------------------------------- */

/** Stream every key of `r` into `f` in chunks through bb_add_arrow64. */
int cli_add_stream(bb_filter *f, cli_keyreader *r);

/** Save `f` atomically to `path` and print the summary line on stderr. */
int cli_save_and_report(const bb_filter *f, const char *path);
/** cli_save_and_report under the lock of an existing `path` (cli_lock_output), as every
 *  writer of a filter file takes it, so a concurrent add is never lost. */
int cli_save_output(const bb_filter *f, const char *path);

/* ---- Slices (slice.c) ---------------------------------------------------------------------- */

/** Parse "I/N" (decimal, 0 <= I < N); false if it is not that. */
bool cli_parse_slice(const char *text, uint64_t *index, uint64_t *n);

/** `build --slice I/N`: stream r's keys into slice I of N of cfg's filter and write its
 *  bytes atomically to `path` (temporary file, fsync, rename). */
int cli_build_slice(const bb_config *cfg, uint64_t index, uint64_t n, cli_keyreader *r,
                    cli_keybuf *kb, const char *path);

/** Write len bytes to `path` atomically (temporary file in the same directory, fsync,
 *  rename); on error a message naming `path` is printed and `path` is untouched. */
int cli_write_atomic(const char *path, const void *data, uint64_t len);
/* ---- Network key kinds (netkeys.c, netquery.c, pcap.c) ------------------------ */

/** "url", "domain", "cidr", "5tuple" (or "plain") into *out; a usage error otherwise. */
int cli_parse_keys(const char *cmd, const char *text, bb_keys *out);

/** Empty kb to no keys / append one key (keys.c). false when out of memory. */
bool cli_keybuf_reset(cli_keybuf *kb);
bool cli_keybuf_append(cli_keybuf *kb, const char *key, size_t len);

/** Lines of the inputs one at a time, with the current file's name (r.name) and line. */
typedef struct cli_lines {
    cli_keyreader r;
    cli_keybuf one;
    unsigned long long line; /* line number in the current file */
    unsigned long long bad;  /* bad lines reported */
} cli_lines;
void cli_lines_init(cli_lines *l, char *const *paths, size_t n_paths);
/** The next line (without its LF or CR) in text[0 .. len); *got false at the end. */
int cli_lines_next(cli_lines *l, const char **text, size_t *len, bool *got);
void cli_lines_close(cli_lines *l);
/** "blockbloom: [warning: ]FILE:LINE: why: 'text'" (the first 20; later ones are counted). */
void cli_line_error(cli_lines *l, bool warning, const char *why, const char *text, size_t len);
/** How many bad-line messages were not shown, if any. */
void cli_lines_summary(const cli_lines *l, bool warning);
/** Trim white space; a line starting with '#' becomes empty; inline_comment cuts " #...". */
void cli_net_trim(const char **s, size_t *len, bool inline_comment);

typedef struct cli_netctx {
    bb_keys keys;
    bb_psl *psl;             /* domain */
    bb_prefix_set *prefixes; /* cidr: lengths seen (build) */
    char *buf;               /* url: canonicalisation space */
    size_t cap;
    char why[160];           /* a reason that names the bad part of a line */
} cli_netctx;
bool cli_net_reserve(cli_netctx *c, size_t bytes);
void cli_netctx_free(cli_netctx *c);
/** One trimmed, non-empty blocklist line into keys of kb (all or none); NULL, or the reason. */
const char *cli_net_entry(cli_netctx *c, const char *s, size_t len, cli_keybuf *kb);
/** cli_net_entry's reason when memory ran out: not a bad line, so never skipped (the entry
 *  would be lost); the command fails. */
extern const char cli_net_no_memory[];
/** "PROTO SRC SRC_PORT DST DST_PORT" into a 5-tuple key; NULL, or the reason. */
const char *cli_net_5tuple(const char *s, size_t len, uint8_t key[BB_5TUPLE_KEY_BYTES]);
/** An address as text: dotted quad for IPv4 (mapped), else RFC 5952 IPv6. */
#define CLI_ADDR_TEXT 48
void cli_net_format_addr(const uint8_t a[16], char out[CLI_ADDR_TEXT]);
/** Load the public suffix list (BB_PSL_FILE, else BB_PSL_DEFAULT_PATH), or say why not. */
int cli_load_psl(bb_psl **out);

/** `build --keys KIND`: cfg as parsed (capacity 0 = the number of keys). */
int cli_net_build(bb_config *cfg, bb_keys keys, const char *out, bool skip_invalid,
                  char *const *paths, size_t n_paths);

/** `add` to a filter built with --keys: its entries as by build (a bad line fails the add,
 *  nothing is added), CIDR prefix lengths merged into its scheme. */
int cli_net_add(bb_filter *f, char *const *paths, size_t n_paths);

/** Query options of the network kinds. */
typedef struct cli_netquery_opts {
    bb_keys keys;          /* BB_KEYS_PLAIN: take the filter's own */
    bool invert, count, show_match;
    const char *pcap;       /* --pcap FILE */
    const char *match;      /* --match src|dst|any|5tuple (NULL: by the filter's kind) */
} cli_netquery_opts;
/** Whether a query goes to the network kinds: --keys, -o or --match given, or a filter built
 *  with --keys; a usage message is then printed by cli_net_query for misuse. */
bool cli_uses_net_keys(const bb_filter *f, const cli_netquery_opts *o);
/** `query --keys` on text inputs (netquery.c) and `query --pcap` (pcap.c); f is open. */
int cli_net_query(const bb_filter *f, const cli_netquery_opts *o, char *const *paths,
                  size_t n_paths);
int cli_pcap_query(const bb_filter *f, const cli_netquery_opts *o);

/** The key kind a filter records (bb_get_key_scheme), and for CIDR its prefix lengths: those
 *  recorded, or all 129 for a filter that records none. */
void cli_scheme_get(const bb_filter *f, bb_keys *keys, bb_prefix_set *prefixes);

#endif
