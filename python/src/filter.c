/* SPDX-License-Identifier: MIT */
/*
 * filter.c - the blockbloom.Filter type: construction (capacity + fpr or bits_per_key, or
 * bits + k; every kind the library names), single keys (add, in, remove, hash), batches
 * (add_many, contains_many: GIL released, input shapes in keys.c), info(), files and bytes
 * (save, load, open as a read-only mmap, bytes(f), frombytes, pickling through bytes),
 * union (f | g, f |= g), copy and clear. Each method is a thin wrapper over one library call;
 * locking as pybb.h describes.
 */
#include "pybb.h"

#include <string.h>

#define FILTER(o) (((FilterObject *)(o))->f)

/* ---- Construction ---------------------------------------------------------------------- */

static int kind_from_name(const char *name, bb_kind *out) {
    for (int k = 0; k < 32; k++)
        if (!strcmp(bb_kind_name((bb_kind)k), name) && strcmp(name, "unknown")) {
            *out = (bb_kind)k;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "unknown kind '%.40s' (see blockbloom.KINDS)", name);
    return -1;
}

/* An optional non-negative integer argument; 0 when None. A negative or too large integer is
 * a ValueError naming the argument and its range, lo .. 2**64 - 1 (the C API's OverflowError
 * "can't convert negative int to unsigned" names neither); a non-integer stays a TypeError.
 * lo is what the argument accepts: 1 for a size (0 is refused by check_given), 0 for a seed. */
static int opt_u64(PyObject *o, uint64_t *out, const char *name, int lo) {
    *out = 0;
    if (!o || o == Py_None) return 0;
    *out = PyLong_AsUnsignedLongLong(o);
    if (*out != (uint64_t)-1 || !PyErr_Occurred()) return 0;
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be an integer from %d to 2**64 - 1", name, lo);
    }
    return -1;
}

