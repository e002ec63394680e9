#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark of the Python package (not run in CI; docs/PYTHON.md "Speed" has the figures). In one
process, on the same keys and the same filter, median of REPEATS runs, ns per key:

  1. contains_many on a numpy S20 array, against the C batch call bb_contains_fixed on the
     same buffer (libblockbloom.so through ctypes: one call per batch, so no per-key cost);
  2. contains_many on an Arrow utf8 column (built by hand, python/tests/arrow_hand.py),
     against bb_contains_arrow32 on the same buffers;
  3. contains_many on a list of str, against a set.__contains__ loop over the same list
     ([k in s for k in keys]) and map(s.__contains__, keys);
  4. the pure-Python filter a Python user starts from: a classic Bloom filter with SHA-256
     double hashing (written below), add and query.

  bench/python_bench.py [--lib build-dev/libblockbloom.so] [--keys 1000000]
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
        ("list of str: contains_many", py_list, "[k in set for k in list]", set_loop, r_list),
        ("list of str: contains_many", py_list, "map(set.__contains__)", set_map, r_map),
        ("list of str: [k in f ...]", py_in, "[k in set for k in list]", set_loop, r_in),
        ("SHA-256 pure-Python filter: query", sha_q, "contains_many (list of str)", py_list,
         sha_q / py_list),
        ("SHA-256 pure-Python filter: add", sha_add, "add_many (list of str)", bb_add,
         sha_add / bb_add),
    ]
    print("%-36s %9s   %-28s %9s  %s" % ("measured", "ns/key", "reference", "ns/key",
                                         "ratio (median of pairs)"))
    for what, t, ref_name, r, ratio in rows:
        print("%-36s %9.1f   %-28s %9.1f  %.2fx" % (what, t, ref_name, r, ratio))


if __name__ == "__main__":
    main()
