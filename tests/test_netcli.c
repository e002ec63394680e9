/* SPDX-License-Identifier: MIT */
/*
 * test_netcli.c - the network key kinds of the blockbloom tool, run as a program (BB_CLI):
 * `build --keys url|domain|cidr|5tuple` with per-line errors ("FILE:LINE: reason", nothing
 * written, never half a line; --skip-invalid), `query --keys` with -o, -v and -c, and
 * `query --pcap` over captures this file writes itself: with libpcap's dump API for every
 * supported link type (Ethernet with 802.1Q and 802.1ad tags, Linux cooked v1 and v2, raw
 * IP), and byte by byte for a record cut short. tcpdump (Debian tcpdump) reads the same
 * captures as the independent other side: its count for "net 10.0.0.0/8 or net
 * 2001:db8::/32" must equal ours.
 *
 * Each test runs in a fresh mkdtemp directory; the program runs through /bin/sh with its
 * standard streams redirected to files there. Expected output is written out by hand.
 */
#include <criterion/criterion.h>

#include "workdir.h"

#include <arpa/inet.h>
#include <ftw.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BB_CLI
#error "BB_CLI must be defined by the build"
#endif

TestSuite(netcli, .init = enter_workdir, .fini = leave_workdir);

static void put_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

typedef struct res {
    int rc;
    char *out, *err;
} res;

/* Run "blockbloom ARGS" (a shell word list) with stdin from `in` (NULL: empty). */
static res bb(const char *in, const char *args) {
    put_file("in.txt", in ? in : "");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s <in.txt >out.txt 2>err.txt", BB_CLI, args);
    int ws = system(cmd);
    cr_assert(WIFEXITED(ws), "%s: killed", cmd);
    return (res){WEXITSTATUS(ws), slurp("out.txt"), slurp("err.txt")};
}

static void res_free(res *r) {
    free(r->out);
    free(r->err);
}

static void expect(res r, int rc, const char *out, const char *err_part) {
    cr_expect_eq(r.rc, rc, "exit %d, expected %d; stderr: %s", r.rc, rc, r.err);
    if (out) cr_expect_str_eq(r.out, out);
    if (err_part) cr_expect(strstr(r.err, err_part), "stderr lacks '%s': %s", err_part, r.err);
    res_free(&r);
}

/* Exit rc with every one of parts (NULL-terminated) in stderr. */
static void expect_errs(res r, int rc, const char *const *parts) {
    cr_expect_eq(r.rc, rc, "exit %d, expected %d; stderr: %s", r.rc, rc, r.err);
    for (; *parts; parts++) cr_expect(strstr(r.err, *parts), "stderr lacks '%s': %s", *parts, r.err);
    res_free(&r);
}
#define ERRS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- URLs and domains ----------------------------------------------------------------------- */

Test(netcli, url_build_and_query) {
    put_file("block.txt", "# Safe Browsing style entries\nevil.com/\n\nb.c/1/\n1.2.3.4/x?y\n");
    expect(bb(NULL, "build --keys url -o u.bbf block.txt"), 0, "", "wrote u.bbf");
    const char *urls = "http://www.evil.com/anything?q\n"
                       "https://good.com/\n"
                       "http://a.b.c/1/2.html#frag\n"
                       "http://1.2.3.4/x?y\n"
                       "HTTP://EVIL.COM\n";
    expect(bb(urls, "query u.bbf"), 0, /* the file knows its kind */
           "http://www.evil.com/anything?q\nhttp://a.b.c/1/2.html#frag\nhttp://1.2.3.4/x?y\n"
           "HTTP://EVIL.COM\n", NULL);
    expect(bb(urls, "query --keys url -o u.bbf"), 0,
           "http://www.evil.com/anything?q\tevil.com/\nhttp://a.b.c/1/2.html#frag\tb.c/1/\n"
           "http://1.2.3.4/x?y\t1.2.3.4/x?y\nHTTP://EVIL.COM\tevil.com/\n", NULL);
    expect(bb(urls, "query -v u.bbf"), 0, "https://good.com/\n", NULL);
    expect(bb(urls, "query -c u.bbf"), 0, "4\n", NULL);
    expect(bb("http://ok.com/\nhttp://h:x/\n", "query u.bbf"), 1, "",
           "(standard input):2: not a valid URL: 'http://h:x/'");
    expect(bb(NULL, "query --keys domain u.bbf"), 2, "", "built with --keys url, not domain");
    expect(bb(NULL, "query --match src u.bbf"), 2, "", "--match needs --pcap");
    /* add takes lines of the filter's kind; a bad line adds nothing. */
    put_file("more.txt", "http://WWW.Other.com/p/\nhttp://h:bad/\n");
    expect(bb(NULL, "add u.bbf more.txt"), 1, "", "more.txt:2: not a valid URL");
    expect(bb("http://www.other.com/p/q\n", "query -c u.bbf"), 0, "0\n", NULL);
    put_file("more.txt", "http://WWW.Other.com/p/\n");
    expect(bb(NULL, "add u.bbf more.txt"), 0, "", "wrote u.bbf");
    expect(bb("http://www.other.com/p/q\n", "query -o u.bbf"), 0,
           "http://www.other.com/p/q\twww.other.com/p/\n", NULL);
}

