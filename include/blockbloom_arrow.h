/* SPDX-License-Identifier: MIT */
/*
 * blockbloom_arrow.h - filters from and against Apache Arrow arrays, through the Arrow C Data
 * and C Stream Interfaces (part of libblockbloom; included by blockbloom.h). The library has
 * no Arrow dependency: the three ABI structs are the spec's own, under the spec's guards.
 */
#ifndef BLOCKBLOOM_ARROW_H
#define BLOCKBLOOM_ARROW_H

#include "blockbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html and
 * CStreamInterface.html). The three ABI structs are the spec's own, under the spec's guard
 * macros, so a program that already includes Arrow's abi.h (or nanoarrow) gets one
 * definition and the library needs no Arrow dependency.
 *
 * Formats taken (schema->format): "u" "U" (utf8, large_utf8), "z" "Z" (binary, large_binary),
 * "vu" "vz" (string_view, binary_view), "w:N" (fixed_size_binary), "c" "C" "s" "S" "i" "I"
 * "l" "L" (signed/unsigned 8, 16, 32, 64-bit integers), and dictionary-encoded arrays of
 * those (schema->dictionary set, format the integer index type): each dictionary value is
 * hashed once and the indices are mapped to its hash.
 * Keys: a string or binary value is hashed as its bytes, exactly as bb_add(value, len); an
 * integer as its width in little-endian bytes on every machine (int64 7 hashes as the 8
 * bytes 07 00 .. 00). Those are also the bytes of Parquet's PLAIN encoding of INT32/INT64
 * and of BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY values (without the 4-byte length prefix), so a
 * filter of an Arrow column matches the filter of the same Parquet column.
 * The array's offset and validity bitmap are respected. Nulls (and valid indices that point
 * at a null dictionary value) are skipped by the adds and answer 0 in the contains calls.
 * Validation comes first: an unsupported format, a released (release == NULL) array or
 * schema, a negative length, offset or null_count below -1, a wrong buffer or child count, a
 * missing buffer, offsets that are negative or decrease, a view with a negative length or a
 * buffer index or range outside the variadic buffers, a dictionary index outside the
 * dictionary: BB_E_INVAL, and nothing is added or written. bb_last_error() then says
 * what was wrong (for a format, which one). Buffers are not owned: the arrays are borrowed.
 * ========================================================================================== */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif /* ARROW_C_DATA_INTERFACE */
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif /* ARROW_C_STREAM_INTERFACE */

/** Add every non-null value of `array` (described by `schema`; see the section comment).
 *  @return BB_OK; BB_E_INVAL (NULL, or bad array: nothing added); the errors of the batch
 *  adds (BB_E_READONLY, scalable BB_E_FULL ...). The array and schema are not released. */
BB_API bb_status bb_add_arrow_array(bb_filter *f, const struct ArrowArray *array,
                                    const struct ArrowSchema *schema);

/** out[i] for i < array->length: 1 if value i is possibly present, 0 if definitely absent or
 *  null; *n_present (may be NULL) gets the number of 1s. Errors as bb_add_arrow_array
 *  (nothing written on BB_E_INVAL). Thread-safe like bb_contains_batch. */
BB_API bb_status bb_contains_arrow_array(const bb_filter *f, const struct ArrowArray *array,
                                         const struct ArrowSchema *schema, uint8_t *out,
                                         size_t *n_present);

/** Add every chunk of a stream. The stream is consumed: read to its end, then released
 *  (also on error). All chunks are read and validated before the first key is added, so a
 *  bad chunk anywhere adds nothing. A get_schema/get_next failure gives BB_E_IO with errno
 *  set to the stream's code and the stream's message in bb_last_error(). */
BB_API bb_status bb_add_arrow_stream(bb_filter *f, struct ArrowArrayStream *stream);

/** Receives the answers of one chunk of a stream: out[0 .. n), in stream order. A non-zero
 *  return stops the walk; bb_contains_arrow_stream then returns BB_E_INVAL ("stopped by the
 *  sink"). */
typedef int (*bb_arrow_sink)(void *ctx, const uint8_t *out, size_t n);

/** Query every chunk of a stream, in order, handing each chunk's answers to sink(ctx, ...);
 *  *n_present (may be NULL) gets the number of 1s over the whole stream. The stream is
 *  consumed (released, also on error). A bad chunk stops the walk with BB_E_INVAL after the
 *  chunks before it were delivered; stream failures as bb_add_arrow_stream. */
BB_API bb_status bb_contains_arrow_stream(const bb_filter *f, struct ArrowArrayStream *stream,
                                          bb_arrow_sink sink, void *ctx, size_t *n_present);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_ARROW_H */
