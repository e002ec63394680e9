# SPDX-License-Identifier: MIT
"""What a Python user reaches for: pandas Series of str and numpy U / object arrays in the
batch calls (the same keys as a list of str; an object array is read in place, the keys
keep their reference counts), missing values named with their position, len(f) and the
bb_info fields as properties (f | g and f |= g: test_filter.py), and a docstring on every public name so that
help(blockbloom.Filter) is a reference."""
import sys

import numpy as np
import pandas as pd
import pytest

import blockbloom
from blockbloom import Filter

WORDS = ["apple", "kiwi", "ümlaut", "", "x" * 100] + ["w%d" % i for i in range(2000)]
OTHERS = ["absent-%d" % i for i in range(2000)]


def by_list(words, queries):
    f = Filter(5000, 0.01, seed=3)
    f.add_many(list(words))
    return f, f.contains_many(list(queries))


@pytest.mark.parametrize("make", [
    pd.Series,
    lambda w: pd.Series(w, dtype="string"),
    lambda w: pd.Series(w, index=range(100, 100 + len(w))),
    lambda w: np.array(w),                    # numpy U
    lambda w: np.array(w, dtype=object),
    lambda w: np.array(w, dtype=object).repeat(2)[::2],  # strided object array
])
def test_pandas_and_numpy_string_columns_are_the_same_keys_as_a_list(make):
    want_f, want = by_list(WORDS, WORDS + OTHERS)
    f = Filter(5000, 0.01, seed=3)
    f.add_many(make(WORDS))
    assert bytes(f) == bytes(want_f)
    assert (f.contains_many(make(WORDS + OTHERS)) == want).all()


def test_object_arrays_hold_their_keys_without_copies():
    keys = np.array(["key %d" % i for i in range(100)], dtype=object)
    before = [sys.getrefcount(k) for k in keys]
    f = Filter(1000)
    f.add_many(keys)
    assert f.contains_many(keys).all()
    assert [sys.getrefcount(k) for k in keys] == before


@pytest.mark.parametrize("missing,word", [(None, "None"), (float("nan"), "NaN")])
def test_missing_values_are_named_by_position(missing, word):
    f = Filter(1000)
    for column in (pd.Series(["a", missing, "b"]), np.array(["a", missing], dtype=object),
                   ["a", missing]):
        with pytest.raises(TypeError, match="item 1 is %s, a missing value" % word):
            f.add_many(column)
    assert len(f) == 0
    with pytest.raises(TypeError, match="item 2: a key is str, bytes or a buffer, not int"):
        f.contains_many(["a", "b", 3])


def test_len_and_properties_are_bb_info():
    f = Filter(10_000, fpr=0.01, seed=5)
    assert len(f) == 0 and not f
    f.add_many(["a", "b", "a"])
    info = f.info()
    assert len(f) == 3 == f.keys_added  # duplicates counted, as bb_info
    for name in ("kind", "bits", "k", "seed", "capacity", "fill_ratio", "fpr_estimate",
                 "cardinality_estimate", "read_only"):
        assert getattr(f, name) == info[name], name
    assert f.nbytes == info["bytes"]
    assert 0 < f.fill_ratio < 0.01 and 0 < f.fpr_estimate < 1e-6
    assert 1.9 < f.cardinality_estimate < 2.1  # "a" twice, two distinct keys
    with pytest.raises(AttributeError):
        f.fill_ratio = 0.5


def public_names(obj):
    return [n for n in dir(obj) if not n.startswith("_")]


def test_every_public_name_has_a_docstring():
    for name in public_names(Filter):
        doc = getattr(Filter, name).__doc__
        assert doc and len(doc.strip()) > 10, name
    for name in ("Filter", "load", "open", "frombytes"):
        assert getattr(blockbloom, name).__doc__, name
    assert blockbloom.__doc__ and blockbloom._core.__doc__
    text = Filter.__doc__ + "".join(getattr(Filter, n).__doc__ for n in public_names(Filter))
    for word in ("capacity", "fpr", "kind", "add_many", "keys_added", "fill_ratio"):
        assert word in text, word