Test(netcli, url_bad_lines_write_nothing) {
    put_file("block.txt", "evil.com/\nhttp://h:bad/\nhttp:///\n");
    expect(bb(NULL, "build --keys url -o u.bbf block.txt"), 1, "",
           "block.txt:2: not a valid URL: 'http://h:bad/'");
    cr_expect_neq(access("u.bbf", F_OK), 0, "a failed build wrote its file");
    expect_errs(bb(NULL, "build --keys url -o u.bbf block.txt"), 1,
                ERRS("block.txt:3: not a valid URL", "2 bad lines: nothing written"));
    expect(bb(NULL, "build --keys url --skip-invalid -o u.bbf block.txt"), 0, "",
           "warning: block.txt:2:");
    expect(bb("http://x.evil.com/\n", "query -c u.bbf"), 0, "1\n", NULL);
}

Test(netcli, domains_hosts_files_and_suffixes) {
    put_file("hosts", "# a hosts file\n"
                      "127.0.0.1 localhost\n"
                      "0.0.0.0 ads.example.com tracker.example.org # inline comment\n"
                      "example.net\n"
                      "Bücher.DE.\n"
                      "0.0.0.0 good.example bad..name\n"
                      "co.uk\n");
    expect(bb(NULL, "build --keys domain -o d.bbf hosts"), 1, "",
           "hosts:6: 'bad..name' is not a valid domain name: '0.0.0.0 good.example bad..name'");
    expect_errs(bb(NULL, "build --keys domain -o d.bbf hosts"), 1,
                ERRS("hosts:7: 'co.uk' is a public suffix"));
    expect(bb(NULL, "build --keys domain --skip-invalid -o d.bbf hosts"), 0, "",
           "wrote d.bbf: blocked filter, 4 keys");
    const char *q = "x.ads.example.com\nexample.com\ntracker.example.org\nwww.example.net\n"
                    "shop.xn--bcher-kva.de\ngood.example\nco.uk\nlocalhost\n";
    /* good.example is on the bad line 6, so none of that line was added. */
    expect(bb(q, "query -o d.bbf"), 0,
           "x.ads.example.com\tads.example.com\ntracker.example.org\ttracker.example.org\n"
           "www.example.net\texample.net\nshop.xn--bcher-kva.de\txn--bcher-kva.de\n", NULL);
    expect(bb(NULL, "build --keys domain -o d2.bbf hosts 2>/dev/null; BB_PSL_FILE=/nonexistent "
                    "'" BB_CLI "' query d.bbf"),
           1, "", "install Debian's publicsuffix package");
}

/* A hosts file's built-in names are skipped in any letter case and with a trailing dot: none
 * of them may become a key (localhost would then match). */
Test(netcli, hosts_builtin_names_any_case) {
    put_file("hosts", "127.0.0.1 LocalHost LOCALHOST.LOCALDOMAIN\n"
                      "::1 IP6-Localhost ip6-loopback. Broadcasthost\n"
                      "0.0.0.0 ads.example.com\n");
    expect(bb(NULL, "build --keys domain -o d.bbf hosts"), 0, "",
           "wrote d.bbf: blocked filter, 1 key,");
    expect(bb("localhost\nlocalhost.localdomain\nip6-localhost\nip6-loopback\nbroadcasthost\n"
              "ads.example.com\n", "query -o d.bbf"),
           0, "ads.example.com\tads.example.com\n", NULL);
}

