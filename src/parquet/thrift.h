/* SPDX-License-Identifier: MIT */
/*
 * thrift.h - a small, bounds-checked reader and writer of Apache Thrift's compact protocol
 * (thrift/doc/specs/thrift-compact-protocol.md), as Parquet's footer, page headers and
 * Bloom filter headers use it. A struct is read into a generic tree (tc_node) that keeps
 * every field, known or not, so a rewrite re-encodes exactly what was read plus the fields
 * the caller set: unknown fields (written by a newer Parquet writer) survive. The typed
 * views of Parquet's structs (meta.c, pages.c) are getters on that tree by field id.
 *
 * Invariants: no read ever goes past the input's length; lists, sets and maps announce at
 * most as many elements as bytes remain (each element takes at least one byte); nesting is
 * capped at TC_MAX_DEPTH so a hostile input cannot exhaust the stack.
 */
#ifndef BB_PQ_THRIFT_H
#define BB_PQ_THRIFT_H

#include "blockbloom.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact-protocol type codes. A bool field carries its value in its type (TRUE/FALSE); a
 * bool list element is one byte (1 true, else false). */
enum {
    TC_STOP = 0, TC_TRUE = 1, TC_FALSE = 2, TC_I8 = 3, TC_I16 = 4, TC_I32 = 5, TC_I64 = 6,
    TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_SET = 10, TC_MAP = 11, TC_STRUCT = 12
};
#define TC_MAX_DEPTH 64

typedef struct tc_node tc_node;
struct tc_node {
    uint8_t type;            /* TC_*; a bool is TC_TRUE with i = 1 or 0 */
    uint8_t elem, elem2;     /* list/set: element type; map: key and value types */
    int16_t id;              /* field id, for a struct member */
    int64_t i;               /* integers and bools */
    double d;                /* TC_DOUBLE */
    const uint8_t *bin;      /* TC_BINARY: bytes (into the parsed input, or owned_bin) */
    size_t len;
    uint8_t *owned_bin;      /* a binary set by the caller, freed with the tree */
    tc_node *kids;           /* struct: fields by id; list/set: elements; map: k0,v0,k1,... */
    size_t n_kids, cap_kids;
};

/* Growing output buffer of the writer. */
typedef struct tc_buf {
    uint8_t *p;
    size_t len, cap;
    bool failed;             /* an allocation failed: the content is incomplete */
} tc_buf;

/** Parse one struct from buf[0 .. len) into *out (zeroed first); *used gets its length in
 *  bytes. BB_E_TRUNCATED when the input ends inside it (or a container announces more
 *  elements than bytes remain), BB_E_CORRUPT on a bad type code, a varint longer than 10
 *  bytes or nesting too deep, BB_E_NOMEM. On error *out holds nothing to free. */
bb_status tc_parse_struct(const uint8_t *buf, size_t len, size_t *used, tc_node *out);

/** Free what the tree owns (not the node itself). */
void tc_free(tc_node *n);

/** The field `id` of struct `s`, or NULL. */
tc_node *tc_field(const tc_node *s, int16_t id);
/** Field `id` as an integer of any width (TC_I8 .. TC_I64); false if absent or not one. */
bool tc_int(const tc_node *s, int16_t id, int64_t *out);
/** Field `id` as a struct; NULL if absent or of another type. */
tc_node *tc_struct(const tc_node *s, int16_t id);
/** Field `id` as a list (or set); NULL if absent or of another type. */
tc_node *tc_list(const tc_node *s, int16_t id);
/** Field `id` as a bool: *out = value; false if absent or not a bool. */
bool tc_bool(const tc_node *s, int16_t id, bool *out);

/** Set field `id` of struct s to the integer v of compact type `type` (TC_I32 / TC_I64),
 *  inserting it in id order or replacing the old value. BB_E_NOMEM. */
bb_status tc_set_int(tc_node *s, int16_t id, uint8_t type, int64_t v);

/** Append the compact encoding of struct `s` to b. */
void tc_write_struct(tc_buf *b, const tc_node *s);
/* Pieces for writing small structs directly (the Bloom filter header). */
void tc_write_field(tc_buf *b, int16_t *last_id, int16_t id, uint8_t type);
void tc_write_varint(tc_buf *b, uint64_t v);
uint64_t tc_zigzag(int64_t v);
void tc_buf_put(tc_buf *b, const void *p, size_t n);
void tc_buf_free(tc_buf *b);

#endif
