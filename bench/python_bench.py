#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark of the Python package (not run in CI; docs/PYTHON.md "Speed" has the figures). In one
process, on the same keys and the same filter, median of REPEATS runs, ns per key:

  1. contains_many on a numpy S20 array, against the C batch call bb_contains_fixed on the
     same buffer (libblockbloom.so through ctypes: one call per batch, so no per-key cost);
  2. contains_many on an Arrow utf8 column (built by hand, python/tests/arrow_hand.py),
     against bb_contains_arrow32 on the same buffers;
  3. contains_many on a numpy U20 array and on a pandas Series of str (object dtype), against
     the C calls on the same keys' bytes: bb_contains_fixed (the S20 buffer) and
     bb_contains_batch (pointer and length arrays built before timing);
  4. contains_many on a DuckDB VARCHAR column exported as Arrow (python/tests/duckdb_arrow.py:
     DuckDB's own chunks of 2,048 rows, through __arrow_c_stream__ in one call, or chunk by
     chunk through __arrow_c_array__), against bb_contains_arrow_array on the same chunks;
  5. contains_many on a list of str, against a set.__contains__ loop over the same list
     ([k in s for k in keys]) and map(s.__contains__, keys);
  6. the pure-Python filter a Python user starts from: a classic Bloom filter with SHA-256
     double hashing (written below), add and query.

  bench/python_bench.py [--lib build-dev/libblockbloom.so] [--keys 1000000]