/* ---- CIDR ----------------------------------------------------------------------------------- */

Test(netcli, cidr_errors_and_query) {
    put_file("ranges", "10.0.0.0/8\n10.0.0.0/33\n::/129\n10.0.0.1/8\ngarbage\n2001:db8::/32\n"
                       "192.0.2.7\n");
    expect_errs(bb(NULL, "build --keys cidr -o c.bbf ranges"), 1,
                ERRS("ranges:2: prefix length above 32 for IPv4: '10.0.0.0/33'",
                     "ranges:3: prefix length above 128 for IPv6: '::/129'",
                     "ranges:4: host bits set beyond the prefix: '10.0.0.1/8'",
                     "ranges:5: not an IP address: 'garbage'", "4 bad lines: nothing written"));
    cr_expect_neq(access("c.bbf", F_OK), 0);
    expect(bb(NULL, "build --keys cidr --skip-invalid -o c.bbf ranges"), 0, "", "3 keys");
    res r = bb(NULL, "info c.bbf");
    cr_expect(strstr(r.out, "format_version: 2"), "%s", r.out);
    cr_expect(strstr(r.out, "keys: cidr"), "%s", r.out);
    res_free(&r);
    expect(bb("10.20.30.40\n11.0.0.1\n::ffff:10.1.1.1\n2001:db8:1::9\n192.0.2.7\n192.0.2.8\n",
              "query -o c.bbf"),
           0, "10.20.30.40\t10.0.0.0/8\n::ffff:10.1.1.1\t10.0.0.0/8\n2001:db8:1::9\t2001:db8::/32\n"
              "192.0.2.7\t192.0.2.7/32\n", NULL);
    expect(bb("10.0.0.0/8\n", "query c.bbf"), 1, "", "a single address was expected");
    /* add: new ranges and their lengths join the file's record. */
    expect(bb("172.16.0.0/12\n", "add c.bbf"), 0, "", "wrote c.bbf");
    expect(bb("172.20.1.1\n", "query -o c.bbf"), 0, "172.20.1.1\t172.16.0.0/12\n", NULL);
}

Test(netcli, five_tuple_lines) {
    put_file("flows", "tcp 10.0.0.1 1234 192.168.1.1 80\nudp 2001:db8::1 53 2001:db8::2 5353\n"
                      "tcp 10.0.0.1 99999 1.1.1.1 80\nicmp 1.1.1.1 0 2.2.2.2 0\n");
    expect_errs(bb(NULL, "build --keys 5tuple -o t.bbf flows"), 1,
                ERRS("flows:3: port is not 0..65535", "flows:4: protocol is not tcp, udp or 0..255"));
    expect(bb(NULL, "build --keys 5tuple --skip-invalid -o t.bbf flows"), 0, "", "2 keys");
    expect(bb("tcp 10.0.0.1 1234 192.168.1.1 80\ntcp 10.0.0.1 1235 192.168.1.1 80\n"
              "17 2001:db8::1 53 2001:db8::2 5353\n",
              "query t.bbf"),
           0, "tcp 10.0.0.1 1234 192.168.1.1 80\n17 2001:db8::1 53 2001:db8::2 5353\n", NULL);
}

/* ---- Captures --------------------------------------------------------------------------------- */

typedef struct frame {
    uint8_t b[256];
    size_t n;
} frame;

static void put(frame *f, const void *p, size_t n) {
    memcpy(f->b + f->n, p, n);
    f->n += n;
}
static void put16(frame *f, uint16_t v) {
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    put(f, b, 2);
}

static void ether(frame *f, const uint16_t *tags, size_t n_tags, uint16_t type) {
    static const uint8_t macs[12] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2};
    put(f, macs, 12);
    for (size_t i = 0; i < n_tags; i += 2) {
        put16(f, tags[i]);     /* TPID: 0x8100 or 0x88a8 */
        put16(f, tags[i + 1]); /* TCI: the VLAN id */
    }
    put16(f, type);
}

/* IPv4 header (IHL 5) and an 8-byte L4 header with the ports. */
static void ipv4(frame *f, uint8_t proto, const char *src, const char *dst, uint16_t sp,
                 uint16_t dp) {
    uint8_t h[20] = {0x45, 0, 0, 28, 0, 0, 0, 0, 64, proto};
    cr_assert_eq(inet_pton(AF_INET, src, h + 12), 1);
    cr_assert_eq(inet_pton(AF_INET, dst, h + 16), 1);
    put(f, h, 20);
    put16(f, sp);
    put16(f, dp);
    put16(f, 8);
    put16(f, 0);
}

