# SPDX-License-Identifier: MIT
"""The Arrow PyCapsule path of add_many / contains_many, with arrays and streams built by hand
(arrow_hand.py, from the Arrow spec) since pyarrow is not packaged: utf8/binary with 32- and
64-bit offsets, views inline and in variadic buffers, fixed_size_binary, integers, dictionaries,
an array offset and nulls (skipped on add, False on contains), streams of several chunks, and
bad arrays (ValueError naming the problem, nothing added). The oracle is the single-key path
on the values the test wrote into the buffers."""
import struct

import numpy as np
import pytest

import arrow_hand as ah
from blockbloom import Filter

VALUES = [b"apple", None, b"", b"a value longer than twelve bytes", b"kiwi", None, b"x" * 40]


def check(arr, values):
    f = Filter(1000, seed=3)
    f.add_many(arr)
    ref = Filter(1000, seed=3)
    for v in values:
        if v is not None:
            ref.add(v)
    assert bytes(f) == bytes(ref)
    got = f.contains_many(arr)
    assert got.dtype == np.bool_ and len(got) == len(values)
    assert got.tolist() == [v is not None for v in values]
    assert arr.array_releases == 0  # borrowed, not released by the library


@pytest.mark.parametrize("fmt", ["u", "z", "U", "Z"])
@pytest.mark.parametrize("offset", [0, 3])
def test_offsets_nulls(fmt, offset):
    check(ah.binary(VALUES, fmt, offset), VALUES)


@pytest.mark.parametrize("fmt", ["vu", "vz"])
@pytest.mark.parametrize("offset", [0, 2])
def test_views(fmt, offset):
    check(ah.views(VALUES, fmt, offset), VALUES)


def test_fixed_size_binary():
    vals = [b"abcd", None, b"efgh", b"\0\0\0\0"]
    check(ah.fixed(vals, 4, offset=1), vals)


@pytest.mark.parametrize("fmt,width,signed", [("c", 1, True), ("C", 1, False), ("s", 2, True),
                                              ("S", 2, False), ("i", 4, True), ("I", 4, False),
                                              ("l", 8, True), ("L", 8, False)])
def test_integers_are_little_endian_bytes(fmt, width, signed):
    vals = [1, None, 7, -3 if signed else 200, 0]
    arr = ah.ints(vals, fmt, offset=2)
    as_bytes = [None if v is None else v.to_bytes(width, "little", signed=signed) for v in vals]
    check(arr, as_bytes)


def test_int64_column_equals_numpy_int64():
    f, g = Filter(1000), Filter(1000)
    f.add_many(ah.ints([5, 6, 7], "l"))
    g.add_many(np.array([5, 6, 7], dtype=np.int64))
    assert bytes(f) == bytes(g)


def test_dictionary():
    d = ah.binary([b"red", b"green", None, b"blue"], "u")
    idx = [1, 0, None, 3, 2, 1, 0]  # index 2 points at a null value: treated as null
    arr = ah.dictionary(idx, d, "s", offset=1)
    vals = [None if i is None or i == 2 else [b"red", b"green", None, b"blue"][i] for i in idx]
    check(arr, vals)


def test_stream_of_chunks():
    chunks = [ah.binary([b"a", b"b"], "u"), ah.binary([None, b"c"], "u", offset=1),
              ah.binary([], "u"), ah.binary([b"d", None, b"e"], "u", offset=2)]
    s = ah.HandStream(chunks)
    f = Filter(1000)
    f.add_many(s)
    assert s.releases == 1
    for k in (b"a", b"b", b"c", b"d", b"e"):
        assert k in f
    assert f.info()["keys_added"] == 5
    q = ah.HandStream([ah.binary([b"a", b"zz"], "u"), ah.binary([None, b"e", b"yy"], "u")])
    got = f.contains_many(q)
    assert got.tolist() == [True, False, False, True, False] and q.releases == 1


def test_stream_with_a_bad_chunk_adds_nothing():
    bad = ah.binary([b"p", b"q"], "u")
    bad.keep[1][4:8] = struct.pack("<i", -1)  # offsets 0, -1, 2: not monotonic
    s = ah.HandStream([ah.binary([b"a"], "u"), bad])
    f = Filter(1000)
    before = bytes(f)
    with pytest.raises(ValueError, match="offsets decrease"):
        f.add_many(s)
    assert bytes(f) == before and s.releases == 1
    e = ah.HandStream([ah.binary([b"a"], "u")], fail_at=0)
    with pytest.raises(OSError, match="hand-made stream failure") as err:
        f.add_many(e)
    assert err.value.errno == 5 and bytes(f) == before


def test_bad_arrays_are_refused():
    f = Filter(1000)
    before = bytes(f)
    ts = ah.HandArray("tsu:", [None, b"\0" * 16], 2)
    with pytest.raises(ValueError, match="'tsu:'"):
        f.add_many(ts)
    with pytest.raises(ValueError, match="'tsu:'"):
        f.contains_many(ts)
    v = ah.views([b"a value longer than twelve bytes"], "vu")
    v.keep[1][8:12] = struct.pack("<i", 5)  # buffer index 5 of 2
    with pytest.raises(ValueError, match="buffer index 5 out of range"):
        f.add_many(v)
    neg = ah.binary([b"a"], "u")
    neg.array.length = -1
    with pytest.raises(ValueError, match="negative length"):
        f.add_many(neg)
    rel = ah.binary([b"a"], "u")
    rel.array.release = ah.ARRAY_RELEASE()
    with pytest.raises(ValueError, match="released"):
        f.add_many(rel)
    d = ah.dictionary([0, 9], ah.binary([b"x"], "u"), "i")
    with pytest.raises(ValueError, match="dictionary index 9"):
        f.add_many(d)
    with pytest.raises(TypeError):
        f.add_many(ah.binary([b"a"], "u"), hashes=True)
    assert bytes(f) == before


class _BadArrow:
    """An __arrow_c_array__ / __arrow_c_stream__ that returns `got` instead of capsules."""

    def __init__(self, got, stream=False):
        self.got = got
        if stream:
            self.__arrow_c_stream__ = lambda requested_schema=None: self.got
        else:
            self.__arrow_c_array__ = lambda requested_schema=None: self.got


def test_what_is_not_the_capsule_protocol_is_a_type_error_naming_it():
    # Was CPython's ValueError "PyCapsule_GetPointer called with incorrect name".
    f = Filter(1000)
    good = ah.binary([b"a"], "u")
    schema, array = good.__arrow_c_array__()
    for got in ((array, schema), (schema, b"x"), ("s", "a"), (schema,), [schema, array], None):
        with pytest.raises(TypeError, match=r"^_BadArrow\.__arrow_c_array__\(\) must return a "
                           r"pair of PyCapsules named 'arrow_schema' and 'arrow_array' \(the "
                           r"Arrow PyCapsule interface\), not "):
            f.add_many(_BadArrow(got))
    for got in (schema, "s", None):
        with pytest.raises(TypeError, match=r"^_BadArrow\.__arrow_c_stream__\(\) must return a "
                           r"PyCapsule named 'arrow_array_stream'"):
            f.add_many(_BadArrow(got, stream=True))
    assert len(f) == 0
