/* SPDX-License-Identifier: MIT */
/*
 * test_abi.c - the size member of caller-allocated structs (blockbloom.h, beside
 * BB_CONFIG_INIT): a caller compiled against the 0.1.0 fields of bb_info (declared here, the
 * size member first, then canary bytes) gets exactly those fields and keeps its canary; a
 * size of 0 or one short of the 0.1.0 fields is refused and nothing is written; a caller
 * from a later release (a larger size) gets every field this library knows and keeps the
 * bytes past them; a bb_config holding only the 0.1.0 fields makes the filter today's
 * defaults make; bb_slice_info follows the same rules.
 */
#include "testutil.h"

#include <stddef.h>

/* bb_info as 0.1.0 laid it out (up to format_version), after the size member. */
typedef struct info_v1 {
    size_t size;
    bb_kind kind;
    uint64_t bits, bytes;
    unsigned k;
    uint64_t blocks, capacity;
    double fpr_target;
    uint64_t seed, keys_added, bits_set;
    double fill_ratio, fpr_estimate, cardinality_estimate, bits_per_key;
    bool read_only;
    uint32_t format_version;
} info_v1;

/* bb_config as 0.1.0 laid it out (up to seed): no growth, tightening or flags. */
typedef struct config_v1 {
    size_t size;
    bb_kind kind;
    uint64_t capacity;
    double fpr, bits_per_key;
    uint64_t bits;
    unsigned k;
    uint64_t seed;
} config_v1;

#define CANARY 0xA5
#define CANARY_BYTES 64

/* The old struct, then canary bytes where a newer library could write past it. */
typedef struct old_caller {
    info_v1 info;
    unsigned char canary[CANARY_BYTES];
} old_caller;

/* A caller from a later release: today's bb_info and room for fields not known here. */
typedef struct new_caller {
    bb_info info;
    unsigned char future[CANARY_BYTES];
} new_caller;

static void check_canary(const unsigned char *b, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(b[i], CANARY, "%s: byte %zu past the struct was written (0x%02x)", what, i,
                     b[i]);
}

static bb_filter *filled(bb_kind kind) {
    bb_filter *f = NULL;
    bb_config c = BB_CONFIG_INIT;
    c.kind = kind;
    c.capacity = 2000;
    c.fpr = 0.01;
    c.seed = 77;
    cr_assert_eq(bb_create(&f, &c), BB_OK, "%s", bb_kind_name(kind));
    uint8_t *keys = tu_keys(3, 3000);
    cr_assert_eq(bb_add_fixed(f, keys, TU_KEY_BYTES, TU_KEY_BYTES, 3000), BB_OK);
    free(keys);
    return f;
}

/* The 0.1.0 fields of `got` equal those of the full `want`, one by one. */
static void check_v1_fields(const info_v1 *got, const bb_info *want) {
    cr_assert_eq(got->kind, want->kind);
    cr_assert_eq(got->bits, want->bits);
    cr_assert_eq(got->bytes, want->bytes);
    cr_assert_eq(got->k, want->k);
    cr_assert_eq(got->blocks, want->blocks);
    cr_assert_eq(got->capacity, want->capacity);
    cr_assert_eq(got->fpr_target, want->fpr_target);
    cr_assert_eq(got->seed, want->seed);
    cr_assert_eq(got->keys_added, want->keys_added);
    cr_assert_eq(got->bits_set, want->bits_set);
    cr_assert_eq(got->fill_ratio, want->fill_ratio);
    cr_assert_eq(got->fpr_estimate, want->fpr_estimate);
    cr_assert_eq(got->cardinality_estimate, want->cardinality_estimate);
    cr_assert_eq(got->bits_per_key, want->bits_per_key);
    cr_assert_eq(got->read_only, want->read_only);
    cr_assert_eq(got->format_version, want->format_version);
}

/* The declarations above match the header's prefix, or the test proves nothing. */
Test(abi, the_old_layout_declared_here_is_a_prefix_of_bb_info) {
    cr_assert_eq(offsetof(info_v1, format_version), offsetof(bb_info, format_version));
    cr_assert_eq(offsetof(info_v1, kind), offsetof(bb_info, kind));
    cr_assert_eq(offsetof(info_v1, bits_per_key), offsetof(bb_info, bits_per_key));
    cr_assert_lt(sizeof(info_v1), sizeof(bb_info), "bb_info grew after 0.1.0");
    cr_assert_eq(offsetof(config_v1, seed), offsetof(bb_config, seed));
    cr_assert_lt(sizeof(config_v1), sizeof(bb_config));
}