static void ipv6(frame *f, uint8_t next, bool hop_by_hop, const char *src, const char *dst,
                 uint16_t sp, uint16_t dp) {
    uint8_t h[40] = {0x60, 0, 0, 0, 0, 16, hop_by_hop ? 0 : next, 64};
    cr_assert_eq(inet_pton(AF_INET6, src, h + 8), 1);
    cr_assert_eq(inet_pton(AF_INET6, dst, h + 24), 1);
    put(f, h, 40);
    if (hop_by_hop) {
        uint8_t ext[8] = {next, 0, 1, 4, 0, 0, 0, 0}; /* PadN option */
        put(f, ext, 8);
    }
    put16(f, sp);
    put16(f, dp);
    put16(f, 8);
    put16(f, 0);
}

/* Write frames[0 .. n) as a capture of link type dlt, packet i at time 1700000000 + i s. */
static void write_capture(const char *path, int dlt, const frame *frames, size_t n) {
    pcap_t *p = pcap_open_dead(dlt, 65535);
    cr_assert_not_null(p);
    pcap_dumper_t *d = pcap_dump_open(p, path);
    cr_assert_not_null(d, "%s", pcap_geterr(p));
    for (size_t i = 0; i < n; i++) {
        struct pcap_pkthdr h = {.ts = {1700000000 + (time_t)i, 250000}, .caplen = (bpf_u_int32)frames[i].n,
                                .len = (bpf_u_int32)frames[i].n};
        pcap_dump((u_char *)d, &h, frames[i].b);
    }
    pcap_dump_close(d);
    pcap_close(p);
}

static const char ranges[] = "10.0.0.0/8\n2001:db8::/32\n";
#define TCPDUMP_FILTER "'net 10.0.0.0/8 or net 2001:db8::/32'"

/* tcpdump's count of packets matching TCPDUMP_FILTER (the independent reader). */
static int tcpdump_count(const char *path) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "tcpdump -nn -r %s %s 2>/dev/null | wc -l > tcpdump.txt", path,
             TCPDUMP_FILTER);
    cr_assert_eq(system(cmd), 0, "tcpdump failed (scripts/setup.sh installs it)");
    char *s = slurp("tcpdump.txt");
    int n = atoi(s);
    free(s);
    return n;
}

static void ethernet_capture(const char *path) {
    frame f[6] = {0};
    ether(&f[0], NULL, 0, 0x0800);
    ipv4(&f[0], 6, "10.0.0.1", "192.168.1.1", 1234, 80);
    static const uint16_t dot1q[] = {0x8100, 7};
    ether(&f[1], dot1q, 2, 0x0800);
    ipv4(&f[1], 17, "172.16.0.5", "10.2.3.4", 53, 5353);
    static const uint16_t qinq[] = {0x88a8, 100, 0x8100, 7};
    ether(&f[2], qinq, 4, 0x86dd);
    ipv6(&f[2], 6, false, "2001:db8::1", "2001:db9::2", 443, 5555);
    ether(&f[3], NULL, 0, 0x0806); /* ARP: not IP */
    static const uint8_t arp[28] = {0, 1, 8, 0, 6, 4, 0, 1};
    put(&f[3], arp, sizeof arp);
    ether(&f[4], NULL, 0, 0x86dd);
    ipv6(&f[4], 17, true, "2001:db9::7", "2001:db8:5::1", 1000, 2000);
    ether(&f[5], NULL, 0, 0x0800);
    ipv4(&f[5], 1, "8.8.8.8", "1.1.1.1", 0x0800, 0); /* ICMP: no ports */
    write_capture(path, DLT_EN10MB, f, 6);
    /* The same without the tagged frames, for tcpdump: its filter language reads through VLAN
     * tags only with explicit "vlan" terms. */
    frame untagged[4] = {f[0], f[3], f[4], f[5]};
    write_capture("untagged.pcap", DLT_EN10MB, untagged, 4);
}

