# SPDX-License-Identifier: MIT
"""Arrow arrays and streams built by hand with ctypes, for the tests (pyarrow is not packaged
in Debian 12). The structs and buffer layouts are written from the Arrow C Data Interface
and columnar format specs: validity bitmaps LSB first, n + 1 offsets, 16-byte views (length,
then 12 inline bytes, or prefix + buffer index + offset) with the variadic buffer sizes as
the last buffer, dictionaries as an index array plus a dictionary array. Objects expose the
Arrow PyCapsule protocol (__arrow_c_array__ / __arrow_c_stream__) exactly as pyarrow does:
capsules named "arrow_schema", "arrow_array", "arrow_array_stream".
"""
import ctypes as C
import struct


class ArrowSchema(C.Structure):
    pass


class ArrowArray(C.Structure):
    pass


class ArrowArrayStream(C.Structure):
    pass


SCHEMA_RELEASE = C.CFUNCTYPE(None, C.POINTER(ArrowSchema))
ARRAY_RELEASE = C.CFUNCTYPE(None, C.POINTER(ArrowArray))
ArrowSchema._fields_ = [
    ("format", C.c_char_p), ("name", C.c_char_p), ("metadata", C.c_char_p),
    ("flags", C.c_int64), ("n_children", C.c_int64),
    ("children", C.POINTER(C.POINTER(ArrowSchema))), ("dictionary", C.POINTER(ArrowSchema)),
    ("release", SCHEMA_RELEASE), ("private_data", C.c_void_p)]
ArrowArray._fields_ = [
    ("length", C.c_int64), ("null_count", C.c_int64), ("offset", C.c_int64),
    ("n_buffers", C.c_int64), ("n_children", C.c_int64), ("buffers", C.POINTER(C.c_void_p)),
    ("children", C.POINTER(C.POINTER(ArrowArray))), ("dictionary", C.POINTER(ArrowArray)),
    ("release", ARRAY_RELEASE), ("private_data", C.c_void_p)]
GET_SCHEMA = C.CFUNCTYPE(C.c_int, C.POINTER(ArrowArrayStream), C.POINTER(ArrowSchema))
GET_NEXT = C.CFUNCTYPE(C.c_int, C.POINTER(ArrowArrayStream), C.POINTER(ArrowArray))
GET_ERROR = C.CFUNCTYPE(C.c_void_p, C.POINTER(ArrowArrayStream))
STREAM_RELEASE = C.CFUNCTYPE(None, C.POINTER(ArrowArrayStream))
ArrowArrayStream._fields_ = [
    ("get_schema", GET_SCHEMA), ("get_next", GET_NEXT), ("get_last_error", GET_ERROR),
    ("release", STREAM_RELEASE), ("private_data", C.c_void_p)]

_capsule_new = C.pythonapi.PyCapsule_New
_capsule_new.restype = C.py_object
_capsule_new.argtypes = [C.c_void_p, C.c_void_p, C.c_void_p]
_NAMES = {n: C.create_string_buffer(n) for n in (b"arrow_schema", b"arrow_array",
                                                   b"arrow_array_stream")}


def capsule(obj, name):
    return _capsule_new(C.addressof(obj), C.addressof(_NAMES[name]), None)


@SCHEMA_RELEASE
def _release_schema(p):
    p.contents.release = SCHEMA_RELEASE()


class HandArray:
    """An Arrow array: format, buffers (bytes or None), length, offset, null_count."""

    def __init__(self, fmt, buffers, length, offset=0, null_count=0):
        self.fmt = fmt.encode()
        self.keep = [C.create_string_buffer(b, len(b)) if b is not None else None for b in buffers]
        self.ptrs = (C.c_void_p * len(buffers))(
            *[C.addressof(b) if b is not None else None for b in self.keep])
        self.dictionary = None
        self.array_releases = 0
        self.schema = ArrowSchema(format=self.fmt, release=_release_schema)
        self.array = ArrowArray(length=length, null_count=null_count, offset=offset,
                                n_buffers=len(buffers), buffers=self.ptrs)
        self._release = ARRAY_RELEASE(self._on_release)
        self.array.release = self._release

    def _on_release(self, p):
        self.array_releases += 1
        p.contents.release = ARRAY_RELEASE()

    def __arrow_c_array__(self, requested_schema=None):
        return capsule(self.schema, b"arrow_schema"), capsule(self.array, b"arrow_array")


