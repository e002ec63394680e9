/* SPDX-License-Identifier: MIT */
/*
 * keys.c - turning Python objects into keys for the library: one key (str as UTF-8, bytes,
 * any C-contiguous buffer), and a batch for add_many/contains_many, prepared with the GIL
 * held and then run without it. A batch is, in the order tried:
 *  - an object with __arrow_c_array__ (ArrowSchema + ArrowArray capsules) or
 *    __arrow_c_stream__ (an ArrowArrayStream capsule): handed to the library's Arrow calls
 *    zero-copy (src/arrow.c);
 *  - a 1-D buffer (numpy array, array.array, memoryview): object arrays ("O", also a
 *    pandas Series of str through numpy.asarray) as their items, read in place;
 *    fixed-width bytes "Ns" (numpy S: trailing NUL bytes are padding, as numpy itself reads
 *    the items, so they are not part of the key) and "Nx" (numpy V: every byte), integers
 *    "bBhHiIlLqQnN" hashed as their little-endian bytes (like the Arrow integer types),
 *    "Nw" (numpy U: UCS-4, encoded to UTF-8 first: the one layout that needs a copy), or
 *    with hashes=True 8-byte integers used as the hashes; strided arrays are read in place,
 *    negative or zero strides and big-endian data copied first;
 *  - an object with __array__ (pandas, ...) when numpy is importable, through numpy.asarray;
 *  - any iterable of str/bytes/buffer keys (or of ints with hashes=True). The items are held
 *    by reference while the GIL is released, so another thread changing the list cannot free
 *    a key under the library.
 */
#include "pybb.h"

#include <math.h>
#include <string.h>

int bbpy_key_get(PyObject *o, bbpy_key *k) {
    k->has_view = false;
    if (PyUnicode_Check(o)) {
        Py_ssize_t len;
        k->p = PyUnicode_AsUTF8AndSize(o, &len);
        k->len = (size_t)len;
        return k->p ? 0 : -1;
    }
    if (PyBytes_Check(o)) {
        k->p = PyBytes_AS_STRING(o);
        k->len = (size_t)PyBytes_GET_SIZE(o);
        return 0;
    }
    if (PyObject_CheckBuffer(o)) {
        if (PyObject_GetBuffer(o, &k->view, PyBUF_SIMPLE) < 0) return -1;
        k->has_view = true;
        k->p = k->view.buf;
        k->len = (size_t)k->view.len;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "a key is str, bytes or a buffer, not %.100s",
                 Py_TYPE(o)->tp_name);
    return -1;
}

void bbpy_key_release(bbpy_key *k) {
    if (k->has_view) PyBuffer_Release(&k->view);
    k->has_view = false;
}

/* ---- Iterables --------------------------------------------------------------------------- */

static int prepare_hash_list(PyObject *seq, bbpy_batch *b) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint64_t *h = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *h);
    if (!h) {
        PyErr_NoMemory();
        return -1;
    }
    b->owned = h;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "with hashes=True the items are ints, not %.100s",
                         Py_TYPE(item)->tp_name);
            return -1;
        }
        h[i] = PyLong_AsUnsignedLongLong(item);
        if (h[i] == (uint64_t)-1 && PyErr_Occurred()) return -1;
    }
    b->shape = BBPY_HASHES;
    b->hashes = h;
    b->n = (size_t)n;
    return 0;
}

/* n items, item i at base + i * stride (a list's item array, or a numpy object array's
 * buffer read in place, so a pandas Series of str costs no list of its items). */