static int opt_double(PyObject *o, double *out) {
    *out = 0.0;
    if (!o || o == Py_None) return 0;
    *out = PyFloat_AsDouble(o);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* bb_config reads 0 as "not given" (a default, or the other way of sizing), so an explicit
 * 0 (or -0.0, or NaN) would silently become something the caller did not ask for:
 * Filter(n, fpr=0.0) was a 1% filter. Such arguments are refused here instead. */
static int check_given(PyObject *o, double v, const char *name) {
    if (!o || o == Py_None || v > 0.0) return 0;
    PyErr_Format(PyExc_ValueError, "%s must be above 0 (leave it out or pass None for the "
                 "default)", name);
    return -1;
}

static bool given(PyObject *o) { return o && o != Py_None; }

/* The library refuses a bad configuration with one status (BB_E_INVAL); these are its rules
 * (src/filter.c base_geometry, src/kinds/scalable.c params_valid), checked first so that the
 * message names the argument and the range. 0 or -1 with a ValueError. */
static int check_config(const bb_config *c, PyObject *fpr, PyObject *bpk, PyObject *bits,
                        PyObject *k, PyObject *growth, PyObject *tightening, int scale) {
    const char *msg = NULL;
    bool scalable = c->kind == BB_SCALABLE;
    if (given(fpr) && !(c->fpr > 0.0 && c->fpr < 1.0))
        return PyErr_Format(PyExc_ValueError, "fpr must be in (0, 1), not %R", fpr), -1;
    if (given(k) && (c->k < 1 || c->k > BB_MAX_K))
        return PyErr_Format(PyExc_ValueError, "k must be from 1 to %d, not %R", BB_MAX_K, k), -1;
    if (given(growth) && !(c->growth >= 1.0 && c->growth <= 1048576.0))
        return PyErr_Format(PyExc_ValueError, "growth must be from 1 to 2**20, not %R", growth), -1;
    if (given(tightening) && !(c->tightening > 0.0 && c->tightening < 1.0))
        return PyErr_Format(PyExc_ValueError, "tightening must be in (0, 1), not %R",
                            tightening), -1;
    if (given(fpr) && given(bpk))
        msg = "give fpr or bits_per_key, not both";
    else if (given(bits) && (given(fpr) || given(bpk)))
        msg = "bits (with k) is a size of its own: give it without fpr and bits_per_key";
    else if (scalable && (given(bits) || given(k) || given(bpk)))
        msg = "kind='scalable' is sized by capacity and fpr only (no bits, k or bits_per_key)";
    else if (!scalable && (given(growth) || given(tightening) || !scale))
        msg = "growth, tightening and scale apply to kind='scalable' only";
    else if (c->kind == BB_SPLIT && given(k) && c->k != 8)
        msg = "kind='split' always uses k=8 (Parquet's split-block filter)";
    if (!msg) return 0;
    PyErr_SetString(PyExc_ValueError, msg);
    return -1;
}

static PyObject *create(PyTypeObject *type, const bb_config *cfg) {
    bb_filter *f = NULL;
    bb_status s = bb_create(&f, cfg);
    if (s == BB_E_INVAL && (cfg->flags & BB_POW2_BYTES)) {
        /* Which kinds take pow2 is the kinds table's to say: refused with it and made
         * without it, the flag is what the kind does not take. */
        bb_config plain = *cfg;
        plain.flags &= ~(unsigned)BB_POW2_BYTES;
        if (bb_create(&f, &plain) == BB_OK) {
            bb_free(f);
            PyErr_Format(PyExc_ValueError, "pow2=True does not apply to kind='%s'",
                         bb_kind_name(cfg->kind));
            return NULL;
        }
    }
    if (s != BB_OK) return bbpy_error(s, "bad filter parameters (see help(blockbloom.Filter))", NULL);
    return bbpy_wrap(type, f);
}

static PyObject *Filter_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"capacity", "fpr", "kind", "seed", "bits", "k", "bits_per_key",
                             "growth", "tightening", "scale", "pow2", NULL};
    PyObject *capacity = NULL, *fpr = NULL, *seed = NULL, *bits = NULL, *k = NULL, *bpk = NULL;
    PyObject *growth = NULL, *tightening = NULL;
    const char *kind = "blocked";
    int scale = 1, pow2 = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOsO$OOOOOpp", kwlist, &capacity, &fpr, &kind,
                                     &seed, &bits, &k, &bpk, &growth, &tightening, &scale, &pow2))
        return NULL;
    bb_config c = BB_CONFIG_INIT;
    uint64_t k64;
    if (kind_from_name(kind, &c.kind) < 0 || opt_u64(capacity, &c.capacity, "capacity", 1) < 0 ||
        opt_double(fpr, &c.fpr) < 0 || opt_u64(seed, &c.seed, "seed", 0) < 0 ||
        opt_u64(bits, &c.bits, "bits", 1) < 0 || opt_u64(k, &k64, "k", 1) < 0 ||
        opt_double(bpk, &c.bits_per_key) < 0 ||
        opt_double(growth, &c.growth) < 0 || opt_double(tightening, &c.tightening) < 0 ||
        check_given(capacity, (double)c.capacity, "capacity") < 0 ||
        check_given(bits, (double)c.bits, "bits") < 0 ||
        check_given(bpk, c.bits_per_key, "bits_per_key") < 0)
        return NULL;
    c.k = k64 > BB_MAX_K ? 0 : (unsigned)k64; /* out of range: check_config names it */
    c.flags = (scale ? 0 : BB_NO_SCALE) | (pow2 ? BB_POW2_BYTES : 0);
    if (k64 > BB_MAX_K) {
        PyErr_Format(PyExc_ValueError, "k must be from 1 to %d, not %R", BB_MAX_K, k);
        return NULL;
    }
    if (check_config(&c, fpr, bpk, bits, k, growth, tightening, scale) < 0) return NULL;
    if (!c.capacity && !c.bits) {
        PyErr_SetString(PyExc_TypeError, "Filter() needs a capacity (with fpr or bits_per_key) "
                                         "or bits (with k)");
        return NULL;
    }
    if (c.capacity && c.fpr == 0.0 && c.bits_per_key == 0.0 && !c.bits) c.fpr = 0.01;
    return create(type, &c);
}

PyDoc_STRVAR(with_bits_doc,
"with_bits(bits, k, kind='blocked', seed=0) -> Filter\n\n"
"A filter of explicit geometry: `bits` bits (blocked and counting round up to whole\n"
"512-bit blocks) and `k` probes per key (1 .. 16).");

static PyObject *Filter_with_bits(PyObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"bits", "k", "kind", "seed", NULL};
    unsigned long long bits, seed = 0;
    unsigned int k = 0;
    const char *kind = "blocked";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "KI|sK", kwlist, &bits, &k, &kind, &seed))
        return NULL;
    bb_config c = BB_CONFIG_INIT;
    if (kind_from_name(kind, &c.kind) < 0) return NULL;
    c.bits = bits;
    c.k = k;
    c.seed = seed;
    return create((PyTypeObject *)type, &c);
}

