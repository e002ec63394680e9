# SPDX-License-Identifier: MIT
"""The GIL is released during batch calls: a Python thread keeps running (its timestamps land
in the middle of a long contains_many / add_many). And threads sharing one filter stay
correct: concurrent add_many and contains_many (the per-filter lock), and f |= g against
g |= f at once (locks taken in one order, no deadlock)."""
import threading
import time

import numpy as np

from blockbloom import Filter


def ticks_during(call):
    stamps, stop = [], threading.Event()

    def spin():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    while not stamps:
        time.sleep(0.001)
    t0 = time.perf_counter()
    call()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    lo, hi = t0 + 0.25 * (t1 - t0), t0 + 0.75 * (t1 - t0)
    return t1 - t0, sum(lo < s < hi for s in stamps)


def ticks_in_some_try(call, tries=3):
    """ticks_during, retried: on a loaded machine the spinning thread may get no time slice
    during one call (0 ticks in 0.2 s at load average 10 on 2 cores); a call holding the
    GIL gives 0 ticks in every try."""
    for _ in range(tries):
        took, ticks = ticks_during(call)
        if ticks > 0:
            break
    return took, ticks


def test_thread_runs_during_long_batches():
    keys = np.frombuffer(np.random.default_rng(1).bytes(16 * 3_000_000), dtype="V16")
    f = Filter(3_000_000, 0.01)
    took, ticks = ticks_in_some_try(lambda: f.add_many(keys))
    assert took > 0.01 and ticks > 0, (took, ticks)
    took, ticks = ticks_in_some_try(lambda: f.contains_many(keys))
    assert took > 0.01 and ticks > 0, (took, ticks)
    h = np.frombuffer(np.random.default_rng(2).bytes(8 * 4_000_000), dtype=np.uint64)
    took, ticks = ticks_in_some_try(lambda: f.contains_many(h, hashes=True))
    assert ticks > 0, (took, ticks)


def test_concurrent_writers_and_readers_on_one_filter():
    f = Filter(200_000, 0.01)
    chunks = [["t%d-%d" % (t, i) for i in range(20_000)] for t in range(4)]
    errors = []

    def writer(c):
        f.add_many(c)
        for k in c[:200]:
            f.add(k)

    def reader(c):
        for _ in range(5):
            if len(f.contains_many(c)) != len(c):
                errors.append("length")

    ts = [threading.Thread(target=writer, args=(c,)) for c in chunks]
    ts += [threading.Thread(target=reader, args=(c,)) for c in chunks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    assert all(f.contains_many(c).all() for c in chunks)
    assert f.info()["keys_added"] == 4 * 20_200


def test_crossed_unions_do_not_deadlock():
    a, b = Filter(1000, seed=4), Filter(1000, seed=4)
    a.add("a")
    b.add("b")

    def loop(x, y):
        for _ in range(2000):
            x |= y

    t1 = threading.Thread(target=loop, args=(a, b))
    t2 = threading.Thread(target=loop, args=(b, a))
    t1.start(), t2.start()
    t1.join(60), t2.join(60)
    assert not t1.is_alive() and not t2.is_alive()
    assert "a" in b and "b" in a
