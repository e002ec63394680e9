/* SPDX-License-Identifier: MIT */
/*
 * anybatch.c - the batch shape of every network key kind: an input (a URL, a host name, an
 * address) stands for a few keys (its expressions, its parent domains, its prefixes) and
 * matches when any of them is possibly in the filter. The keys of 64 inputs are hashed into
 * one array and tested with one bb_contains_hashes call, so the kernel's grouping and
 * prefetching run across inputs; one work area is allocated per call, never per input.
 */
#include "netutil.h"

#include <stdlib.h>

#define GROUP 64u

bb_status bb_net_any_batch(const bb_filter *f, size_t n, size_t max_keys, bb_net_keys_fn fn,
                           void *ctx, uint8_t *out, size_t *n_present) {
    size_t present = 0;
    if (n_present) *n_present = 0;
    uint64_t *hashes = malloc(GROUP * max_keys * sizeof *hashes);
    uint8_t *hit = malloc(GROUP * max_keys);
    if (!hashes || !hit) {
        free(hashes);
        free(hit);
        return BB_E_NOMEM;
    }
    size_t first[GROUP + 1];
    for (size_t b = 0; b < n; b += GROUP) {
        size_t m = n - b < GROUP ? n - b : GROUP, k = 0;
        for (size_t g = 0; g < m; g++) {
            size_t got = 0;
            first[g] = k;
            out[b + g] = fn(ctx, b + g, hashes + k, &got) == BB_OK ? 0 : BB_NET_MALFORMED;
            k += got;
        }
        first[m] = k;
        bb_contains_hashes(f, hashes, k, hit, NULL);
        for (size_t g = 0; g < m; g++) {
            if (out[b + g]) continue;
            uint8_t any = 0;
            for (size_t j = first[g]; j < first[g + 1]; j++) any |= hit[j];
            out[b + g] = any;
            present += any;
        }
    }
    free(hashes);
    free(hit);
    if (n_present) *n_present = present;
    return BB_OK;
}
