/* SPDX-License-Identifier: MIT */
/*
 * view.c - bb_get_view: the read-only view of a blocked filter that the public header's
 * inline lookups (bb_view_contains_hash, bb_view_prefetch) read. The view is the payload
 * itself, so it costs nothing and sees every later add; it is refused for the other kinds,
 * whose layouts the header does not spell out.
 *
 * Why blockbloom_view.h's test is one wide load per key: beyond L2 each load holds a
 * load-queue entry until its line arrives, so in a 10M-key filter a loop of inline lookups
 * takes 6.6 ns/key with the AVX-512 test against 45.9 with k byte loads (Zen 4, EPYC family 25
 * model 17, k = 6). A dependent chain favours the byte test slightly; the figures:
 * docs/PERFORMANCE.md, "The inline view's tests".
 */
#include "internal.h"

bb_status bb_get_view(const bb_filter *f, bb_view *out) {
    if (!f || !out) return BB_E_INVAL;
    if (f->kind != BB_BLOCKED) return BB_E_UNSUPPORTED;
    *out = (bb_view){.data = f->data, .blocks = f->blocks, .k = f->k};
    return BB_OK;
}
