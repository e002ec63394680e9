/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - the memory this process may use: MemAvailable, and the memory limit of its
 * control group, for the held-keys budget (keys.c) and the benchmark's DRAM size (bench/): in
 * a container, or a systemd unit with MemoryMax, the kernel ends the process
 * at that limit (the cgroup's OOM killer) whatever MemAvailable says of the whole machine.
 * The limit is the smallest along the group's path up to the hierarchy's root: cgroup v2's
 * memory.max ("max" = none) and v1's memory.limit_in_bytes, the paths read from
 * /proc/self/cgroup ("0::PATH" for v2, "N:...memory...:PATH" for v1; in a cgroup namespace
 * PATH is "/", the container's own group). The hierarchy is looked for at /sys/fs/cgroup,
 * or at $BB_CGROUP_ROOT: tests cannot create control groups, so they lay out files there.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number in file dir/name, or UINT64_MAX if it is missing, "max" or not a number. */
static uint64_t read_limit(const char *dir, const char *name) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return UINT64_MAX;
    FILE *f = fopen(path, "r");
    if (!f) return UINT64_MAX;
    uint64_t v;
    if (fscanf(f, "%" SCNu64, &v) != 1) v = UINT64_MAX;
    fclose(f);
    return v;
}

/* The smallest limit in `name` of base + path and each of its parents down to base. */
static uint64_t smallest_on_path(const char *base, const char *path, const char *name) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s%s", base, path) >= (int)sizeof dir) return UINT64_MAX;
    size_t floor = strlen(base), len = strlen(dir);
    uint64_t least = UINT64_MAX;
    for (;;) {
        while (len > floor && dir[len - 1] == '/') dir[--len] = '\0';
        uint64_t v = read_limit(dir, name);
        if (v < least) least = v;
        char *slash = len > floor ? strrchr(dir + floor, '/') : NULL;
        if (!slash) break;
        len = (size_t)(slash - dir);
        dir[len] = '\0';
    }
    return least;
}

/* Whether the comma-separated controller list c[0 .. len) names "memory". */
static bool lists_memory(const char *c, size_t len) {
    for (size_t i = 0; i < len;) {
        size_t n = strcspn(c + i, ",");
        if (n > len - i) n = len - i;
        if (n == 6 && memcmp(c + i, "memory", 6) == 0) return true;
        i += n + 1;
    }
    return false;
}

uint64_t cli_mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[128];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f) && sscanf(line, "MemAvailable: %llu kB", &kib) != 1) {}
    fclose(f);
    return kib <= UINT64_MAX / 1024 ? (uint64_t)kib * 1024 : 0;
}

uint64_t cli_cgroup_memory_limit(void) {
    const char *root = getenv("BB_CGROUP_ROOT");
    if (!root || !*root) root = "/sys/fs/cgroup";
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return 0;
    char line[4096], base[4096];
    uint64_t least = UINT64_MAX;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c = strchr(line, ':'), *path = c ? strchr(c + 1, ':') : NULL;
        if (!path || path[1] != '/') continue;
        uint64_t v = UINT64_MAX;
        if (c + 1 == path && strncmp(line, "0:", 2) == 0) /* v2: "0::PATH" */
            v = smallest_on_path(root, path + 1, "memory.max");
        else if (lists_memory(c + 1, (size_t)(path - c - 1)) &&
                 snprintf(base, sizeof base, "%s/memory", root) < (int)sizeof base)
            v = smallest_on_path(base, path + 1, "memory.limit_in_bytes");
        if (v < least) least = v;
    }
    fclose(f);
    return least == UINT64_MAX ? 0 : least;
}
