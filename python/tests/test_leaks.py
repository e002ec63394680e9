# SPDX-License-Identifier: MIT
"""No leaks: a million calls through every entry point (single keys, batches of each input
shape, Arrow capsules, bytes/frombytes, info, errors) keep the process's resident set within a
few MiB, and leave the reference counts of the keys and inputs where they were."""
import sys

import numpy as np
import pytest

import arrow_hand as ah
from blockbloom import Filter


def rss_kib():
    with open("/proc/self/statm") as s:
        return int(s.read().split()[1]) * 4


def run(n, f, key, lst, arr, hashes, arrow):
    for _ in range(n):
        f.add(key)
        key in f
        f.hash(key)
        f.add_many(lst)
        f.contains_many(arr)
        f.contains_many(hashes, hashes=True)
        f.contains_many(arrow)
        try:
            f.add_many("bad")
        except TypeError:
            pass


def test_million_calls_do_not_grow_rss_or_refcounts():
    f = Filter(10_000)
    key, lst = "a key", ["x", b"y", bytearray(b"z")]
    arr = np.array([b"p", b"q"], dtype="S4")
    hashes = np.array([1, 2, 3], dtype=np.uint64)
    arrow = ah.binary([b"r", None, b"s"], "u")
    before = [sys.getrefcount(o) for o in (key, lst, arr, hashes, arrow, *lst)]
    run(20_000, f, key, lst, arr, hashes, arrow)  # warm up allocator pools and caches
    start = rss_kib()
    run(125_000, f, key, lst, arr, hashes, arrow)  # 8 calls each: a million calls
    grown = rss_kib() - start
    after = [sys.getrefcount(o) for o in (key, lst, arr, hashes, arrow, *lst)]
    assert after == before
    assert grown < 4096, "RSS grew by %d KiB over a million calls" % grown


def test_files_and_bytes_do_not_leak(tmp_path):
    f = Filter(1000)
    f.add("k")
    p = tmp_path / "f.bb"
    f.save(p)
    for _ in range(2000):
        Filter.frombytes(bytes(f)).info()
        Filter.open(p)
        with pytest.raises(ValueError):
            Filter.frombytes(b"bad")
    start = rss_kib()
    for _ in range(20000):
        Filter.frombytes(bytes(f)).info()
        Filter.open(p)
        with pytest.raises(ValueError):
            Filter.frombytes(b"bad")
    assert rss_kib() - start < 4096
