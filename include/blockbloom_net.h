/* SPDX-License-Identifier: MIT */
/*
 * blockbloom_net.h - network keys (part of libblockbloom; included by blockbloom.h): Safe
 * Browsing URL expressions, domain names above their public suffix, IP addresses and CIDR
 * ranges, 5-tuples, and the key scheme a filter records so that a reader knows which of these
 * its keys are. Implemented in src/net/ and src/keyscheme.c.
 */
#ifndef BLOCKBLOOM_NET_H
#define BLOCKBLOOM_NET_H

#include "blockbloom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Network keys: URL expressions, domains, IP/CIDR ranges (src/net/). These helpers turn the
 * inputs of URL and packet filters into keys of an ordinary filter, with the canonical rules,
 * and test many inputs with the batch kernels. They never allocate per input: the per-URL
 * and per-domain calls write into caller buffers; a batch call allocates one work area.
 * All are thread-safe on distinct buffers (read-only on the filter, like bb_contains).
 * ========================================================================================== */

/** A piece of a caller's buffer: bytes buf[off .. off + len). */
typedef struct bb_span {
    size_t off, len;
} bb_span;

/** Bytes a buffer needs for the canonical form of a URL of len bytes: every byte may come
 *  back escaped (x3), plus "http://", the root "/" and a dotted-quad host grown from "1". */
#define BB_URL_CANON_BOUND(len) (3 * (size_t)(len) + 24)
/** At most 5 host suffixes x 6 path prefixes (Safe Browsing v4, "Suffix/Prefix Expressions"). */
#define BB_URL_MAX_EXPRESSIONS 30
/** A network batch's out[i] for an input that cannot be read (a malformed URL, name or
 *  address); 1 means possibly present, 0 definitely absent. */
#define BB_NET_MALFORMED 2

/**
 * Canonicalise a URL as Safe Browsing v4 "URLs and Hashing" specifies: tab, CR and LF
 * removed, surrounding spaces trimmed, the fragment dropped, percent-unescaped until no
 * escape is left; host: user info and port dropped, leading and trailing dots removed, runs
 * of dots collapsed, lowercased, an IPv4 address in decimal, octal, hex or with fewer than 4
 * parts (inet_aton's forms) written as 4 decimals; path: "/./" and "/../" resolved, runs of
 * slashes collapsed ("/" when empty); query kept; bytes <= 0x20, >= 0x7f, '#' and '%'
 * re-escaped as %XX. A URL without "scheme://" gets "http://"; the scheme is lowercased.
 * An internationalised host name becomes its ASCII (Punycode) form through libidn2, as
 * bb_domain_normalize does (the document asks for it; libidn2 allocates inside that one call);
 * a host libidn2 cannot map, or any host in a build without libidn2, keeps its bytes >= 0x80,
 * escaped.
 *
 * Thread-safety: any thread, any time.
 *
 * @param url      len bytes, not NUL-terminated (NULL allowed when len is 0).
 * @param len      bytes of url.
 * @param out      cap bytes of working space and result, not NUL-terminated. Not NULL.
 * @param cap      bytes of out, >= BB_URL_CANON_BOUND(len).
 * @param out_len  receives the canonical length (0 on error). Not NULL.
 * @return BB_OK; BB_E_MALFORMED (empty URL or host, unclosed "[", non-digit port);
 *         BB_E_INVAL (url NULL with len > 0, out or out_len NULL, or cap too small).
 */
BB_API bb_status bb_url_canonicalize(const char *url, size_t len, char *out, size_t cap,
                                     size_t *out_len);

/**
 * Canonicalise url into buf (as bb_url_canonicalize) and list its host-suffix x path-prefix
 * expressions as spans of buf, Safe Browsing's order: for each host (the exact host, then up
 * to 4 made from its last 5 labels by removing leading labels while 2 remain; an IP address
 * only as itself), each path (the exact path with its query, without it, then "/" and up to 3
 * leading directories each with its trailing "/"; duplicates dropped). An expression has no
 * scheme: "a.b.c/1/2.html?param=1", "b.c/1/". exprs[0] is the whole URL's expression (the
 * key a blocklist entry adds, see bb_url_add).
 * Thread-safety: any thread, any time.
 *
 * @param url      the URL, as bb_url_canonicalize.
 * @param len      bytes of url.
 * @param buf      as bb_url_canonicalize's out; holds the expressions afterwards.
 * @param cap      bytes of buf, >= BB_URL_CANON_BOUND(len).
 * @param exprs    receives the expressions, spans of buf. Not NULL.
 * @param n_exprs  receives their number (1 .. 30; 0 on error). Not NULL.
 * @return as bb_url_canonicalize, and BB_E_INVAL when exprs or n_exprs is NULL.
 */
