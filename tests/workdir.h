/* SPDX-License-Identifier: MIT */
/*
 * workdir.h - a fresh mkdtemp working directory per test, removed with everything in it
 * afterwards, for the tests that write files (the CLI tests through cliutil.h,
 * test_atomicfile, test_netcli): Criterion runs each test in its own process, so a test's
 * files never meet another's. Header-only (static functions).
 */
#ifndef BB_WORKDIR_H
#define BB_WORKDIR_H

#include <criterion/criterion.h>

#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char workdir[64];

static inline int workdir_remove_entry(const char *path, const struct stat *st, int type,
                                       struct FTW *ftw) {
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static inline void enter_workdir(void) {
    strcpy(workdir, "/tmp/bb_test_XXXXXX");
    cr_assert_not_null(mkdtemp(workdir), "mkdtemp failed");
    cr_assert_eq(chdir(workdir), 0);
}

static inline void leave_workdir(void) {
    if (chdir("/") == 0) nftw(workdir, workdir_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* BB_WORKDIR_H */
