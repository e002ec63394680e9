# SPDX-License-Identifier: MIT
"""add_many / contains_many on every non-Arrow input: lists, tuples, generators, numpy S, V,
U and integer arrays (contiguous, strided, reversed, big-endian), pre-hashed uint64 arrays,
and the bytearray result without numpy. The oracle for every batch is the single-key path on
the same bytes, written out independently here (integers as little-endian bytes by
int.to_bytes, strings as UTF-8, numpy S items without their NUL padding)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from blockbloom import Filter


def words(tag, n):
    return ["%s-%d-ü" % (tag, i) for i in range(n)]


def assert_answers(f, batch, single_keys):
    got = f.contains_many(batch)
    assert isinstance(got, np.ndarray) and got.dtype == np.bool_
    assert got.tolist() == [k in f for k in single_keys]


def test_lists_tuples_generators_and_mixed_key_types():
    f = Filter(10000, seed=5)
    present = words("p", 3000)
    f.add_many(present)
    assert all(w in f for w in present)
    mixed = [present[0], present[1].encode(), bytearray(present[2].encode()),
             memoryview(present[3].encode()), "absent-1", b"absent-2"]
    assert f.contains_many(mixed).tolist()[:4] == [True] * 4
    assert_answers(f, tuple(mixed), mixed)
    assert_answers(f, (w for w in mixed), mixed)
    g = Filter(10000, seed=5)
    for w in present:
        g.add(w)
    assert bytes(g) == bytes(f)  # the batch built exactly the single-key filter
    assert f.contains_many([]).tolist() == []
    with pytest.raises(TypeError, match="one key"):
        f.add_many("abc")
    with pytest.raises(TypeError):
        f.add_many([b"ok", 3])
    with pytest.raises(TypeError):
        f.add_many(7)


def test_numpy_fixed_width_bytes():
    f = Filter(1000)
    s = np.array([b"alpha", b"a" * 20, b"be\0ta", b""], dtype="S20")
    f.add_many(s)
    for k in (b"alpha", b"a" * 20, b"be\0ta", b""):  # numpy's own reading of the items
        assert k in f
    assert b"alpha".ljust(20, b"\0") not in f
    assert_answers(f, s, [bytes(x) for x in s])
    full = np.array([b"x" * 20, b"y" * 20], dtype="S20")  # no padding: one fixed-width batch
    g = Filter(1000)
    g.add_many(full)
    assert b"x" * 20 in g and b"y" * 20 in g
    v = np.frombuffer(b"abc\0\0defgh", dtype="V5")  # V: every byte is the key
    g.add_many(v)
    assert b"abc\0\0" in g and b"defgh" in g and b"abc" not in g


def test_numpy_unicode_is_utf8():
    f = Filter(1000)
    u = np.array(["héllo", "wörld€", "", "𝄞x"], dtype="U6")
    f.add_many(u)
    for k in ("héllo", "wörld€", "", "𝄞x"):
        assert k in f
    assert_answers(f, u, list(u))


@pytest.mark.parametrize("dtype", ["i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8",
                                   ">i2", ">u4", ">i8"])
def test_numpy_integers_hash_as_little_endian_bytes(dtype):
    vals = [0, 1, 5, 100, 127]
    a = np.array(vals, dtype=dtype)
    f = Filter(1000)
    f.add_many(a)
    width = a.dtype.itemsize
    g = Filter(1000)
    for v in vals:
        g.add(int(v).to_bytes(width, "little", signed=a.dtype.kind == "i"))
    assert bytes(f) == bytes(g)
    assert f.contains_many(a).all()


def test_negative_integers_and_strided_views():
    a = np.arange(-50, 50, dtype=np.int64)
    f = Filter(1000)
    f.add_many(a[::3])  # strided, read in place
    expect = [int(v).to_bytes(8, "little", signed=True) for v in a[::3]]
    assert all(k in f for k in expect)
    got = f.contains_many(a[::-1])  # negative stride: copied
    assert got.tolist() == [int(v).to_bytes(8, "little", signed=True) in f for v in a[::-1]]
    assert got.sum() >= len(expect)
    s = np.array([b"k%02d" % i for i in range(40)], dtype="S3")[::2]
    g = Filter(1000)
    g.add_many(s)
    assert all(bytes(x) in g for x in s)
    with pytest.raises(TypeError, match="1-D"):
        f.add_many(np.zeros((2, 2), dtype=np.int32))
    # Every refused dtype says what keys may be; complex128 ('Zd', two letters) once did not.
    for dtype, fmt in ((np.float64, "d"), (np.complex128, "Zd"), (np.bool_, "?")):
        with pytest.raises(TypeError, match=r"^unsupported buffer format '%s' \(keys are bytes "
                           r"'Ns', 'Nx', UCS-4 'Nw' or integers\)$" % re.escape(fmt)):
            f.add_many(np.zeros(3, dtype=dtype))


def test_object_arrays_and_array_likes_iterate():
    f = Filter(1000)
    o = np.array(["a", b"b", "c"], dtype=object)
    f.add_many(o)
    assert "a" in f and b"b" in f and "c" in f

    class Column:  # a pandas-like column: only __array__
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None):
            return self.a

    g = Filter(1000)
    g.add_many(Column(np.array([1, 2, 3], dtype=np.int64)))
    assert (1).to_bytes(8, "little") in g and g.contains_many(Column(np.array([2, 3]))).all()


def test_prehashed():
    f = Filter(1000, seed=11)
    keys = words("h", 500)
    h = np.array([f.hash(k) for k in keys], dtype=np.uint64)
    f.add_many(h, hashes=True)
    assert all(k in f for k in keys)
    g = Filter(1000, seed=11)
    g.add_many(keys)
    assert bytes(f) == bytes(g)
    assert f.contains_many(h, hashes=True).all()
    assert f.contains_many(h.byteswap().view(h.dtype.newbyteorder()), hashes=True).all()
    assert f.contains_many([int(x) for x in h[:5]], hashes=True).all()
    with pytest.raises(TypeError, match="8-byte"):
        f.add_many(np.zeros(3, dtype=np.uint32), hashes=True)
    with pytest.raises(TypeError):
        f.add_many(["a"], hashes=True)


def test_prehashed_at_every_byte_offset():
    # Hashes viewed at an odd byte offset of a buffer (numpy allows it) must not reach the
    # library as a misaligned uint64_t pointer; the sanitized run of this suite (UBSan's
    # alignment check) fails on that. Each view must add and find what an aligned one does.
    want = Filter(1000, seed=5)
    h = np.array([want.hash(k) for k in words("o", 300)], dtype=np.uint64)
    want.add_many(h, hashes=True)
    raw = np.zeros(h.nbytes + 8, dtype=np.uint8)
    for off in range(8):
        view = raw[off:off + h.nbytes].view(np.uint64)
        view[:] = h
        assert view.flags["ALIGNED"] == (off == 0)
        f = Filter(1000, seed=5)
        f.add_many(view, hashes=True)
        assert bytes(f) == bytes(want)
        assert f.contains_many(view, hashes=True).all()
        assert f.contains_many(view[:1], hashes=True).all()


def test_every_kind_takes_every_batch():
    for kind in ("blocked", "classic", "counting", "scalable"):
        f = Filter(500, kind=kind)
        f.add_many(words("k", 400))
        f.add_many(np.arange(100, dtype=np.int32))
        assert f.contains_many(words("k", 400)).all()
        assert f.contains_many(np.arange(100, dtype=np.int32)).all()


def test_read_only_and_full_errors():
    f = Filter(100, kind="scalable", scale=False)
    with pytest.raises(ValueError, match="full"):
        f.add_many(words("x", 10000))


def test_bytearray_result_without_numpy(tmp_path):
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import blockbloom\n"
            "f = blockbloom.Filter(100); f.add_many(['a', 'b'])\n"
            "r = f.contains_many(['a', 'zz', 'b'])\n"
            "assert type(r) is bytearray and list(r) == [1, 0, 1], r\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_arrow_methods_needing_pyarrow_fall_back():
    class PandasLike:  # pandas >= 2.2 defines __arrow_c_stream__, which needs pyarrow
        def __arrow_c_stream__(self, requested_schema=None):
            raise ImportError("pyarrow is required")

        def __array__(self, dtype=None):
            return np.array([b"a", b"b"], dtype="S1")

    f = Filter(100)
    f.add_many(PandasLike())
    assert b"a" in f and f.contains_many(PandasLike()).all()


@pytest.mark.parametrize("kind", ["blocked", "split", "sectorized", "classic"])
def test_threads_give_the_bytes_and_answers_of_one(kind):
    # 300,000 keys: more than the library's 2^16 keys per thread, so three threads run.
    keys = np.array([b"t-%d" % i for i in range(300000)], dtype="S12")
    one, many = Filter(200000, kind=kind, seed=3), Filter(200000, kind=kind, seed=3)
    assert one.threads == 1
    many.threads = 3
    assert many.threads == 3
    one.add_many(keys[:200000])
    many.add_many(keys[:200000])
    hashes = np.arange(1, 150001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    one.add_many(hashes, hashes=True)
    many.add_many(hashes, hashes=True)
    assert bytes(one) == bytes(many)
    assert len(one) == len(many) == 350000
    got = many.contains_many(keys)
    assert got.tolist() == one.contains_many(keys).tolist()
    assert got[:200000].all() and not got[200000:].all()


def test_threads_setting_is_checked():
    f = Filter(1000)
    f.threads = 0
    assert f.threads >= 1
    f.threads = 256
    assert f.threads == 256
    # Every integer outside 0..256 is the same ValueError naming the range: -1 used to be an
    # OverflowError, and 2^64 too.
    for bad in (257, 100000, -1, -(2**70), 2**64, np.int64(-1), np.uint64(300)):
        with pytest.raises(ValueError, match=r"^threads must be 0 \(one per CPU\) to 256, not "):
            f.threads = bad
    assert f.threads == 256
    # Not integers: a TypeError, and the setting stays.
    for bad in (2.0, "2", None, np.float64(2)):
        with pytest.raises(TypeError):
            f.threads = bad
    assert f.threads == 256
    with pytest.raises(AttributeError):
        del f.threads


def test_threads_take_numpy_integers():
    # numpy's integers are not ints but have __index__; np.int64(3) used to be a TypeError.
    f = Filter(1000)
    for value in (np.int64(3), np.uint8(2), np.uint64(256), True):
        f.threads = value
        assert f.threads == int(value)
    f.threads = np.int32(0)
    assert f.threads >= 1