BB_API bb_status bb_url_expressions(const char *url, size_t len, char *buf, size_t cap,
                                    bb_span exprs[BB_URL_MAX_EXPRESSIONS], size_t *n_exprs);

/**
 * Add a blocklist entry: the exact expression (exprs[0] of bb_url_expressions) of url.
 * Thread-safety: changes f.
 *
 * @param f    the filter. Not NULL.
 * @param url  the URL, as bb_url_canonicalize.
 * @param len  bytes of url.
 * @param buf  working space, as bb_url_expressions.
 * @param cap  bytes of buf, >= BB_URL_CANON_BOUND(len).
 * @return BB_OK; bb_url_canonicalize's errors (nothing is added then); bb_add's errors.
 */
BB_API bb_status bb_url_add(bb_filter *f, const char *url, size_t len, char *buf, size_t cap);

/**
 * Whether any expression of url (bb_url_expressions) is possibly in f.
 * Thread-safety: reads f.
 *
 * @param f      the filter. Not NULL.
 * @param url    the URL, as bb_url_canonicalize.
 * @param len    bytes of url.
 * @param buf    working space, as bb_url_expressions.
 * @param cap    bytes of buf, >= BB_URL_CANON_BOUND(len).
 * @param match  receives the first expression found, a span of buf; untouched when none is.
 *               May be NULL.
 * @param found  receives whether one is possibly in f (false on error). Not NULL.
 * @return BB_OK; BB_E_INVAL (f or found NULL); bb_url_canonicalize's errors.
 */
BB_API bb_status bb_url_match(const bb_filter *f, const char *url, size_t len, char *buf,
                              size_t cap, bb_span *match, bool *found);

/**
 * Test every expression of urls[i] (lens[i] bytes) for i < n: out[i] = 1 if one is possibly
 * in f, 0 if none is, BB_NET_MALFORMED if the URL cannot be canonicalised. The hashes of 64
 * URLs' expressions go to one bb_contains_hashes call (grouped and prefetched). Allocates one
 * work area (3 x the longest URL + 32 KiB) per call.
 * Thread-safety: reads f.
 *
 * @param f          the filter. Not NULL.
 * @param urls       urls[n]; urls[i] may be NULL when lens[i] is 0. NULL allowed when n is 0.
 * @param lens       lens[n], bytes of each URL. NULL allowed when n is 0.
 * @param n          number of URLs.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s in out (0 on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (f NULL, an array NULL with n > 0, urls[i] NULL with
 *         lens[i] > 0, a URL too long for BB_URL_CANON_BOUND); BB_E_NOMEM.
 */
BB_API bb_status bb_url_contains_batch(const bb_filter *f, const char *const *urls,
                                       const size_t *lens, size_t n, uint8_t *out,
                                       size_t *n_present);

/* ---- Domains ------------------------------------------------------------------------------
 * A query host matches when it or a parent domain is in the set, down to (never including)
 * its public suffix: a.b.example.com tries a.b.example.com, b.example.com, example.com. The
 * public suffix list (publicsuffix.org) is read at run time, by default from Debian's
 * publicsuffix package. Internationalised names are mapped to their ASCII (Punycode) form
 * with libidn2 (UTS #46 non-transitional processing, NFC input) when the library is built
 * with it (CMake option BB_WITH_IDN2, on by default; without it they give
 * BB_E_UNSUPPORTED). libidn2 allocates inside that one call, for non-ASCII names only. */

/** Longest domain name in its ASCII form, in bytes (RFC 1035, without the final dot). */
#define BB_DOMAIN_MAX_LEN 253
/** Most parents a name can have (a 253-byte name has at most 127 labels). */
#define BB_DOMAIN_MAX_CANDIDATES 127
/** Where Debian's publicsuffix package installs the list (its README.Debian). */
#define BB_PSL_DEFAULT_PATH "/usr/share/publicsuffix/public_suffix_list.dat"