static void Filter_dealloc(FilterObject *self) {
    bb_free(self->f);
    pthread_rwlock_destroy(&self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ---- Single keys -------------------------------------------------------------------------- */

static PyObject *Filter_add(FilterObject *self, PyObject *key) {
    bbpy_key k;
    if (bbpy_key_get(key, &k) < 0) return NULL;
    bbpy_lock_write_gil(self);
    bb_status s = bb_add(self->f, k.p, k.len);
    bbpy_unlock(self);
    bbpy_key_release(&k);
    if (s != BB_OK) return bbpy_error(s, NULL, NULL);
    Py_RETURN_NONE;
}

static int Filter_contains(FilterObject *self, PyObject *key) {
    bbpy_key k;
    if (bbpy_key_get(key, &k) < 0) return -1;
    bbpy_lock_read_gil(self);
    bool r = bb_contains(self->f, k.p, k.len);
    bbpy_unlock(self);
    bbpy_key_release(&k);
    return r;
}

static PyObject *Filter_remove(FilterObject *self, PyObject *key) {
    bbpy_key k;
    if (bbpy_key_get(key, &k) < 0) return NULL;
    bbpy_lock_write_gil(self);
    bb_status s = bb_remove(self->f, k.p, k.len);
    bbpy_unlock(self);
    bbpy_key_release(&k);
    if (s == BB_E_ABSENT) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    if (s != BB_OK)
        return bbpy_error(s, s == BB_E_UNSUPPORTED ? "remove needs kind='counting'" : NULL, NULL);
    Py_RETURN_NONE;
}

static PyObject *Filter_hash(FilterObject *self, PyObject *key) {
    bbpy_key k;
    if (bbpy_key_get(key, &k) < 0) return NULL;
    uint64_t h = bb_hash(self->f, k.p, k.len); /* the seed never changes: no lock */
    bbpy_key_release(&k);
    return PyLong_FromUnsignedLongLong(h);
}

static PyObject *Filter_add_hash(FilterObject *self, PyObject *arg) {
    uint64_t h = PyLong_AsUnsignedLongLong(arg);
    if (h == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    bbpy_lock_write_gil(self);
    bb_status s = bb_add_hash(self->f, h);
    bbpy_unlock(self);
    if (s != BB_OK) return bbpy_error(s, NULL, NULL);
    Py_RETURN_NONE;
}

static PyObject *Filter_contains_hash(FilterObject *self, PyObject *arg) {
    uint64_t h = PyLong_AsUnsignedLongLong(arg);
    if (h == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    bbpy_lock_read_gil(self);
    bool r = bb_contains_hash(self->f, h);
    bbpy_unlock(self);
    return PyBool_FromLong(r);
}

/* ---- Batches --------------------------------------------------------------------------------- */

static bool is_arrow(const bbpy_batch *b) {
    return b->shape == BBPY_ARROW_ARRAY || b->shape == BBPY_ARROW_STREAM;
}

static int parse_batch(PyObject *args, PyObject *kw, bbpy_batch *b) {
    static char *kwlist[] = {"keys", "hashes", NULL};
    PyObject *x;
    int hashes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$p", kwlist, &x, &hashes)) return -1;
    if (bbpy_batch_prepare(x, hashes, b) == 0) return 0;
    bbpy_batch_release(b);
    return -1;
}

static PyObject *Filter_add_many(FilterObject *self, PyObject *args, PyObject *kw) {
    bbpy_batch b;
    if (parse_batch(args, kw, &b) < 0) return NULL;
    bb_status s;
    char detail[200] = "";
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_wrlock(&self->lock);
    s = bbpy_batch_add(self->f, &b);
    pthread_rwlock_unlock(&self->lock);
    if (s != BB_OK && is_arrow(&b)) snprintf(detail, sizeof detail, "%s", bb_last_error());
    Py_END_ALLOW_THREADS
    bbpy_batch_release(&b);
    if (s != BB_OK) return bbpy_error(s, detail, NULL);
    Py_RETURN_NONE;
}

/* A new numpy bool array (or, without numpy, bytearray) of n bytes; *p is where to write. */
PyObject *bbpy_new_out(size_t n, uint8_t **p) {
    PyObject *np = bbpy_numpy();
    if (!np) {
        PyObject *ba = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n);
        if (ba) *p = (uint8_t *)PyByteArray_AS_STRING(ba);
        return ba;
    }
    PyObject *arr = PyObject_CallMethod(np, "empty", "ns", (Py_ssize_t)n, "bool");
    if (!arr) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(arr, &v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    *p = v.buf;
    PyBuffer_Release(&v); /* the array owns the memory */
    return arr;
}

static PyObject *contains_stream(FilterObject *self, bbpy_batch *b) {
    uint8_t *answers = NULL;
    size_t n = 0;
    bb_status s;
    char detail[200] = "";
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&self->lock);
    s = bbpy_batch_contains_stream(self->f, b, &answers, &n);
    pthread_rwlock_unlock(&self->lock);
    if (s != BB_OK) snprintf(detail, sizeof detail, "%s", bb_last_error());
    Py_END_ALLOW_THREADS
    if (s != BB_OK) return bbpy_error(s, detail, NULL);
    uint8_t *p = NULL;
    PyObject *out = bbpy_new_out(n, &p);
    if (out && n) memcpy(p, answers, n);
    free(answers);
    return out;
}

static PyObject *Filter_contains_many(FilterObject *self, PyObject *args, PyObject *kw) {
    bbpy_batch b;
    if (parse_batch(args, kw, &b) < 0) return NULL;
    if (b.shape == BBPY_ARROW_STREAM) {
        PyObject *r = contains_stream(self, &b);
        bbpy_batch_release(&b);
        return r;
    }
    uint8_t *p = NULL;
    PyObject *out = bbpy_new_out(b.n, &p);
    if (!out) {
        bbpy_batch_release(&b);
        return NULL;
    }
    bb_status s;
    char detail[200] = "";
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&self->lock);
    s = bbpy_batch_contains(self->f, &b, p);
    pthread_rwlock_unlock(&self->lock);
    if (s != BB_OK && is_arrow(&b)) snprintf(detail, sizeof detail, "%s", bb_last_error());
    Py_END_ALLOW_THREADS
    bbpy_batch_release(&b);
    if (s != BB_OK) {
        Py_DECREF(out);
        return bbpy_error(s, detail, NULL);
    }
    return out;
}

/* ---- Information ------------------------------------------------------------------------------ */

static int set_item(PyObject *d, const char *key, PyObject *v) {
    int rc = v ? PyDict_SetItemString(d, key, v) : -1;
    Py_XDECREF(v);
    return rc;
}

static PyObject *info_dict(const bb_info *i) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
#define U64(name) set_item(d, #name, PyLong_FromUnsignedLongLong(i->name))
#define DBL(name) set_item(d, #name, PyFloat_FromDouble(i->name))
    int bad = set_item(d, "kind", PyUnicode_FromString(bb_kind_name(i->kind))) | U64(bits) |
              U64(bytes) | U64(k) | U64(blocks) | U64(capacity) | DBL(fpr_target) | U64(seed) |
              U64(keys_added) | U64(bits_set) | DBL(fill_ratio) | DBL(fpr_estimate) |
              DBL(cardinality_estimate) | DBL(bits_per_key) |
              set_item(d, "read_only", PyBool_FromLong(i->read_only)) | U64(format_version) |
              U64(saturated_counters) | U64(subfilters) | DBL(growth) | DBL(tightening) |
              U64(flags);
#undef U64
#undef DBL
    if (bad) Py_CLEAR(d);
    return d;
}

static PyObject *Filter_info(FilterObject *self, PyObject *unused) {
    (void)unused;
    bb_info i = BB_INFO_INIT;
    bbpy_lock_read_gil(self);
    bb_status s = bb_get_info(self->f, &i);
    bbpy_unlock(self);
    return s == BB_OK ? info_dict(&i) : bbpy_error(s, NULL, NULL);
}

/* ---- Properties: one bb_info field each, and len(f) ----------------------------------------- */

static bool get_info(FilterObject *self, bb_info *i) {
    bbpy_lock_read_gil(self);
    bb_status s = bb_get_info(self->f, i);
    bbpy_unlock(self);
    if (s != BB_OK) bbpy_error(s, NULL, NULL);
    return s == BB_OK;
}

#define INFO_GETTER(name, make)                                                                    \
    static PyObject *get_##name(FilterObject *self, void *closure) {                               \
        (void)closure;                                                                             \
        bb_info i = BB_INFO_INIT;                                                                  \
        return get_info(self, &i) ? make : NULL;                                                   \
    }
