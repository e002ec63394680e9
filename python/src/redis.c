/* SPDX-License-Identifier: MIT */
/*
 * redis.c - blockbloom._core.RedisClient (blockbloom.redis.Client): a filter shared in Redis or
 * Redis Cluster through libblockbloom_redis (include/blockbloom_redis.h, docs/REDIS.md), built
 * into the extension when hiredis is found (BBPY_HAVE_REDIS). Keys come as for Filter.add_many
 * (lists, numpy arrays, Arrow arrays and streams: keys.c prepares them) and go to the server in
 * chunks of CHUNK keys, one pipelined request per node each, with the GIL released.
 *
 * A bb_redis handle is one set of connections for one thread at a time, so each client has a
 * mutex, taken with the GIL released (nobody holds it while waiting for the GIL, except an Arrow
 * stream written in Python, which takes the GIL inside get_next: no one waits for the mutex
 * holding the GIL, so that cannot deadlock).
 */
#include "pybb.h"

#include <blockbloom_redis.h>
#include <string.h>

#define CHUNK 1000 /* keys per request: the CLI's batch (src/cli/redis.c) */

typedef struct RedisObject {
    PyObject_HEAD
    bb_redis *r;
    pthread_mutex_t lock;
} RedisObject;

static PyObject *RedisError;   /* blockbloom.redis.RedisError */
static PyObject *RedisTimeout; /* blockbloom.redis.RedisTimeout: RedisError and TimeoutError */

/* The exception of status s with the handle's message (read under the lock: msg). */
static PyObject *redis_error(bb_status s, const char *msg) {
    if (s == BB_E_NOMEM) return PyErr_NoMemory();
    PyErr_SetString(s == BB_E_INVAL     ? PyExc_ValueError
                    : s == BB_E_TIMEOUT ? RedisTimeout
                                        : RedisError,
                    msg && *msg ? msg : bb_strerror(s));
    return NULL;
}

static RedisObject *open_client(RedisObject *self) {
    if (self->r) return self;
    PyErr_SetString(PyExc_ValueError, "the client is closed");
    return NULL;
}

/* ---- Keys: every prepared shape as pointers and lengths, CHUNK at a time --------------------- */

/* A chunk of keys: pointers into the batch's memory; skip[i]: a null Arrow value. */
typedef struct chunk {
    const void *keys[CHUNK];
    size_t lens[CHUNK];
    uint8_t skip[CHUNK];
    size_t n, n_skip;
} chunk;

static bool arrow_valid(const struct ArrowArray *a, int64_t i) {
    const uint8_t *v = a->null_count != 0 && a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t j = a->offset + i;
    return !v || (v[j >> 3] >> (j & 7)) & 1;
}

/* Offset j of an utf8/binary array (64-bit offsets for the large forms "U", "Z"). */
static int64_t arrow_offset(const struct ArrowArray *a, bool large, int64_t j) {
    return large ? ((const int64_t *)a->buffers[1])[j] : ((const int32_t *)a->buffers[1])[j];
}

/* Width of a fixed-width Arrow format ("c" .. "L", "w:N"), 0 for the offset formats. */
static int64_t arrow_width(const char *f) {
    static const char ints[] = "cCsSiIlL";
    const char *p = strchr(ints, f[0]);
    if (p && f[0] && !f[1]) return (int64_t)1 << ((p - ints) / 2);
    if (f[0] == 'w' && f[1] == ':') return atoll(f + 2) > 0 ? atoll(f + 2) : -1;
    return strchr("uzUZ", f[0]) && f[0] && !f[1] ? 0 : -1;
}

/* Keys [first, first + c->n) of an Arrow array of schema s (validated by arrow_check). */
static void arrow_chunk(const struct ArrowArray *a, const struct ArrowSchema *s, int64_t first,
                        chunk *c) {
    int64_t w = arrow_width(s->format);
    bool large = s->format[0] == 'U' || s->format[0] == 'Z';
    c->n_skip = 0;
    for (size_t i = 0; i < c->n; i++) {
        int64_t j = a->offset + first + (int64_t)i;
        c->skip[i] = !arrow_valid(a, first + (int64_t)i);
        c->n_skip += c->skip[i];
        if (w > 0) {
            c->keys[i] = (const uint8_t *)a->buffers[1] + j * w;
            c->lens[i] = (size_t)w;
        } else {
            int64_t lo = arrow_offset(a, large, j), hi = arrow_offset(a, large, j + 1);
            c->keys[i] = (const uint8_t *)a->buffers[2] + lo;
            c->lens[i] = (size_t)(hi - lo);
        }
        if (c->skip[i]) c->lens[i] = 0;
    }
}

