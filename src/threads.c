/* SPDX-License-Identifier: MIT */
/*
 * threads.c - the library's own threads for batch calls (bb_set_threads): a team of threads
 * started and joined by one call, the rule that decides how many a batch gets, and the
 * partitioned add.
 *
 * A team is the caller (member 0) plus up to n - 1 threads started for the call. Each started
 * thread waits at a gate until the caller has started all the others, so the team's size is
 * known (and fixed) before any member begins: a thread that cannot be started only makes the
 * team smaller, and the work is divided among the members there are. Every member is joined
 * before the call returns, so no thread outlives it, and the join orders the members' stores
 * before the caller's return (read-after-add holds with no atomic in the data path).
 *
 * Contains batches are split by key index: member i answers keys [i n / t, (i + 1) n / t)
 * (rounded to whole chunks of 1024) into its own part of out[]; the filter is only read.
 *
 * Adds are partitioned by cache line, not by key. The lines of the payload are cut into t
 * runs of consecutive lines; member i sets only the keys whose line (the row's line_of) lies
 * in run i. line_of is non-decreasing in the hash (multiply-shift block index for every kind
 * with a line per key), so run i is one interval of hash values [lo_i, lo_i + span_i], found
 * once per call by bisection, and a member picks its keys with one subtraction and compare
 * per key, without a branch. No line is written by two members, so each member runs the
 * kind's plain add kernel on its keys (no atomics, no locks) and the payload equals the
 * one-thread payload bit for bit: OR is order-free, and each key is set exactly once.
 *  - Pre-computed hashes: every member scans all n hashes (8 bytes each, sequentially) and
 *    keeps those of its run.
 *  - Keys to hash: the batch goes in steps of BB_STEP keys. In each step every member hashes
 *    its 1/t of the next step's keys into a shared buffer, then adds its run's keys of the
 *    current step's buffer; a barrier ends the step. So hashing is shared out as well, and
 *    two buffers are enough (the one hashed into was last read a step and a barrier ago).
 * keys_added is counted once, by the caller, after the join.
 */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

/* Keys per member below which a batch stays on the caller's thread. 2^16 keys give each
 * member 0.5-1.5 ms of work (one thread's string batch contains and adds take 9.5-24 ns/key
 * from 10^4 to 10^7 keys on a KVM guest, Intel Xeon with AVX-512, family 6 model 0xCF, the
 * blockbloom-bench blocked-avx512gfni row), against tens of microseconds to start and join a
 * thread; on that machine, idle, two threads were faster than one at every size from 10^6
 * keys (-j2 / -j1 1.22-2.07x; docs/PERFORMANCE.md, "The library's own threads"). */
#define BB_MIN_KEYS_PER_THREAD (UINT64_C(1) << 16)

/* Key bytes per member that are worth a thread even when the keys are fewer than
 * BB_MIN_KEYS_PER_THREAD (hashing long keys costs by the byte). One thread's string batch
 * contains of 1000-byte keys took 157 ns/key (0.155 ns/byte, so 16 MiB is ~2.6 ms); split in
 * two, batches of 32768 of them (15.6 MiB per member) took 86 ns/key, but batches of 16384
 * (7.8 MiB per member) were slower than one thread in 3 rows of 4 (blockbloom-bench
 * --key-bytes 1000 --batch N, Intel Xeon family 6 model A7h, a 2-vCPU KVM guest). */
#define BB_MIN_BYTES_PER_THREAD (UINT64_C(16) << 20)

/* Keys per step of a partitioned add of keys to hash: two buffers of hashes, 1 MiB in all,
 * and one barrier per 64K keys (~1 us against ~100 us of work per step). */
#define BB_STEP 65536u

/* Hashes a member gathers before handing them to the add kernel: as batch.c's chunk. */
#define BB_GATHER 1024u

/* ---- The setting ------------------------------------------------------------------------- */

