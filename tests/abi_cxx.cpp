// SPDX-License-Identifier: MIT
// abi_cxx.cpp - the struct initialisers (BB_CONFIG_INIT ...) as a C++ caller writes them,
// compiled with -Wall -Wextra -Werror (tests/CMakeLists.txt, test header_cxx): each gives a
// struct whose size is its sizeof and whose other fields are zero. Needs no library: the
// C++ form of BB_SIZED_INIT is an inline template.
#include <blockbloom.h>
#include <blockbloom_parquet.h>
#include <blockbloom_redis.h>

#include <cstdio>

static int failures = 0;

template <class T> static void check(const T &v, const char *name) {
    T zero = T();
    zero.size = sizeof(T);
    if (v.size != sizeof(T) || v.size == 0) {
        std::printf("%s: size %zu, not %zu\n", name, v.size, sizeof(T));
        failures++;
    }
    const unsigned char *a = reinterpret_cast<const unsigned char *>(&v);
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&zero);
    for (size_t i = sizeof(size_t); i < sizeof(T); i++)
        if (a[i] != b[i]) {
            std::printf("%s: byte %zu is not zero\n", name, i);
            failures++;
            break;
        }
}

int main() {
    bb_config c = BB_CONFIG_INIT;
    bb_info i = BB_INFO_INIT;
    bb_slice_info s = BB_SLICE_INFO_INIT;
    bb_pq_column_info pc = BB_PQ_COLUMN_INFO_INIT;
    bb_pq_chunk_info ch = BB_PQ_CHUNK_INFO_INIT;
    bb_pq_index_opts po = BB_PQ_INDEX_OPTS_INIT;
    bb_redis_options ro = BB_REDIS_OPTIONS_INIT;
    bb_redis_params rp = BB_REDIS_PARAMS_INIT;
    bb_redis_info ri = BB_REDIS_INFO_INIT;
    check(c, "bb_config");
    check(i, "bb_info");
    check(s, "bb_slice_info");
    check(pc, "bb_pq_column_info");
    check(ch, "bb_pq_chunk_info");
    check(po, "bb_pq_index_opts");
    check(ro, "bb_redis_options");
    check(rp, "bb_redis_params");
    check(ri, "bb_redis_info");
    return failures != 0;
}
