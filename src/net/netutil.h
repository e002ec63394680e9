/* SPDX-License-Identifier: MIT */
/*
 * netutil.h - what the network-key files of src/net/ share, nothing exported: the ASCII
 * form of a domain name (domain.c), the public suffix of one (psl.c), and the grouped batch
 * that tests "any of a few keys per input" with the batch kernels (anybatch.c). Built on the
 * public API only (bb_hash, bb_contains_hashes): this floor sits above the filter's.
 */
#ifndef BB_NETUTIL_H
#define BB_NETUTIL_H

#include "blockbloom.h"

/** d[0 .. len) as a normalised ASCII name into out[0 .. BB_DOMAIN_MAX_LEN] (see
 *  bb_domain_normalize for the rules). BB_OK, BB_E_MALFORMED, BB_E_UNSUPPORTED. */
bb_status bb_net_domain_ascii(const char *d, size_t len, char out[BB_DOMAIN_MAX_LEN + 1],
                              size_t *out_len);

/** Offset in d of the public suffix of the normalised name d[0 .. len) (psl.c). */
size_t bb_net_public_suffix(const bb_psl *p, const char *d, size_t len);

/** The hashes of input i's keys into hashes[0 .. *n) (*n <= the batch's max_keys), or
 *  BB_E_MALFORMED when input i has none because it is malformed. */
typedef bb_status (*bb_net_keys_fn)(void *ctx, size_t i, uint64_t *hashes, size_t *n);

/** out[i] = 1 if any key of input i is possibly in f, 0 if none, BB_NET_MALFORMED if fn said
 *  so; keys of 64 inputs at a time go to one bb_contains_hashes call. *n_present (may be
 *  NULL) counts the 1s. BB_OK or BB_E_NOMEM (one work area per call). */
bb_status bb_net_any_batch(const bb_filter *f, size_t n, size_t max_keys, bb_net_keys_fn fn,
                           void *ctx, uint8_t *out, size_t *n_present);

#endif
