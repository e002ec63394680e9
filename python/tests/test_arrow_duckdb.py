# SPDX-License-Identifier: MIT
"""Arrow arrays and streams from a real producer, DuckDB (duckdb_arrow.py: DuckDB's own
exports through ctypes, handed over with __arrow_c_array__ / __arrow_c_stream__). A table of
5,000 rows (three chunks) made by SQL from the row number i, with nulls in every column; each
column's format is checked (u z U Z vu vz, the eight integer types, an ENUM as a dictionary),
so a DuckDB that exported something else fails here. The reference keys are computed here
from the same formulas, not read from DuckDB: add_many of DuckDB's chunks (or its stream)
gives the filter, byte for byte, that add_many of the keys as a list gives, and
contains_many answers DuckDB's chunks as it answers the keys (False for a null row)."""
import numpy as np
import pytest

from blockbloom import Filter
from duckdb_arrow import DuckDB

ROWS = 5000
MOODS = ["sad", "ok", "happy", "a mood of more than twelve bytes"]
STR_SQL = ("CASE i % 4 WHEN 0 THEN (CASE WHEN i % 400 = 0 THEN '' ELSE 'k' || i END) "
           "WHEN 1 THEN 'a key longer than twelve bytes ' || i WHEN 2 THEN 'ü-' || i "
           "ELSE lpad(i::VARCHAR, 12, '0') END")


def key_str(i):
    if i % 4 == 0:
        return b"" if i % 400 == 0 else b"k%d" % i
    if i % 4 == 1:
        return b"a key longer than twelve bytes %d" % i
    if i % 4 == 2:
        return ("ü-%d" % i).encode()
    return b"%012d" % i


def le(v, width, signed):
    return v.to_bytes(width, "little", signed=signed)


# name, SQL of row i, key bytes of row i
COLUMNS = [
    ("str", STR_SQL, key_str),
    ("bin", "encode(%s)" % STR_SQL, key_str),
    ("mood", "['sad', 'ok', 'happy', 'a mood of more than twelve bytes'][i % 4 + 1]::mood",
     lambda i: MOODS[i % 4].encode()),
    ("i8", "(i % 256 - 128)::TINYINT", lambda i: le(i % 256 - 128, 1, True)),
    ("u8", "(i * 7 % 256)::UTINYINT", lambda i: le(i * 7 % 256, 1, False)),
    ("i16", "(i * 13 % 65536 - 32768)::SMALLINT", lambda i: le(i * 13 % 65536 - 32768, 2, True)),
    ("u16", "(i * 13 % 65536)::USMALLINT", lambda i: le(i * 13 % 65536, 2, False)),
    ("i32", "(i * 7919 - 20000000)::INTEGER", lambda i: le(i * 7919 - 20000000, 4, True)),
    ("u32", "(i * 858993)::UINTEGER", lambda i: le(i * 858993, 4, False)),
    ("i64", "(i * 1000000007 - 2500000000000)::BIGINT",
     lambda i: le(i * 1000000007 - 2500000000000, 8, True)),
    ("u64", "i::UBIGINT * 3000000000000000::UBIGINT", lambda i: le(i * 3000000000000000, 8, False)),
]
DEFAULT_FORMATS = {"str": "u", "bin": "z", "mood": "C", "i8": "c", "u8": "C", "i16": "s",
                   "u16": "S", "i32": "i", "u32": "I", "i64": "l", "u64": "L"}
SESSIONS = {
    "default": ([], DEFAULT_FORMATS),
    "large": (["SET arrow_large_buffer_size = true"], {"str": "U", "bin": "Z"}),
    # DuckDB makes views only for Arrow format version 1.4 and later
    "views": (["SET produce_arrow_string_view = true", "SET arrow_output_version = '1.4'"],
              {"str": "vu", "bin": "vz"}),
}


def is_null(c, i):
    return (i + c) % 7 == 3


@pytest.fixture(scope="module", params=list(SESSIONS))
def exported(request):
    settings, formats = SESSIONS[request.param]
    db = DuckDB()
    db.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', "
               "'a mood of more than twelve bytes')")
    cols = ", ".join("CASE WHEN (i + %d) %% 7 = 3 THEN NULL ELSE %s END AS %s" % (c, sql, name)
                     for c, (name, sql, _) in enumerate(COLUMNS))
    db.execute("CREATE TABLE t AS SELECT i, %s FROM range(%d) r(i)" % (cols, ROWS))
    for s in settings:
        db.execute(s)
    result = db.query("SELECT %s FROM t ORDER BY i" % ", ".join(n for n, _, _ in COLUMNS))
    assert len(result.chunks) >= 3 and sum(a.length for a in result.chunks) == ROWS
    yield result, formats
    result.close()
    db.close()


def reference(c):
    keys = [COLUMNS[c][2](i) for i in range(ROWS)]
    nulls = np.array([is_null(c, i) for i in range(ROWS)])
    return keys, nulls


@pytest.mark.parametrize("kind", ["blocked", "classic", "counting", "scalable", "split"])
def test_duckdb_arrays_and_streams_match_the_plain_batch(exported, kind):
    result, formats = exported
    for name, fmt in formats.items():
        c = [n for n, _, _ in COLUMNS].index(name)
        col = result.column(name)
        assert col.format == fmt, (name, col.format, fmt)
        if name == "mood":
            assert col.schema.dictionary.contents.format == b"u"
        keys, nulls = reference(c)
        want = Filter(ROWS, 0.01, kind=kind, seed=99)
        want.add_many([k for k, null in zip(keys, nulls) if not null])

        got = Filter(ROWS, 0.01, kind=kind, seed=99)
        for i in range(len(col)):
            got.add_many(col.chunk(i))
        assert bytes(got) == bytes(want), (name, fmt)
        streamed = Filter(ROWS, 0.01, kind=kind, seed=99)
        streamed.add_many(col)
        assert bytes(streamed) == bytes(want), (name, fmt)

        half = Filter(ROWS, 0.01, kind=kind, seed=99)
        half.add_many([k for i, (k, null) in enumerate(zip(keys, nulls)) if not null and i % 2 == 0])
        expect = half.contains_many(keys) & ~nulls
        answers = np.concatenate([half.contains_many(col.chunk(i)) for i in range(len(col))])
        assert (answers == expect).all(), (name, fmt)
        assert (half.contains_many(col) == expect).all(), (name, fmt)
        assert 0 < expect.sum() < ROWS - nulls.sum()
