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

/**
 * Add every non-null value of an Arrow array (see the section comment for the formats and
 * the keys). The array and schema are borrowed, not released.
 * Thread-safety: changes f.
 *
 * @param f       the filter. Not NULL.
 * @param array   the array, not released. Not NULL.
 * @param schema  its schema, not released. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument or a bad array: nothing added; bb_last_error
 *         says what); BB_E_READONLY (a mapped filter); BB_E_NOMEM (the hashes of a
 *         dictionary); the errors of the batch adds (scalable: BB_E_FULL, BB_E_NOMEM,
 *         BB_E_TOO_LARGE, with the keys before the failing one added).
 */
BB_API bb_status bb_add_arrow_array(bb_filter *f, const struct ArrowArray *array,
                                    const struct ArrowSchema *schema);

/**
 * Test every value of an Arrow array: out[i] for i < array->length is 1 if value i is
 * possibly present, 0 if definitely absent or null.
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param array      the array, not released. Not NULL.
 * @param schema     its schema, not released. Not NULL.
 * @param out        out[array->length] answers. NULL allowed when the length is 0.
 * @param n_present  receives the number of 1s (untouched on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument or a bad array: nothing written;
 *         bb_last_error says what); BB_E_NOMEM (the hashes of a dictionary).
 */
BB_API bb_status bb_contains_arrow_array(const bb_filter *f, const struct ArrowArray *array,
                                         const struct ArrowSchema *schema, uint8_t *out,
                                         size_t *n_present);

/**
 * Add every chunk of an Arrow stream. The stream is consumed: read to its end, then released
 * (also on error). All chunks are read and validated, and kept, before the first key is
 * added, so a bad chunk anywhere adds nothing.
 * Thread-safety: changes f and stream.
 *
 * @param f       the filter. Not NULL.
 * @param stream  the stream, released on return. Not NULL.
 * @return BB_OK; BB_E_INVAL (f or stream NULL, a released stream, or a bad chunk: nothing
 *         added; bb_last_error says what); BB_E_IO (get_schema or get_next failed: errno is
 *         the stream's code, bb_last_error its message); BB_E_READONLY; BB_E_NOMEM; the
 *         errors of bb_add_arrow_array's adds.
 */
BB_API bb_status bb_add_arrow_stream(bb_filter *f, struct ArrowArrayStream *stream);

/** Receives the answers of one chunk of a stream: out[0 .. n), in stream order. A non-zero
 *  return stops the walk; bb_contains_arrow_stream then returns BB_E_INVAL ("stopped by the
 *  sink"). */
typedef int (*bb_arrow_sink)(void *ctx, const uint8_t *out, size_t n);

/**
 * Query every chunk of an Arrow stream, in order, handing each chunk's answers (as
 * bb_contains_arrow_array's out) to sink(ctx, out, n). The stream is consumed (released,
 * also on error). A bad chunk stops the walk after the chunks before it were delivered.
 * Thread-safety: reads f; changes stream. sink runs on the calling thread.
 *
 * @param f          the filter. Not NULL.
 * @param stream     the stream, released on return. Not NULL.
 * @param sink       receives each chunk's answers; out is valid only during the call. Not
 *                   NULL.
 * @param ctx        passed to sink; may be NULL.
 * @param n_present  receives the number of 1s over the whole stream (untouched on error).
 *                   May be NULL.
 * @return BB_OK; BB_E_INVAL (f, stream or sink NULL, a released stream, a bad chunk, or sink
 *         returned non-zero: "stopped by the sink"); BB_E_IO as bb_add_arrow_stream;
 *         BB_E_NOMEM.
 */
BB_API bb_status bb_contains_arrow_stream(const bb_filter *f, struct ArrowArrayStream *stream,
                                          bb_arrow_sink sink, void *ctx, size_t *n_present);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_ARROW_H */
