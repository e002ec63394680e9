# SPDX-License-Identifier: MIT
"""blockbloom: high-throughput Bloom filters for Python, over the C library libblockbloom.

    >>> import blockbloom
    >>> f = blockbloom.Filter(1_000_000, fpr=0.01)
    >>> f.add("apple"); "apple" in f
    True

Batches (add_many / contains_many) take lists of str/bytes, numpy arrays (S, V, U and
integer dtypes, or 64-bit hashes with hashes=True) and Arrow arrays or streams from any
producer of the Arrow PyCapsule interface (pyarrow, polars, DuckDB, nanoarrow), without
copying, and run without holding the GIL. Filters save to files that every process can map
read-only (Filter.open), pickle, and convert to and from bytes.
"""
from ._core import KINDS, Filter, __version__

load = Filter.load
open = Filter.open  # noqa: A001 - blockbloom.open(path), like Filter.open
frombytes = Filter.frombytes

__all__ = ["Filter", "KINDS", "__version__", "load", "open", "frombytes"]
