# SPDX-License-Identifier: MIT
"""Filter construction, every kind, single keys (str/bytes/buffers), remove, hash, info and
errors. Oracles: xxHash's published XXH3 value of the empty input, golden filter bytes written
from docs/FORMAT.md (the same bytes as tests/test_format.c), the sizing facts of the README
(1M keys at 1% -> 9,585,059 bits, k = 7, classic), and keys distinct by construction."""
import errno
import struct

import numpy as np
import pytest

import blockbloom
from blockbloom import Filter

ALL_KINDS = ("blocked", "classic", "counting", "scalable", "split", "sectorized")

# Blocked, bits 512, k 3, capacity 7, seed 0x0123456789abcdef, after add_hash(0xdeadbeef) and
# add_hash(0xffffffff00000001); from tests/test_format.c (checksums from Debian's xxhsum).
GOLDEN_BLOCKED = bytearray(192)
GOLDEN_BLOCKED[0:16] = b"\x89BBF\r\n\x1a\n" + struct.pack("<II", 1, 128)
GOLDEN_BLOCKED[16:80] = struct.pack("<IIQQQdQQQ", 0, 3, 512, 1, 7, 0.0, 0x0123456789ABCDEF, 2, 64)
GOLDEN_BLOCKED[80:88] = bytes.fromhex("5095310e51a95270")
GOLDEN_BLOCKED[120:128] = bytes.fromhex("13936bb3505b3795")
for at, v in ((156, 0x40), (164, 0x10), (167, 0x10), (175, 0x10), (184, 0x40), (185, 0x20)):
    GOLDEN_BLOCKED[at] = v


def keys(tag, n):
    return [b"%s-%d" % (tag, i) for i in range(n)]


def test_module_surface():
    assert blockbloom.__version__.count(".") == 2
    assert set(ALL_KINDS) <= set(blockbloom.KINDS)
    assert blockbloom.load == Filter.load and blockbloom.open == Filter.open
    assert "Bloom" in Filter.__doc__ and Filter.add_many.__doc__


def test_golden_bytes_from_the_format_spec():
    f = Filter(7, bits=512, k=3, seed=0x0123456789ABCDEF)
    f.add_hash(0xDEADBEEF)
    f.add_hash(0xFFFFFFFF00000001)
    assert bytes(f) == bytes(GOLDEN_BLOCKED)
    g = Filter.frombytes(GOLDEN_BLOCKED)
    assert g.contains_hash(0xDEADBEEF) and g.info()["keys_added"] == 2


def test_xxh3_of_empty_key_is_the_published_value():
    f = Filter(10)
    assert f.hash(b"") == f.hash("") == f.hash(bytearray()) == 0x2D06800538D394C2
    assert Filter(10, seed=1).hash(b"") != 0x2D06800538D394C2


def test_sizing_facts_classic():
    # The textbook design: m = ceil(-n ln p / (ln 2)^2) = 9,585,059 bits for 10^6 keys at 1%,
    # k = round((m/n) ln 2) = 7 (tests/test_sizing.c works it out by hand).
    i = Filter(1_000_000, 0.01, kind="classic").info()
    assert (i["bits"], i["k"]) == (9_585_059, 7)
    assert i["capacity"] == 1_000_000 and i["fpr_target"] == 0.01


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_every_kind_has_no_false_negatives_and_few_false_positives(kind):
    f = Filter(2000, fpr=0.01, kind=kind, seed=7)
    present, absent = keys(b"in", 2000), keys(b"out", 20000)
    for k in present:
        f.add(k)
    assert all(k in f for k in present)
    fp = sum(k in f for k in absent)
    # 1% target, 20000 trials: 3.3 sigma above 1% is 1.23%; below 0 is impossible.
    assert fp <= 0.0123 * len(absent), fp
    assert f.info()["kind"] == kind


def test_key_types_are_the_same_bytes():
    f = Filter(100)
    f.add("héllo")
    assert "héllo" in f and "héllo".encode() in f
    assert bytearray("héllo".encode()) in f and memoryview("héllo".encode()) in f
    assert f.hash("héllo") == f.hash("héllo".encode())
    import array
    f.add(array.array("B", b"xyz"))
    assert b"xyz" in f
    with pytest.raises(TypeError):
        f.add(12)
    with pytest.raises(TypeError):
        12 in f
    with pytest.raises(UnicodeEncodeError):
        f.add("\ud800")


def test_bits_and_k_constructors():
    f = Filter.with_bits(4096, 5, seed=3)
    i = f.info()
    assert (i["bits"], i["k"], i["seed"], i["kind"]) == (4096, 5, 3, "blocked")
    g = Filter.with_bits(1000, 3, kind="classic")
    assert (g.info()["bits"], g.info()["k"]) == (1000, 3)
    assert Filter.with_bits(1000, 3, kind="blocked").info()["bits"] == 1024  # whole blocks
    h = Filter(1000, bits_per_key=12)
    assert h.info()["bits"] >= 12000
    assert Filter(bits=8192, k=4).info()["k"] == 4


