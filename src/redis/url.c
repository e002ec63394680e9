/* SPDX-License-Identifier: MIT */
/*
 * url.c - the addresses of the Redis binding: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
 * (the IANA "redis" URI scheme, as redis-cli -u and the client libraries read it), HOST:PORT
 * and HOST alone. USER and PASSWORD are percent-decoded (RFC 3986 section 2.1), so a password
 * may hold ':', '@' or '/' written as %3A, %40, %2F; the last '@' ends the userinfo (no host,
 * port or database holds one), so a raw '@' or '/' in a password is read too. An IPv6 host is written in brackets,
 * [::1]:6379, so a user's address has at most one ':' outside them: "h:p:5" is a bad port, not
 * host "h:p". Only an address a server gave (bbr_addr_parse) may be a bare IPv6 address whose
 * last ':' separates the port, which is how Redis prints IPv6 nodes in MOVED and ASK replies.
 * No ?parameters are read, so "?x=1" is refused by name. rediss:// (TLS) is refused: the
 * hiredis this builds on (Debian 12: 0.14.1) has no TLS. A URL is never quoted back with its
 * password: bbr_url_redact writes "***" in its place, splitting the userinfo where the parser
 * does (userinfo_end), and every message quotes the redacted text or the part after the '@'.
 */
#include "redis_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bbr_url_free(bbr_url *u) {
    free(u->user);
    if (u->password) memset(u->password, 0, strlen(u->password));
    free(u->password);
    u->user = u->password = NULL;
}

/* Where the userinfo of address s ends: its '@', or NULL when there is none; *info is where
 * it starts (after "SCHEME://", else s). A host, port or database never holds an '@', so the
 * last '@' of the address ends the userinfo, and a password may hold raw '@' and '/'. The
 * parser and bbr_url_redact both split here, so the text redacted is the password read. */
static const char *userinfo_end(const char *s, const char **info) {
    const char *scheme = strstr(s, "://");
    *info = scheme ? scheme + 3 : s;
    return strrchr(*info, '@');
}

/* The text of s with the password of its userinfo (after its first ':') replaced by "***". */
void bbr_url_redact(const char *s, char *out, size_t cap) {
    const char *info, *at = userinfo_end(s, &info);
    const char *colon = at ? memchr(info, ':', (size_t)(at - info)) : NULL;
    if (!colon) snprintf(out, cap, "%s", s);
    else snprintf(out, cap, "%.*s:***%s", (int)(colon - s), s, at);
}

static int hex(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode p[0 .. len) into a new string; NULL on a bad escape or a NUL byte (which
 * AUTH could not carry through a C string). *nomem says which. */
static char *decode(const char *p, size_t len, bool *nomem) {
    char *out = malloc(len + 1), *o = out;
    *nomem = !out;
    if (!out) return NULL;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)p[i];
        if (c == '%') {
            int hi = i + 2 < len ? hex(p[i + 1]) : -1, lo = hi >= 0 ? hex(p[i + 2]) : -1;
            if (lo < 0 || (c = hi * 16 + lo) == 0) {
                free(out);
                return NULL;
            }
            i += 2;
        }
        *o++ = (char)c;
    }
    *o = '\0';
    return out;
}

static bb_status bad(bb_redis *r, const char *s, const char *why) {
    char shown[300];
    bbr_url_redact(s, shown, sizeof shown);
    return bbr_fail(r, BB_E_INVAL, "redis: bad address '%s': %s (expected "
                    "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or HOST:PORT)", shown, why);
}

/* A host name's characters (RFC 1123 labels, and '_' that some internal names carry); an IPv6
 * address in brackets has its own (hex digits, ':', '.', and '%' before a zone). */
static bool host_chars(const char *h, size_t len, bool v6) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)h[i];
        if (!(isalnum(c) || c == '.' || c == '-' || c == '_' || (v6 && (c == ':' || c == '%'))))
            return false;
    }
    return true;
}

/* HOST[:PORT] of p[0 .. len) into u->host, u->port (default 6379). A user's address has at most
 * one ':' outside brackets; a server's (server_form: MOVED, CLUSTER SLOTS) may be a bare IPv6
 * address, whose last ':' separates the port. */
