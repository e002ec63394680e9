/* SPDX-License-Identifier: MIT */
/*
 * cli-reference.c - the reference for the CLI target: what `blockbloom build` and
 * `blockbloom query` on a key file cost at least, done the cheapest way the library allows.
 * It reads FILE whole with read(2), splits it at LF into an Arrow-style buffer (a CR before
 * the LF dropped, as the CLI's key rules say), then makes one bb_add_arrow64 call into a
 * blocked filter sized for the keys (p = 1%) and one bb_contains_arrow64 over the same keys.
 * It prints the process CPU time of each step and the two sums that scripts/bench-cli.sh
 * compares with the CLI's CPU time:
 *     build = read + split + add,   query = read + split + contains.
 *   cli-reference FILE
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <blockbloom.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int fail(const char *what) {
    fprintf(stderr, "cli-reference: %s\nusage: cli-reference FILE\n", what);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) return fail("wrong number of arguments");
    double t0 = cpu_ms();
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return fail("cannot open the file");
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = malloc(size + 1), *data = malloc(size + 1);
    int64_t *off = malloc((size + 2) * sizeof *off);
    if (!buf || !data || !off) return fail("out of memory");
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0) return fail("read failed");
        got += (size_t)r;
    }
    close(fd);
    double t1 = cpu_ms();
    size_t n = 0, used = 0;
    off[0] = 0;
    for (const char *p = buf, *end = buf + size; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        if (len && p[len - 1] == '\r') len--;
        memcpy(data + used, p, len);
        used += len;
        off[++n] = (int64_t)used;
        p = nl ? nl + 1 : end;
    }
    double t2 = cpu_ms();
    bb_filter *f;
    uint8_t *out = malloc(n ? n : 1);
    size_t hits = 0;
    if (!out || bb_create_for(&f, BB_BLOCKED, n ? n : 1, 0.01, 0) != BB_OK ||
        bb_add_arrow64(f, data, off, n) != BB_OK)
        return fail("bb_create_for or bb_add_arrow64 failed");
    double t3 = cpu_ms();
    if (bb_contains_arrow64(f, data, off, n, out, &hits) != BB_OK) return fail("contains failed");
    double t4 = cpu_ms();
    printf("keys %zu found %zu read_ms %.1f split_ms %.1f add_ms %.1f contains_ms %.1f "
           "build_ms %.1f query_ms %.1f\n", n, hits, t1 - t0, t2 - t1, t3 - t2, t4 - t3,
           t3 - t0, (t2 - t0) + (t4 - t3));
    bb_free(f);
    free(out);
    free(off);
    free(data);
    free(buf);
    return 0;
}