INFO_GETTER(kind, PyUnicode_FromString(bb_kind_name(i.kind)))
INFO_GETTER(bits, PyLong_FromUnsignedLongLong(i.bits))
INFO_GETTER(nbytes, PyLong_FromUnsignedLongLong(i.bytes))
INFO_GETTER(k, PyLong_FromUnsignedLong(i.k))
INFO_GETTER(seed, PyLong_FromUnsignedLongLong(i.seed))
INFO_GETTER(capacity, PyLong_FromUnsignedLongLong(i.capacity))
INFO_GETTER(keys_added, PyLong_FromUnsignedLongLong(i.keys_added))
INFO_GETTER(fill_ratio, PyFloat_FromDouble(i.fill_ratio))
INFO_GETTER(fpr_estimate, PyFloat_FromDouble(i.fpr_estimate))
INFO_GETTER(cardinality_estimate, PyFloat_FromDouble(i.cardinality_estimate))
INFO_GETTER(read_only, PyBool_FromLong(i.read_only))
#undef INFO_GETTER

/* The threads of the batch calls (bb_set_threads): a change to the object, so the writer's
 * lock; no batch call of another Python thread is inside the filter meanwhile. */
static PyObject *get_threads(FilterObject *self, void *closure) {
    (void)closure;
    bbpy_lock_read_gil(self);
    unsigned n = bb_threads(self->f);
    bbpy_unlock(self);
    return PyLong_FromUnsignedLong(n);
}