def test_scalable_grows_and_no_scale_fills():
    f = Filter(100, 0.01, kind="scalable")
    for k in keys(b"s", 1000):
        f.add(k)
    assert f.info()["subfilters"] > 1
    assert all(k in f for k in keys(b"s", 1000))
    g = Filter(100, 0.01, kind="scalable", scale=False)
    with pytest.raises(ValueError, match="full"):
        for k in keys(b"t", 1000):
            g.add(k)


def test_counting_remove():
    f = Filter(1000, kind="counting")
    f.add("a")
    f.add("b")
    f.remove("a")
    assert "a" not in f and "b" in f
    with pytest.raises(KeyError):
        f.remove("never added")
    assert f.info()["keys_added"] == 1
    b = f.to_blocked()
    assert b.info()["kind"] == "blocked" and "b" in b
    with pytest.raises(ValueError, match="counting"):
        Filter(10).remove("a")


def test_hashes_single():
    f = Filter(100)
    f.add_hash(12345)
    assert f.contains_hash(12345)
    f.add("k")
    assert f.contains_hash(f.hash("k"))
    with pytest.raises(OverflowError):
        f.add_hash(-1)


@pytest.mark.parametrize("kw,arg,lo", [(dict(capacity=-1), "capacity", 1),
                                       (dict(capacity=2**64), "capacity", 1),
                                       (dict(capacity=10, seed=-1), "seed", 0),
                                       (dict(bits=-512, k=3), "bits", 1),
                                       (dict(bits=512, k=-1), "k", 1)])
def test_negative_or_huge_integer_arguments_are_value_errors(kw, arg, lo):
    # Was OverflowError("can't convert negative int to unsigned"), naming no argument; the
    # range starts where the argument does (capacity=0 is refused, seed=0 is not).
    with pytest.raises(ValueError, match=r"^%s must be an integer from %d to 2\*\*64 - 1$" % (arg, lo)):
        Filter(**kw)
    with pytest.raises(TypeError):
        Filter(capacity="10")


ZERO_ARGS = [(a, z) for a in ("capacity", "bits") for z in (0,)] + [
    (a, z) for a in ("fpr", "bits_per_key", "growth", "tightening")
    for z in (0.0, -0.0, float("nan"))]
ZERO_MESSAGE = {"fpr": r"fpr must be in \(0, 1\), not", "growth": "growth must be from 1 to",
                "tightening": r"tightening must be in \(0, 1\), not"}


@pytest.mark.parametrize("arg,zero", ZERO_ARGS)
def test_explicit_zero_is_refused_not_taken_for_the_default(arg, zero):
    # The C config reads 0 as "not given": Filter(1000, fpr=0.0) used to be a 1% filter.
    args = {"capacity": 1000, "kind": "scalable" if arg in ("growth", "tightening") else "blocked"}
    if arg == "bits":
        args = {"bits": 4096, "k": 3}
    args[arg] = zero
    with pytest.raises(ValueError, match=ZERO_MESSAGE.get(arg, arg + " must be above 0")):
        Filter(**args)


@pytest.mark.parametrize("kw,message", [
    (dict(capacity=100, fpr=2), r"^fpr must be in \(0, 1\), not 2$"),
    (dict(capacity=100, fpr=1.0), r"^fpr must be in \(0, 1\), not 1.0$"),
    (dict(capacity=100, fpr=-0.5), r"^fpr must be in \(0, 1\), not -0.5$"),
    (dict(bits=4096, k=0), r"^k must be from 1 to 16, not 0$"),
    (dict(bits=4096, k=17), r"^k must be from 1 to 16, not 17$"),
    (dict(capacity=100, kind="scalable", growth=0.5), r"^growth must be from 1 to 2\*\*20, not 0.5$"),
    (dict(capacity=100, kind="scalable", tightening=1), r"^tightening must be in \(0, 1\), not 1$"),
    (dict(capacity=100, fpr=0.01, bits_per_key=10), "^give fpr or bits_per_key, not both$"),
    (dict(capacity=100, fpr=0.01, bits=4096), "^bits .with k. is a size of its own"),
    (dict(capacity=100, kind="scalable", bits_per_key=10), "^kind='scalable' is sized by"),
    (dict(capacity=100, growth=3), "^growth, tightening and scale apply to kind='scalable'"),
    (dict(capacity=100, scale=False), "^growth, tightening and scale apply to kind='scalable'"),
    (dict(capacity=100, kind="classic", pow2=True), "^pow2=True does not apply to kind='classic'$"),
    (dict(capacity=100, kind="counting", pow2=True), "^pow2=True does not apply to kind='counting'$"),
    (dict(capacity=100, kind="split", k=4), "^kind='split' always uses k=8"),
])
def test_bad_arguments_are_named_with_their_range(kw, message):
    with pytest.raises(ValueError, match=message):
        Filter(**kw)


