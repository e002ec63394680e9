/* SPDX-License-Identifier: MIT */
/*
 * pcap-bench.c - the packet benchmark of `blockbloom query --pcap` (scripts/pcap-bench.sh runs
 * it; not part of CI):
 *   pcap-bench gen CAPTURE RANGES PACKETS RANGES_N SEED
 *       writes a capture of PACKETS Ethernet frames (70% IPv4, 30% IPv6, 10% with an 802.1Q
 *       tag, TCP and UDP; one source in five drawn from the ranges, so matches are real) and a
 *       file of RANGES_N random CIDR ranges (IPv6 /48 10%, IPv4 /16 1%, /24 49%, /32 40%;
 *       the few repeats among the /16s are kept), from a SplitMix64 stream with SEED;
 *   pcap-bench time CAPTURE FILTER CLI MATCH ROUNDS
 *       times, ROUNDS times each, alternately: libpcap's read loop alone (pcap_open_offline,
 *       pcap_next_ex until the end, counting packets: the floor) in this process, and
 *       `CLI query --pcap CAPTURE --match MATCH -c FILTER` as a child process (from spawn to exit, so process
 *       start and the filter's mmap are included); prints the medians of CPU time (user +
 *       system, which other processes on a shared machine disturb less than the wall clock)
 *       and of wall time, packets per second and the ratios. Run it with the capture in the
 *       page cache (the script reads it first).
 */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static uint64_t sm_state;
