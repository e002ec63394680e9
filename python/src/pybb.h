/* SPDX-License-Identifier: MIT */
/*
 * pybb.h - what the files of the CPython extension blockbloom._core share: the Filter object
 * (a bb_filter plus a read/write lock), the lock discipline, error conversion, and the
 * prepared batch input of add_many/contains_many.
 *
 * Locking: batch calls run with the GIL released, so two Python threads can be inside the
 * library on one filter at once. Each Filter has a pthread rwlock: queries take it shared,
 * changes exclusive. Nobody waits for the lock while holding the GIL (a try first, then the
 * GIL is released to block), and nobody waits for the GIL while holding the lock except an
 * Arrow stream producer written in Python, which is why the GIL is never held to block.
 */
#ifndef BBPY_H
#define BBPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdbool.h>

#include "blockbloom.h"

typedef struct FilterObject {
    PyObject_HEAD
    bb_filter *f;
    pthread_rwlock_t lock;
} FilterObject;

extern PyTypeObject bbpy_FilterType;

/* ---- module.c -------------------------------------------------------------------------- */
/** Set the Python exception for status s (ValueError, OSError with errno and `path`,
 *  MemoryError) with the library's message, plus `detail` when not NULL/empty. NULL. */
PyObject *bbpy_error(bb_status s, const char *detail, PyObject *path);
/** numpy, imported on first use; NULL (no exception) when it cannot be imported. */
PyObject *bbpy_numpy(void);
/** A new Filter object owning f (freed on failure). */
PyObject *bbpy_wrap(PyTypeObject *type, bb_filter *f);
/** An answer array of n: numpy bool, or a bytearray without numpy; *p its bytes. */
PyObject *bbpy_new_out(size_t n, uint8_t **p);

/* ---- redis.c (built with hiredis: BBPY_HAVE_REDIS) --------------------------------------- */
/** Add RedisClient and RedisError to the module; 0, or -1 with an exception. */
int bbpy_redis_register(PyObject *m);

/* Lock helpers: *_gil variants are called with the GIL held. */
void bbpy_lock_read_gil(FilterObject *o);
void bbpy_lock_write_gil(FilterObject *o);
void bbpy_unlock(FilterObject *o);

/* ---- keys.c: one key, and a prepared batch -------------------------------------------- */
typedef struct bbpy_key {
    const void *p;
    size_t len;
    Py_buffer view;
    bool has_view;
} bbpy_key;
/** Bytes of a str (UTF-8), bytes or buffer key. 0, or -1 with an exception. */
int bbpy_key_get(PyObject *o, bbpy_key *k);
void bbpy_key_release(bbpy_key *k);

typedef enum bbpy_shape {
    BBPY_PTRS, BBPY_FIXED, BBPY_HASHES, BBPY_OFFSETS, BBPY_ARROW_ARRAY, BBPY_ARROW_STREAM
} bbpy_shape;

typedef struct bbpy_batch {
    bbpy_shape shape;
    size_t n;                   /* keys (unknown for a stream) */
    const void **keys;          /* PTRS */
    size_t *lens;
    PyObject **refs;            /* PTRS: owned references to the items */
    Py_buffer *views;           /* PTRS: buffers of items that are neither str nor bytes */
    size_t n_refs, n_views;
    const void *base;           /* FIXED */
    size_t width, stride;
    const uint64_t *hashes;     /* HASHES */
    uint8_t *data;              /* OFFSETS (owned, UTF-8 of a numpy U array) */
    int64_t *offsets;
    void *owned;                /* a copy made for stride, byte order or conversion */
    Py_buffer buf;              /* the input's buffer */
    bool has_buf;
    PyObject *capsules;         /* ARROW_*: the tuple or capsule that owns the C structs */
    struct ArrowArray *array;
    struct ArrowSchema *schema;
    struct ArrowArrayStream *stream;
} bbpy_batch;

/** Prepare x (see Filter.add_many) for the batch calls; 0, or -1 with an exception. */
int bbpy_batch_prepare(PyObject *x, bool hashes, bbpy_batch *b);
/** The batch calls; no GIL needed. contains is not for streams (bbpy_batch_contains_stream). */
bb_status bbpy_batch_add(bb_filter *f, bbpy_batch *b);
bb_status bbpy_batch_contains(const bb_filter *f, bbpy_batch *b, uint8_t *out);
/** Stream answers into a malloc'ed *out of *n bytes. */
bb_status bbpy_batch_contains_stream(const bb_filter *f, bbpy_batch *b, uint8_t **out, size_t *n);
void bbpy_batch_release(bbpy_batch *b);

#endif /* BBPY_H */