typedef struct bb_psl bb_psl;

/**
 * Read a public suffix list file into a new list, for bb_psl_free. Lines with a rule that is
 * not a valid name (or needs libidn2 that is missing) are skipped.
 * Thread-safety: any thread, any time. The list is read-only afterwards: any number of
 * threads may use it at once.
 *
 * @param out   receives the list (NULL on error). Not NULL.
 * @param path  the file; NULL reads BB_PSL_DEFAULT_PATH.
 * @return BB_OK; BB_E_INVAL (out NULL); BB_E_IO (cannot open or read; errno kept);
 *         BB_E_MALFORMED (no rule in it); BB_E_NOMEM.
 */
BB_API bb_status bb_psl_load(bb_psl **out, const char *path);
/**
 * Free a list from bb_psl_load.
 * Thread-safety: changes psl (no call may still be using it).
 *
 * @param psl  the list; NULL does nothing.
 */
BB_API void bb_psl_free(bb_psl *psl);
/**
 * Number of distinct rules read.
 * Thread-safety: reads psl.
 *
 * @param psl  the list; NULL allowed.
 * @return the number of rules; 0 for NULL.
 */
BB_API size_t bb_psl_rules(const bb_psl *psl);

/**
 * Normalise a host name: surrounding spaces and one final dot removed, ASCII lowercased,
 * non-ASCII names mapped to Punycode (libidn2). The result must be labels of 1 to 63 bytes of
 * [a-z0-9_-] (underscores occur in real blocklists), at most BB_DOMAIN_MAX_LEN bytes, with a
 * last label that is not all digits (that is an address, not a name).
 * Thread-safety: any thread, any time.
 *
 * @param name     len bytes, not NUL-terminated (NULL allowed when len is 0).
 * @param len      bytes of name.
 * @param out      cap bytes; receives the name, not NUL-terminated. Not NULL.
 * @param cap      bytes of out, >= BB_DOMAIN_MAX_LEN + 1.
 * @param out_len  receives the normalised length (0 on error). Not NULL.
 * @return BB_OK; BB_E_MALFORMED (not a name by the rules above, empty, or refused by
 *         libidn2); BB_E_UNSUPPORTED (non-ASCII name, library built without libidn2);
 *         BB_E_INVAL (name NULL with len > 0, out or out_len NULL, cap too small).
 */
BB_API bb_status bb_domain_normalize(const char *name, size_t len, char *out, size_t cap,
                                     size_t *out_len);

/**
 * The public suffix of a normalised name, as a span of it ("co.uk" of "a.b.co.uk"; the
 * whole name when it is a suffix itself; its last label when no rule matches).
 * Thread-safety: reads psl.
 *
 * @param psl     the list. Not NULL.
 * @param name    len bytes, normalised (bb_domain_normalize); not checked. Not NULL.
 * @param len     bytes of name, >= 1.
 * @param suffix  receives the span of name. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument or len 0).
 */
BB_API bb_status bb_domain_public_suffix(const bb_psl *psl, const char *name, size_t len,
                                         bb_span *suffix);

/**
 * Normalise name into buf (bb_domain_normalize) and list the names a query for it tries,
 * longest first, as spans of buf: the name and its parents above the public suffix. A public
 * suffix itself gives *n = 0.
 * Thread-safety: reads psl.
 *
 * @param psl    the list. Not NULL.
 * @param name   the name, as bb_domain_normalize.
 * @param len    bytes of name.
 * @param buf    as bb_domain_normalize's out.
 * @param cap    bytes of buf, >= BB_DOMAIN_MAX_LEN + 1.
 * @param cands  receives the candidates, spans of buf. Not NULL.
 * @param n      receives their number (0 on error). Not NULL.
 * @return BB_OK; BB_E_INVAL (psl, cands or n NULL); bb_domain_normalize's errors.
 */
BB_API bb_status bb_domain_candidates(const bb_psl *psl, const char *name, size_t len,
                                      char *buf, size_t cap,
                                      bb_span cands[BB_DOMAIN_MAX_CANDIDATES], size_t *n);