static int prepare_key_items(const char *base, Py_ssize_t stride, Py_ssize_t n, bbpy_batch *b) {
    size_t cap = (size_t)(n ? n : 1);
    b->shape = BBPY_PTRS;
    b->keys = PyMem_Malloc(cap * sizeof *b->keys);
    b->lens = PyMem_Malloc(cap * sizeof *b->lens);
    b->refs = PyMem_Malloc(cap * sizeof *b->refs);
    if (!b->keys || !b->lens || !b->refs) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item;
        memcpy(&item, base + i * stride, sizeof item);
        if (!item) item = Py_None; /* numpy reads a NULL slot of an object array as None */
        if (item == Py_None || (PyFloat_Check(item) && isnan(PyFloat_AS_DOUBLE(item)))) {
            PyErr_Format(PyExc_TypeError, "item %zd is %s, a missing value: drop those first "
                         "(pandas: Series.dropna())", i, item == Py_None ? "None" : "NaN");
            return -1;
        }
        bbpy_key k;
        if (bbpy_key_get(item, &k) < 0) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) /* say which item */
                PyErr_Format(PyExc_TypeError, "item %zd: a key is str, bytes or a buffer, not "
                             "%.100s", i, Py_TYPE(item)->tp_name);
            return -1;
        }
        if (k.has_view) { /* keep the buffer until the batch is done */
            if (!b->views && !(b->views = PyMem_Malloc(cap * sizeof *b->views))) {
                bbpy_key_release(&k);
                PyErr_NoMemory();
                return -1;
            }
            b->views[b->n_views++] = k.view;
        }
        Py_INCREF(item);
        b->refs[b->n_refs++] = item;
        b->keys[i] = k.p;
        b->lens[i] = k.len;
    }
    b->n = (size_t)n;
    return 0;
}

static int prepare_key_list(PyObject *seq, bbpy_batch *b) {
    return prepare_key_items((const char *)PySequence_Fast_ITEMS(seq), sizeof(PyObject *),
                             PySequence_Fast_GET_SIZE(seq), b);
}

static int prepare_iterable(PyObject *x, bool hashes, bbpy_batch *b) {
    PyObject *seq = PySequence_Fast(x, "add_many/contains_many take an iterable of keys, a "
                                       "buffer or an Arrow array or stream");
    if (!seq) return -1;
    int rc = hashes ? prepare_hash_list(seq, b) : prepare_key_list(seq, b);
    Py_DECREF(seq);
    return rc;
}

/* ---- Buffers ------------------------------------------------------------------------------- */

typedef struct fmt {
    char order; /* '<' little, '>' big, '=' native */
    size_t count;
    char code;
} fmt;

static bool parse_fmt(const char *s, fmt *f) {
    f->order = '=';
    if (!s) s = "B";
    if (*s == '@' || *s == '=') s++;
    else if (*s == '<') f->order = '<', s++;
    else if (*s == '>' || *s == '!') f->order = '>', s++;
    f->count = 0;
    bool digits = false;
    while (*s >= '0' && *s <= '9') {
        if (f->count > SIZE_MAX / 20) return false;
        f->count = f->count * 10 + (size_t)(*s++ - '0');
        digits = true;
    }
    if (!digits) f->count = 1;
    f->code = *s;
    return f->code && !s[1];
}

static bool host_little(void) {
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Whether integers in this byte order are little-endian in memory. */
static bool is_little(char order) { return order == '<' || (order == '=' && host_little()); }

/* A contiguous little-endian copy of n items of `width` bytes (swapped if !little). */
static int copy_items(bbpy_batch *b, bool little, size_t width) {
    const Py_buffer *v = &b->buf;
    size_t n = b->n;
    uint8_t *dst = PyMem_Malloc(n * width > 0 ? n * width : 1);
    if (!dst) {
        PyErr_NoMemory();
        return -1;
    }
    b->owned = dst;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *src = (const uint8_t *)v->buf + (Py_ssize_t)i * v->strides[0];
        for (size_t j = 0; j < width; j++) dst[i * width + j] = little ? src[j] : src[width - 1 - j];
    }
    b->base = dst;
    b->stride = width;
    return 0;
}

static bool plain_stride(const Py_buffer *v) { return v->strides[0] >= v->itemsize && v->itemsize > 0; }

/* numpy S: key i is item i without its trailing NUL bytes. Items without padding (the
 * common fixed-length case) stay one fixed-width batch. */
static int prepare_padded(bbpy_batch *b) {
    const uint8_t *base = b->base;
    size_t n = b->n, w = b->width, stride = b->stride;
    bool padded = false;
    for (size_t i = 0; i < n && !padded; i++) padded = base[i * stride + w - 1] == 0;
    if (!padded) return 0;
    b->shape = BBPY_PTRS;
    b->keys = PyMem_Malloc(n * sizeof *b->keys);
    b->lens = PyMem_Malloc(n * sizeof *b->lens);
    if (!b->keys || !b->lens) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = base + i * stride;
        size_t len = w;
        while (len && p[len - 1] == 0) len--;
        b->keys[i] = p;
        b->lens[i] = len;
    }
    return 0;
}