static int set_threads(FilterObject *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "threads cannot be deleted (set 1 instead)");
        return -1;
    }
    /* Any integer-like object (numpy's int64 too, through __index__); every integer outside
     * 0..BB_MAX_THREADS, negative or past a C long, is the same ValueError. */
    PyObject *index = PyNumber_Index(value);
    if (!index) return -1;
    int overflow;
    long long n = PyLong_AsLongLongAndOverflow(index, &overflow);
    if (n == -1 && !overflow && PyErr_Occurred()) {
        Py_DECREF(index);
        return -1;
    }
    if (overflow || n < 0 || n > BB_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 0 (one per CPU) to %u, not %S",
                     BB_MAX_THREADS, index);
        Py_DECREF(index);
        return -1;
    }
    Py_DECREF(index);
    bbpy_lock_write_gil(self);
    bb_status s = bb_set_threads(self->f, (unsigned)n);
    bbpy_unlock(self);
    if (s != BB_OK) {
        bbpy_error(s, NULL, NULL);
        return -1;
    }
    return 0;
}

static PyGetSetDef getset[] = {
    {"threads", (getter)get_threads, (setter)set_threads, "Threads the batch calls (add_many,\n"
     "contains_many and the Arrow and numpy paths) may run on: 1 (the default) runs them on\n"
     "the calling thread; 0 sets one per CPU. Results are the same as with one thread\n"
     "(bb_set_threads).", NULL},
    {"kind", (getter)get_kind, NULL, "The kind, one of blockbloom.KINDS.", NULL},
    {"bits", (getter)get_bits, NULL, "Size in bits (cells for 'counting'; the sum of the\n"
     "sub-filters for 'scalable').", NULL},
    {"nbytes", (getter)get_nbytes, NULL, "Bytes of the filter's payload in memory.", NULL},
    {"k", (getter)get_k, NULL, "Probes per key (the newest sub-filter's for 'scalable').", NULL},
    {"seed", (getter)get_seed, NULL, "The 64-bit hash seed.", NULL},
    {"capacity", (getter)get_capacity, NULL, "The number of keys it was sized for (0 when\n"
     "made from bits and k).", NULL},
    {"keys_added", (getter)get_keys_added, NULL, "Keys added so far, duplicates counted (also\n"
     "len(f)).", NULL},
    {"fill_ratio", (getter)get_fill_ratio, NULL, "Fraction of bits set, 0.0 .. 1.0 (of cells\n"
     "in use for 'counting').", NULL},
    {"fpr_estimate", (getter)get_fpr_estimate, NULL, "The false-positive rate expected now, from\n"
     "the fill (bb_info.fpr_estimate).", NULL},
    {"cardinality_estimate", (getter)get_cardinality_estimate, NULL, "Distinct keys estimated\n"
     "from the fill (Swamidass-Baldi), which ignores duplicates that keys_added counts.", NULL},
    {"read_only", (getter)get_read_only, NULL, "True for a filter mapped with Filter.open.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static Py_ssize_t Filter_len(FilterObject *self) {
    bb_info i = BB_INFO_INIT;
    if (!get_info(self, &i)) return -1;
    return i.keys_added > (uint64_t)PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)i.keys_added;
}

static PyObject *Filter_repr(FilterObject *self) {
    bb_info i = BB_INFO_INIT;
    bbpy_lock_read_gil(self);
    bb_status s = bb_get_info(self->f, &i);
    bbpy_unlock(self);
    if (s != BB_OK) return bbpy_error(s, NULL, NULL);
    return PyUnicode_FromFormat("<blockbloom.Filter kind=%s bits=%llu k=%u keys_added=%llu%s>",
                                bb_kind_name(i.kind), (unsigned long long)i.bits, i.k,
                                (unsigned long long)i.keys_added, i.read_only ? " read-only" : "");
}

/* ---- Changes: clear, union, copy ------------------------------------------------------------- */

