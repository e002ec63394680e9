/* SPDX-License-Identifier: MIT */
/*
 * view.c - bb_get_view: the read-only view of a blocked filter that the public header's
 * inline lookups (bb_view_contains_hash, bb_view_prefetch) read. The view is the payload
 * itself, so it costs nothing and sees every later add; it is refused for the other kinds,
 * whose layouts the header does not spell out.
 *
 * Why blockbloom_view.h's tests look as they do (Zen 4, EPYC family 25 model 17, k = 6, one
 * process, thread CPU time):
 *  - One wide load per key beats k byte loads in loops over filters beyond L2, because each
 *    load holds a load-queue entry until its line arrives: a loop of inline lookups in a
 *    10M-key filter took 45.9 ns/key with the byte test, 6.6 with the AVX-512 one, and 21.8
 *    through bb_contains_hash (whose call costs more instructions per key).
 *  - A dependent chain (each answer decides the next key) is the other way round: the byte
 *    test answers sooner, 12.4 ns/step against 13.2 for the AVX-512 test at 10^5 keys and
 *    18.1-19.1 against 20.5-21.4 at 10^6 (the benchmark's 10^7 chain: 36.4 against 48-53).
 *  - The AVX-512 test's one permute over the whole block makes the benchmark's loop
 *    (bench/view-loops.h, GCC 12 -O2) 15 instructions per key, against 23 for the earlier
 *    test on two 256-bit halves; loop time this / halves was 0.58-0.82 from 10^4 to 10^8
 *    keys (medians of 15-21 alternating runs), although Zen 4 splits 512-bit operations.
 */
#include "internal.h"

bb_status bb_get_view(const bb_filter *f, bb_view *out) {
    if (!f || !out) return BB_E_INVAL;
    if (f->kind != BB_BLOCKED) return BB_E_UNSUPPORTED;
    *out = (bb_view){.data = f->data, .blocks = f->blocks, .k = f->k};
    return BB_OK;
}
