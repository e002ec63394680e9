/* SPDX-License-Identifier: MIT */
/*
 * values.c - a value typed on the command line, as the PLAIN-encoded bytes a Parquet SBBF
 * hashes (BloomFilter.md: "the hash of a column value using plain encoding"; Encodings.md,
 * PLAIN): INT32 and INT64 as 4 and 8 little-endian bytes of the two's complement integer,
 * FLOAT and DOUBLE as their little-endian IEEE 754 bits, BYTE_ARRAY as its bytes (no length
 * prefix), FIXED_LEN_BYTE_ARRAY raw (a UUID column also takes the 36-character text). The text is read according to the logical type: a
 * DECIMAL(scale s) stores value * 10^s as the integer (in a FIXED_LEN_BYTE_ARRAY of up to 16
 * bytes, as DuckDB and Spark write precisions above 18: big-endian two's complement), a DATE
 * the days since 1970-01-01.
 * Parsing is strict: the whole text must be the value, else a message says why.
 */
#include "pq.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_le(uint8_t *buf, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(v >> (8 * i));
}

/* Optional '-', digits, and with scale > 0 an optional '.' and at most `scale` digits:
 * the integer value * 10^scale, if within [lo, hi]. */
static bool parse_scaled(const char *t, size_t len, int32_t scale, int64_t lo, int64_t hi,
                         int64_t *out) {
    size_t i = 0;
    bool neg = len && t[0] == '-';
    if (neg) i++;
    if (i == len) return false;
    uint64_t limit = neg ? (uint64_t)0 - (uint64_t)lo : (uint64_t)hi, v = 0;
    int frac = -1, digits = 0;
    for (; i < len; i++) {
        if (t[i] == '.' && frac < 0 && scale > 0 && digits) {
            frac = 0;
            continue;
        }
        if (t[i] < '0' || t[i] > '9') return false;
        if (frac >= 0 && ++frac > scale) return false;
        uint64_t digit = (uint64_t)(t[i] - '0');
        if (digit > limit || v > (limit - digit) / 10) return false;
        v = v * 10 + digit;
        digits++;
    }
    if (frac == 0) return false; /* "12." */
    for (int f = frac < 0 ? 0 : frac; f < scale; f++) {
        if (v > limit / 10) return false;
        v *= 10;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* A DECIMAL(scale s) in a FIXED_LEN_BYTE_ARRAY of `width` <= 16 bytes (LogicalTypes.md:
 * the unscaled value value * 10^s as a big-endian two's complement integer of exactly that
 * many bytes): the digits accumulate into a 16-byte big-endian magnitude, which is negated
 * and then must be the sign extension of its last `width` bytes. */
static bool parse_decimal_fixed(const char *t, size_t len, int32_t scale, size_t width,
                                uint8_t *out) {
    uint8_t v[16] = {0};
    size_t i = 0;
    bool neg = len && t[0] == '-';
    if (neg) i++;
    if (i == len) return false;
    int frac = -1, digits = 0;
    for (;; i++) {
        unsigned digit;
        if (i < len) {
            if (t[i] == '.' && frac < 0 && scale > 0 && digits) {
                frac = 0;
                continue;
            }
            if (t[i] < '0' || t[i] > '9') return false;
            if (frac >= 0 && ++frac > scale) return false;
            digit = (unsigned)(t[i] - '0');
            digits++;
        } else if (frac == 0) {
            return false; /* "12." */
        } else if ((frac < 0 ? 0 : frac) < scale) {
            digit = 0; /* pad the fraction to the scale */
            frac = frac < 0 ? 1 : frac + 1;
        } else {
            break;
        }
        for (int b = 15; b >= 0; b--) { /* v = 10 v + digit */
            unsigned x = v[b] * 10u + digit;
            v[b] = (uint8_t)x;
            digit = x >> 8;
        }
        if (digit) return false; /* past 2^128 */
    }
    if (v[0] & 0x80 && !neg) return false; /* 2^127 or more */
    if (neg) { /* two's complement: invert, add 1 */
        unsigned carry = 1;
        bool zero = true;
        for (int b = 15; b >= 0; b--) {
            unsigned x = (uint8_t)~v[b] + carry;
            v[b] = (uint8_t)x;
            carry = x >> 8;
            zero = zero && !v[b];
        }
        if (!zero && !(v[0] & 0x80)) return false; /* magnitude above 2^127 */
    }
    uint8_t fill = v[16 - width] & 0x80 ? 0xff : 0x00;
    for (size_t b = 0; b < 16 - width; b++)
        if (v[b] != fill) return false; /* does not fit in width bytes */
    memcpy(out, v + 16 - width, width);
    return true;
}

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool parse_date(const char *t, size_t len, int64_t *out) {
    int64_t y, m, d;
    if (len != 10 || t[4] != '-' || t[7] != '-') return false;
    if (!parse_scaled(t, 4, 0, 0, 9999, &y) || !parse_scaled(t + 5, 2, 0, 1, 12, &m) ||
        !parse_scaled(t + 8, 2, 0, 1, 31, &d))
        return false;
    static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] || (m == 2 && d == 29 && !leap)) return false;
    *out = days_from_civil(y, (unsigned)m, (unsigned)d);
    return true;
}