/**
 * For i < n: out[i] = 1 if a candidate (bb_domain_candidates) of names[i] is possibly in f,
 * 0 if none is, BB_NET_MALFORMED if the name is malformed (or needs libidn2 that is missing).
 * Hashes of 64 names' candidates go to one bb_contains_hashes call.
 * Thread-safety: reads f and psl.
 *
 * @param f          the filter. Not NULL.
 * @param psl        the list. Not NULL.
 * @param names      names[n]; names[i] may be NULL when lens[i] is 0. NULL allowed when n
 *                   is 0.
 * @param lens       lens[n], bytes of each name. NULL allowed when n is 0.
 * @param n          number of names.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s in out (0 on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (f or psl NULL, an array NULL with n > 0, names[i] NULL with
 *         lens[i] > 0); BB_E_NOMEM.
 */
BB_API bb_status bb_domain_contains_batch(const bb_filter *f, const bb_psl *psl,
                                          const char *const *names, const size_t *lens,
                                          size_t n, uint8_t *out, size_t *n_present);

/* ---- IP addresses and CIDR ranges ---------------------------------------------------------
 * Addresses are 16 bytes in network order. An IPv4 address a.b.c.d is the IPv4-mapped IPv6
 * address ::ffff:a.b.c.d (RFC 4291 2.5.5.2), and the range a.b.c.d/n is ::ffff:a.b.c.d/(96+n):
 * IPv4 and IPv4-mapped IPv6 spellings of an address are one key, and an IPv6 range covering
 * ::ffff:0:0/96 contains IPv4 addresses. No other IPv6 form (::a.b.c.d, 64:ff9b::/96) is
 * taken for IPv4. A range is stored as a key of its prefix length and masked address: an IPv4
 * range /n as 5 bytes (n, the 4 IPv4 bytes with the bits past n zero), any other range as 17
 * bytes (the length 0..128, the 16 masked bytes); a query tests an address at each prefix
 * length of its family in the set. */

/** Longest range key (IPv6); IPv4 range keys have BB_CIDR4_KEY_BYTES. */
#define BB_CIDR_KEY_BYTES 17
#define BB_CIDR4_KEY_BYTES 5
/** Which prefix lengths a set of ranges holds, IPv4 apart from IPv6 so that an address is only
 *  tested at its own family's lengths: bit n of ipv4 (n = 0..32) for ranges inside
 *  ::ffff:0:0/96 (IPv4 /n, 128-bit length 96 + n); bit l of words[l / 64] (l = 0..128) for
 *  all other ranges. A range outside the mapped space that contains all of it (::/0) is also
 *  stored as 0.0.0.0/0. */
typedef struct bb_prefix_set {
    uint64_t words[3];
    uint64_t ipv4;
} bb_prefix_set;

/**
 * out = ::ffff:v4, the IPv4-mapped form of an IPv4 address.
 * Thread-safety: any thread, any time.
 *
 * @param v4   4 bytes in network order. Not NULL.
 * @param out  receives 16 bytes. Not NULL.
 */
BB_API void bb_ipv4_mapped(const uint8_t v4[4], uint8_t out[16]);
/**
 * Whether addr is IPv4-mapped (::ffff:0:0/96), i.e. an IPv4 address.
 * Thread-safety: any thread, any time.
 *
 * @param addr  16 bytes in network order. Not NULL.
 * @return true for an IPv4-mapped address.
 */
BB_API bool bb_addr_is_ipv4(const uint8_t addr[16]);

/**
 * Parse "ADDR" or "ADDR/LEN" (IPv4 dotted quad or IPv6 text as inet_pton(3) reads them;
 * surrounding spaces ignored; ADDR alone is a single address, /32 or /128) into addr and the
 * 128-bit prefix length (96 + n for IPv4).
 * Thread-safety: any thread, any time (bb_last_error's text is per thread).
 *
 * @param text        len bytes, not NUL-terminated (NULL allowed when len is 0).
 * @param len         bytes of text.
 * @param addr        receives the 16-byte address in network order. Not NULL.
 * @param prefix_len  receives the 128-bit prefix length (0 .. 128). Not NULL.
 * @return BB_OK; BB_E_MALFORMED (bb_last_error then gives the reason: "not an IP address",
 *         "the prefix length is not a whole number", "prefix length above 32 for IPv4",
 *         "prefix length above 128 for IPv6", "host bits set beyond the prefix");
 *         BB_E_INVAL (text NULL with len > 0, addr or prefix_len NULL).
 */
