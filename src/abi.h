/* SPDX-License-Identifier: MIT */
/*
 * abi.h - reading and writing the caller-allocated structs that carry their size (bb_config,
 * bb_info, bb_slice_info and those of libblockbloom_parquet and libblockbloom_redis; the
 * rules are in blockbloom.h beside BB_CONFIG_INIT and in docs/DESIGN.md, "Struct sizes").
 * Static inline, so the optional libraries use the same code without exporting it.
 * Invariant: `size` is the first member of every such struct, so the caller's `size` is the
 * first sizeof(size_t) bytes and the library never writes them.
 */
#ifndef BB_ABI_H
#define BB_ABI_H

#include "lasterror.h"

#include <stddef.h>
#include <string.h>

/** Bytes of `type` up to the end of `field`: the smallest size that holds that field. */
#define BB_END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/** BB_OK if a caller's struct of `size` bytes holds at least the `least` bytes of the first
 *  layout the library knows; else BB_E_INVAL with a detail text naming `type` and `init`. */
static inline bb_status bb_abi_check(size_t size, size_t least, const char *type,
                                     const char *init) {
    if (size >= least) return BB_OK;
    if (size == 0)
        return bb_error_set(BB_E_INVAL, "%s.size is 0: initialise the struct with %s", type, init);
    return bb_error_set(BB_E_INVAL,
                        "%s.size is %zu, less than the %zu bytes of its first "
                        "layout: initialise the struct with %s",
                        type, size, least, init);
}

/** An input struct: the caller's first min(size, full) bytes into dst[0 .. full), zeros (the
 *  defaults) after them. `size` has passed bb_abi_check. */
static inline void bb_abi_read(void *dst, size_t full, const void *src, size_t size) {
    memset(dst, 0, full);
    memcpy(dst, src, size < full ? size : full);
}

/** bb_abi_check, then bb_abi_read: the caller's input struct *src of `type`, whose first
 *  layout ends with field `last`, into *dst; `init` names its initialiser in the detail. */
#define BB_ABI_READ(dst, src, type, last, init)                                                    \
    bb_abi_read_checked(dst, sizeof(type), src, BB_END_OF(type, last), #type, init)
static inline bb_status bb_abi_read_checked(void *dst, size_t full, const void *src, size_t least,
                                            const char *type, const char *init) {
    size_t size;
    memcpy(&size, src, sizeof size); /* `size` is the first member */
    bb_status s = bb_abi_check(size, least, type, init);
    if (s == BB_OK) bb_abi_read(dst, full, src, size);
    return s;
}

/** An output struct: src's bytes from after its size member up to min(size, full) into the
 *  caller's dst; dst's size member and anything past min(size, full) are left alone. */
static inline void bb_abi_write(void *dst, size_t size, const void *src, size_t full) {
    size_t n = size < full ? size : full;
    memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t), n - sizeof(size_t));
}

#endif