/* The Arrow layouts this client reads: utf8, binary (32- and 64-bit offsets), fixed-size
 * binary and the integer types, with their validity; NULL, or why not. */
static const char *arrow_check(const struct ArrowArray *a, const struct ArrowSchema *s) {
    if (!a->release || !s->release) return "a released Arrow array";
    if (s->dictionary || arrow_width(s->format) < 0)
        return "Arrow format not supported by Redis filters (utf8, binary, their large forms, "
               "fixed_size_binary and integers are)";
    int64_t w = arrow_width(s->format);
    if (a->length < 0 || a->offset < 0 || a->n_buffers != (w > 0 ? 2 : 3) || !a->buffers[1] ||
        (w == 0 && !a->buffers[2] && a->length))
        return "a malformed Arrow array";
    if (w == 0) { /* offsets must not decrease */
        bool large = s->format[0] == 'U' || s->format[0] == 'Z';
        for (int64_t j = a->offset; j < a->offset + a->length; j++) {
            if (arrow_offset(a, large, j) < 0 || arrow_offset(a, large, j + 1) < arrow_offset(a, large, j))
                return "Arrow offsets that decrease";
        }
    }
    return NULL;
}

/* Keys [first, first + c->n) of a prepared (non-Arrow) batch. */
static void batch_chunk(const bbpy_batch *b, size_t first, chunk *c) {
    c->n_skip = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t j = first + i;
        c->skip[i] = 0;
        if (b->shape == BBPY_PTRS) {
            c->keys[i] = b->keys[j];
            c->lens[i] = b->lens[j];
        } else if (b->shape == BBPY_FIXED) {
            c->keys[i] = (const uint8_t *)b->base + j * (b->stride ? b->stride : b->width);
            c->lens[i] = b->width;
        } else { /* OFFSETS */
            c->keys[i] = b->data + b->offsets[j];
            c->lens[i] = (size_t)(b->offsets[j + 1] - b->offsets[j]);
        }
    }
}

/* ---- Running a batch ------------------------------------------------------------------------- */

/* Answers of one chunk: madd's "new" or mexists's "possibly present"; null Arrow values are
 * not sent and answer 0. */
static bb_status run_chunk(bb_redis *r, const char *name, bool add, chunk *c, uint8_t *out) {
    const void *keys[CHUNK];
    size_t lens[CHUNK], m = 0;
    uint8_t ans[CHUNK];
    for (size_t i = 0; i < c->n; i++)
        if (!c->skip[i]) keys[m] = c->keys[i], lens[m++] = c->lens[i];
    bb_status s = add ? bb_redis_madd(r, name, keys, lens, m, ans)
                            : bb_redis_mexists(r, name, keys, lens, m, ans, NULL);
    for (size_t i = 0, k = 0; s == BB_OK && i < c->n; i++) out[i] = c->skip[i] ? 0 : ans[k++];
    return s;
}

typedef struct answers {
    uint8_t *p;
    size_t n, cap;
} answers;

static bool answers_grow(answers *a, size_t more) {
    if (a->n + more <= a->cap) return true;
    size_t cap = a->cap ? a->cap : 4096;
    while (cap < a->n + more) cap *= 2;
    uint8_t *p = realloc(a->p, cap);
    if (!p) return false;
    a->p = p;
    a->cap = cap;
    return true;
}

/* One Arrow array's keys through run_chunk into a. */
static bb_status run_arrow(bb_redis *r, const char *name, bool add, const struct ArrowArray *arr,
                           const struct ArrowSchema *sch, answers *a, chunk *c, char *why,
                           size_t why_len) {
    const char *bad = arrow_check(arr, sch);
    if (bad) {
        snprintf(why, why_len, "%s ('%s')", bad, sch->format ? sch->format : "");
        return BB_E_INVAL;
    }
    if (!answers_grow(a, (size_t)arr->length)) return BB_E_NOMEM;
    bb_status s = BB_OK;
    for (int64_t i = 0; s == BB_OK && i < arr->length; i += CHUNK) {
        c->n = (size_t)(arr->length - i < CHUNK ? arr->length - i : CHUNK);
        arrow_chunk(arr, sch, i, c);
        s = run_chunk(r, name, add, c, a->p + a->n);
        if (s == BB_OK) a->n += c->n;
    }
    return s;
}