BB_API bb_status bb_cidr_parse(const char *text, size_t len, uint8_t addr[16],
                               unsigned *prefix_len);

/**
 * out = addr with the bits past prefix_len cleared.
 * Thread-safety: any thread, any time.
 *
 * @param addr        16 bytes in network order. Not NULL.
 * @param prefix_len  bits to keep, <= 128.
 * @param out         receives 16 bytes; may be addr itself. Not NULL.
 */
BB_API void bb_cidr_mask(const uint8_t addr[16], unsigned prefix_len, uint8_t out[16]);

/**
 * The key of range addr/prefix_len (host bits are cleared) into key.
 * Thread-safety: any thread, any time.
 *
 * @param addr        16 bytes in network order. Not NULL.
 * @param prefix_len  the 128-bit prefix length, <= 128.
 * @param key         receives the key, BB_CIDR_KEY_BYTES bytes of room. Not NULL.
 * @return the key's length: BB_CIDR4_KEY_BYTES for a range inside ::ffff:0:0/96 with
 *         prefix_len >= 96 (IPv4), else BB_CIDR_KEY_BYTES.
 */
BB_API size_t bb_cidr_key(const uint8_t addr[16], unsigned prefix_len,
                          uint8_t key[BB_CIDR_KEY_BYTES]);

/**
 * Add range addr/prefix_len to f and its length to *set, or with set NULL to f's own key
 * scheme (which becomes BB_KEYS_CIDR). A range containing all of ::ffff:0:0/96 from outside
 * it (::/0 .. ::/80) also adds 0.0.0.0/0, so two keys.
 * Thread-safety: changes f and *set.
 *
 * @param f           the filter. Not NULL.
 * @param set         the prefix lengths to record it in; NULL records it in f's key scheme.
 * @param addr        16 bytes in network order. Not NULL.
 * @param prefix_len  the 128-bit prefix length, <= 128.
 * @return BB_OK; BB_E_MALFORMED (host bits set past the prefix); BB_E_INVAL (f or addr
 *         NULL, prefix_len > 128, set NULL on a filter of a scheme other than plain or
 *         CIDR); bb_add's errors; BB_E_READONLY (set NULL on a mapped filter).
 */
BB_API bb_status bb_cidr_add(bb_filter *f, bb_prefix_set *set, const uint8_t addr[16],
                             unsigned prefix_len);

/**
 * The keys of range addr/prefix_len (1 key, or 2 for a range that contains all of
 * ::ffff:0:0/96 from outside it) with its length recorded in *set: what bb_cidr_add adds,
 * for callers that add keys in batches.
 * Thread-safety: changes *set.
 *
 * @param addr        16 bytes in network order. Not NULL.
 * @param prefix_len  the 128-bit prefix length, <= 128.
 * @param set         the prefix lengths to record it in. Not NULL.
 * @param keys        receives keys[0 .. *n_keys). Not NULL.
 * @param key_lens    receives their lengths in bytes. Not NULL.
 * @param n_keys      receives the number of keys, 1 or 2 (0 on error). Not NULL.
 * @return BB_OK; BB_E_MALFORMED (host bits set past the prefix); BB_E_INVAL (a NULL
 *         argument, prefix_len > 128).
 */
BB_API bb_status bb_cidr_range_keys(const uint8_t addr[16], unsigned prefix_len,
                                    bb_prefix_set *set, uint8_t keys[2][BB_CIDR_KEY_BYTES],
                                    size_t key_lens[2], size_t *n_keys);

/**
 * For i < n: out[i] = 1 if address i is possibly in a range of f, tested at each prefix
 * length of its family in *set, else 0.
 * Thread-safety: reads f and *set.
 *
 * @param f          the filter. Not NULL.
 * @param set        the prefix lengths to test; NULL takes those of f's key scheme.
 * @param addrs      n addresses, 16 bytes each at addrs + i * stride. NULL allowed when n
 *                   is 0.
 * @param stride     bytes from one address to the next: 0 (meaning 16) or >= 16.
 * @param n          number of addresses.
 * @param out        out[n] answers. NULL allowed when n is 0.
 * @param n_present  receives the number of 1s in out (0 on error). May be NULL.
 * @return BB_OK; BB_E_INVAL (f NULL, addrs or out NULL with n > 0, 0 < stride < 16);
 *         BB_E_NOMEM.
 */