Test(abi, an_old_caller_gets_the_old_fields_and_keeps_its_canary) {
    const bb_kind kinds[] = {BB_BLOCKED,  BB_CLASSIC, BB_COUNTING,
                             BB_SCALABLE, BB_SPLIT,   BB_SECTORIZED};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        bb_filter *f = filled(kinds[i]);
        bb_info full = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(f, &full), BB_OK);
        old_caller old;
        memset(&old, CANARY, sizeof old);
        old.info.size = sizeof old.info;
        cr_assert_eq(bb_get_info(f, (bb_info *)&old.info), BB_OK, "%s", bb_kind_name(kinds[i]));
        cr_assert_eq(old.info.size, sizeof(info_v1), "the caller's size was rewritten");
        check_v1_fields(&old.info, &full);
        check_canary(old.canary, sizeof old.canary, "bb_get_info");

        bb_info sub = BB_INFO_INIT;
        cr_assert_eq(bb_subfilter_info(f, 0, &sub), BB_OK);
        memset(&old, CANARY, sizeof old);
        old.info.size = sizeof old.info;
        cr_assert_eq(bb_subfilter_info(f, 0, (bb_info *)&old.info), BB_OK);
        check_v1_fields(&old.info, &sub);
        check_canary(old.canary, sizeof old.canary, "bb_subfilter_info");
        bb_free(f);
    }
}

Test(abi, a_size_of_zero_or_short_of_the_old_fields_is_refused_and_nothing_written) {
    bb_filter *f = filled(BB_SCALABLE);
    const size_t sizes[] = {0, 1, sizeof(size_t), offsetof(bb_info, format_version),
                            offsetof(bb_info, format_version) + 3};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        new_caller c;
        memset(&c, CANARY, sizeof c);
        c.info.size = sizes[i];
        cr_assert_eq(bb_get_info(f, &c.info), BB_E_INVAL, "size %zu", sizes[i]);
        cr_assert(strstr(bb_last_error(), "bb_info.size") &&
                      strstr(bb_last_error(), "BB_INFO_INIT"),
                  "detail: %s", bb_last_error());
        cr_assert_eq(c.info.size, sizes[i]);
        check_canary((const unsigned char *)&c + sizeof(size_t), sizeof c - sizeof(size_t),
                     "refused bb_get_info");
        c.info.size = sizes[i];
        cr_assert_eq(bb_subfilter_info(f, 0, &c.info), BB_E_INVAL, "size %zu", sizes[i]);
        check_canary((const unsigned char *)&c + sizeof(size_t), sizeof c - sizeof(size_t),
                     "refused bb_subfilter_info");
    }
    bb_free(f);
}

/* Bytes past what this library knows are the caller's: left as they were, not zeroed. */
Test(abi, a_future_callers_extra_bytes_are_left_alone) {
    bb_filter *f = filled(BB_COUNTING);
    bb_info full = BB_INFO_INIT;
    cr_assert_eq(bb_get_info(f, &full), BB_OK);
    new_caller c;
    memset(&c, CANARY, sizeof c);
    c.info.size = sizeof c;
    cr_assert_eq(bb_get_info(f, &c.info), BB_OK);
    cr_assert_eq(c.info.size, sizeof c);
    check_v1_fields((const info_v1 *)&c.info, &full);
    cr_assert_eq(c.info.saturated_counters, full.saturated_counters);
    cr_assert_eq(c.info.subfilters, 1);
    cr_assert_eq(c.info.flags, full.flags);
    check_canary(c.future, sizeof c.future, "a larger bb_info");
    bb_free(f);
}

