/* SPDX-License-Identifier: MIT */
/*
 * machine.c - what the benchmark ran on, read at run time: CPU model (/proc/cpuinfo), data
 * cache sizes per level (sysfs cpu0/cache/index*, falling back to sysconf), the transparent
 * huge page mode, the clock source, and how many huge pages this process got. The DRAM size
 * of the benchmark is derived from the last-level cache found here.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* First line of a small text file, newline stripped; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t cap) {
    FILE *fp = fopen(path, "r");
    if (!fp) return false;
    bool ok = fgets(buf, (int)cap, fp) != NULL;
    fclose(fp);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

/* "32K", "1024K", "32768K", "8M" -> bytes */
static uint64_t parse_size(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K') v <<= 10;
    else if (*end == 'M') v <<= 20;
    else if (*end == 'G') v <<= 30;
    return v;
}

static void caches_from_sysfs(machine *m) {
    for (int i = 0; i < 8; i++) {
        char path[96], level[16], type[32], size[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(path, level, sizeof level)) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!read_line(path, type, sizeof type) || strcmp(type, "Instruction") == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!read_line(path, size, sizeof size)) continue;
        uint64_t bytes = parse_size(size);
        int lv = atoi(level);
        if (lv == 1) m->l1d = bytes;
        if (lv == 2) m->l2 = bytes;
        if (lv >= 2 && bytes > m->llc) m->llc = bytes;
    }
}

/* Only for what sysfs did not say: in VMs glibc's CPUID-based answer can disagree with the
 * sysfs topology the kernel exposes (here it reported 320 MiB for a 32 MiB L3). */
static void caches_from_sysconf(machine *m) {
#ifdef _SC_LEVEL3_CACHE_SIZE
    long v;
    if (!m->l1d && (v = sysconf(_SC_LEVEL1_DCACHE_SIZE)) > 0) m->l1d = (uint64_t)v;
    if (!m->l2 && (v = sysconf(_SC_LEVEL2_CACHE_SIZE)) > 0) m->l2 = (uint64_t)v;
    if (!m->llc && (v = sysconf(_SC_LEVEL3_CACHE_SIZE)) > 0) m->llc = (uint64_t)v;
#endif
    if (!m->llc) m->llc = m->l2;
}

static void cpu_model(machine *m) {
    FILE *fp = fopen("/proc/cpuinfo", "r");
    snprintf(m->cpu, sizeof m->cpu, "unknown");
    if (!fp) return;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        const char *colon = strchr(line, ':');
        if (colon && strncmp(line, "model name", 10) == 0) {
            snprintf(m->cpu, sizeof m->cpu, "%s", colon + 2);
            m->cpu[strcspn(m->cpu, "\n")] = 0;
            break;
        }
    }
    fclose(fp);
}

/* "always [madvise] never" -> "madvise" */
static void thp_mode(machine *m) {
    char buf[128];
    snprintf(m->thp, sizeof m->thp, "unknown");
    if (!read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf)) return;
    char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
    if (a && b) snprintf(m->thp, sizeof m->thp, "%.*s", (int)(b - a - 1), a + 1);
}

void machine_describe(machine *m) {
    memset(m, 0, sizeof *m);
    cpu_model(m);
    caches_from_sysfs(m);
    caches_from_sysconf(m);
    m->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    thp_mode(m);
    if (!read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                   m->clocksource, sizeof m->clocksource))
        snprintf(m->clocksource, sizeof m->clocksource, "unknown");
    uint64_t t0 = tick_now();
    double n0 = now_ns();
    while (now_ns() - n0 < 1e6) {
    }
    m->tick_ghz = (double)(tick_now() - t0) / (now_ns() - n0);
#ifdef BENCH_HAVE_LIBBLOOM
    snprintf(m->libbloom_version, sizeof m->libbloom_version, "%s", bloom_version());
#else
    snprintf(m->libbloom_version, sizeof m->libbloom_version, "not built");
#endif
}

long machine_anon_huge_kib(void) {
    FILE *fp = fopen("/proc/self/smaps_rollup", "r");
    if (!fp) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) break;
    fclose(fp);
    return kib;
}
