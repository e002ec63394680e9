/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the page codecs of Parquet (parquet.thrift CompressionCodec, Compression.md):
 * UNCOMPRESSED (0), SNAPPY (1, raw Snappy blocks, libsnappy's C API), GZIP (2, a gzip
 * stream; zlib with automatic header detection), BROTLI (4, a Brotli stream, libbrotlidec),
 * ZSTD (6, a zstd frame), LZ4_RAW (7, one LZ4 block, liblz4) and the deprecated LZ4 (5):
 * Hadoop's framing, as parquet-mr wrote it, of frames
 *     <uncompressed length: 4 bytes big-endian> <compressed length: 4 bytes BE> <LZ4 block>
 * each decompressing to exactly its stated length, or, when the data is not so framed, one
 * raw LZ4 block (what parquet-cpp wrote under that codec before LZ4_RAW existed). Every
 * page header states the uncompressed size, so each call decompresses into a buffer of
 * exactly that size and fails unless the data fills it exactly. LZO (3), for which Debian
 * has no library of a compatible licence, and unknown codecs get a message naming them.
 */
#include "pq.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static bb_status bad(int64_t codec) {
    return pq_fail(BB_E_CORRUPT, "%s page does not decompress to its stated size",
                   pq_codec_name(codec));
}

static bb_status gunzip(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) return pq_fail(BB_E_NOMEM, "out of memory");
    /* Page sizes are Thrift i32s (pages.c checks them), so they fit zlib's uInt. */
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)src_len;
    z.next_out = dst;
    z.avail_out = (uInt)dst_len;
    int rc = inflate(&z, Z_FINISH);
    bb_status s = rc == Z_STREAM_END && z.avail_out == 0 ? BB_OK : bad(2);
    inflateEnd(&z);
    return s;
}

/* One LZ4 block into exactly dst_len bytes. Sizes are page sizes (<= 1 GiB), so they fit
 * liblz4's int. */
static bool lz4_block(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
    if (src_len > INT32_MAX || dst_len > INT32_MAX) return false;
    int got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    return got >= 0 && (size_t)got == dst_len;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hadoop's frames; false if the data is not exactly a sequence of them filling dst. */
static bool lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
    size_t in = 0, out = 0;
    while (in < src_len) {
        if (src_len - in < 8) return false;
        uint32_t ulen = be32(src + in), clen = be32(src + in + 4);
        in += 8;
        if (clen > src_len - in || ulen > dst_len - out) return false;
        if (!lz4_block(src + in, clen, dst + out, ulen)) return false;
        in += clen;
        out += ulen;
    }
    return out == dst_len && src_len > 0;
}

static bb_status unbrotli(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
    size_t got = dst_len;
    if (BrotliDecoderDecompress(src_len, src, &got, dst) != BROTLI_DECODER_RESULT_SUCCESS ||
        got != dst_len)
        return bad(4);
    return BB_OK;
}

bb_status pq_decompress(int64_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_len) {
    size_t got;
    switch (codec) {
    case 0:
        if (src_len != dst_len) return bad(codec);
        if (dst_len) memcpy(dst, src, dst_len);
        return BB_OK;
    case 1:
        if (snappy_uncompressed_length((const char *)src, src_len, &got) != SNAPPY_OK ||
            got != dst_len)
            return bad(codec);
        got = dst_len;
        if (snappy_uncompress((const char *)src, src_len, (char *)dst, &got) != SNAPPY_OK ||
            got != dst_len)
            return bad(codec);
        return BB_OK;
    case 2:
        return gunzip(src, src_len, dst, dst_len);
    case 4:
        return unbrotli(src, src_len, dst, dst_len);
    case 5:
        if (dst_len == 0 && src_len == 0) return BB_OK;
        return lz4_hadoop(src, src_len, dst, dst_len) || lz4_block(src, src_len, dst, dst_len)
                   ? BB_OK : bad(codec);
    case 6:
        got = ZSTD_decompress(dst, dst_len, src, src_len);
        if (ZSTD_isError(got) || got != dst_len) return bad(codec);
        return BB_OK;
    case 7:
        return lz4_block(src, src_len, dst, dst_len) ? BB_OK : bad(codec);
    default:
        return pq_fail(BB_E_UNSUPPORTED,
                       "codec %s is not supported (UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4, "
                       "ZSTD and LZ4_RAW are)", pq_codec_name(codec));
    }
}