static bb_status integer(const pq_column *c, const char *t, size_t len, size_t width,
                         uint8_t *buf) {
    int64_t lo = width == 4 ? INT32_MIN : INT64_MIN, hi = width == 4 ? INT32_MAX : INT64_MAX, v;
    bool ok = strcmp(c->logical, "DATE") == 0 && parse_date(t, len, &v);
    if (!ok) ok = parse_scaled(t, len, strcmp(c->logical, "DECIMAL") ? 0 : c->scale, lo, hi, &v);
    if (!ok)
        return pq_fail(BB_E_INVAL, "'%.*s' is not a value of column '%s' (%s%s%s)",
                       (int)(len > 64 ? 64 : len), t, c->name, bb_pq_type_name(c->type),
                       *c->logical ? " " : "", c->logical);
    put_le(buf, (uint64_t)v, width);
    return BB_OK;
}

static bb_status floating(const pq_column *c, const char *t, size_t len, uint8_t *buf) {
    char tmp[128];
    bool ok = len > 0 && len < sizeof tmp && !strchr(" \t\n\r\f\v", t[0]);
    double d = 0;
    if (ok) {
        memcpy(tmp, t, len);
        tmp[len] = '\0';
        char *end;
        errno = 0;
        d = strtod(tmp, &end);
        ok = *end == '\0' && !(errno == ERANGE && isinf(d));
    }
    if (!ok)
        return pq_fail(BB_E_INVAL, "'%.*s' is not a number (column '%s', %s)",
                       (int)(len > 64 ? 64 : len), t, c->name, bb_pq_type_name(c->type));
    uint64_t bits;
    if (c->type == BB_PQ_FLOAT) {
        float f = (float)d;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
    } else {
        memcpy(&bits, &d, 8);
    }
    put_le(buf, bits, c->type == BB_PQ_FLOAT ? 4 : 8);
    return BB_OK;
}

/* A UUID's canonical text (8-4-4-4-12 hex digits) as its 16 bytes, big-endian as Parquet's
 * UUID logical type stores it. */
static bool parse_uuid(const char *t, size_t len, uint8_t *out) {
    if (len != 36) return false;
    size_t o = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (t[i++] != '-') return false;
            continue;
        }
        int v = 0;
        for (int k = 0; k < 2; k++, i++) {
            char c = t[i];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) return false;
            v = v * 16 + d;
        }
        out[o++] = (uint8_t)v;
    }
    return true;
}

/* The largest unscaled DECIMAL a physical type holds has this many decimal digits
 * (LogicalTypes.md: INT32 9, INT64 18, FIXED_LEN_BYTE_ARRAY(n) floor(log10(2^(8n-1) - 1))). */