DuckDB is libduckdb.so of scripts/setup-duckdb.sh (BB_LIBDUCKDB names another).
The package must be importable (pip install ., or PYTHONPATH=<cmake build>/python).
"""
import argparse
import ctypes
import hashlib
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
import arrow_hand  # noqa: E402
import duckdb_arrow  # noqa: E402
import pandas as pd  # noqa: E402

import blockbloom  # noqa: E402

REPEATS = 7


class Sha256Bloom:
    """The textbook pure-Python filter: m bits in a bytearray, k = (m/n) ln 2 probes at
    (h1 + i h2) mod m (Kirsch-Mitzenmacher double hashing), h1 and h2 from one SHA-256."""

    def __init__(self, capacity, fpr):
        self.m = math.ceil(-capacity * math.log(fpr) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = bytearray((self.m + 7) // 8)

    def _positions(self, key):
        d = hashlib.sha256(key.encode() if isinstance(key, str) else key).digest()
        h1, h2 = int.from_bytes(d[:8], "little"), int.from_bytes(d[8:16], "little") | 1
        return [(h1 + i * h2) % self.m for i in range(self.k)]

    def add(self, key):
        for p in self._positions(key):
            self.bits[p >> 3] |= 1 << (p & 7)

    def __contains__(self, key):
        return all(self.bits[p >> 3] >> (p & 7) & 1 for p in self._positions(key))


def median_ns(fn, n, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e9 / n


def paired_ns(fn, ref, n, repeats=11):
    """fn and ref timed alternately (the load of a shared machine hits both alike): their
    median ns per key, and the median of the per-pair ratios fn / ref."""
    a, b = [], []
    for _ in range(repeats):
        for f, acc in ((fn, a), (ref, b)):
            t = time.perf_counter()
            f()
            acc.append(time.perf_counter() - t)
    ratio = statistics.median(x / y for x, y in zip(a, b))
    return statistics.median(a) * 1e9 / n, statistics.median(b) * 1e9 / n, ratio


def c_library(path):
    lib = ctypes.CDLL(path)
    u8p, vp, sz = ctypes.POINTER(ctypes.c_uint8), ctypes.c_void_p, ctypes.c_size_t
    lib.bb_create_for.argtypes = [ctypes.POINTER(vp), ctypes.c_int, ctypes.c_uint64,
                                  ctypes.c_double, ctypes.c_uint64]
    lib.bb_deserialize.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, sz]
    lib.bb_contains_fixed.argtypes = [vp, vp, sz, sz, sz, u8p, ctypes.POINTER(sz)]
    lib.bb_contains_arrow32.argtypes = [vp, vp, vp, sz, u8p, ctypes.POINTER(sz)]
    lib.bb_contains_batch.argtypes = [vp, vp, vp, sz, u8p, ctypes.POINTER(sz)]
    lib.bb_contains_arrow_array.argtypes = [vp, vp, vp, u8p, ctypes.POINTER(sz)]
    return lib


def cpu():
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = [l.split(":", 1)[1].strip() for l in out.splitlines() if l.startswith("Model name")]
    return model[0] if model else "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build-dev/libblockbloom.so")
    ap.add_argument("--keys", type=int, default=1_000_000)
    a = ap.parse_args()
    n = a.keys
    lib = c_library(a.lib)
    rng = np.random.default_rng(1)
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8)
    present = alphabet[rng.integers(0, 36, size=(n, 20))].copy().view("S20").ravel()
    absent = alphabet[rng.integers(0, 36, size=(n, 20))].copy().view("S20").ravel()
    queries = np.concatenate([present[: n // 2], absent[: n // 2]])
    f = blockbloom.Filter(n, 0.01)
    f.add_many(present)
    print("CPU: %s; package %s, kernel %s; %d keys of 20 bytes, filter %d KiB, 50%% present"
          % (cpu(), blockbloom.__version__, os.environ.get("BB_ISA", "auto"), n,
             f.info()["bytes"] // 1024))

    # The same filter in the C library loaded through ctypes.
    cf = ctypes.c_void_p()
    data = bytes(f)
    assert lib.bb_deserialize(ctypes.byref(cf), data, len(data)) == 0
    out = np.empty(len(queries), dtype=np.uint8)
    outp = out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))
    hits = ctypes.c_size_t()
    qbuf = queries.ctypes.data

    def c_fixed():
        lib.bb_contains_fixed(cf, qbuf, 20, 20, len(queries), outp, ctypes.byref(hits))

    py_s20, c_s20, r_s20 = paired_ns(lambda: f.contains_many(queries), c_fixed, len(queries))
    assert (f.contains_many(queries) == out.astype(bool)).all()

    strs = [bytes(q).decode() for q in queries]
    col = arrow_hand.binary([s.encode() for s in strs], "u")
    off_ptr, data_ptr = ctypes.addressof(col.keep[1]), ctypes.addressof(col.keep[2])

    def c_arrow():
        lib.bb_contains_arrow32(cf, data_ptr, off_ptr, len(strs), outp, ctypes.byref(hits))

    py_arrow, c_arrow32, r_arrow = paired_ns(lambda: f.contains_many(col), c_arrow, len(strs))

    u20 = queries.astype("U20")
    py_u20, c_u20, r_u20 = paired_ns(lambda: f.contains_many(u20), c_fixed, len(queries))
    assert (f.contains_many(u20) == out.astype(bool)).all()

    series = pd.Series(strs)
    utf8 = [k.encode() for k in strs]
    ptrs = (ctypes.c_void_p * len(utf8))(*[ctypes.cast(ctypes.c_char_p(k), ctypes.c_void_p)
                                           for k in utf8])
    lens = (ctypes.c_size_t * len(utf8))(*[len(k) for k in utf8])

    def c_batch():
        lib.bb_contains_batch(cf, ptrs, lens, len(utf8), outp, ctypes.byref(hits))

    py_pd, c_ptrs, r_pd = paired_ns(lambda: f.contains_many(series), c_batch, len(strs))
    assert (f.contains_many(series) == out.astype(bool)).all()

    # DuckDB: its own keys (left(md5(i), 20)); the filter holds rows 0 .. n-1, the query
    # column is rows n/2 .. 3n/2, so half present again.
    db = duckdb_arrow.DuckDB()
    key_sql = "SELECT left(md5(i::VARCHAR), 20) AS k FROM range(%d, %d) r(i) ORDER BY i"
    held = db.query(key_sql % (0, n))
    dq = db.query(key_sql % (n // 2, n // 2 + n))
    d = blockbloom.Filter(n, 0.01)
    d.add_many(held.column("k"))
    dcol = dq.column("k")
    assert dcol.format == "u"
    dcf = ctypes.c_void_p()
    ddata = bytes(d)
    assert lib.bb_deserialize(ctypes.byref(dcf), ddata, len(ddata)) == 0
    chunk_ptrs = [(ctypes.addressof(dcol.result.chunks[i].children[0].contents),
                   ctypes.addressof(dcol.schema), dcol.result.chunks[i].length)
                  for i in range(len(dcol))]
    dout = np.empty(n, dtype=np.uint8)

    def c_duck():
        at = 0
        for a, sch, length in chunk_ptrs:
            lib.bb_contains_arrow_array(dcf, a, sch, dout[at:].ctypes.data_as(
                ctypes.POINTER(ctypes.c_uint8)), ctypes.byref(hits))
            at += length

    py_dstream, c_darrow, r_dstream = paired_ns(lambda: d.contains_many(dcol), c_duck, n)
    py_dchunks, _, r_dchunks = paired_ns(
        lambda: [d.contains_many(dcol.chunk(i)) for i in range(len(dcol))], c_duck, n)
    c_duck()
    assert (d.contains_many(dcol) == dout.astype(bool)).all()
    assert 0.45 < dout.mean() < 0.56

    s = set(bytes(p).decode() for p in present)
    py_list, set_loop, r_list = paired_ns(lambda: f.contains_many(strs),
                                          lambda: [k in s for k in strs], len(strs), 5)
    _, set_map, r_map = paired_ns(lambda: f.contains_many(strs),
                                  lambda: list(map(s.__contains__, strs)), len(strs), 5)
    py_in, _, r_in = paired_ns(lambda: [k in f for k in strs], lambda: [k in s for k in strs],
                               len(strs), 5)

    m = min(n, 100_000)
    ref = Sha256Bloom(m, 0.01)
    few = strs[:m]
    sha_add = median_ns(lambda: [ref.add(k) for k in few], m, 3)
    sha_q = median_ns(lambda: [k in ref for k in few], m, 3)
    g = blockbloom.Filter(m, 0.01)
    bb_add = median_ns(lambda: g.add_many(few), m, 3)

    rows = [
        ("numpy S20: contains_many", py_s20, "C bb_contains_fixed", c_s20, r_s20),
        ("Arrow utf8: contains_many", py_arrow, "C bb_contains_arrow32", c_arrow32, r_arrow),
        ("numpy U20: contains_many", py_u20, "C bb_contains_fixed (S20)", c_u20, r_u20),
        ("pandas Series of str: contains_many", py_pd, "C bb_contains_batch", c_ptrs, r_pd),
        ("DuckDB utf8 stream: contains_many", py_dstream, "C bb_contains_arrow_array",
         c_darrow, r_dstream),
        ("DuckDB utf8 chunks: contains_many", py_dchunks, "C bb_contains_arrow_array",
         c_darrow, r_dchunks),
        ("list of str: contains_many", py_list, "[k in set for k in list]", set_loop, r_list),
        ("list of str: contains_many", py_list, "map(set.__contains__)", set_map, r_map),
        ("list of str: [k in f ...]", py_in, "[k in set for k in list]", set_loop, r_in),
        ("SHA-256 pure-Python filter: query", sha_q, "contains_many (list of str)", py_list,
         sha_q / py_list),
        ("SHA-256 pure-Python filter: add", sha_add, "add_many (list of str)", bb_add,
         sha_add / bb_add),
    ]
    print("%-38s %9s   %-28s %9s  %s" % ("measured", "ns/key", "reference", "ns/key",
                                         "ratio (median of pairs)"))
    for what, t, ref_name, r, ratio in rows:
        print("%-38s %9.1f   %-28s %9.1f  %.2fx" % (what, t, ref_name, r, ratio))
    held.close()
    dq.close()
    db.close()


if __name__ == "__main__":
    main()