def bitmap(valid):
    out = bytearray((len(valid) + 7) // 8 or 1)
    for i, v in enumerate(valid):
        if v:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _validity(values):
    nulls = sum(v is None for v in values)
    return (bitmap([v is not None for v in values]) if nulls else None), nulls


def binary(values, fmt="u", offset=0):
    """utf8/binary ("u", "z") or large ("U", "Z"); `offset` junk rows come first."""
    values = [b"junk"] * offset + list(values)
    wide = fmt in ("U", "Z")
    offs, at = [0], 0
    for v in values:
        at += len(v or b"")
        offs.append(at)
    data = b"".join(v or b"" for v in values)
    valid, nulls = _validity(values)
    ob = struct.pack("<%d%s" % (len(offs), "q" if wide else "i"), *offs)
    return HandArray(fmt, [valid, ob, data], len(values) - offset, offset, nulls)


def views(values, fmt="vu", offset=0):
    """string_view/binary_view; long values spread over two variadic buffers; null slots hold
    garbage views (a bad length and buffer index) that must not be looked at."""
    values = [b"junk"] * offset + list(values)
    bufs, vs = [b"", b""], b""
    for i, v in enumerate(values):
        if v is None:
            vs += struct.pack("<iiii", -7, 0, 99, 99)
        elif len(v) <= 12:
            vs += struct.pack("<i", len(v)) + v.ljust(12, b"\0")
        else:
            b = i % 2
            vs += struct.pack("<i4sii", len(v), v[:4], b, len(bufs[b]))
            bufs[b] += v
    valid, nulls = _validity(values)
    sizes = struct.pack("<qq", len(bufs[0]), len(bufs[1]))
    return HandArray(fmt, [valid, vs, bufs[0], bufs[1], sizes], len(values) - offset, offset,
                     nulls)


def fixed(values, width, offset=0):
    values = [b"\0" * width] * offset + list(values)
    valid, nulls = _validity(values)
    data = b"".join(v or b"\0" * width for v in values)
    return HandArray("w:%d" % width, [valid, data], len(values) - offset, offset, nulls)


INT_CODES = {"c": "b", "C": "B", "s": "h", "S": "H", "i": "i", "I": "I", "l": "q", "L": "Q"}


def ints(values, fmt="l", offset=0):
    values = [0] * offset + list(values)
    valid, nulls = _validity(values)
    data = struct.pack("=%d%s" % (len(values), INT_CODES[fmt]),
                       *[0 if v is None else v for v in values])
    return HandArray(fmt, [valid, data], len(values) - offset, offset, nulls)


def dictionary(indices, dict_array, fmt="i", offset=0):
    """Indices (None for a null row) into dict_array, a HandArray of the values."""
    a = ints(indices, fmt, offset)
    a.dictionary = dict_array
    a.schema.dictionary = C.pointer(dict_array.schema)
    a.array.dictionary = C.pointer(dict_array.array)
    return a


class HandStream:
    """An ArrowArrayStream of the given chunks (HandArrays of one format). fail_at: index of
    the get_next call that returns EIO instead."""

    def __init__(self, chunks, fail_at=None):
        self.chunks, self.fail_at, self.next, self.releases = chunks, fail_at, 0, 0
        self.error = C.create_string_buffer(b"hand-made stream failure")
        self.callbacks = (GET_SCHEMA(self._schema), GET_NEXT(self._next),
                          GET_ERROR(self._error), STREAM_RELEASE(self._release))
        self.stream = ArrowArrayStream(*self.callbacks)

    def _schema(self, st, out):
        C.memmove(out, C.addressof(self.chunks[0].schema), C.sizeof(ArrowSchema))
        return 0

    def _next(self, st, out):
        if self.fail_at is not None and self.next == self.fail_at:
            return 5  # EIO
        if self.next == len(self.chunks):
            out.contents.release = ARRAY_RELEASE()
            return 0
        C.memmove(out, C.addressof(self.chunks[self.next].array), C.sizeof(ArrowArray))
        self.next += 1
        return 0

    def _error(self, st):
        return C.addressof(self.error)

    def _release(self, st):
        self.releases += 1
        st.contents.release = STREAM_RELEASE()

    def __arrow_c_stream__(self, requested_schema=None):
        return capsule(self.stream, b"arrow_array_stream")
