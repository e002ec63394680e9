/* SPDX-License-Identifier: MIT */
/*
 * bench.c - `blockbloom bench [OPTION]...`: runs the benchmark program, which is a separate
 * executable (bench/, built with -DBB_BUILD_BENCH=ON, the default for a top-level build)
 * because it links libbloom as its peer and the CLI must not. It is looked for next to this
 * program, as the build tree lays it out (bench/blockbloom-bench) and as `cmake --install`
 * does (blockbloom-bench in the same bin directory), then on PATH; options pass through.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "blockbloom-bench"

/* Replace this process with `path` (argv[0] becomes the bench's name); returns on failure. */
static void try_exec(const char *path, char **argv) {
    argv[0] = (char *)BENCH_NAME;
    if (strchr(path, '/'))
        execv(path, argv);
    else
        execvp(path, argv);
}

int bb_cmd_bench(int argc, char **argv) {
    (void)argc;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            static const char *const rel[] = {"bench/" BENCH_NAME, BENCH_NAME};
            for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
                char path[PATH_MAX];
                int len = snprintf(path, sizeof path, "%.*s/%s", (int)(slash - self), self, rel[i]);
                if (len > 0 && (size_t)len < sizeof path && access(path, X_OK) == 0)
                    try_exec(path, argv);
            }
        }
    }
    try_exec(BENCH_NAME, argv);
    cli_error("cannot run the benchmark program '%s': %s (build it with -DBB_BUILD_BENCH=ON)",
              BENCH_NAME, strerror(errno));
    return BB_EXIT_RUNTIME;
}
