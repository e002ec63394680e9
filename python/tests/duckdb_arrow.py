# SPDX-License-Identifier: MIT
"""DuckDB's own Arrow exports for the tests, through ctypes: libduckdb.so from the npm
package @duckdb/node-bindings-linux-x64 (scripts/setup-duckdb.sh installs it into
build-oracle/; BB_LIBDUCKDB names another), queried with duckdb_query_arrow and read back with
duckdb_query_arrow_schema / duckdb_query_arrow_array (signatures from DuckDB's duckdb.h):
one struct array per chunk of at most 2,048 rows, a child per column. A column of a result is
handed to consumers through the Arrow PyCapsule protocol, as pyarrow hands its arrays:
DuckColumn.chunk(i) has __arrow_c_array__, DuckColumn has __arrow_c_stream__ (DuckDB's
chunks, one per get_next; DuckDB's C API has no stream producer of its own outside its ADBC
driver). The arrays are DuckDB's: nothing is copied or rebuilt here."""
import ctypes as C
import os

from arrow_hand import (ARRAY_RELEASE, GET_ERROR, GET_NEXT, GET_SCHEMA, SCHEMA_RELEASE,
                        STREAM_RELEASE, ArrowArray, ArrowArrayStream, ArrowSchema, capsule)

DEFAULT = os.path.join(os.path.dirname(__file__), "..", "..", "build-oracle", "node_modules",
                       "@duckdb", "node-bindings-linux-x64", "libduckdb.so")


def library_path():
    return os.environ.get("BB_LIBDUCKDB") or os.path.abspath(DEFAULT)


@SCHEMA_RELEASE
def _borrowed_schema(p):
    p.contents.release = SCHEMA_RELEASE()


@ARRAY_RELEASE
def _borrowed_array(p):
    p.contents.release = ARRAY_RELEASE()


class DuckDB:
    """An in-memory DuckDB database and one connection."""

    def __init__(self):
        lib = self.lib = C.CDLL(library_path())
        vp, pvp = C.c_void_p, C.POINTER(C.c_void_p)
        for name, args, res in (
                ("duckdb_open", [C.c_char_p, pvp], C.c_int),
                ("duckdb_connect", [vp, pvp], C.c_int),
                ("duckdb_disconnect", [pvp], None),
                ("duckdb_close", [pvp], None),
                ("duckdb_query_arrow", [vp, C.c_char_p, pvp], C.c_int),
                ("duckdb_query_arrow_schema", [vp, pvp], C.c_int),
                ("duckdb_query_arrow_array", [vp, pvp], C.c_int),
                ("duckdb_query_arrow_error", [vp], C.c_char_p),
                ("duckdb_destroy_arrow", [pvp], None)):
            f = getattr(lib, name)
            f.argtypes, f.restype = args, res
        self.db, self.con = vp(), vp()
        assert lib.duckdb_open(None, C.byref(self.db)) == 0
        assert lib.duckdb_connect(self.db, C.byref(self.con)) == 0

    def _query(self, sql):
        res = C.c_void_p()
        if self.lib.duckdb_query_arrow(self.con, sql.encode(), C.byref(res)) != 0:
            msg = self.lib.duckdb_query_arrow_error(res).decode()
            self.lib.duckdb_destroy_arrow(C.byref(res))
            raise RuntimeError("DuckDB: %s: %s" % (sql, msg))
        return res

    def execute(self, sql):
        res = self._query(sql)
        self.lib.duckdb_destroy_arrow(C.byref(res))

    def query(self, sql):
        """The result of sql, exported: a DuckResult."""
        res = self._query(sql)
        out = DuckResult()
        p = C.c_void_p(C.addressof(out.schema))
        assert self.lib.duckdb_query_arrow_schema(res, C.byref(p)) == 0
        while True:
            a = ArrowArray()
            p = C.c_void_p(C.addressof(a))
            assert self.lib.duckdb_query_arrow_array(res, C.byref(p)) == 0
            if not a.release:  # untouched: no more chunks
                break
            out.chunks.append(a)
        self.lib.duckdb_destroy_arrow(C.byref(res))  # the exported structs own their buffers
        return out

    def close(self):
        self.lib.duckdb_disconnect(C.byref(self.con))
        self.lib.duckdb_close(C.byref(self.db))


class DuckResult:
    """The schema (a struct of the columns) and chunks DuckDB exported; released on close()."""

    def __init__(self):
        self.schema, self.chunks = ArrowSchema(), []

    def names(self):
        return [self.schema.children[i].contents.name.decode()
                for i in range(self.schema.n_children)]

    def column(self, name):
        return DuckColumn(self, self.names().index(name))

    def close(self):
        for a in self.chunks:
            if a.release:
                a.release(C.pointer(a))
        if self.schema.release:
            self.schema.release(C.pointer(self.schema))


class _Chunk:
    def __init__(self, schema, array):
        self.schema, self.array = schema, array

    def __arrow_c_array__(self, requested_schema=None):
        return capsule(self.schema, b"arrow_schema"), capsule(self.array, b"arrow_array")


class DuckColumn:
    """One column of a DuckResult: its chunks as arrays, or all of them as one stream."""

    def __init__(self, result, index):
        self.result, self.index = result, index
        self.schema = result.schema.children[index].contents

    @property
    def format(self):
        return self.schema.format.decode()

    def __len__(self):
        return len(self.result.chunks)

    def chunk(self, i):
        return _Chunk(self.schema, self.result.chunks[i].children[self.index].contents)

    def __arrow_c_stream__(self, requested_schema=None):
        self._stream = _ColumnStream(self)
        return capsule(self._stream.stream, b"arrow_array_stream")


class _ColumnStream:
    """get_next hands out the column's array of each chunk in turn, borrowed (its release
    only marks it released: the result owns it)."""

    def __init__(self, column):
        self.column, self.next, self.released = column, 0, False
        self.callbacks = (GET_SCHEMA(self._schema), GET_NEXT(self._next),
                          GET_ERROR(lambda st: None), STREAM_RELEASE(self._release))
        self.stream = ArrowArrayStream(*self.callbacks)

    def _schema(self, st, out):
        C.memmove(out, C.addressof(self.column.schema), C.sizeof(ArrowSchema))
        out.contents.release = _borrowed_schema
        return 0

    def _next(self, st, out):
        chunks = self.column.result.chunks
        if self.next == len(chunks):
            out.contents.release = ARRAY_RELEASE()
            return 0
        src = chunks[self.next].children[self.column.index].contents
        C.memmove(out, C.addressof(src), C.sizeof(ArrowArray))
        out.contents.release = _borrowed_array
        self.next += 1
        return 0

    def _release(self, st):
        self.released = True
        st.contents.release = STREAM_RELEASE()