Test(netcli, pcap_ethernet_vlan_ipv6) {
    ethernet_capture("eth.pcap");
    put_file("ranges", ranges);
    expect(bb(NULL, "build --keys cidr -o c.bbf ranges"), 0, "", NULL);
    expect(bb(NULL, "query --pcap eth.pcap c.bbf"), 0,
           "1700000000.250000 tcp 10.0.0.1:1234 > 192.168.1.1:80\n"
           "1700000001.250000 udp 172.16.0.5:53 > 10.2.3.4:5353\n"
           "1700000002.250000 tcp [2001:db8::1]:443 > [2001:db9::2]:5555\n"
           "1700000004.250000 udp [2001:db9::7]:1000 > [2001:db8:5::1]:2000\n",
           "eth.pcap: 6 packets, 1 not IP (skipped)");
    expect(bb(NULL, "query --pcap eth.pcap --match src c.bbf"), 0,
           "1700000000.250000 tcp 10.0.0.1:1234 > 192.168.1.1:80\n"
           "1700000002.250000 tcp [2001:db8::1]:443 > [2001:db9::2]:5555\n", NULL);
    expect(bb(NULL, "query --pcap eth.pcap --match dst -c c.bbf"), 0, "2\n", NULL);
    expect(bb(NULL, "query --pcap eth.pcap -v c.bbf"), 0,
           "1700000005.250000 icmp 8.8.8.8 > 1.1.1.1\n", NULL);
    res r = bb(NULL, "query --pcap untagged.pcap -c c.bbf");
    cr_expect_eq(atoi(r.out), 2);
    cr_expect_eq(atoi(r.out), tcpdump_count("untagged.pcap"), "ours %s vs tcpdump", r.out);
    res_free(&r);
    expect(bb(NULL, "query --pcap eth.pcap --match 5tuple c.bbf"), 2, "",
           "--match 5tuple does not apply to a cidr filter");
    expect(bb(NULL, "query --pcap eth.pcap --match both c.bbf"), 2, "", "unknown --match 'both'");
}

Test(netcli, pcap_linux_cooked_and_raw) {
    put_file("ranges", ranges);
    expect(bb(NULL, "build --keys cidr -o c.bbf ranges"), 0, "", NULL);
    frame f[2] = {0};
    /* Linux cooked v1: packet type, ARPHRD, address length, 8 address bytes, protocol. */
    static const uint8_t sll[14] = {0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1};
    for (int i = 0; i < 2; i++) put(&f[i], sll, sizeof sll);
    put16(&f[0], 0x0800);
    ipv4(&f[0], 17, "10.9.9.9", "8.8.4.4", 5000, 53);
    put16(&f[1], 0x86dd);
    ipv6(&f[1], 6, false, "2001:db9::1", "2001:db8::2", 1, 2);
    write_capture("sll.pcap", DLT_LINUX_SLL, f, 2);
    expect(bb(NULL, "query --pcap sll.pcap c.bbf"), 0,
           "1700000000.250000 udp 10.9.9.9:5000 > 8.8.4.4:53\n"
           "1700000001.250000 tcp [2001:db9::1]:1 > [2001:db8::2]:2\n", "");
    /* Linux cooked v2: protocol, reserved, interface index, ARPHRD, type, address. */
    frame g[1] = {0};
    put16(&g[0], 0x0800);
    static const uint8_t sll2_rest[18] = {0, 0, 0, 0, 0, 2, 0, 1, 0, 6};
    put(&g[0], sll2_rest, sizeof sll2_rest);
    ipv4(&g[0], 6, "192.0.2.1", "10.0.0.9", 40000, 443);
    write_capture("sll2.pcap", DLT_LINUX_SLL2, g, 1);
    expect(bb(NULL, "query --pcap sll2.pcap c.bbf"), 0,
           "1700000000.250000 tcp 192.0.2.1:40000 > 10.0.0.9:443\n", NULL);
    /* Raw IP, both versions. */
    frame h[2] = {0};
    ipv4(&h[0], 6, "10.1.1.1", "9.9.9.9", 1, 2);
    ipv6(&h[1], 17, false, "::1", "::2", 3, 4);
    write_capture("raw.pcap", DLT_RAW, h, 2);
    expect(bb(NULL, "query --pcap raw.pcap -c c.bbf"), 0, "1\n", NULL);
    res r = bb(NULL, "query --pcap sll.pcap -c c.bbf");
    cr_expect_eq(atoi(r.out), tcpdump_count("sll.pcap"));
    res_free(&r);
    r = bb(NULL, "query --pcap sll2.pcap -c c.bbf");
    cr_expect_eq(atoi(r.out), tcpdump_count("sll2.pcap"));
    res_free(&r);
}