BB_API bb_status bb_cidr_contains_batch(const bb_filter *f, const bb_prefix_set *set,
                                        const uint8_t *addrs, size_t stride, size_t n,
                                        uint8_t *out, size_t *n_present);

/* ---- 5-tuples: fixed-width keys for bb_add_fixed / bb_contains_fixed ----------------------- */
#define BB_5TUPLE_KEY_BYTES 37
typedef struct bb_5tuple {
    uint8_t proto;              /**< IP protocol number: 6 TCP, 17 UDP */
    uint8_t src[16], dst[16];   /**< addresses as above (IPv4 mapped) */
    uint16_t src_port, dst_port;
} bb_5tuple;

/**
 * The key of a 5-tuple: proto, src, dst, src_port and dst_port big-endian, 37 bytes, the same
 * on every machine.
 * Thread-safety: any thread, any time.
 *
 * @param t    the 5-tuple. Not NULL.
 * @param key  receives BB_5TUPLE_KEY_BYTES bytes. Not NULL.
 */
BB_API void bb_5tuple_key(const bb_5tuple *t, uint8_t key[BB_5TUPLE_KEY_BYTES]);

/* ---- Key schemes: what a filter's keys are, stored with it --------------------------------
 * A filter built from network keys records their kind, and a CIDR filter the prefix lengths
 * that occur, so that a reader tests an address only at those lengths. The scheme is saved in
 * a versioned record after the payload (docs/FORMAT.md, "Version 2"); a filter without one
 * (BB_KEYS_PLAIN, the default) is saved exactly as before, as format version 1. */
typedef enum bb_keys {
    BB_KEYS_PLAIN = 0,  /**< keys are whatever the caller added */
    BB_KEYS_URL = 1,    /**< Safe Browsing expressions (bb_url_add) */
    BB_KEYS_DOMAIN = 2, /**< normalised domain names (bb_domain_normalize) */
    BB_KEYS_CIDR = 3,   /**< CIDR range keys (bb_cidr_add); prefixes says which lengths */
    BB_KEYS_5TUPLE = 4  /**< 5-tuple keys (bb_5tuple_key) */
} bb_keys;

typedef struct bb_key_scheme {
    bb_keys keys;
    bb_prefix_set prefixes; /**< BB_KEYS_CIDR: lengths present; all zero for other schemes */
} bb_key_scheme;

/**
 * Set f's key scheme (copied; bb_clone copies it, bb_clear keeps it, bb_union ORs the prefix
 * sets of two filters of one scheme).
 * Thread-safety: changes f.
 *
 * @param f   the filter. Not NULL.
 * @param ks  the scheme. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument, unknown keys, prefix bits above 128 or above
 *         32 for IPv4, or prefixes for a scheme other than BB_KEYS_CIDR); BB_E_READONLY
 *         (a mapped filter).
 */
BB_API bb_status bb_set_key_scheme(bb_filter *f, const bb_key_scheme *ks);
/**
 * f's key scheme: BB_KEYS_PLAIN with no prefixes unless set or loaded.
 * Thread-safety: reads f.
 *
 * @param f    the filter. Not NULL.
 * @param out  receives the scheme. Not NULL.
 * @return BB_OK; BB_E_INVAL (a NULL argument).
 */
BB_API bb_status bb_get_key_scheme(const bb_filter *f, bb_key_scheme *out);
/**
 * The name of a key scheme, as the CLI spells it.
 * Thread-safety: any thread, any time.
 *
 * @param keys  a bb_keys value; any value is allowed.
 * @return "plain", "url", "domain", "cidr", "5tuple"; "unknown" otherwise. Never NULL; a
 *         static string.
 */
BB_API const char *bb_keys_name(bb_keys keys);

#ifdef __cplusplus
}
#endif
#endif /* BLOCKBLOOM_NET_H */