def test_errors_carry_the_library_message():
    with pytest.raises(ValueError, match="unknown kind"):
        Filter(100, kind="nope")
    with pytest.raises(ValueError, match="too large"):
        Filter(bits=1 << 60, k=3)
    with pytest.raises(TypeError):
        Filter()
    with pytest.raises(ValueError, match="not a blockbloom filter"):
        Filter.frombytes(b"x" * 200)
    with pytest.raises(ValueError, match="truncated"):
        Filter.frombytes(bytes(GOLDEN_BLOCKED[:150]))
    bad = bytearray(GOLDEN_BLOCKED)
    bad[150] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        Filter.frombytes(bad)
    with pytest.raises(FileNotFoundError) as e:
        Filter.load("/nonexistent/dir/f.bb")
    assert e.value.errno == errno.ENOENT and e.value.filename == "/nonexistent/dir/f.bb"
    # open()'s own wording, without the library's "input/output error" in front
    assert str(e.value) == "[Errno 2] No such file or directory: '/nonexistent/dir/f.bb'"
    with pytest.raises(FileNotFoundError) as e:
        Filter.open("/nonexistent/dir/f.bb")
    assert str(e.value) == "[Errno 2] No such file or directory: '/nonexistent/dir/f.bb'"
    with pytest.raises(MemoryError):
        Filter(bits=1 << 55, k=3)


def test_info_fields_and_repr():
    f = Filter(1000, 0.01, seed=9)
    f.add("x")
    i = f.info()
    for name in ("bits", "bytes", "k", "blocks", "capacity", "fpr_target", "seed", "keys_added",
                 "bits_set", "fill_ratio", "fpr_estimate", "cardinality_estimate",
                 "bits_per_key", "read_only", "format_version"):
        assert name in i
    assert i["keys_added"] == 1 and i["seed"] == 9 and 1 <= i["bits_set"] <= i["k"]
    assert i["bytes"] * 8 == i["bits"] and i["blocks"] * 512 == i["bits"]
    assert "kind=blocked" in repr(f) and "keys_added=1" in repr(f)


def test_clear_copy_union():
    a, b = Filter(1000, seed=1), Filter(1000, seed=1)
    a.add("a")
    b.add("b")
    c = a | b
    assert "a" in c and "b" in c and "b" not in a
    whole = Filter(1000, seed=1)
    whole.add("a")
    whole.add("b")
    assert bytes(c) == bytes(whole)  # union of halves == filter of the whole set
    a |= b
    assert bytes(a) == bytes(whole)
    d = a.copy()
    a.clear()
    assert "a" not in a and "a" in d
    with pytest.raises(ValueError, match="seed"):
        Filter(1000, seed=1) | Filter(1000, seed=2)
    with pytest.raises(TypeError):
        a | 3
    import copy
    e = copy.deepcopy(d)
    assert bytes(e) == bytes(d)


@pytest.mark.parametrize("kind", ["blocked", "split", "sectorized"])
def test_fold_halves_to_the_filter_built_with_half_the_blocks(kind):
    big = Filter(4000, 0.01, kind=kind, seed=2, pow2=True)
    keys_ = keys(b"f", 1000)
    big.add_many(keys_)
    bits = big.info()["bits"]
    assert bits & (bits - 1) == 0  # a power of two
    big.fold()
    half = Filter(kind=kind, bits=bits // 2, k=big.info()["k"], seed=2)
    half.add_many(keys_)
    assert big.info()["bits"] == bits // 2 and all(k in big for k in keys_)
    assert big.info()["bits_set"] == half.info()["bits_set"]
    assert big.contains_many(keys(b"g", 5000)).tolist() == half.contains_many(keys(b"g", 5000)).tolist()
    big.fold(fpr=0.05)
    assert big.info()["fpr_estimate"] <= 0.05 and all(k in big for k in keys_)
    with pytest.raises(ValueError, match="fold needs"):
        Filter(100, kind="classic").fold()


def test_sectorized_kind_bytes():
    # One key at hash 0 in a 1-line k = 8 filter: lo = 0, so every probe is bit 0 of its word:
    # byte 0 of each of the 8 little-endian words (src/kinds/sectorized.c's layout).
    f = Filter(kind="sectorized", bits=512, k=8)
    f.add_hash(0)
    assert bytes(f)[128:] == bytes([1, 0, 0, 0, 0, 0, 0, 0] * 8)  # after the 128-byte header
    with pytest.raises(ValueError):
        Filter(kind="sectorized", bits=512, k=3)


def test_split_kind_is_parquet_xxh64():
    f = Filter(100, kind="split")
    # XXH64 of the empty input with seed 0 is 0xEF46DB3751D8E999 (xxHash's published value)
    assert f.hash(b"") == 0xEF46DB3751D8E999
    f.add_many(np.array([7, -8], dtype=np.int64))  # Parquet PLAIN INT64 bytes
    assert (7).to_bytes(8, "little") in f and (-8).to_bytes(8, "little", signed=True) in f