static PyObject *Filter_clear(FilterObject *self, PyObject *unused) {
    (void)unused;
    bbpy_lock_write_gil(self);
    bb_status s = bb_clear(self->f);
    bbpy_unlock(self);
    if (s != BB_OK) return bbpy_error(s, NULL, NULL);
    Py_RETURN_NONE;
}

static PyObject *Filter_copy(FilterObject *self, PyObject *unused) {
    (void)unused;
    bb_filter *c = NULL;
    bbpy_lock_read_gil(self);
    bb_status s = bb_clone(&c, self->f);
    bbpy_unlock(self);
    return s == BB_OK ? bbpy_wrap(Py_TYPE(self), c) : bbpy_error(s, NULL, NULL);
}

static PyObject *Filter_deepcopy(FilterObject *self, PyObject *memo) {
    (void)memo;
    return Filter_copy(self, NULL);
}

static PyObject *Filter_to_blocked(FilterObject *self, PyObject *unused) {
    (void)unused;
    bb_filter *c = NULL;
    bbpy_lock_read_gil(self);
    bb_status s = bb_counting_to_blocked(self->f, &c);
    bbpy_unlock(self);
    if (s != BB_OK)
        return bbpy_error(s, s == BB_E_UNSUPPORTED ? "to_blocked needs kind='counting'" : NULL, NULL);
    return bbpy_wrap(Py_TYPE(self), c);
}

static PyObject *Filter_fold(FilterObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"fpr", NULL};
    PyObject *fpr = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &fpr)) return NULL;
    double p = 0.0;
    if (fpr != Py_None && (p = PyFloat_AsDouble(fpr)) == -1.0 && PyErr_Occurred()) return NULL;
    bbpy_lock_write_gil(self);
    bb_status s = fpr == Py_None ? bb_fold(self->f) : bb_fold_to_fpr(self->f, p);
    bbpy_unlock(self);
    if (s != BB_OK)
        return bbpy_error(s, s == BB_E_UNSUPPORTED ? "fold needs a blocked or split filter" : NULL,
                          NULL);
    Py_RETURN_NONE;
}

/* dst |= src with dst locked for writing and src for reading, in address order so that two
 * threads doing f |= g and g |= f cannot deadlock. */
static bb_status merge_into(FilterObject *dst, FilterObject *src, bb_mismatch *what) {
    bb_status s;
    if (dst == src) {
        bbpy_lock_write_gil(dst);
    } else if (dst < src) {
        bbpy_lock_write_gil(dst);
        bbpy_lock_read_gil(src);
    } else {
        bbpy_lock_read_gil(src);
        bbpy_lock_write_gil(dst);
    }
    s = bb_union_check(dst->f, src->f, what);
    if (s == BB_OK) s = bb_union(dst->f, src->f);
    if (dst != src) bbpy_unlock(src);
    bbpy_unlock(dst);
    return s;
}

static PyObject *union_error(bb_status s, bb_mismatch what) {
    char detail[64];
    snprintf(detail, sizeof detail, "they differ in %s", bb_mismatch_name(what));
    return bbpy_error(s, s == BB_E_MISMATCH ? detail : NULL, NULL);
}

static PyObject *Filter_ior(PyObject *a, PyObject *b) {
    if (!PyObject_TypeCheck(a, &bbpy_FilterType) || !PyObject_TypeCheck(b, &bbpy_FilterType))
        Py_RETURN_NOTIMPLEMENTED;
    bb_mismatch what = BB_MATCH;
    bb_status s = merge_into((FilterObject *)a, (FilterObject *)b, &what);
    if (s != BB_OK) return union_error(s, what);
    Py_INCREF(a);
    return a;
}

static PyObject *Filter_or(PyObject *a, PyObject *b) {
    if (!PyObject_TypeCheck(a, &bbpy_FilterType) || !PyObject_TypeCheck(b, &bbpy_FilterType))
        Py_RETURN_NOTIMPLEMENTED;
    bb_mismatch what = BB_MATCH;
    bbpy_lock_read_gil((FilterObject *)b);
    bb_status s = bb_union_check(FILTER(a), FILTER(b), &what);
    bbpy_unlock((FilterObject *)b);
    if (s != BB_OK) return union_error(s, what);
    PyObject *c = Filter_copy((FilterObject *)a, NULL);
    if (!c) return NULL;
    s = merge_into((FilterObject *)c, (FilterObject *)b, &what);
    if (s != BB_OK) {
        Py_DECREF(c);
        return union_error(s, what);
    }
    return c;
}

/* ---- Files and bytes ------------------------------------------------------------------------- */