static bb_status run_stream(bb_redis *r, const char *name, bool add,
                            struct ArrowArrayStream *st, answers *a, chunk *c, char *why,
                            size_t why_len) {
    struct ArrowSchema sch;
    if (st->get_schema(st, &sch) != 0) {
        snprintf(why, why_len, "the Arrow stream gave no schema");
        return BB_E_INVAL;
    }
    bb_status s = BB_OK;
    for (;;) {
        struct ArrowArray arr;
        if (st->get_next(st, &arr) != 0) {
            snprintf(why, why_len, "the Arrow stream failed");
            s = BB_E_INVAL;
            break;
        }
        if (!arr.release) break; /* the end */
        s = run_arrow(r, name, add, &arr, &sch, a, c, why, why_len);
        arr.release(&arr);
        if (s != BB_OK) break;
    }
    sch.release(&sch);
    return s;
}

/* add_many / contains_many: answers for every key, in order. */
static PyObject *run_batch(RedisObject *self, PyObject *args, bool add) {
    const char *name;
    PyObject *x;
    if (!PyArg_ParseTuple(args, add ? "sO:add_many" : "sO:contains_many", &name, &x) ||
        !open_client(self))
        return NULL;
    bbpy_batch b;
    if (bbpy_batch_prepare(x, false, &b) < 0) return NULL;
    chunk *c = malloc(sizeof *c);
    answers a = {0};
    char why[200] = "", msg[512] = "";
    bb_status s = c ? BB_OK : BB_E_NOMEM;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->lock);
    if (s != BB_OK) {
    } else if (b.shape == BBPY_ARROW_ARRAY) {
        s = run_arrow(self->r, name, add, b.array, b.schema, &a, c, why, sizeof why);
    } else if (b.shape == BBPY_ARROW_STREAM) {
        s = run_stream(self->r, name, add, b.stream, &a, c, why, sizeof why);
    } else if (!answers_grow(&a, b.n)) {
        s = BB_E_NOMEM;
    } else {
        for (size_t i = 0; s == BB_OK && i < b.n; i += CHUNK) {
            c->n = b.n - i < CHUNK ? b.n - i : CHUNK;
            batch_chunk(&b, i, c);
            s = run_chunk(self->r, name, add, c, a.p + a.n);
            if (s == BB_OK) a.n += c->n;
        }
    }
    if (s != BB_OK) snprintf(msg, sizeof msg, "%s", why[0] ? why : bb_last_error());
    pthread_mutex_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    bbpy_batch_release(&b);
    free(c);
    PyObject *out = NULL;
    uint8_t *p;
    if (s == BB_OK && (out = bbpy_new_out(a.n, &p)) && a.n) memcpy(p, a.p, a.n);
    free(a.p);
    return s == BB_OK ? out : redis_error(s, msg);
}

static PyObject *Redis_add_many(RedisObject *self, PyObject *args) { return run_batch(self, args, true); }
static PyObject *Redis_contains_many(RedisObject *self, PyObject *args) { return run_batch(self, args, false); }

/* ---- One-shot calls --------------------------------------------------------------------------- */

/* Run `call` under the lock without the GIL; the message when it fails. */
#define LOCKED(self, s, msg, call)                                                 \
    do {                                                                           \
        Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&(self)->lock);                  \
        s = (call);                                                                \
        if (s != BB_OK) snprintf(msg, sizeof msg, "%s", bb_last_error()); \
        pthread_mutex_unlock(&(self)->lock);                                       \
        Py_END_ALLOW_THREADS                                                       \
    } while (0)

static PyObject *Redis_reserve(RedisObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"name", "error_rate", "capacity", "expansion", "nonscaling", "shards",
                          NULL};
    const char *name;
    int nonscaling = 0;
    bb_redis_params prm = {.size = sizeof prm};
    unsigned long long cap, expansion = 0, shards = 0; /* expansion 0: 2, or none if nonscaling */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sdK|$KpK:reserve", kws, &name, &prm.error_rate,
                                     &cap, &expansion, &nonscaling, &shards) ||
        !open_client(self))
        return NULL;
    prm.capacity = cap;
    prm.expansion = expansion;
    prm.nonscaling = nonscaling;
    prm.shards = shards;
    if (prm.error_rate == 0.0 || cap == 0) /* 0 means "the default" to the C call */
        return redis_error(BB_E_INVAL, prm.error_rate == 0.0
                           ? "ERR error rate must be in the range (0.000000, 1.000000)"
                           : "ERR capacity must be in the range [1, 1073741824]");
    bb_status s;
    char msg[512] = "";
    LOCKED(self, s, msg, bb_redis_reserve_params(self->r, name, &prm));
    return s == BB_OK ? Py_NewRef(Py_None) : redis_error(s, msg);
}