/* numpy U: UCS-4 code points, trailing zeros are padding; encoded to UTF-8 with offsets. */
static int prepare_ucs4(bbpy_batch *b, bool little) {
    size_t n = b->n, chars = b->width / 4;
    if (chars && n > SIZE_MAX / 4 / chars) return PyErr_NoMemory(), -1;
    b->data = PyMem_Malloc(n * chars * 4 + 1);
    b->offsets = PyMem_Malloc((n + 1) * sizeof *b->offsets);
    if (!b->data || !b->offsets) return PyErr_NoMemory(), -1;
    size_t at = 0;
    b->offsets[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = (const uint8_t *)b->buf.buf + (Py_ssize_t)i * b->buf.strides[0];
        size_t len = chars;
        uint32_t cp[1];
        while (len) {
            memcpy(cp, p + (len - 1) * 4, 4);
            if (cp[0]) break;
            len--;
        }
        for (size_t j = 0; j < len; j++) {
            const uint8_t *q = p + j * 4;
            uint32_t c = little ? (uint32_t)q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24
                                : (uint32_t)q[3] | q[2] << 8 | q[1] << 16 | (uint32_t)q[0] << 24;
            if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
                PyErr_Format(PyExc_ValueError, "item %zu: U+%04X is not a Unicode scalar value", i, c);
                return -1;
            }
            uint8_t *d = b->data + at;
            if (c < 0x80) d[0] = (uint8_t)c, at += 1;
            else if (c < 0x800) d[0] = (uint8_t)(0xC0 | c >> 6), d[1] = (uint8_t)(0x80 | (c & 63)), at += 2;
            else if (c < 0x10000)
                d[0] = (uint8_t)(0xE0 | c >> 12), d[1] = (uint8_t)(0x80 | (c >> 6 & 63)),
                d[2] = (uint8_t)(0x80 | (c & 63)), at += 3;
            else
                d[0] = (uint8_t)(0xF0 | c >> 18), d[1] = (uint8_t)(0x80 | (c >> 12 & 63)),
                d[2] = (uint8_t)(0x80 | (c >> 6 & 63)), d[3] = (uint8_t)(0x80 | (c & 63)), at += 4;
        }
        b->offsets[i + 1] = (int64_t)at;
    }
    b->shape = BBPY_OFFSETS;
    return 0;
}

static bool int_code(char c) { return c && strchr("bBhHiIlLqQnN", c); }

/* What a key buffer may hold, said after any format refused (float, bool, complex 'Zd'...). */
#define KEY_FORMATS "keys are bytes 'Ns', 'Nx', UCS-4 'Nw' or integers"

/* 0 = handled, 1 = not a key buffer (format 'O': iterate instead), -1 = error. */
static int prepare_buffer(PyObject *x, bool hashes, bbpy_batch *b) {
    if (PyObject_GetBuffer(x, &b->buf, PyBUF_RECORDS_RO) < 0) return -1;
    b->has_buf = true;
    Py_buffer *v = &b->buf;
    fmt f;
    if (!parse_fmt(v->format, &f)) {
        PyErr_Format(PyExc_TypeError, "unsupported buffer format '%.40s' (" KEY_FORMATS ")",
                     v->format);
        return -1;
    }
    if (f.code == 'O' && (v->ndim != 1 || hashes || v->itemsize != sizeof(PyObject *)))
        return 1; /* iterate instead */
    if (v->ndim != 1) {
        PyErr_Format(PyExc_TypeError, "a buffer of keys must be 1-D, not %d-D", v->ndim);
        return -1;
    }
    if (f.code == 'O') /* numpy object array (a pandas Series of str): its items in place */
        return prepare_key_items(v->buf, v->strides[0], v->shape[0], b);
    b->n = (size_t)v->shape[0];
    b->width = (size_t)v->itemsize;
    b->base = v->buf;
    b->stride = (size_t)v->strides[0];
    bool little = is_little(f.order), in_place = plain_stride(v) || b->n <= 1;
    if (b->n <= 1) b->stride = b->width;
    if (hashes) {
        if (!int_code(f.code) || v->itemsize != 8) {
            PyErr_Format(PyExc_TypeError, "hashes=True takes 8-byte integers, not format '%.40s'",
                         v->format);
            return -1;
        }
        /* The library reads hashes as uint64_t: a view of a buffer at an odd byte offset
         * (np.frombuffer(..., offset=1)) is copied, as a strided or big-endian one is. */
        if (!little || b->stride != 8 || (uintptr_t)b->base % _Alignof(uint64_t)) {
            if (copy_items(b, little, 8) < 0) return -1;
        }
        b->shape = BBPY_HASHES;
        b->hashes = b->base;
        return 0;
    }
    b->shape = BBPY_FIXED;
    if (f.code == 'w') return prepare_ucs4(b, little);
    if (int_code(f.code)) return little && in_place ? 0 : copy_items(b, little, b->width);
    if (f.code != 's' && f.code != 'x' && f.code != 'c') {
        PyErr_Format(PyExc_TypeError, "unsupported buffer format '%.40s' (" KEY_FORMATS ")",
                     v->format);
        return -1;
    }
    if (!in_place && copy_items(b, true, b->width) < 0) return -1;
    return f.code == 's' ? prepare_padded(b) : 0;
}