static PyObject *Filter_save(FilterObject *self, PyObject *path) {
    PyObject *enc = NULL;
    if (!PyUnicode_FSConverter(path, &enc)) return NULL;
    bb_status s;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&self->lock);
    s = bb_save(self->f, PyBytes_AS_STRING(enc));
    pthread_rwlock_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    Py_DECREF(enc);
    if (s != BB_OK) return bbpy_error(s, NULL, path);
    Py_RETURN_NONE;
}

static PyObject *from_file(PyObject *type, PyObject *path, bool map) {
    PyObject *enc = NULL;
    if (!PyUnicode_FSConverter(path, &enc)) return NULL;
    bb_filter *f = NULL;
    bb_status s;
    Py_BEGIN_ALLOW_THREADS
    s = map ? bb_open_mmap(&f, PyBytes_AS_STRING(enc)) : bb_load(&f, PyBytes_AS_STRING(enc));
    Py_END_ALLOW_THREADS
    Py_DECREF(enc);
    if (s != BB_OK) return bbpy_error(s, NULL, path);
    return bbpy_wrap((PyTypeObject *)type, f);
}

static PyObject *Filter_load(PyObject *type, PyObject *path) { return from_file(type, path, false); }
static PyObject *Filter_open(PyObject *type, PyObject *path) { return from_file(type, path, true); }

static PyObject *Filter_frombytes(PyObject *type, PyObject *data) {
    Py_buffer v;
    if (PyObject_GetBuffer(data, &v, PyBUF_SIMPLE) < 0) return NULL;
    bb_filter *f = NULL;
    bb_status s;
    Py_BEGIN_ALLOW_THREADS
    s = bb_deserialize(&f, v.buf, (size_t)v.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    if (s != BB_OK) return bbpy_error(s, NULL, NULL);
    return bbpy_wrap((PyTypeObject *)type, f);
}

static PyObject *Filter_bytes(FilterObject *self, PyObject *unused) {
    (void)unused;
    uint64_t size = 0;
    bbpy_lock_read_gil(self);
    bb_status s = bb_serialized_size(self->f, &size);
    PyObject *out = s == BB_OK && size <= PY_SSIZE_T_MAX
                        ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size)
                        : NULL;
    if (out) s = bb_serialize(self->f, PyBytes_AS_STRING(out), (size_t)size, NULL);
    bbpy_unlock(self);
    if (s != BB_OK) {
        Py_XDECREF(out);
        return bbpy_error(s, NULL, NULL);
    }
    return out;
}

static PyObject *Filter_reduce(FilterObject *self, PyObject *unused) {
    PyObject *data = Filter_bytes(self, unused);
    if (!data) return NULL;
    PyObject *ctor = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "frombytes");
    PyObject *r = ctor ? Py_BuildValue("(O(O))", ctor, data) : NULL;
    Py_XDECREF(ctor);
    Py_DECREF(data);
    return r;
}

/* ---- The type ---------------------------------------------------------------------------------- */

PyDoc_STRVAR(filter_doc,
"Filter(capacity=None, fpr=0.01, kind='blocked', seed=0, *, bits=None, k=None,\n"
"       bits_per_key=None, growth=None, tightening=None, scale=True, pow2=False)\n\n"
"A Bloom filter (libblockbloom). Sized for `capacity` keys at false-positive rate `fpr`\n"
"(or `bits_per_key`), or of explicit geometry `bits` (+ `k`); see also Filter.with_bits.\n"
"kind is one of blockbloom.KINDS: 'blocked' (all probes of a key in one 64-byte block,\n"
"the fastest), 'classic', 'counting' (supports remove), 'scalable' (grows past its\n"
"capacity; growth, tightening and scale=False apply to it alone) or 'split' (Apache\n"
"Parquet's split-block filter, XXH64). pow2=True (blocked, split, sectorized) rounds the\n"
"payload up to a power of two bytes, as Parquet writers do, so that fold() can halve it.\n"
"Keys are str (hashed as UTF-8), bytes or any buffer, hashed with the kind's hash and\n"
"`seed`. Never a false negative. Thread-safe: batch calls release the GIL.\n\n"
"len(f) is keys_added; the properties kind, bits, nbytes, k, seed, capacity,\n"
"keys_added, fill_ratio, fpr_estimate, cardinality_estimate and read_only read bb_info\n"
"(each one pass over the filter to count its set bits; info() gives them all at once).\n"
"Bad arguments raise ValueError naming the argument and its range, e.g.\n"
"Filter(100, fpr=2): 'fpr must be in (0, 1), not 2'.");

