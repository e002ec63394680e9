/* SPDX-License-Identifier: MIT */
/*
 * blockbloom_parquet.h - the optional Parquet library of blockbloom (libblockbloom_parquet):
 * read a Parquet file's footer and the split-block Bloom filters (SBBF) of its column
 * chunks, decode a chunk's values, and write a copy of a file with fresh SBBFs. It sits on
 * top of libblockbloom (the filters are the BB_SPLIT kind) and links the page codecs
 * (Snappy, zlib, zstd, LZ4, Brotli), which is why it is a library of its own: the core
 * stays free of them.
 *
 * References: Apache Parquet's parquet.thrift (struct and field ids), Encodings.md (every
 * value and level encoding), Compression.md (the codecs), BloomFilter.md (the SBBF and its
 * header).
 *
 * Conventions: every function returns a bb_status (blockbloom.h); on failure bb_last_error()
 * gives a one-line English message naming what was wrong ("truncated footer", "column 'b'
 * has physical type BOOLEAN (not supported)", "codec LZO is not supported", ...), which the
 * CLI prints as is. Nothing prints, exits or aborts. Input files are opened read-only and
 * memory-mapped; a file handle may be read from many threads at once.
 * Decoded: every leaf column, also of structs and lists (definition levels say which entries
 * hold a value), of the physical types INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY; PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT values; data pages v1
 * and v2; codecs UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4 (Hadoop's framing), ZSTD and
 * LZ4_RAW. Anything else (BOOLEAN columns, encrypted files, LZO, ALP) is BB_E_UNSUPPORTED
 * with a message naming it.
 */
#ifndef BLOCKBLOOM_PARQUET_H
#define BLOCKBLOOM_PARQUET_H

#include "blockbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Parquet physical types (parquet.thrift's Type; values pinned by the spec). */
typedef enum bb_pq_type {
    BB_PQ_BOOLEAN = 0, BB_PQ_INT32 = 1, BB_PQ_INT64 = 2, BB_PQ_INT96 = 3, BB_PQ_FLOAT = 4,
    BB_PQ_DOUBLE = 5, BB_PQ_BYTE_ARRAY = 6, BB_PQ_FIXED_LEN_BYTE_ARRAY = 7
} bb_pq_type;

/**
 * The name of a physical type, as parquet.thrift spells it.
 * Thread-safety: any thread, any time.
 *
 * @param type  any value (a file may hold one outside the enum).
 * @return "INT32", "BYTE_ARRAY", ...; "UNKNOWN(N)" for a value outside the enum. Never NULL.
 */
BB_API const char *bb_pq_type_name(bb_pq_type type);

/** An open Parquet file (opaque; bb_pq_close frees it). */
typedef struct bb_pq_file bb_pq_file;

/**
 * Map `path` read-only and parse its footer: magic "PAR1" at both ends, the 4-byte footer
 * length, the FileMetaData (Thrift compact), its schema and row groups. A FIFO, device or
 * other file that is not regular is refused before it is read.
 * Thread-safety: any thread, any time. The handle is read-only afterwards: any number of
 * threads may read it at once.
 *
 * @param out   receives the handle, for bb_pq_close (NULL on error). Not NULL.
 * @param path  the file, NUL-terminated. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument); BB_E_IO (open/stat/mmap, or not a regular
 *         file; errno kept); BB_E_BAD_MAGIC (no "PAR1" at both ends: not Parquet);
 *         BB_E_TRUNCATED (file shorter than its footer says, or the footer ends inside a
 *         struct); BB_E_CORRUPT (undecodable Thrift); BB_E_INCONSISTENT (a column chunk's
 *         offsets outside the file, schema and row groups disagree); BB_E_UNSUPPORTED
 *         ("PARE", an encrypted footer; a schema nested too deep or with too long a path:
 *         the message names it); BB_E_NOMEM.
 */
BB_API bb_status bb_pq_open(bb_pq_file **out, const char *path);

/**
 * Parse a whole Parquet file image in memory, as bb_pq_open parses a file.
 * Thread-safety: any thread, any time; the handle as bb_pq_open's.
 *
 * @param out  receives the handle, for bb_pq_close (NULL on error). Not NULL.
 * @param buf  len bytes, not copied: they must outlive the handle. NULL allowed when len is 0.
 * @param len  bytes of buf.
 * @return as bb_pq_open, except BB_E_IO.
 */
