/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the page codecs Parquet files use most (parquet.thrift CompressionCodec):
 * UNCOMPRESSED (0), SNAPPY (1, raw Snappy blocks, libsnappy's C API), GZIP (2, a gzip
 * stream; zlib with automatic header detection) and ZSTD (6, a zstd frame). Every page
 * header states the uncompressed size, so each call decompresses into a buffer of exactly
 * that size and fails unless the data fills it exactly. LZO, BROTLI, LZ4 and LZ4_RAW get a
 * message naming them.
 */
#include "pq.h"

#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static bb_status bad(bb_pq_error *err, int64_t codec) {
    return pq_fail(err, BB_E_CORRUPT, "%s page does not decompress to its stated size",
                   pq_codec_name(codec));
}

static bb_status gunzip(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                        bb_pq_error *err) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) return pq_fail(err, BB_E_NOMEM, "out of memory");
    /* Page sizes are Thrift i32s (pages.c checks them), so they fit zlib's uInt. */
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)src_len;
    z.next_out = dst;
    z.avail_out = (uInt)dst_len;
    int rc = inflate(&z, Z_FINISH);
    bb_status s = rc == Z_STREAM_END && z.avail_out == 0 ? BB_OK : bad(err, 2);
    inflateEnd(&z);
    return s;
}

bb_status pq_decompress(int64_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_len, bb_pq_error *err) {
    size_t got;
    switch (codec) {
    case 0:
        if (src_len != dst_len) return bad(err, codec);
        if (dst_len) memcpy(dst, src, dst_len);
        return BB_OK;
    case 1:
        if (snappy_uncompressed_length((const char *)src, src_len, &got) != SNAPPY_OK ||
            got != dst_len)
            return bad(err, codec);
        got = dst_len;
        if (snappy_uncompress((const char *)src, src_len, (char *)dst, &got) != SNAPPY_OK ||
            got != dst_len)
            return bad(err, codec);
        return BB_OK;
    case 2:
        return gunzip(src, src_len, dst, dst_len, err);
    case 6:
        got = ZSTD_decompress(dst, dst_len, src, src_len);
        if (ZSTD_isError(got) || got != dst_len) return bad(err, codec);
        return BB_OK;
    default:
        return pq_fail(err, BB_E_UNSUPPORTED,
                       "codec %s is not supported (UNCOMPRESSED, SNAPPY, GZIP and ZSTD are)",
                       pq_codec_name(codec));
    }
}
