/* SPDX-License-Identifier: MIT */
/*
 * test_atomicfile.c - bb_write_file_atomically, the writer under bb_save, `parquet index` and
 * `build --slice`: the parts land back to back; a replaced file keeps its mode and a new one
 * gets the umask's; a symlink's target is replaced and the link kept; a dangling link, a
 * directory and a FIFO are refused with the documented errno and nothing written; a write
 * that fails half way (RLIMIT_FSIZE, so no root or mount is needed) leaves the old file byte
 * for byte and no temporary file; bad arguments are BB_E_INVAL. Each test runs in a fresh
 * mkdtemp directory; expected contents are the literal bytes written here.
 */
#include <criterion/criterion.h>

#include <blockbloom.h>

#include "workdir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>


TestSuite(atomicfile, .init = enter_workdir, .fini = leave_workdir);

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(text, f) >= 0, true);
    cr_assert_eq(fclose(f), 0);
}

/* The file's bytes must be exactly `want`. */
static void expect_content(const char *path, const char *want) {
    char buf[256] = {0};
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s missing", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    cr_expect_eq(n, strlen(want), "%s: %zu bytes, want %zu", path, n, strlen(want));
    cr_expect_str_eq(buf, want);
}

/* Entries of the working directory (no "." or ".."). */
static int entries(void) {
    DIR *d = opendir(".");
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static const bb_file_part parts[] = {{"head-", 5}, {NULL, 0}, {"body-", 5}, {"tail", 4}};
#define NPARTS (sizeof parts / sizeof *parts)

Test(atomicfile, parts_back_to_back_new_file_gets_the_umask_mode) {
    umask(022);
    cr_assert_eq(bb_write_file_atomically("out", parts, NPARTS), BB_OK);
    expect_content("out", "head-body-tail");
    struct stat st;
    cr_assert_eq(stat("out", &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0644);
    cr_expect_eq(entries(), 1, "a temporary file was left");
    cr_assert_eq(bb_write_file_atomically("empty", NULL, 0), BB_OK);
    expect_content("empty", "");
}

Test(atomicfile, replaced_file_keeps_its_mode) {
    put("out", "old contents");
    cr_assert_eq(chmod("out", 0640), 0);
    cr_assert_eq(bb_write_file_atomically("out", parts, NPARTS), BB_OK);
    expect_content("out", "head-body-tail");
    struct stat st;
    cr_assert_eq(stat("out", &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0640);
}

Test(atomicfile, symlink_target_replaced_link_kept) {
    put("target", "old");
    cr_assert_eq(symlink("target", "link"), 0);
    cr_assert_eq(bb_write_file_atomically("link", parts, NPARTS), BB_OK);
    struct stat st;
    cr_assert_eq(lstat("link", &st), 0);
    cr_expect(S_ISLNK(st.st_mode), "the link was replaced");
    expect_content("target", "head-body-tail");
    cr_expect_eq(entries(), 2);
}

Test(atomicfile, dangling_symlink_refused) {
    cr_assert_eq(symlink("no_such_dir/x", "link"), 0);
    errno = 0;
    cr_assert_eq(bb_write_file_atomically("link", parts, NPARTS), BB_E_IO);
    cr_expect_eq(errno, ENOENT);
    struct stat st;
    cr_assert_eq(lstat("link", &st), 0);
    cr_expect(S_ISLNK(st.st_mode));
    cr_expect_eq(entries(), 1, "something was written");
}

Test(atomicfile, directory_and_fifo_refused) {
    cr_assert_eq(mkdir("d", 0755), 0);
    errno = 0;
    cr_assert_eq(bb_write_file_atomically("d", parts, NPARTS), BB_E_IO);
    cr_expect_eq(errno, EISDIR);
    cr_assert_eq(mkfifo("p", 0644), 0);
    errno = 0;
    cr_assert_eq(bb_write_file_atomically("p", parts, NPARTS), BB_E_IO);
    cr_expect_eq(errno, EINVAL);
    struct stat st;
    cr_assert_eq(lstat("p", &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_expect_eq(entries(), 2);
}

/* A write that fails after the temporary file has some bytes: the old file stays whole. */
Test(atomicfile, failed_write_keeps_the_old_file_and_no_temp) {
    put("out", "the old file");
    signal(SIGXFSZ, SIG_IGN); /* write then fails with EFBIG instead of killing us */
    struct rlimit rl = {8, 8};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    errno = 0;
    cr_assert_eq(bb_write_file_atomically("out", parts, NPARTS), BB_E_IO);
    cr_expect_eq(errno, EFBIG);
    expect_content("out", "the old file");
    cr_expect_eq(entries(), 1, "a temporary file was left");
}

/* A file name of NAME_MAX bytes is valid; its temporary name must not be longer. */
Test(atomicfile, longest_file_names) {
    char name[NAME_MAX + 1], sub[NAME_MAX + 8];
    for (size_t len = NAME_MAX - 12; len <= NAME_MAX; len++) {
        memset(name, 'n', len);
        name[len] = '\0';
        cr_assert_eq(bb_write_file_atomically(name, parts, NPARTS), BB_OK, "a %zu-byte name", len);
        expect_content(name, "head-body-tail");
        cr_assert_eq(bb_write_file_atomically(name, parts, 1), BB_OK, "replacing it");
        expect_content(name, "head-");
        cr_assert_eq(unlink(name), 0);
    }
    cr_assert_eq(mkdir("d", 0755), 0);
    snprintf(sub, sizeof sub, "d/%s", name);
    cr_assert_eq(bb_write_file_atomically(sub, parts, NPARTS), BB_OK);
    expect_content(sub, "head-body-tail");
    cr_expect_eq(entries(), 1, "a temporary file was left");
    cr_assert_eq(chdir("d"), 0);
    cr_expect_eq(entries(), 1, "a temporary file was left in d");
}

Test(atomicfile, parent_missing_and_bad_arguments) {
    errno = 0;
    cr_expect_eq(bb_write_file_atomically("no_such_dir/out", parts, NPARTS), BB_E_IO);
    cr_expect_eq(errno, ENOENT);
    cr_expect_eq(bb_write_file_atomically(NULL, parts, NPARTS), BB_E_INVAL);
    cr_expect_eq(bb_write_file_atomically("out", NULL, 1), BB_E_INVAL);
    const bb_file_part bad = {NULL, 3};
    cr_expect_eq(bb_write_file_atomically("out", &bad, 1), BB_E_INVAL);
    cr_expect_eq(entries(), 0);
}
