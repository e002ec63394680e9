# SPDX-License-Identifier: MIT
"""blockbloom.redis: a Bloom filter shared in Redis or Redis Cluster, on stock servers.

    >>> from blockbloom import redis
    >>> c = redis.Client("redis://:PASSWORD@127.0.0.1:6379/0", timeout=10.0)
    >>> c.reserve("users", 0.01, 1_000_000)
    >>> c.add_many("users", ["alice", "bob"])          # True where a key was new
    >>> c.contains_many("users", ["alice", "carol"])   # numpy bool array
    >>> c.pull("users")                                # a local blockbloom.Filter

The same filter as `blockbloom redis` and the C library libblockbloom_redis (layout and URL
forms in docs/REDIS.md): keys as for Filter.add_many (lists of str/bytes, numpy arrays, Arrow
arrays and streams), sent in pipelined batches of 1000 with the GIL released. Client(urls,
*, cluster=False, user=None, password=None, timeout=10.0, wait=0): urls is one URL, or a
list of cluster seeds with cluster=True; user and password apply when the URL has none;
timeout is each request's deadline in seconds; wait=N makes every batch of writes wait for N
replicas (Redis's WAIT). Server and network errors raise RedisError (an OSError) naming the
node, a passed deadline RedisTimeout (a RedisError and a TimeoutError); bad arguments
ValueError. One client may be shared by threads (calls take turns).
"""
from . import _core

if not hasattr(_core, "RedisClient"):
    raise ImportError("blockbloom was built without the Redis client (hiredis was not found)")

Client = _core.RedisClient
RedisError = _core.RedisError
RedisTimeout = _core.RedisTimeout

__all__ = ["Client", "RedisError", "RedisTimeout"]