/* What a new field looks like to an old caller: a default it never set. */
Test(abi, a_config_of_the_old_fields_makes_the_filter_todays_defaults_make) {
    const bb_kind kinds[] = {BB_BLOCKED, BB_CLASSIC, BB_SCALABLE, BB_SPLIT, BB_SECTORIZED};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        /* Garbage where growth, tightening and flags would be: they must not be read. */
        struct {
            config_v1 cfg;
            unsigned char after[CANARY_BYTES];
        } old;
        memset(&old, 0xFF, sizeof old);
        old.cfg = (config_v1){.size = sizeof old.cfg,
                              .kind = kinds[i],
                              .capacity = 5000,
                              .fpr = 0.01,
                              .seed = 0x5EED};
        bb_config now = BB_CONFIG_INIT;
        now.kind = kinds[i];
        now.capacity = 5000;
        now.fpr = 0.01;
        now.seed = 0x5EED;
        bb_filter *a = NULL, *b = NULL;
        cr_assert_eq(bb_create(&a, (const bb_config *)&old.cfg), BB_OK, "%s",
                     bb_kind_name(kinds[i]));
        cr_assert_eq(bb_create(&b, &now), BB_OK);
        uint8_t *keys = tu_keys(11, 12000);
        cr_assert_eq(bb_add_fixed(a, keys, TU_KEY_BYTES, TU_KEY_BYTES, 12000), BB_OK);
        cr_assert_eq(bb_add_fixed(b, keys, TU_KEY_BYTES, TU_KEY_BYTES, 12000), BB_OK);
        free(keys);
        uint64_t na, nb;
        cr_assert_eq(bb_serialized_size(a, &na), BB_OK);
        cr_assert_eq(bb_serialized_size(b, &nb), BB_OK);
        cr_assert_eq(na, nb, "%s", bb_kind_name(kinds[i]));
        uint8_t *ba = malloc(na), *bb = malloc(nb);
        cr_assert_eq(bb_serialize(a, ba, na, NULL), BB_OK);
        cr_assert_eq(bb_serialize(b, bb, nb, NULL), BB_OK);
        cr_assert_eq(memcmp(ba, bb, na), 0, "%s: the filters differ", bb_kind_name(kinds[i]));
        bb_info ia = BB_INFO_INIT;
        cr_assert_eq(bb_get_info(a, &ia), BB_OK);
        if (kinds[i] == BB_SCALABLE) {
            cr_assert_eq(ia.growth, BB_DEFAULT_GROWTH);
            cr_assert_eq(ia.tightening, BB_DEFAULT_TIGHTENING);
            cr_assert_gt(ia.subfilters, 1, "12000 keys into 5000 grow the filter");
        }
        cr_assert_eq(ia.flags, 0);
        free(ba);
        free(bb);
        bb_free(a);
        bb_free(b);
    }
}

Test(abi, a_config_without_its_size_is_refused_with_the_macro_named) {
    bb_filter *f = (bb_filter *)&f;
    bb_config c = {0};
    c.capacity = 100;
    c.fpr = 0.01;
    cr_assert_eq(bb_create(&f, &c), BB_E_INVAL);
    cr_assert_null(f);
    cr_assert(strstr(bb_last_error(), "bb_config.size is 0") &&
                  strstr(bb_last_error(), "BB_CONFIG_INIT"),
              "detail: %s", bb_last_error());
    c.size = offsetof(bb_config, seed); /* one field short of 0.1.0's */
    cr_assert_eq(bb_create(&f, &c), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "BB_CONFIG_INIT"), "detail: %s", bb_last_error());
    bb_slice *s = (bb_slice *)&s;
    cr_assert_eq(bb_slice_create(&s, &c, 0, 1), BB_E_INVAL);
    cr_assert_null(s);
}

Test(abi, slice_info_honours_its_size) {
    bb_config c = BB_CONFIG_INIT;
    c.capacity = 1000;
    c.fpr = 0.01;
    bb_slice *s = NULL;
    cr_assert_eq(bb_slice_create(&s, &c, 1, 2), BB_OK);
    struct {
        bb_slice_info info;
        unsigned char after[CANARY_BYTES];
    } got;
    memset(&got, CANARY, sizeof got);
    got.info.size = sizeof got;
    cr_assert_eq(bb_slice_get_info(s, &got.info), BB_OK);
    cr_assert_eq(got.info.index, 1);
    cr_assert_eq(got.info.n_slices, 2);
    cr_assert_eq(got.info.size, sizeof got);
    check_canary(got.after, sizeof got.after, "bb_slice_get_info");
    memset(&got, CANARY, sizeof got);
    got.info.size = offsetof(bb_slice_info, keys_added);
    cr_assert_eq(bb_slice_get_info(s, &got.info), BB_E_INVAL);
    cr_assert(strstr(bb_last_error(), "BB_SLICE_INFO_INIT"), "detail: %s", bb_last_error());
    check_canary((const unsigned char *)&got + sizeof(size_t), sizeof got - sizeof(size_t),
                 "refused bb_slice_get_info");
    bb_slice_free(s);
}