static PyMethodDef methods[] = {
    {"add", (PyCFunction)Filter_add, METH_O,
     "add(key): add one key (str as UTF-8, bytes or a buffer)."},
    {"remove", (PyCFunction)Filter_remove, METH_O,
     "remove(key): remove one key from a counting filter; KeyError if definitely absent."},
    {"hash", (PyCFunction)Filter_hash, METH_O,
     "hash(key) -> int: the 64-bit XXH3 hash (with the filter's seed) every call uses."},
    {"add_hash", (PyCFunction)Filter_add_hash, METH_O, "add_hash(h): add a 64-bit hash."},
    {"contains_hash", (PyCFunction)Filter_contains_hash, METH_O,
     "contains_hash(h) -> bool: query a 64-bit hash."},
    {"add_many", (PyCFunction)(void (*)(void))Filter_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, hashes=False): add a batch without holding the GIL. keys is an\n"
     "iterable of str/bytes/buffers (a list, a numpy object array or a pandas Series of str,\n"
     "the last two read in place; None or NaN is a TypeError naming its position), a 1-D\n"
     "buffer (numpy S, V, U or integer array; integers hash as little-endian bytes), an\n"
     "Arrow array or stream (__arrow_c_array__ / __arrow_c_stream__, zero-copy; nulls are\n"
     "skipped), or with hashes=True 64-bit hashes."},
    {"contains_many", (PyCFunction)(void (*)(void))Filter_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, hashes=False) -> numpy.ndarray[bool] | bytearray: the answer\n"
     "for each key (as add_many; Arrow nulls answer False), without holding the GIL. A\n"
     "bytearray of 0/1 when numpy cannot be imported."},
    {"info", (PyCFunction)Filter_info, METH_NOARGS,
     "info() -> dict: kind, bits, k, capacity, fpr_target, seed, keys_added, bits_set,\n"
     "fill_ratio, fpr_estimate, cardinality_estimate, read_only, ... (bb_info)."},
    {"clear", (PyCFunction)Filter_clear, METH_NOARGS, "clear(): remove every key."},
    {"copy", (PyCFunction)Filter_copy, METH_NOARGS,
     "copy() -> Filter: a deep, writable copy (also of a mapped filter)."},
    {"__copy__", (PyCFunction)Filter_copy, METH_NOARGS, "copy.copy(f): as f.copy()."},
    {"__deepcopy__", (PyCFunction)Filter_deepcopy, METH_O, "copy.deepcopy(f): as f.copy()."},
    {"to_blocked", (PyCFunction)Filter_to_blocked, METH_NOARGS,
     "to_blocked() -> Filter: a counting filter's keys as a compact blocked filter."},
    {"fold", (PyCFunction)(void (*)(void))Filter_fold, METH_VARARGS | METH_KEYWORDS,
     "fold(fpr=None): halve the block count in place (bb_fold): the result is the filter\n"
     "built with half the blocks from the same keys. With fpr, fold as long as the model\n"
     "FPR at keys_added stays <= fpr (bb_fold_to_fpr). Blocked and split filters."},
    {"save", (PyCFunction)Filter_save, METH_O,
     "save(path): write atomically (temporary file, fsync, rename). OSError on failure."},
    {"load", (PyCFunction)Filter_load, METH_O | METH_CLASS,
     "Filter.load(path) -> Filter: read and validate a saved filter into memory."},
    {"open", (PyCFunction)Filter_open, METH_O | METH_CLASS,
     "Filter.open(path) -> Filter: map a saved filter read-only (shared by every process\n"
     "that maps the file; adds raise ValueError)."},
    {"frombytes", (PyCFunction)Filter_frombytes, METH_O | METH_CLASS,
     "Filter.frombytes(data) -> Filter: the filter serialized in data (bytes(f))."},
    {"with_bits", (PyCFunction)(void (*)(void))Filter_with_bits,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, with_bits_doc},
    {"__bytes__", (PyCFunction)Filter_bytes, METH_NOARGS,
     "bytes(f): the serialized filter (docs/FORMAT.md), as save() writes it."},
    {"__reduce__", (PyCFunction)Filter_reduce, METH_NOARGS,
     "pickle: through bytes(f) and Filter.frombytes (a mapped filter unpickles writable)."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods as_sequence = {.sq_length = (lenfunc)Filter_len,
                                        .sq_contains = (objobjproc)Filter_contains};
static PyNumberMethods as_number = {.nb_or = Filter_or, .nb_inplace_or = Filter_ior};

PyTypeObject bbpy_FilterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "blockbloom.Filter",
    .tp_basicsize = sizeof(FilterObject),
    .tp_dealloc = (destructor)Filter_dealloc,
    .tp_repr = (reprfunc)Filter_repr,
    .tp_as_number = &as_number,
    .tp_as_sequence = &as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = filter_doc,
    .tp_methods = methods,
    .tp_getset = getset,
    .tp_new = Filter_new,
};