static int32_t decimal_digits(bb_pq_type t, int32_t len) {
    if (t == BB_PQ_INT32) return 9;
    if (t == BB_PQ_INT64) return 18;
    if ((t != BB_PQ_FIXED_LEN_BYTE_ARRAY && t != BB_PQ_BYTE_ARRAY) || len <= 0) return 0;
    if (t == BB_PQ_BYTE_ARRAY || len > 128) return INT32_MAX; /* unbounded / very wide */
    return (int32_t)((8.0 * len - 1) * 0.30102999566398120); /* log10(2) */
}

/* A DECIMAL's scale and precision against its type (LogicalTypes.md: 0 <= scale <=
 * precision, precision >= 1 and within what the type holds). A scale of 2^31 - 1 would
 * otherwise have value parsing pad the fraction 2^31 digits long. */
static bb_status check_decimal(const pq_column *c) {
    if (strcmp(c->logical, "DECIMAL") != 0) return BB_OK;
    int32_t most = decimal_digits(c->type, c->type_length);
    if (most == 0)
        return pq_fail(BB_E_INCONSISTENT, "column '%s' is a DECIMAL of type %s",
                       c->name, bb_pq_type_name(c->type));
    /* A footer without the (required) precision is read as the widest the type holds. */
    int32_t precision = c->precision == -1 ? most : c->precision;
    if (precision < 1 || precision > most || c->scale < 0 || c->scale > precision)
        return pq_fail(BB_E_INCONSISTENT,
                       "column '%s' is DECIMAL(%d, %d), which %s%s cannot hold "
                       "(precision 1 .. %d, scale 0 .. precision)", c->name, precision,
                       c->scale, bb_pq_type_name(c->type),
                       c->type == BB_PQ_FIXED_LEN_BYTE_ARRAY ? " of that length" : "", most);
    return BB_OK;
}

bb_status bb_pq_encode_value(const bb_pq_file *pf, size_t col, const char *text, size_t len,
                             uint8_t buf[16], const void **value, size_t *value_len) {
    bb_error_clear();
    if (!pf || col >= pf->n_cols || (!text && len) || !buf || !value || !value_len)
        return pq_fail(BB_E_INVAL, "invalid argument");
    const pq_column *c = &pf->cols[col];
    *value = buf;
    bb_status s = check_decimal(c);
    if (s != BB_OK) return s;
    switch (c->type) {
    case BB_PQ_INT32:
    case BB_PQ_INT64:
        *value_len = c->type == BB_PQ_INT32 ? 4 : 8;
        return integer(c, text, len, *value_len, buf);
    case BB_PQ_FLOAT:
    case BB_PQ_DOUBLE:
        *value_len = c->type == BB_PQ_FLOAT ? 4 : 8;
        return floating(c, text, len, buf);
    case BB_PQ_FIXED_LEN_BYTE_ARRAY:
        if (strcmp(c->logical, "UUID") == 0 && c->type_length == 16 && len != 16) {
            if (!parse_uuid(text, len, buf))
                return pq_fail(BB_E_INVAL, "'%.*s' is not a UUID (column '%s')",
                               (int)(len > 64 ? 64 : len), text, c->name);
            *value_len = 16;
            return BB_OK;
        }
        if (strcmp(c->logical, "DECIMAL") == 0 && c->type_length > 0 && c->type_length <= 16) {
            if (!parse_decimal_fixed(text, len, c->scale, (size_t)c->type_length, buf))
                return pq_fail(BB_E_INVAL,
                               "'%.*s' is not a value of column '%s' (DECIMAL in %d bytes)",
                               (int)(len > 64 ? 64 : len), text, c->name, c->type_length);
            *value_len = (size_t)c->type_length;
            return BB_OK;
        }
        if (len != (size_t)c->type_length)
            return pq_fail(BB_E_INVAL, "value of %zu bytes for column '%s' of fixed length %d",
                           len, c->name, c->type_length);
        /* fall through */
    case BB_PQ_BYTE_ARRAY:
        *value = text;
        *value_len = len;
        return BB_OK;
    default:
        return pq_fail(BB_E_UNSUPPORTED, "column '%s' has physical type %s (not supported)",
                       c->name, bb_pq_type_name(c->type));
    }
}