static PyObject *Redis_delete(RedisObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s:delete", &name) || !open_client(self)) return NULL;
    bb_status s;
    char msg[512] = "";
    LOCKED(self, s, msg, bb_redis_del(self->r, name));
    return s == BB_OK ? Py_NewRef(Py_None) : redis_error(s, msg);
}

static PyObject *Redis_info(RedisObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s:info", &name) || !open_client(self)) return NULL;
    bb_redis_info in = BB_REDIS_INFO_INIT;
    bb_status s;
    char msg[512] = "";
    LOCKED(self, s, msg, bb_redis_info_get(self->r, name, &in));
    if (s != BB_OK) return redis_error(s, msg);
    return Py_BuildValue("{sKsdsKsKsKsIsKsKsKsKsKsdsKsK}", "capacity", in.capacity,
                         "error_rate", in.error_rate, "size_bytes", in.size_bytes, "bits",
                         in.bits, "blocks", in.blocks, "k", in.k, "seed", in.seed, "shards",
                         in.shards, "blocks_per_shard", in.blocks_per_shard, "keys_added",
                         in.keys_added, "bits_set", in.bits_set, "cardinality", in.cardinality,
                         "filters", in.filters, "expansion", in.expansion);
}

static PyObject *Redis_pull(RedisObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s:pull", &name) || !open_client(self)) return NULL;
    bb_filter *f = NULL;
    bb_status s;
    char msg[512] = "";
    LOCKED(self, s, msg, bb_redis_pull(self->r, name, &f));
    return s == BB_OK ? bbpy_wrap(&bbpy_FilterType, f) : redis_error(s, msg);
}

static PyObject *Redis_close(RedisObject *self, PyObject *unused) {
    (void)unused;
    bb_redis *r;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&self->lock);
    r = self->r;
    self->r = NULL;
    pthread_mutex_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    bb_redis_free(r);
    return Py_NewRef(Py_None);
}

/* ---- The type ---------------------------------------------------------------------------------- */

/* A str, or a sequence of str, into urls (borrowed UTF-8 of refs, which it keeps). */
static int url_list(PyObject *o, PyObject **seq, const char ***urls, Py_ssize_t *n) {
    *seq = PyUnicode_Check(o) ? PyTuple_Pack(1, o) : PySequence_Fast(o, "urls: a str or a list of str");
    if (!*seq) return -1;
    *n = PySequence_Fast_GET_SIZE(*seq);
    *urls = PyMem_Calloc((size_t)(*n ? *n : 1), sizeof **urls);
    if (!*urls) return PyErr_NoMemory(), -1;
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *u = PySequence_Fast_GET_ITEM(*seq, i);
        if (!PyUnicode_Check(u) || !((*urls)[i] = PyUnicode_AsUTF8(u))) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "urls: a str or a list of str");
            return -1;
        }
    }
    return 0;
}

static int Redis_init(RedisObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"urls", "cluster", "user", "password", "timeout", "wait", NULL};
    PyObject *urls_o, *seq = NULL;
    int cluster = 0;
    const char *user = NULL, *password = NULL, **urls = NULL;
    double timeout = BB_REDIS_TIMEOUT_MS / 1000.0;
    unsigned wait = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$pzzdI:Client", kws, &urls_o, &cluster, &user,
                                     &password, &timeout, &wait))
        return -1;
    if (!(timeout >= 0.001 && timeout <= 86400.0)) {
        PyErr_SetString(PyExc_ValueError, "timeout: seconds in [0.001, 86400]");
        return -1;
    }
    Py_ssize_t n = 0;
    int rc = url_list(urls_o, &seq, &urls, &n);
    if (rc == 0) {
        bb_redis_options o = {.size = sizeof o, .cluster = cluster, .user = user,
                              .password = password, .timeout_ms = (uint32_t)(timeout * 1000 + 0.5),
                              .wait_replicas = wait};
        bb_redis *r = NULL;
        bb_status s;
        char msg[512] = "";
        Py_BEGIN_ALLOW_THREADS
        s = bb_redis_open(&r, urls, (size_t)n, &o);
        if (s != BB_OK) snprintf(msg, sizeof msg, "%s", bb_last_error());
        Py_END_ALLOW_THREADS
        if (s != BB_OK) {
            bb_redis_free(r);
            redis_error(s, msg);
            rc = -1;
        } else {
            bb_redis_free(self->r);
            self->r = r;
        }
    }
    PyMem_Free(urls);
    Py_XDECREF(seq);
    return rc;
}