static bb_status host_port(bb_redis *r, const char *s, const char *p, size_t len,
                           bbr_url *u, bool server_form) {
    const char *host = p, *port = NULL;
    size_t hl = len;
    bool v6 = len && p[0] == '[';
    if (v6) {
        const char *close = memchr(p, ']', len);
        if (!close) return bad(r, s, "no ']' after an IPv6 address");
        host = p + 1;
        hl = (size_t)(close - host);
        if (close + 1 < p + len) {
            if (close[1] != ':') return bad(r, s, "text after ']'");
            port = close + 2;
        }
    } else {
        const char *colon = server_form ? NULL : memchr(p, ':', len);
        for (size_t i = 0; server_form && i < len; i++)
            if (p[i] == ':') colon = p + i;
        if (colon) {
            hl = (size_t)(colon - p);
            port = colon + 1;
        }
        v6 = server_form && memchr(p, ':', hl);
    }
    if (hl == 0) return bad(r, s, "no host");
    if (hl >= sizeof u->host) return bad(r, s, "host name too long");
    if (!host_chars(host, hl, v6)) {
        char why[sizeof u->host + 16];
        snprintf(why, sizeof why, "bad host '%.*s'", (int)hl, host);
        return bad(r, s, why);
    }
    memcpy(u->host, host, hl);
    u->host[hl] = '\0';
    u->port = 6379;
    if (port) {
        size_t pl = (size_t)(p + len - port);
        long v = 0;
        for (size_t i = 0; i < pl && v <= 65535; i++)
            v = isdigit((unsigned char)port[i]) ? v * 10 + (port[i] - '0') : 65536;
        if (pl == 0 || v < 1 || v > 65535) {
            char why[96];
            snprintf(why, sizeof why, "bad port '%.*s' (a number from 1 to 65535%s)",
                     (int)(pl < 20 ? pl : 20), port,
                     memchr(port, ':', pl) ? "; an IPv6 address goes in brackets" : "");
            return bad(r, s, why);
        }
        u->port = (int)v;
    }
    return BB_OK;
}

/* A '?' or '#' in p[0 .. end): no parameter is read, so each is refused by name rather than taken
 * for part of the port or the database. */
static bb_status no_query(bb_redis *r, const char *s, const char *p, const char *end) {
    const char *q = p;
    while (q < end && *q != '?' && *q != '#') q++;
    if (q == end) return BB_OK;
    char why[160];
    if (*q == '#') {
        snprintf(why, sizeof why, "a '#' fragment is not part of a Redis address");
    } else {
        size_t n = strcspn(q + 1, "=&#");
        snprintf(why, sizeof why, "unknown parameter '%.*s' (no ?parameters are read: the "
                 "database goes after '/', the password before '@', --timeout is an option)",
                 (int)(n < 40 ? n : 40), q + 1);
    }
    return bad(r, s, why);
}

static bb_status parse(bb_redis *r, const char *s, bbr_url *u, bool server_form) {
    memset(u, 0, sizeof *u);
    u->db = -1;
    if (!s || !*s) return bbr_fail(r, BB_E_INVAL, "redis: no address");
    if (strncmp(s, "rediss://", 9) == 0)
        return bbr_fail(r, BB_E_INVAL, "redis: rediss:// (TLS) is not supported: this "
                        "build's hiredis has no TLS; reach the server through a TLS tunnel "
                        "(stunnel, spiped) with a redis:// address");
    const char *p = s, *end;
    bool url = strncmp(s, "redis://", 8) == 0;
    if (url) p += 8;
    else if (strstr(s, "://"))
        return bad(r, s, "unknown scheme (only redis:// is supported)");
    end = p + strlen(p);
    const char *info, *at = userinfo_end(s, &info);
    if (at && !url) /* HOST:PORT has no userinfo: "u:pw@h" would read pw@h as the port */
        return bad(r, s, "a user or password needs the redis:// form "
                   "(redis://[[USER]:PASSWORD@]HOST[:PORT][/DB])");
    if (url) {
        if (at) {
            const char *colon = memchr(p, ':', (size_t)(at - p));
            bool nomem = false;
            if (colon ? colon > p : at > p) {
                u->user = decode(p, (size_t)((colon ? colon : at) - p), &nomem);
                if (!u->user) goto undecodable;
            }
            if (colon && !(u->password = decode(colon + 1, (size_t)(at - colon - 1), &nomem)))
                goto undecodable;
            p = at + 1;
            goto decoded;
        undecodable:
            bbr_url_free(u);
            return nomem ? bbr_fail(r, BB_E_NOMEM, "redis: out of memory")
                         : bad(r, s, "bad %-escape in the user or password");
        }
    decoded:
        if (no_query(r, s, p, end) != BB_OK) {
            bbr_url_free(u);
            return BB_E_INVAL;
        }
        const char *slash = memchr(p, '/', (size_t)(end - p));
        if (slash && slash + 1 < end) {
            long db = 0;
            for (const char *q = slash + 1; q < end && db <= INT_MAX; q++)
                db = isdigit((unsigned char)*q) ? db * 10 + (*q - '0') : (long)INT_MAX + 1;
            if (db > INT_MAX) {
                bbr_url_free(u);
                return bad(r, s, "the database after '/' must be a number");
            }
            u->db = (int)db;
        }
        if (slash) end = slash;
    } else if (no_query(r, s, p, end) != BB_OK) {
        return BB_E_INVAL;
    }
    bb_status st = host_port(r, s, p, (size_t)(end - p), u, server_form);
    if (st != BB_OK) bbr_url_free(u);
    return st;
}

bb_status bbr_url_parse(bb_redis *r, const char *s, bbr_url *u) { return parse(r, s, u, false); }

bb_status bbr_addr_parse(bb_redis *r, const char *s, bbr_url *u) { return parse(r, s, u, true); }