Test(netcli, pcap_five_tuples) {
    ethernet_capture("eth.pcap");
    put_file("flows", "tcp 10.0.0.1 1234 192.168.1.1 80\nudp 2001:db9::7 1000 2001:db8:5::1 2000\n");
    expect(bb(NULL, "build --keys 5tuple -o t.bbf flows"), 0, "", NULL);
    expect(bb(NULL, "query --pcap eth.pcap t.bbf"), 0,
           "1700000000.250000 tcp 10.0.0.1:1234 > 192.168.1.1:80\n"
           "1700000004.250000 udp [2001:db9::7]:1000 > [2001:db8:5::1]:2000\n", NULL);
    expect(bb(NULL, "query --pcap eth.pcap --match src t.bbf"), 2, "", "does not apply");
}

/* IPv6 packets whose capture ends inside the extension-header chain: their addresses match,
 * their protocol is unknown ("ip6-ext-cut", not the hop-by-hop header's number as
 * "proto-0"), and with no ports no 5-tuple matches; a chain that is whole but whose ports
 * are cut keeps its protocol. tcpdump counts the same packets by address. */
Test(netcli, pcap_ipv6_extension_chain_cut) {
    frame f[3] = {0};
    for (int i = 0; i < 3; i++) {
        ether(&f[i], NULL, 0, 0x86dd);
        ipv6(&f[i], 17, true, "2001:db8::1", "2001:db9::2", 7, 8);
    }
    f[0].n = 14 + 40 + 4;     /* half the hop-by-hop header */
    f[1].n = 14 + 40 + 8 + 2; /* the chain, then half the UDP source port */
    write_capture("ext.pcap", DLT_EN10MB, f, 3);
    put_file("ranges", ranges);
    expect(bb(NULL, "build --keys cidr -o c.bbf ranges"), 0, "", NULL);
    expect(bb(NULL, "query --pcap ext.pcap c.bbf"), 0,
           "1700000000.250000 ip6-ext-cut 2001:db8::1 > 2001:db9::2\n"
           "1700000001.250000 udp 2001:db8::1 > 2001:db9::2\n"
           "1700000002.250000 udp [2001:db8::1]:7 > [2001:db9::2]:8\n", NULL);
    res r = bb(NULL, "query --pcap ext.pcap -c c.bbf");
    cr_expect_eq(atoi(r.out), tcpdump_count("ext.pcap"), "ours %s vs tcpdump", r.out);
    res_free(&r);
    put_file("flows", "udp 2001:db8::1 7 2001:db9::2 8\n");
    expect(bb(NULL, "build --keys 5tuple -o t.bbf flows"), 0, "", NULL);
    expect(bb(NULL, "query --pcap ext.pcap t.bbf"), 0,
           "1700000002.250000 udp [2001:db8::1]:7 > [2001:db9::2]:8\n", NULL);
}

/* ---- Malformed frames, one capture each: the line each must give ------------------------------
 * Each row builds one Ethernet frame from a sound packet, breaks one field, and names what
 * `query --pcap` must print for it (stdout, with the filter holding 10/8 and 2001:db8::/32)
 * and what it must say on stderr ("" for nothing), with its exit status. */
typedef struct bad_frame {
    const char *name;
    void (*make)(frame *f);
    int rc;
    const char *out, *err;
} bad_frame;