static unsigned cpus_usable(void) {
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return (unsigned)n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

bb_status bb_set_threads(bb_filter *f, unsigned n_threads) {
    if (!f || n_threads > BB_MAX_THREADS) return BB_E_INVAL;
    if (n_threads == 0) n_threads = cpus_usable();
    f->threads = n_threads < BB_MAX_THREADS ? n_threads : BB_MAX_THREADS;
    return BB_OK;
}

unsigned bb_threads(const bb_filter *f) { return f && f->threads > 1 ? f->threads : 1u; }

/* ---- Teams ------------------------------------------------------------------------------- */

typedef struct team team;
typedef void (*team_job)(team *tm, void *ctx, unsigned id);

struct team {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned size;         /* members, fixed before the gate opens */
    bool open;             /* the gate */
    unsigned arrived;      /* barrier: members waiting in this generation */
    unsigned long generation;
    team_job job;
    void *ctx;
};

typedef struct member {
    team *tm;
    unsigned id;
} member;

/* Wait until every member of the team has arrived (a mutex and condition variable rather
 * than a spin: the members may share their CPUs with other processes). */
static void team_barrier(team *tm) {
    if (tm->size < 2) return;
    pthread_mutex_lock(&tm->mu);
    unsigned long gen = tm->generation;
    if (++tm->arrived == tm->size) {
        tm->arrived = 0;
        tm->generation++;
        pthread_cond_broadcast(&tm->cv);
    } else {
        while (gen == tm->generation) pthread_cond_wait(&tm->cv, &tm->mu);
    }
    pthread_mutex_unlock(&tm->mu);
}

static void *member_main(void *arg) {
    member *m = arg;
    team *tm = m->tm;
    pthread_mutex_lock(&tm->mu);
    while (!tm->open) pthread_cond_wait(&tm->cv, &tm->mu);
    pthread_mutex_unlock(&tm->mu);
    tm->job(tm, tm->ctx, m->id);
    return NULL;
}

/* Run job on a team of at most `want` members (the caller is member 0) and join them.
 * Returns the team's size, >= 1: fewer than `want` when threads could not be started. Once
 * the size is known and before any member starts the job, prepare(ctx, size) (if not NULL)
 * divides the work for that many; the job reads tm->size for its share. */
static unsigned team_run(unsigned want, void (*prepare)(void *ctx, unsigned size), team_job job,
                         void *ctx) {
    team tm = {.size = 1, .job = job, .ctx = ctx};
    pthread_t tid[BB_MAX_THREADS];
    member mem[BB_MAX_THREADS];
    if (want > 1 && (pthread_mutex_init(&tm.mu, NULL) != 0)) want = 1;
    else if (want > 1 && pthread_cond_init(&tm.cv, NULL) != 0) {
        pthread_mutex_destroy(&tm.mu);
        want = 1;
    }
    if (want <= 1) {
        if (prepare) prepare(ctx, 1);
        job(&tm, ctx, 0);
        return 1;
    }
    for (unsigned i = 1; i < want; i++) {
        mem[i] = (member){.tm = &tm, .id = i};
        if (pthread_create(&tid[i], NULL, member_main, &mem[i]) != 0) break;
        tm.size = i + 1;
    }
    if (prepare) prepare(ctx, tm.size);
    pthread_mutex_lock(&tm.mu);
    tm.open = true;
    pthread_cond_broadcast(&tm.cv);
    pthread_mutex_unlock(&tm.mu);
    job(&tm, ctx, 0);
    unsigned size = tm.size;
    for (unsigned i = 1; i < size; i++) pthread_join(tid[i], NULL);
    pthread_cond_destroy(&tm.cv);
    pthread_mutex_destroy(&tm.mu);
    return size;
}

/* ---- How many threads a batch gets -------------------------------------------------------- */

/* Whether the row's adds can be partitioned by line: one line per key (line_of, monotonic in
 * the hash) and a batch add that only sets bits and counts keys. */
static bool add_splits(const bb_filter *f) {
    const bb_kind_ops *row = bb_row(f);
    return row->line_of && row->add_hashes && f->data && f->payload_bytes >= 64u * 2u;
}

/* The bytes of src's keys 0 .. n-1 (validated), or `enough` if they are at least that many:
 * O(1) for Arrow offsets and fixed-width keys; a pointer array's lengths are summed, which
 * costs far less than hashing the keys, and stops once the sum reaches `enough`. */
static uint64_t key_bytes(const bb_keysrc *src, size_t n, uint64_t enough) {
    switch (src->shape) {
    case BB_SRC_ARROW32: return (uint64_t)(src->off32[n] - src->off32[0]);
    case BB_SRC_ARROW64: return (uint64_t)(src->off64[n] - src->off64[0]);
    case BB_SRC_FIXED: return (uint64_t)n * src->width;
    case BB_SRC_PTRS: break;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n && sum < enough; i++) sum += src->lens[i];
    return sum;
}

unsigned bb_threads_for(const bb_filter *f, const bb_keysrc *src, size_t n, bool add) {
    unsigned t = bb_threads(f);
    if (t < 2 || n == 0 || (add && !add_splits(f))) return 1;
    /* A member is worth starting for its keys or for its key bytes, whichever is more; but
     * not for pre-computed hashes into a filter smaller than the CPU's row says a second
     * thread pays off at (bb_dispatch.split_add_bytes): they have no hashing to share. */
    bool small_add = add && !src && f->payload_bytes < bb_dispatch_active()->split_add_bytes;
    uint64_t by_work = small_add ? 0 : n / BB_MIN_KEYS_PER_THREAD;
    if (by_work < t && src) {
        uint64_t by_bytes = key_bytes(src, n, (uint64_t)t * BB_MIN_BYTES_PER_THREAD) /
                            BB_MIN_BYTES_PER_THREAD;
        /* Contains parts are whole chunks of BB_GATHER keys: no more members than chunks. */
        uint64_t chunks = ((uint64_t)n + BB_GATHER - 1) / BB_GATHER;
        if (!add && by_bytes > chunks) by_bytes = chunks;
        if (by_bytes > by_work) by_work = by_bytes;
    }
    if (by_work < t) t = (unsigned)by_work;
    if (add) {
        uint64_t lines = f->payload_bytes / 64u;
        if (lines < t) t = (unsigned)lines;
    }
    return t ? t : 1;
}

/* ---- Contains: by key range --------------------------------------------------------------- */

typedef struct contains_job {
    bb_range_fn fn;
    void *ctx;
    size_t n;
    size_t hits[BB_MAX_THREADS];
} contains_job;

/* [first, end) of member id of t over n keys, on chunk boundaries (1024 keys). */
static void share(size_t n, unsigned id, unsigned t, size_t *first, size_t *end) {
    size_t chunks = (n + BB_GATHER - 1) / BB_GATHER;
    size_t a = (size_t)((uint64_t)chunks * id / t) * BB_GATHER;
    size_t b = (size_t)((uint64_t)chunks * (id + 1) / t) * BB_GATHER;
    *first = a < n ? a : n;
    *end = b < n ? b : n;
}

static void contains_member(team *tm, void *ctx, unsigned id) {
    contains_job *j = ctx;
    size_t a, b;
    share(j->n, id, tm->size, &a, &b);
    j->hits[id] = b > a ? j->fn(j->ctx, a, b - a) : 0;
}

size_t bb_threads_contains(unsigned t, size_t n, bb_range_fn fn, void *ctx) {
    contains_job *j = malloc(sizeof *j);
    if (!j) return fn(ctx, 0, n);
    *j = (contains_job){.fn = fn, .ctx = ctx, .n = n};
    unsigned used = team_run(t, NULL, contains_member, j);
    size_t hits = 0;
    for (unsigned i = 0; i < used; i++) hits += j->hits[i];
    free(j);
    return hits;
}

/* ---- Adds: by line range ------------------------------------------------------------------- */

/* The smallest hash whose line starts at byte offset >= at of f's payload; false if none. */
static bool first_hash_at(const bb_filter *f, uint64_t at, uint64_t *out) {
    const bb_kind_ops *row = bb_row(f);
    if ((uint64_t)(row->line_of(f, UINT64_MAX) - f->data) < at) return false;
    uint64_t lo = 0, hi = UINT64_MAX; /* the answer is in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)(row->line_of(f, mid) - f->data) >= at) hi = mid;
        else lo = mid + 1;
    }
    *out = lo;
    return true;
}

typedef struct add_job {
    const bb_filter *f;
    const uint64_t *hashes;   /* pre-computed, or NULL: keys from src */
    const bb_keysrc *src;
    size_t n;
    uint64_t *buf[2];         /* keys to hash: two steps of BB_STEP hashes */
    /* Member i takes hash h when h - lo[i] <= span[i] (unsigned); empty[i]: none. */
    uint64_t lo[BB_MAX_THREADS], span[BB_MAX_THREADS];
    bool empty[BB_MAX_THREADS];
} add_job;

/* Set run `id`'s keys of h[0 .. n) on a private copy of the object (same payload; the copy's
 * keys_added absorbs the row's count, which the caller sets once). */
static void add_mine(bb_filter *view, const add_job *j, unsigned id, const uint64_t *h,
                     size_t n, uint64_t *mine) {
    if (j->empty[id]) return;
    const bb_kind_ops *row = bb_row(view);
    uint64_t lo = j->lo[id], span = j->span[id];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        mine[m] = h[i];
        m += h[i] - lo <= span;
        if (m == BB_GATHER) {
            row->add_hashes(view, mine, m);
            m = 0;
        }
    }
    if (m) row->add_hashes(view, mine, m);
}