static PyObject *Redis_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    (void)args, (void)kw;
    RedisObject *self = (RedisObject *)type->tp_alloc(type, 0);
    if (self) pthread_mutex_init(&self->lock, NULL);
    return (PyObject *)self;
}

static void Redis_dealloc(RedisObject *self) {
    bb_redis_free(self->r);
    pthread_mutex_destroy(&self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Redis_methods[] = {
    {"reserve", (PyCFunction)(void (*)(void))Redis_reserve, METH_VARARGS | METH_KEYWORDS,
     "reserve(name, error_rate, capacity, *, expansion=2, nonscaling=False, shards=0):\n"
     "BF.RESERVE: a scalable chain (each sub-filter `expansion` times the last), or one\n"
     "filter that refuses adds past capacity (nonscaling). RedisError if it exists."},
    {"add_many", (PyCFunction)Redis_add_many, METH_VARARGS,
     "add_many(name, keys) -> numpy.ndarray[bool] | bytearray: BF.MADD (a missing filter is\n"
     "created with RedisBloom's defaults); True where a key was new.\n"
     "keys as for Filter.add_many: a list of str/bytes, a numpy array, an Arrow array or stream\n"
     "(utf8, binary, their large forms, fixed_size_binary, integers; nulls are skipped)."},
    {"contains_many", (PyCFunction)Redis_contains_many, METH_VARARGS,
     "contains_many(name, keys) -> numpy.ndarray[bool] | bytearray: BF.MEXISTS (all False\n"
     "for a missing filter)."},
    {"info", (PyCFunction)Redis_info, METH_VARARGS, "info(name) -> dict: BF.INFO and the layout."},
    {"pull", (PyCFunction)Redis_pull, METH_VARARGS,
     "pull(name) -> blockbloom.Filter: the whole filter, as `blockbloom build` makes it."},
    {"delete", (PyCFunction)Redis_delete, METH_VARARGS, "delete(name): remove the filter."},
    {"close", (PyCFunction)Redis_close, METH_NOARGS, "close(): close every connection."},
    {NULL, NULL, 0, NULL}};

PyTypeObject bbpy_RedisType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "blockbloom.redis.Client",
    .tp_basicsize = sizeof(RedisObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Client(urls, *, cluster=False, user=None, password=None, timeout=10.0, wait=0)\n"
              "A filter shared in Redis (docs/REDIS.md, \"Connecting\" for the URL forms).",
    .tp_new = Redis_new,
    .tp_init = (initproc)Redis_init,
    .tp_dealloc = (destructor)Redis_dealloc,
    .tp_methods = Redis_methods,
};

int bbpy_redis_register(PyObject *m) {
    if (PyType_Ready(&bbpy_RedisType) < 0) return -1;
    RedisError = PyErr_NewExceptionWithDoc("blockbloom.redis.RedisError",
                                           "A Redis server or network error (the message names "
                                           "the node, HOST:PORT).", PyExc_OSError, NULL);
    if (!RedisError) return -1;
    PyObject *bases = PyTuple_Pack(2, RedisError, PyExc_TimeoutError);
    RedisTimeout = bases ? PyErr_NewExceptionWithDoc("blockbloom.redis.RedisTimeout",
                                                     "A request's deadline (timeout) passed: "
                                                     "connecting, resolving the host name or "
                                                     "waiting for a reply.", bases, NULL)
                         : NULL;
    Py_XDECREF(bases);
    if (!RedisTimeout || PyModule_AddObjectRef(m, "RedisTimeout", RedisTimeout) < 0 ||
        PyModule_AddObjectRef(m, "RedisError", RedisError) < 0 ||
        PyModule_AddObjectRef(m, "RedisClient", (PyObject *)&bbpy_RedisType) < 0)
        return -1;
    return 0;
}