static uint64_t next64(void) { /* SplitMix64 (Steele, Lea, Flood 2014) */
    uint64_t z = (sm_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

typedef struct range {
    int v6;
    uint8_t a[16];
    int len;
} range;

static range random_range(void) {
    range r = {0};
    uint64_t x = next64(), pick = x % 100;
    if (pick < 10) { /* IPv6 /48 under 2001:db8::/32 and its neighbours */
        r.v6 = 1;
        r.len = 48;
        r.a[0] = 0x20, r.a[1] = 0x01;
        for (int i = 2; i < 6; i++) r.a[i] = (uint8_t)(x >> (8 * i));
        return r;
    }
    r.len = pick < 11 ? 16 : pick < 60 ? 24 : 32;
    uint32_t v = (uint32_t)(x >> 32);
    v &= r.len == 32 ? UINT32_MAX : ~(UINT32_MAX >> r.len);
    for (int i = 0; i < 4; i++) r.a[i] = (uint8_t)(v >> (24 - 8 * i));
    return r;
}

static void print_range(FILE *f, const range *r) {
    if (r->v6)
        fprintf(f, "%x:%x:%x::/48\n", r->a[0] << 8 | r->a[1], r->a[2] << 8 | r->a[3],
                r->a[4] << 8 | r->a[5]);
    else
        fprintf(f, "%u.%u.%u.%u/%d\n", r->a[0], r->a[1], r->a[2], r->a[3], r->len);
}

/* One frame into b; returns its length. */
static size_t frame(uint8_t *b, const range *ranges, size_t n_ranges) {
    size_t n = 0;
    uint64_t x = next64();
    static const uint8_t macs[12] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2};
    memcpy(b, macs, 12);
    n = 12;
    if (x % 10 == 0) { /* 802.1Q */
        b[n++] = 0x81, b[n++] = 0x00, b[n++] = 0, b[n++] = 7;
    }
    int v6 = (x >> 8) % 10 < 3;
    const range *src = (x >> 16) % 5 == 0 ? &ranges[(x >> 24) % n_ranges] : NULL;
    if (src) v6 = src->v6;
    b[n++] = v6 ? 0x86 : 0x08;
    b[n++] = v6 ? 0xdd : 0x00;
    uint8_t proto = (x >> 40) & 1 ? 6 : 17;
    uint64_t y = next64(), z = next64();
    if (!v6) {
        uint8_t h[20] = {0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, proto};
        for (int i = 0; i < 8; i++) h[12 + i] = (uint8_t)(y >> (8 * i));
        if (src) memcpy(h + 12, src->a, 3); /* inside the range for /24 and wider */
        if (src && src->len == 32) memcpy(h + 12, src->a, 4);
        memcpy(b + n, h, 20);
        n += 20;
    } else {
        uint8_t h[40] = {0x60, 0, 0, 0, 0, 20, proto, 64};
        for (int i = 0; i < 8; i++) h[8 + i] = (uint8_t)(y >> (8 * i)), h[16 + i] = (uint8_t)(z >> (8 * i));
        for (int i = 0; i < 16; i++) h[24 + i] = (uint8_t)(z >> (4 * (i % 16)));
        if (src) memcpy(h + 8, src->a, 6);
        memcpy(b + n, h, 40);
        n += 40;
    }
    uint8_t l4[20] = {(uint8_t)(z >> 8), (uint8_t)z, 0, 80};
    memcpy(b + n, l4, 20);
    return n + 20;
}

static int gen(const char *cap, const char *ranges_path, size_t packets, size_t n_ranges,
               uint64_t seed) {
    sm_state = seed;
    range *r = malloc(n_ranges * sizeof *r);
    FILE *rf = fopen(ranges_path, "w");
    if (!r || !rf) return perror(ranges_path), 1;
    for (size_t i = 0; i < n_ranges; i++) {
        r[i] = random_range();
        print_range(rf, &r[i]);
    }
    fclose(rf);
    pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
    pcap_dumper_t *d = pcap_dump_open(p, cap);
    if (!d) return fprintf(stderr, "%s\n", pcap_geterr(p)), 1;
    uint8_t b[256];
    for (size_t i = 0; i < packets; i++) {
        size_t len = frame(b, r, n_ranges);
        struct pcap_pkthdr h = {.ts = {1700000000 + (time_t)(i / 1000), (suseconds_t)(i % 1000)},
                                .caplen = (bpf_u_int32)len, .len = (bpf_u_int32)len};
        pcap_dump((u_char *)d, &h, b);
    }
    pcap_dump_close(d);
    pcap_close(p);
    free(r);
    return 0;
}

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static double tv_s(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec * 1e-6; }

typedef struct times {
    double wall, cpu;
} times;

/* libpcap's loop alone: seconds, and the packet count into *n. */
static times floor_loop(const char *cap, unsigned long long *n) {
    char err[PCAP_ERRBUF_SIZE];
    double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    pcap_t *p = pcap_open_offline(cap, err);
    if (!p) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    struct pcap_pkthdr *h;
    const u_char *d;
    unsigned long long c = 0, sum = 0;
    while (pcap_next_ex(p, &h, &d) == 1) c++, sum += d[0]; /* touch the packet */
    pcap_close(p);
    *n = c + (sum == UINT64_MAX); /* keep sum alive */
    return (times){now() - t0, clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0};
}

static times cli_run(char *const argv[]) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    pid_t pid;
    double t0 = now();
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        perror(argv[0]);
        exit(1);
    }
    int ws;
    struct rusage ru;
    wait4(pid, &ws, 0, &ru);
    times t = {now() - t0, tv_s(ru.ru_utime) + tv_s(ru.ru_stime)};
    posix_spawn_file_actions_destroy(&fa);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) fprintf(stderr, "%s failed\n", argv[0]);
    return t;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static int timing(const char *cap, const char *filter, const char *cli, const char *match,
                  int rounds) {
    double fw[64], fc[64], cw[64], cc[64];
    unsigned long long n = 0;
    char *argv[] = {(char *)cli, "query", "--pcap", (char *)cap, "--match", (char *)match, "-c",
                    (char *)filter, NULL};
    if (rounds > 64) rounds = 64;
    for (int i = 0; i < rounds; i++) {
        times f = floor_loop(cap, &n), c = cli_run(argv);
        fw[i] = f.wall, fc[i] = f.cpu, cw[i] = c.wall, cc[i] = c.cpu;
    }
    double a = median(fc, rounds), b = median(cc, rounds), x = median(fw, rounds),
           y = median(cw, rounds);
    printf("packets: %llu, --match %s, rounds: %d (medians; CPU = user + system)\n", n, match,
           rounds);
    printf("libpcap read loop alone:  CPU %.3f s (%.2f M packets/s), wall %.3f s\n", a,
           (double)n / a / 1e6, x);
    printf("blockbloom query --pcap:  CPU %.3f s (%.2f M packets/s), wall %.3f s\n", b,
           (double)n / b / 1e6, y);
    printf("ratio query / read loop:  CPU %.2f, wall %.2f\n", b / a, y / x);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 7 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2], argv[3], strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10),
                   strtoull(argv[6], NULL, 0));
    if (argc == 7 && strcmp(argv[1], "time") == 0)
        return timing(argv[2], argv[3], argv[4], argv[5], atoi(argv[6]));
    fprintf(stderr, "usage: pcap-bench gen CAPTURE RANGES PACKETS RANGES_N SEED\n"
                    "       pcap-bench time CAPTURE FILTER CLI MATCH ROUNDS\n");
    return 2;
}