/* ---- Arrow capsules --------------------------------------------------------------------- */

static int prepare_arrow_array(PyObject *x, bbpy_batch *b) {
    PyObject *t = PyObject_CallMethod(x, "__arrow_c_array__", NULL);
    if (!t) return -1;
    b->capsules = t;
    /* Checked before PyCapsule_GetPointer, whose own ValueError ("PyCapsule_GetPointer called
     * with incorrect name") names neither the object nor the protocol. */
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2 ||
        !PyCapsule_IsValid(PyTuple_GET_ITEM(t, 0), "arrow_schema") ||
        !PyCapsule_IsValid(PyTuple_GET_ITEM(t, 1), "arrow_array")) {
        PyErr_Format(PyExc_TypeError, "%.80s.__arrow_c_array__() must return a pair of "
                     "PyCapsules named 'arrow_schema' and 'arrow_array' (the Arrow PyCapsule "
                     "interface), not %.80s", Py_TYPE(x)->tp_name, Py_TYPE(t)->tp_name);
        return -1;
    }
    b->schema = PyCapsule_GetPointer(PyTuple_GET_ITEM(t, 0), "arrow_schema");
    b->array = PyCapsule_GetPointer(PyTuple_GET_ITEM(t, 1), "arrow_array");
    if (!b->schema || !b->array) return -1;
    b->shape = BBPY_ARROW_ARRAY;
    b->n = b->array->length > 0 ? (size_t)b->array->length : 0;
    return 0;
}

static int prepare_arrow_stream(PyObject *x, bbpy_batch *b) {
    PyObject *c = PyObject_CallMethod(x, "__arrow_c_stream__", NULL);
    if (!c) return -1;
    b->capsules = c;
    if (!PyCapsule_IsValid(c, "arrow_array_stream")) {
        PyErr_Format(PyExc_TypeError, "%.80s.__arrow_c_stream__() must return a PyCapsule "
                     "named 'arrow_array_stream' (the Arrow PyCapsule interface), not %.80s",
                     Py_TYPE(x)->tp_name, Py_TYPE(c)->tp_name);
        return -1;
    }
    b->stream = PyCapsule_GetPointer(c, "arrow_array_stream");
    if (!b->stream) return -1;
    b->shape = BBPY_ARROW_STREAM;
    return 0;
}

int bbpy_batch_prepare(PyObject *x, bool hashes, bbpy_batch *b) {
    memset(b, 0, sizeof *b);
    if (PyUnicode_Check(x) || PyBytes_Check(x)) {
        PyErr_SetString(PyExc_TypeError, "add_many/contains_many take a collection of keys; "
                                         "use add() or `in` for one key");
        return -1;
    }
    bool arrow_array = PyObject_HasAttrString(x, "__arrow_c_array__");
    bool arrow_stream = !arrow_array && PyObject_HasAttrString(x, "__arrow_c_stream__");
    if ((arrow_array || arrow_stream) && hashes) {
        PyErr_SetString(PyExc_TypeError, "hashes=True takes a buffer or an iterable of ints");
        return -1;
    }
    if (arrow_array || arrow_stream) {
        int rc = arrow_array ? prepare_arrow_array(x, b) : prepare_arrow_stream(x, b);
        /* pandas defines the Arrow methods but needs pyarrow to run them: fall back */
        if (rc == 0 || !PyErr_ExceptionMatches(PyExc_ImportError)) return rc;
        PyErr_Clear();
        bbpy_batch_release(b);
        memset(b, 0, sizeof *b);
    }
    if (PyObject_CheckBuffer(x)) {
        int rc = prepare_buffer(x, hashes, b);
        if (rc <= 0) return rc;
        bbpy_batch_release(b);
        memset(b, 0, sizeof *b);
    } else if (PyObject_HasAttrString(x, "__array__") && bbpy_numpy()) {
        PyObject *arr = PyObject_CallMethod(bbpy_numpy(), "asarray", "O", x);
        if (!arr) return -1;
        int rc = PyObject_CheckBuffer(arr) ? prepare_buffer(arr, hashes, b) : 1;
        if (rc <= 0) {
            Py_DECREF(arr); /* the buffer keeps what it needs alive */
            return rc;
        }
        bbpy_batch_release(b);
        memset(b, 0, sizeof *b);
        rc = prepare_iterable(arr, hashes, b);
        Py_DECREF(arr);
        return rc;
    }
    return prepare_iterable(x, hashes, b);
}