static void v4_sound(frame *f) {
    ether(f, NULL, 0, 0x0800);
    ipv4(f, 6, "10.0.0.1", "10.0.0.2", 1, 2);
}
static void v4_total_below_header(frame *f) { v4_sound(f), f->b[14 + 2] = 0, f->b[14 + 3] = 10; }
static void v4_total_cuts_ports(frame *f) { v4_sound(f), f->b[14 + 3] = 22; } /* 2 L4 bytes */
static void v4_total_zero(frame *f) { v4_sound(f), f->b[14 + 3] = 0; }  /* offloaded: kept */
static void v4_ihl_3(frame *f) { v4_sound(f), f->b[14] = 0x43; }
static void v4_options_cut(frame *f) { v4_sound(f), f->b[14] = 0x4f; } /* 60-byte header */
static void v4_later_fragment(frame *f) { v4_sound(f), f->b[14 + 7] = 0x10; } /* offset 16 */
static void v4_says_version_6(frame *f) { v4_sound(f), f->b[14] = 0x65; }
static void v6_sound_hbh(frame *f) {
    ether(f, NULL, 0, 0x86dd);
    ipv6(f, 6, true, "2001:db8::1", "2001:db9::2", 3, 4);
}
static void v6_hbh_claims_2048(frame *f) { v6_sound_hbh(f), f->b[14 + 41] = 255, f->n = 14 + 48; }
static void v6_hbh_claims_past_ports(frame *f) { v6_sound_hbh(f), f->b[14 + 41] = 2; } /* 24 bytes */
static void v6_routing_cut(frame *f) {
    v6_sound_hbh(f);
    f->b[14 + 40] = 43;          /* hop-by-hop -> routing, */
    f->n = 14 + 48 + 2;          /* of which two bytes are captured */
    f->b[14 + 49] = 0;
}
static void v6_later_fragment(frame *f) {
    ether(f, NULL, 0, 0x86dd);
    ipv6(f, 44, false, "2001:db8::1", "2001:db9::2", 3, 4);
    uint8_t frag[8] = {6, 0, 0, 0x18, 0, 0, 0, 1}; /* offset 3 (x 8 bytes), then TCP */
    memmove(f->b + 14 + 48, f->b + 14 + 40, 8);
    memcpy(f->b + 14 + 40, frag, 8);
    f->n += 8;
}
static void v6_header_cut(frame *f) { v6_sound_hbh(f), f->n = 14 + 39; }

Test(netcli, pcap_malformed_frames_table) {
    static const bad_frame rows[] = {
        {"IPv4, total length 10 below its 20-byte header", v4_total_below_header, 1, "",
         "packet 1: corrupt IPv4 header (total length 10 below its header length 20)"},
        {"IPv4, total length ends inside the ports", v4_total_cuts_ports, 0,
         "1700000000.250000 tcp 10.0.0.1 > 10.0.0.2\n", ""},
        {"IPv4, total length 0 (segmentation offload)", v4_total_zero, 0,
         "1700000000.250000 tcp 10.0.0.1:1 > 10.0.0.2:2\n", ""},
        {"IPv4, IHL 3", v4_ihl_3, 1, "", "packet 1: corrupt IPv4 header (IHL below 5)"},
        {"IPv4, IHL 15 with 28 bytes captured", v4_options_cut, 1, "",
         "packet 1: truncated IPv4 options"},
        {"IPv4, a later fragment", v4_later_fragment, 0,
         "1700000000.250000 tcp 10.0.0.1 > 10.0.0.2\n", ""},
        {"EtherType IPv4, version 6", v4_says_version_6, 1, "",
         "packet 1: IP version does not match its header"},
        {"IPv6, hop-by-hop header claims 2048 bytes, 8 captured", v6_hbh_claims_2048, 0,
         "1700000000.250000 ip6-ext-cut 2001:db8::1 > 2001:db9::2\n", ""},
        {"IPv6, hop-by-hop header runs over the ports", v6_hbh_claims_past_ports, 0,
         "1700000000.250000 ip6-ext-cut 2001:db8::1 > 2001:db9::2\n", ""},
        {"IPv6, routing header cut after 2 bytes", v6_routing_cut, 0,
         "1700000000.250000 ip6-ext-cut 2001:db8::1 > 2001:db9::2\n", ""},
        {"IPv6, a later fragment", v6_later_fragment, 0,
         "1700000000.250000 tcp 2001:db8::1 > 2001:db9::2\n", ""},
        {"IPv6, 39 of the 40 header bytes", v6_header_cut, 1, "", "packet 1: truncated IPv6 header"},
    };
    put_file("ranges", ranges);
    expect(bb(NULL, "build --keys cidr -o c.bbf ranges"), 0, "", NULL);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        frame f = {0};
        rows[i].make(&f);
        write_capture("m.pcap", DLT_EN10MB, &f, 1);
        res r = bb(NULL, "query --pcap m.pcap c.bbf");
        cr_expect_eq(r.rc, rows[i].rc, "%s: exit %d", rows[i].name, r.rc);
        cr_expect_str_eq(r.out, rows[i].out, "%s: stdout", rows[i].name);
        if (*rows[i].err) cr_expect(strstr(r.err, rows[i].err), "%s: stderr %s", rows[i].name, r.err);
        else cr_expect_str_eq(r.err, "", "%s: stderr", rows[i].name);
        res_free(&r);
    }
}