/* The share of step `at` (BB_STEP keys from key at) that member id hashes. */
static void hash_share(const add_job *j, unsigned id, unsigned t, size_t at, uint64_t *buf) {
    size_t len = j->n - at < BB_STEP ? j->n - at : BB_STEP;
    size_t a = len * id / t, b = len * (id + 1) / t;
    if (b > a)
        bb_hash_keys(j->src, bb_row(j->f)->hash, j->f->seed, at + a, b - a, buf + a);
}

static void add_member(team *tm, void *ctx, unsigned id) {
    add_job *j = ctx;
    bb_filter view = *j->f;
    uint64_t mine[BB_GATHER];
    if (j->hashes) {
        add_mine(&view, j, id, j->hashes, j->n, mine);
        return;
    }
    unsigned t = tm->size;
    hash_share(j, id, t, 0, j->buf[0]);
    team_barrier(tm);
    for (size_t at = 0, cur = 0; at < j->n; at += BB_STEP, cur ^= 1) {
        if (j->n - at > BB_STEP) hash_share(j, id, t, at + BB_STEP, j->buf[cur ^ 1]);
        add_mine(&view, j, id, j->buf[cur], j->n - at < BB_STEP ? j->n - at : BB_STEP, mine);
        team_barrier(tm);
    }
}

