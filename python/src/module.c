/* SPDX-License-Identifier: MIT */
/*
 * module.c - the module blockbloom._core: its definition and init, the conversion of a
 * library status into a Python exception (the library's own message, bb_strerror, plus the
 * Arrow detail; ValueError for bad input and format errors, OSError with errno and file name
 * for I/O, MemoryError), numpy imported lazily (it is optional at run time), and the
 * per-filter lock helpers (pybb.h explains the discipline).
 */
#include "pybb.h"

#include <errno.h>
#include <string.h>

PyObject *bbpy_error(bb_status s, const char *detail, PyObject *path) {
    int err = errno;
    char msg[320];
    if (detail && *detail)
        snprintf(msg, sizeof msg, "%s: %s", bb_strerror(s), detail);
    else
        snprintf(msg, sizeof msg, "%s", bb_strerror(s));
    if (s == BB_E_NOMEM) {
        PyErr_SetString(PyExc_MemoryError, msg);
    } else if (s == BB_E_IO) {
        /* With errno, the standard OSError(errno, strerror, path): FileNotFoundError's
         * "[Errno 2] No such file or directory: 'x.bb'", as open() says it; the library's
         * "input/output error" adds nothing then. Without errno, the library's message. */
        char full[400];
        if (err && detail && *detail)
            snprintf(full, sizeof full, "%s (%s)", strerror(err), detail);
        else
            snprintf(full, sizeof full, "%s", err ? strerror(err) : msg);
        PyObject *e = path ? PyObject_CallFunction(PyExc_OSError, "isO", err, full, path)
                           : PyObject_CallFunction(PyExc_OSError, "is", err, full);
        if (e) {
            PyErr_SetObject((PyObject *)Py_TYPE(e), e);
            Py_DECREF(e);
        }
    } else {
        PyErr_SetString(PyExc_ValueError, msg);
    }
    return NULL;
}

PyObject *bbpy_numpy(void) {
    static PyObject *numpy = NULL;
    static bool tried = false;
    if (!tried) {
        tried = true;
        numpy = PyImport_ImportModule("numpy");
        if (!numpy) PyErr_Clear();
    }
    return numpy;
}

PyObject *bbpy_wrap(PyTypeObject *type, bb_filter *f) {
    FilterObject *o = (FilterObject *)type->tp_alloc(type, 0);
    if (!o) {
        bb_free(f);
        return NULL;
    }
    pthread_rwlock_init(&o->lock, NULL);
    o->f = f;
    return (PyObject *)o;
}

void bbpy_lock_read_gil(FilterObject *o) {
    if (pthread_rwlock_tryrdlock(&o->lock) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_rdlock(&o->lock);
    Py_END_ALLOW_THREADS
}

void bbpy_lock_write_gil(FilterObject *o) {
    if (pthread_rwlock_trywrlock(&o->lock) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    pthread_rwlock_wrlock(&o->lock);
    Py_END_ALLOW_THREADS
}

void bbpy_unlock(FilterObject *o) { pthread_rwlock_unlock(&o->lock); }

static PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "blockbloom._core",
    .m_doc = "C extension of the blockbloom package: the Filter type over libblockbloom, the\n"
             "tuple KINDS of the kinds it takes and __version__, the C library's version.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&bbpy_FilterType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *kinds = PyTuple_New(0);
    for (int k = 0; kinds && k < 32; k++) {
        if (!strcmp(bb_kind_name((bb_kind)k), "unknown")) continue;
        PyObject *name = PyUnicode_FromString(bb_kind_name((bb_kind)k));
        Py_ssize_t n = PyTuple_GET_SIZE(kinds);
        if (!name || _PyTuple_Resize(&kinds, n + 1) < 0) {
            Py_XDECREF(name);
            Py_CLEAR(kinds);
            break;
        }
        PyTuple_SET_ITEM(kinds, n, name);
    }
    int bad = !kinds || PyModule_AddObjectRef(m, "Filter", (PyObject *)&bbpy_FilterType) < 0 ||
              PyModule_AddObjectRef(m, "KINDS", kinds) < 0 ||
              PyModule_AddStringConstant(m, "__version__", bb_version_string()) < 0;
#ifdef BBPY_HAVE_REDIS
    bad = bad || bbpy_redis_register(m) < 0;
#endif
    Py_XDECREF(kinds);
    if (bad) Py_CLEAR(m);
    return m;
}