BB_API bb_status bb_pq_open_buffer(bb_pq_file **out, const void *buf, size_t len);

/**
 * Close (unmap) a file and free its handle; the names and bitsets it gave become invalid.
 * Thread-safety: changes pf (no call may still be using it).
 *
 * @param pf  the handle; NULL does nothing.
 */
BB_API void bb_pq_close(bb_pq_file *pf);

/**
 * Number of row groups.
 * Thread-safety: reads pf.
 *
 * @param pf  the file; NULL allowed.
 * @return the number of row groups; 0 for NULL.
 */
BB_API size_t bb_pq_row_groups(const bb_pq_file *pf);
/**
 * Number of leaf columns.
 * Thread-safety: reads pf.
 *
 * @param pf  the file; NULL allowed.
 * @return the number of leaf columns; 0 for NULL.
 */
BB_API size_t bb_pq_columns(const bb_pq_file *pf);

/** A leaf column of the schema. */
typedef struct bb_pq_column_info {
    size_t size;            /**< sizeof(bb_pq_column_info) (BB_PQ_COLUMN_INFO_INIT) */
    const char *name;       /**< dotted path ("a.b" for nested), valid until bb_pq_close */
    bb_pq_type type;        /**< physical type */
    int32_t type_length;    /**< FIXED_LEN_BYTE_ARRAY: bytes per value; else 0 */
    const char *logical;    /**< "STRING", "DECIMAL", "DATE", "INT", ... or "" (none) */
    int32_t scale;          /**< DECIMAL scale, else 0 */
    bool optional;          /**< may hold nulls (definition level 1) */
    bool flat;              /**< a direct, non-repeated child of the root (nested leaves
                                 are decoded too: this only describes the schema) */
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_pq_column_info;

/** Initialiser of a bb_pq_column_info: its size set, the rest zero (see BB_CONFIG_INIT). */
#define BB_PQ_COLUMN_INFO_INIT BB_SIZED_INIT(bb_pq_column_info)

/**
 * Describe a leaf column into the first out->size bytes of *out. Its strings stay valid until
 * bb_pq_close.
 * Thread-safety: reads pf.
 *
 * @param pf   the file. Not NULL.
 * @param col  the column, < bb_pq_columns.
 * @param out  receives the description; out->size set first (BB_PQ_COLUMN_INFO_INIT). Not
 *             NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument or col out of range; no message. out->size 0 or
 *         short of `flat`: the message names BB_PQ_COLUMN_INFO_INIT).
 */
BB_API bb_status bb_pq_column(const bb_pq_file *pf, size_t col, bb_pq_column_info *out);

/**
 * Find a leaf column by its dotted path.
 * Thread-safety: reads pf.
 *
 * @param pf    the file. Not NULL.
 * @param name  the dotted path, NUL-terminated. Not NULL.
 * @param col   receives the column's index. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, or no such column: "no column 'x'").
 */
BB_API bb_status bb_pq_find_column(const bb_pq_file *pf, const char *name, size_t *col);

/** A column chunk (one column of one row group). */
typedef struct bb_pq_chunk_info {
    size_t size;              /**< sizeof(bb_pq_chunk_info) (BB_PQ_CHUNK_INFO_INIT) */
    int64_t num_values;       /**< values including nulls */
    int codec;                /**< parquet.thrift CompressionCodec */
    const char *codec_name;   /**< "UNCOMPRESSED", "SNAPPY", ... */
    bool has_bloom;           /**< bloom_filter_offset is set */
    int64_t bloom_offset;     /**< of the BloomFilterHeader; -1 without */
    int64_t bloom_length;     /**< header + bitset bytes as the footer says; -1 if not set */
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_pq_chunk_info;

/** Initialiser of a bb_pq_chunk_info: its size set, the rest zero. */
#define BB_PQ_CHUNK_INFO_INIT BB_SIZED_INIT(bb_pq_chunk_info)

/**
 * Describe the chunk of one column in one row group, into the first out->size bytes of *out.
 * Thread-safety: reads pf.
 *
 * @param pf   the file. Not NULL.
 * @param rg   the row group, < bb_pq_row_groups.
 * @param col  the column, < bb_pq_columns.
 * @param out  receives the description; out->size set first (BB_PQ_CHUNK_INFO_INIT). Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, an index out of range, or out->size 0 or short
 *         of `bloom_length`); BB_E_UNSUPPORTED (an encrypted chunk, or one in another file).
 */
BB_API bb_status bb_pq_chunk(const bb_pq_file *pf, size_t rg, size_t col,
                             bb_pq_chunk_info *out);

/**
 * The SBBF bitset of a chunk, validated: the BloomFilterHeader (Thrift) at bloom_offset
 * inside the file, algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED, numBytes > 0, a
 * multiple of 32 and inside the file, and header + numBytes == bloom_filter_length when
 * the footer gives one. *bitset points into the mapped file (valid until bb_pq_close).
 * *pow2 (may be NULL) tells whether numBytes is a power of two, as Parquet's writers use
 * (another size is accepted; a reader may want to note it).
 * Thread-safety: reads pf.
 *
 * @param pf   the file. Not NULL.
 * @param rg   the row group, < bb_pq_row_groups.
 * @param col  the column, < bb_pq_columns.
 * @param bitset     receives the bitset's first byte, inside the mapping. Not NULL.
 * @param len_bytes  receives numBytes. Not NULL.
 * @param pow2       receives whether numBytes is a power of two. May be NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument or an index out of range); BB_E_ABSENT (the
 *         chunk has no filter); BB_E_INCONSISTENT (offsets outside the file; numBytes
 *         disagrees with bloom_filter_length or is not a positive multiple of 32);
 *         BB_E_TRUNCATED; BB_E_CORRUPT (header undecodable or without numBytes);
 *         BB_E_UNSUPPORTED (another algorithm, hash or compression; an encrypted chunk).
 */
BB_API bb_status bb_pq_chunk_bitset(const bb_pq_file *pf, size_t rg, size_t col,
                                    const void **bitset, size_t *len_bytes, bool *pow2);

/**
 * Whether the chunk's Bloom filter header gave its algorithm, hash and compression: false
 * when it left one out or as an empty union (as @dsnp/parquetjs writes them), which
 * bb_pq_chunk_bitset reads as the only values the spec defines (BLOCK, XXHASH,
 * UNCOMPRESSED). A query without a status: bb_last_error's text is left alone.
 * Thread-safety: reads pf.
 *
 * @param pf   the file. Not NULL.
 * @param rg   the row group, < bb_pq_row_groups.
 * @param col  the column, < bb_pq_columns.
 * @return false for a header that left one out; true when it gave them all, and when the
 *         chunk has no readable header (or pf is NULL, or an index is out of range).
 */
BB_API bool bb_pq_chunk_bloom_header_complete(const bb_pq_file *pf, size_t rg, size_t col);

/**
 * Encode the text `text[0 .. len)` as a value of column `col` in Parquet's PLAIN encoding
 * (the bytes an SBBF hashes): INT32/INT64 from a decimal integer (DECIMAL columns: a decimal
 * number with at most `scale` fraction digits; DATE: YYYY-MM-DD or days), FLOAT/DOUBLE from
 * a decimal or exponent number (little-endian IEEE 754), BYTE_ARRAY as the bytes themselves,
 * FIXED_LEN_BYTE_ARRAY as exactly type_length bytes (UUID columns: also the 8-4-4-4-12 hex
 * text; DECIMAL columns of at most 16 bytes: a decimal number, stored big-endian).
 * Thread-safety: reads pf.
 *
 * @param pf         the file. Not NULL.
 * @param col        the column, < bb_pq_columns.
 * @param text       len bytes, not NUL-terminated (NULL allowed when len is 0).
 * @param len        bytes of text.
 * @param buf        16 bytes of room for an encoding that is not text itself. Not NULL.
 * @param value      receives the encoding's first byte: buf, or text itself where the
 *                   value is its own bytes (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY of type_length
 *                   bytes that is not DECIMAL). Not NULL.
 * @param value_len  receives the encoding's length in bytes. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, col out of range, or text that is not a value
 *         of the column: the message says why); BB_E_INCONSISTENT (a DECIMAL column whose
 *         type, precision or scale cannot hold one); BB_E_UNSUPPORTED (another type).
 */
BB_API bb_status bb_pq_encode_value(const bb_pq_file *pf, size_t col, const char *text,
                                    size_t len, uint8_t buf[16], const void **value,
                                    size_t *value_len);

/**
 * The chunk's SBBF as a new BB_SPLIT filter (a copy of the bitset, see bb_pq_chunk_bitset
 * for the checks and *pow2), for bb_contains, bb_get_info, bb_save... *out is freed with
 * bb_free (NULL on error). The filter does not depend on pf afterwards.
 * Thread-safety: reads pf.
 *
 * @param pf   the file. Not NULL.
 * @param rg   the row group, < bb_pq_row_groups.
 * @param col  the column, < bb_pq_columns.
 * @param out   receives the filter (NULL on error). Not NULL.
 * @param pow2  receives whether the bitset's size is a power of two. May be NULL.
 * @return BB_OK; bb_pq_chunk_bitset's errors; BB_E_NOMEM; BB_E_TOO_LARGE (more than 2^32
 *         blocks).
 */
BB_API bb_status bb_pq_chunk_filter(const bb_pq_file *pf, size_t rg, size_t col,
                                    bb_filter **out, bool *pow2);

/** Called for each non-null value of a chunk with its PLAIN encoding (BYTE_ARRAY without
 *  its length prefix). Returning anything but BB_OK stops the walk, which returns it. */
typedef bb_status (*bb_pq_value_fn)(void *ctx, const void *value, size_t len);

/**
 * Decode every page of a chunk (dictionary page, data pages v1 and v2; codecs and encodings
 * as in the file comment) and call fn for each non-null value, in order.
 * Thread-safety: reads pf; fn runs on the calling thread.
 *
 * @param pf   the file. Not NULL.
 * @param rg   the row group, < bb_pq_row_groups.
 * @param col  the column, < bb_pq_columns.
 * @param fn   called with each value; its pointer is valid only during the call. Not NULL.
 * @param ctx  passed to fn; may be NULL.
 * @return BB_OK; BB_E_INVAL (fn NULL, pf NULL or an index out of range); BB_E_UNSUPPORTED
 *         (a column, codec or encoding outside the supported set: the message names it);
 *         BB_E_CORRUPT (a page that does not decode, or fewer values than the chunk says);
 *         BB_E_TRUNCATED; BB_E_NOMEM; or what fn returned.
 */
BB_API bb_status bb_pq_chunk_values(const bb_pq_file *pf, size_t rg, size_t col,
                                    bb_pq_value_fn fn, void *ctx);

/** Options of bb_pq_index. Start from BB_PQ_INDEX_OPTS_INIT. */
typedef struct bb_pq_index_opts {
    size_t size;                /**< sizeof(bb_pq_index_opts) as compiled */
    const char *const *columns; /**< names of the columns to index */
    size_t n_columns;
    double fpr;                 /**< target false-positive rate per chunk, 0 < fpr < 1 */
    /* Later fields go here, appended (CONTRIBUTING.md, "A field of a public struct"). */
} bb_pq_index_opts;

/** Initialiser of a bb_pq_index_opts: its size set, the rest zero. */
#define BB_PQ_INDEX_OPTS_INIT BB_SIZED_INIT(bb_pq_index_opts)

/**
 * Write to `out_path` a copy of `in_path` with a fresh SBBF (BB_SPLIT, power-of-two size)
 * for every chunk of the named columns, sized from the chunk's distinct count: data pages
 * and everything else before the footer copied byte for byte, the filters appended after
 * them, then the footer re-encoded with bloom_filter_offset and bloom_filter_length set (all
 * its other fields, unknown ones included, kept). The output is written atomically (a
 * temporary file in the same directory, fsync, rename): on any error `out_path` is not
 * created or changed. `in_path` is only read. Only opts->size bytes of *opts are read.
 * Thread-safety: any thread, any time, with distinct out_paths.
 *
 * @param in_path   the Parquet file to read, NUL-terminated. Not NULL.
 * @param out_path  the file to write, NUL-terminated; not in_path. Not NULL.
 * @param opts      the columns and fpr, from BB_PQ_INDEX_OPTS_INIT; opts->columns not NULL,
 *                  n_columns >= 1. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, opts->size 0 or short of `fpr`, no columns, no
 *         such column, out_path is in_path, fpr outside (0, 1)); bb_pq_open's and
 *         bb_pq_chunk_values' errors; BB_E_TOO_LARGE (a filter or the footer beyond what
 *         Parquet's 32-bit fields hold); BB_E_IO (writing out_path: the message names the
 *         file and errno); BB_E_NOMEM.
 */
BB_API bb_status bb_pq_index(const char *in_path, const char *out_path,
                             const bb_pq_index_opts *opts);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_PARQUET_H */
