/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cursor.h - the input cursor the differential fuzz targets share: reads past the end of
 * the input give zeros, so every input is a valid program and shrinking never breaks one.
 */
#ifndef BB_FUZZ_CURSOR_H
#define BB_FUZZ_CURSOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct cursor {
    const uint8_t *p;
    size_t n;
} cursor;

static inline uint8_t next_byte(cursor *c) {
    if (!c->n) return 0;
    c->n--;
    return *c->p++;
}

#endif /* BB_FUZZ_CURSOR_H */
