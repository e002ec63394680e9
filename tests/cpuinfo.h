/* SPDX-License-Identifier: MIT */
/*
 * cpuinfo.h - the first processor's vendor, family, model and kernel flags from /proc/cpuinfo,
 * read apart from the library's CPUID, for tests that check a per-CPU choice of dispatch.c.
 */
#ifndef BB_TEST_CPUINFO_H
#define BB_TEST_CPUINFO_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct cpuinfo {
    char vendor[32];
    int family, model;
    bool avx2, avx512f, avx512gfni, found;
} cpuinfo;

/* Whether the flags line has the word `flag`. */
static inline bool has_flag(const char *line, const char *flag) {
    size_t n = strlen(flag);
    for (const char *at = strstr(line, flag); at; at = strstr(at + 1, flag))
        if (at[-1] == ' ' && (at[n] == ' ' || at[n] == '\n' || at[n] == '\0')) return true;
    return false;
}

/* The first processor's fields of /proc/cpuinfo (x86 Linux); found = false elsewhere. */
static inline cpuinfo read_cpuinfo(void) {
    cpuinfo c = {.family = -1, .model = -1};
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp) return c;
    char line[8192];
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "vendor_id : %31s", c.vendor) == 1) continue;
        if (sscanf(line, "cpu family : %d", &c.family) == 1) continue;
        if (sscanf(line, "model : %d", &c.model) == 1) continue;
        if (strncmp(line, "flags", 5) == 0) {
            c.avx2 = has_flag(line, "avx2");
            c.avx512f = has_flag(line, "avx512f");
            /* what the avx512gfni kernel is compiled for (flag names as Linux prints them) */
            c.avx512gfni = c.avx512f && has_flag(line, "avx512vl") && has_flag(line, "avx512bw") &&
                           has_flag(line, "avx512cd") && has_flag(line, "avx512vbmi") &&
                           has_flag(line, "gfni");
            break; /* the first processor's block is complete */
        }
    }
    fclose(fp);
    c.found = c.vendor[0] && c.family >= 0 && c.model >= 0;
    return c;
}

#endif /* BB_TEST_CPUINFO_H */