/* Cut f's lines into t runs (one per member) and find each run's interval of hashes. */
static void plan_runs(void *ctx, unsigned t) {
    add_job *j = ctx;
    const bb_filter *f = j->f;
    uint64_t lines = (f->payload_bytes + 63) / 64;
    uint64_t start[BB_MAX_THREADS + 1];
    bool has[BB_MAX_THREADS + 1];
    for (unsigned i = 0; i <= t; i++) {
        if (i == 0) {
            start[i] = 0;
            has[i] = true;
        } else if (i == t) {
            has[i] = false;
        } else {
            has[i] = first_hash_at(f, lines * i / t * 64, &start[i]);
        }
    }
    for (unsigned i = 0; i < t; i++) {
        j->empty[i] = !has[i] || (has[i + 1] && start[i + 1] == start[i]);
        j->lo[i] = has[i] ? start[i] : 0;
        j->span[i] = has[i + 1] ? start[i + 1] - 1 - j->lo[i] : UINT64_MAX - j->lo[i];
    }
}

bool bb_threads_add(bb_filter *f, unsigned t, const bb_keysrc *src, const uint64_t *hashes,
                    size_t n) {
    add_job *j = malloc(sizeof *j);
    if (!j) return false;
    *j = (add_job){.f = f, .hashes = hashes, .src = src, .n = n};
    if (!hashes) {
        j->buf[0] = malloc(2 * sizeof(uint64_t) * BB_STEP);
        if (!j->buf[0]) {
            free(j);
            return false;
        }
        j->buf[1] = j->buf[0] + BB_STEP;
    }
    team_run(t, plan_runs, add_member, j);
    free(j->buf[0]);
    free(j);
    f->keys_added = bb_sat_add(f->keys_added, n);
    return true;
}
