# SPDX-License-Identifier: MIT
"""blockbloom.redis against a real redis-server on loopback (with a password, database 2),
started here and stopped after the module; skipped when the package was built without
hiredis or redis-server is not installed. Expected answers come from a local
blockbloom.Filter of the same keys, never from the client alone."""
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import pytest

import blockbloom

redis = pytest.importorskip("blockbloom.redis", reason="built without hiredis")
if not shutil.which("redis-server"):
    pytest.skip("redis-server is not installed", allow_module_level=True)

import arrow_hand  # noqa: E402

PASSWORD = "py:s3cret"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port, d = free_port(), tempfile.mkdtemp()
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                          "--dir", d, "--save", "", "--requirepass", PASSWORD],
                         stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def url(port):
    return "redis://:py%%3As3cret@127.0.0.1:%d/2" % port


def fresh(c, name):
    try:
        c.delete(name)
    except redis.RedisError:
        pass


def test_shared_filter_like_a_local_one(server):
    np = pytest.importorskip("numpy")
    c = redis.Client(url(server))
    fresh(c, "py")
    c.reserve("py", 0.01, 20000)
    keys = ["key%d" % i for i in range(5000)]
    new = c.add_many("py", keys)
    assert len(new) == 5000 and new.sum() >= 4990
    local = blockbloom.Filter(20000, fpr=0.01, kind="scalable")  # reserve's default: a chain
    local.add_many(keys)
    # Lists, numpy S and U arrays, Arrow utf8 with a null: the same answers as the local filter.
    probe = keys[:100] + ["other%d" % i for i in range(3000)]
    want = local.contains_many(probe)
    assert (c.contains_many("py", probe) == want).all()
    assert (c.contains_many("py", np.array(probe, dtype="S")) == want).all()
    assert (c.contains_many("py", np.array(probe, dtype="U")) == want).all()
    arr = arrow_hand.binary([k.encode() for k in probe[:10]] + [None] + [k.encode() for k in probe[10:20]], fmt="u")
    got = c.contains_many("py", arr)
    assert list(got) == list(want[:10]) + [False] + list(want[10:20])
    assert (c.contains_many("py", arrow_hand.binary([k.encode() for k in probe], fmt="U")) == want).all()
    pulled = c.pull("py")
    assert isinstance(pulled, blockbloom.Filter)
    assert bytes(pulled) == bytes(local)  # byte for byte the local build
    info = c.info("py")
    assert info["capacity"] == 20000 and info["filters"] == 1 and info["expansion"] == 2
    assert info["keys_added"] == new.sum()  # RedisBloom counts the adds that answered 1
    # NONSCALING: one blocked filter, as `blockbloom build` makes it.
    fresh(c, "pyfixed")
    c.reserve("pyfixed", 0.01, 20000, nonscaling=True, shards=3)
    c.add_many("pyfixed", keys)
    fixed = blockbloom.Filter(20000, fpr=0.01, kind="blocked")
    fixed.add_many(keys)
    assert bytes(c.pull("pyfixed"))[128:] == bytes(fixed)[128:]  # the payload
    assert c.info("pyfixed")["shards"] == 3 and c.info("pyfixed")["expansion"] == 0
    c.close()


def test_integers_and_streams(server):
    np = pytest.importorskip("numpy")
    c = redis.Client(url(server))
    fresh(c, "pyint")
    c.reserve("pyint", 0.001, 10000)
    vals = np.arange(2000, dtype="<i8")
    c.add_many("pyint", vals)
    local = blockbloom.Filter(10000, fpr=0.001, kind="blocked")
    local.add_many(vals)
    probe = np.arange(1000, 4000, dtype="<i8")
    want = local.contains_many(probe)
    assert (c.contains_many("pyint", probe) == want).all()
    assert (c.contains_many("pyint", arrow_hand.ints([int(v) for v in probe], fmt="l")) == want).all()
    stream = arrow_hand.HandStream([arrow_hand.ints([int(v) for v in probe[:1500]], fmt="l"),
                                    arrow_hand.ints([int(v) for v in probe[1500:]], fmt="l")])
    assert (c.contains_many("pyint", stream) == want).all()


def test_errors_name_the_node(server):
    with pytest.raises(redis.RedisError, match="127.0.0.1:%d: AUTH failed: WRONGPASS" % server):
        redis.Client("redis://:wrong@127.0.0.1:%d" % server)
    with pytest.raises(redis.RedisError, match="NOAUTH"):
        redis.Client("127.0.0.1:%d" % server)
    c = redis.Client("127.0.0.1:%d" % server, password=PASSWORD)  # password when the URL has none
    assert list(c.contains_many("no-such-filter-here", ["a", "b"])) == [False, False]
    with pytest.raises(redis.RedisError, match="not found"):
        c.info("no-such-filter-here")
    with pytest.raises(ValueError, match="capacity must be in the range"):
        c.reserve("x", 0.01, 0)
    with pytest.raises(ValueError, match="rediss://"):
        redis.Client("rediss://127.0.0.1:%d" % server)


def test_calls_release_the_gil(server):
    """While a request waits for a paused server (CLIENT PAUSE), other Python threads run."""
    c = redis.Client(url(server))
    fresh(c, "pygil")
    c.reserve("pygil", 0.01, 1000)
    admin = redis.Client(url(server))
    ticks, done = [0], threading.Event()

    def query():
        c.contains_many("pygil", ["a", "b"])
        done.set()

    raw = socket.create_connection(("127.0.0.1", server))
    raw.sendall(b"AUTH py:s3cret\r\nCLIENT PAUSE 700 ALL\r\n")
    time.sleep(0.1)
    t = threading.Thread(target=query)
    t.start()
    while not done.is_set():
        ticks[0] += 1
        time.sleep(0.001)
    t.join()
    raw.close()
    admin.close()
    assert ticks[0] > 100, "the main thread ran %d times during a 0.6 s request" % ticks[0]


def test_a_deadline_is_redis_timeout_a_timeout_error():
    # A listening socket that never accepts: the kernel completes the handshake, so the
    # client connects and then waits for AUTH's reply until its timeout. Was a plain
    # RedisError (the library's BB_E_IO); a refused connection stays one.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        port = s.getsockname()[1]
        t0 = time.monotonic()
        with pytest.raises(redis.RedisTimeout, match=r"127\.0\.0\.1:%d: timed out \(0\.3 s\) "
                           r"waiting for the reply to AUTH" % port) as e:
            redis.Client("redis://:pw@127.0.0.1:%d" % port, timeout=0.3)
        assert time.monotonic() - t0 < 5
    assert isinstance(e.value, redis.RedisError) and isinstance(e.value, TimeoutError)
    with pytest.raises(redis.RedisError) as e:
        redis.Client("redis://127.0.0.1:%d" % free_port(), timeout=0.3)
    assert not isinstance(e.value, redis.RedisTimeout), e.value