/* Bytes of a classic pcap file header (pcap-savefile(5)): magic, 2.4, zone, sigfigs,
 * snaplen, link type. */
static void file_header(FILE *f, uint32_t dlt) {
    uint32_t h[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, dlt};
    cr_assert_eq(fwrite(h, 4, 6, f), 6); /* host order: libpcap reads either */
}

static void record(FILE *f, const frame *fr, uint32_t caplen_field, size_t bytes) {
    uint32_t h[4] = {1700000000, 0, caplen_field, (uint32_t)fr->n};
    cr_assert_eq(fwrite(h, 4, 4, f), 4);
    cr_assert_eq(fwrite(fr->b, 1, bytes, f), bytes);
}

Test(netcli, pcap_truncated_and_corrupt) {
    put_file("ranges", ranges);
    expect(bb(NULL, "build --keys cidr -o c.bbf ranges"), 0, "", NULL);
    frame ok = {0}, short_ip = {0}, bad_ihl = {0};
    ether(&ok, NULL, 0, 0x0800);
    ipv4(&ok, 6, "10.0.0.1", "10.0.0.2", 1, 2);
    ether(&short_ip, NULL, 0, 0x0800);
    put(&short_ip, ok.b + 14, 10); /* half an IPv4 header captured */
    bad_ihl = ok;
    bad_ihl.b[14] = 0x43; /* IHL 3 */
    /* Packet 3 says 42 bytes follow, the file ends after 10. */
    FILE *f = fopen("cut.pcap", "wb");
    cr_assert_not_null(f);
    file_header(f, 1);
    record(f, &ok, (uint32_t)ok.n, ok.n);
    record(f, &ok, (uint32_t)ok.n, ok.n);
    record(f, &ok, (uint32_t)ok.n, 10);
    fclose(f);
    res r = bb(NULL, "query --pcap cut.pcap c.bbf");
    cr_expect_eq(r.rc, 1);
    cr_expect(strstr(r.err, "cut.pcap: packet 3: truncated dump file"), "%s", r.err);
    cr_expect_str_eq(r.out, "1700000000.000000 tcp 10.0.0.1:1 > 10.0.0.2:2\n"
                            "1700000000.000000 tcp 10.0.0.1:1 > 10.0.0.2:2\n");
    res_free(&r);
    /* A record header cut in the middle. */
    f = fopen("cuthdr.pcap", "wb");
    file_header(f, 1);
    record(f, &ok, (uint32_t)ok.n, ok.n);
    cr_assert_eq(fwrite("\1\2\3\4\5", 1, 5, f), 5);
    fclose(f);
    expect(bb(NULL, "query --pcap cuthdr.pcap -c c.bbf"), 1, "", "cuthdr.pcap: packet 2: truncated dump file");
    /* Packets whose IP headers are cut or invalid are named and skipped. */
    f = fopen("bad.pcap", "wb");
    file_header(f, 1);
    record(f, &short_ip, (uint32_t)short_ip.n, short_ip.n);
    record(f, &bad_ihl, (uint32_t)bad_ihl.n, bad_ihl.n);
    record(f, &ok, (uint32_t)ok.n, ok.n);
    fclose(f);
    r = bb(NULL, "query --pcap bad.pcap -c c.bbf");
    cr_expect_eq(r.rc, 1);
    cr_expect_str_eq(r.out, "1\n");
    cr_expect(strstr(r.err, "bad.pcap: packet 1: truncated IPv4 header"), "%s", r.err);
    cr_expect(strstr(r.err, "bad.pcap: packet 2: corrupt IPv4 header (IHL below 5)"), "%s", r.err);
    res_free(&r);
    put_file("notpcap", "hello, world\n");
    expect(bb(NULL, "query --pcap notpcap c.bbf"), 1, "", "cannot read capture 'notpcap'");
    expect(bb(NULL, "query --pcap missing.pcap c.bbf"), 1, "", "cannot read capture 'missing.pcap'");
    /* A link type we do not read. */
    frame any = {0};
    put(&any, "xxxx", 4);
    write_capture("ppp.pcap", DLT_PPP, &any, 1);
    expect(bb(NULL, "query --pcap ppp.pcap c.bbf"), 1, "", "link type PPP is not supported");
}