/* ---- Running a batch (no GIL) -------------------------------------------------------------- */

bb_status bbpy_batch_add(bb_filter *f, bbpy_batch *b) {
    switch (b->shape) {
    case BBPY_PTRS: return bb_add_batch(f, b->keys, b->lens, b->n);
    case BBPY_FIXED: return bb_add_fixed(f, b->base, b->width, b->stride, b->n);
    case BBPY_HASHES: return bb_add_hashes(f, b->hashes, b->n);
    case BBPY_OFFSETS: return bb_add_arrow64(f, b->data, b->offsets, b->n);
    case BBPY_ARROW_ARRAY: return bb_add_arrow_array(f, b->array, b->schema);
    case BBPY_ARROW_STREAM: return bb_add_arrow_stream(f, b->stream);
    }
    return BB_E_INVAL;
}

bb_status bbpy_batch_contains(const bb_filter *f, bbpy_batch *b, uint8_t *out) {
    switch (b->shape) {
    case BBPY_PTRS: return bb_contains_batch(f, b->keys, b->lens, b->n, out, NULL);
    case BBPY_FIXED: return bb_contains_fixed(f, b->base, b->width, b->stride, b->n, out, NULL);
    case BBPY_HASHES: return bb_contains_hashes(f, b->hashes, b->n, out, NULL);
    case BBPY_OFFSETS: return bb_contains_arrow64(f, b->data, b->offsets, b->n, out, NULL);
    case BBPY_ARROW_ARRAY: return bb_contains_arrow_array(f, b->array, b->schema, out, NULL);
    case BBPY_ARROW_STREAM: break;
    }
    return BB_E_INVAL;
}

typedef struct growing {
    uint8_t *p;
    size_t n, cap;
    bool out_of_memory;
} growing;

static int append(void *ctx, const uint8_t *out, size_t n) {
    growing *g = ctx;
    if (n > g->cap - g->n) {
        size_t cap = g->cap ? g->cap : 4096;
        while (cap - g->n < n) cap *= 2;
        uint8_t *p = realloc(g->p, cap); /* no GIL here: not PyMem */
        if (!p) {
            g->out_of_memory = true;
            return 1;
        }
        g->p = p;
        g->cap = cap;
    }
    memcpy(g->p + g->n, out, n);
    g->n += n;
    return 0;
}

bb_status bbpy_batch_contains_stream(const bb_filter *f, bbpy_batch *b, uint8_t **out, size_t *n) {
    growing g = {NULL, 0, 0, false};
    bb_status s = bb_contains_arrow_stream(f, b->stream, append, &g, NULL);
    if (g.out_of_memory) s = BB_E_NOMEM;
    if (s != BB_OK) {
        free(g.p);
        g.p = NULL;
        g.n = 0;
    }
    *out = g.p;
    *n = g.n;
    return s;
}

void bbpy_batch_release(bbpy_batch *b) {
    for (size_t i = 0; i < b->n_views; i++) PyBuffer_Release(&b->views[i]);
    for (size_t i = 0; i < b->n_refs; i++) Py_DECREF(b->refs[i]);
    if (b->has_buf) PyBuffer_Release(&b->buf);
    Py_XDECREF(b->capsules);
    PyMem_Free(b->keys);
    PyMem_Free(b->lens);
    PyMem_Free(b->refs);
    PyMem_Free(b->views);
    PyMem_Free(b->owned);
    PyMem_Free(b->data);
    PyMem_Free(b->offsets);
    memset(b, 0, sizeof *b);
}
