/* SPDX-License-Identifier: MIT */
/*
 * url.c - the addresses of the Redis binding: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
 * (the IANA "redis" URI scheme, as redis-cli -u and the client libraries read it), HOST:PORT
 * and HOST alone. USER and PASSWORD are percent-decoded (RFC 3986 section 2.1), so a password
 * may hold ':', '@' or '/' written as %3A, %40, %2F. An IPv6 host is written in brackets,
 * [::1]:6379; without brackets the last ':' separates the port, which is how Redis itself
 * prints IPv6 nodes in MOVED, ASK and CLUSTER SLOTS replies. rediss:// (TLS) is refused: the
 * hiredis this builds on (Debian 12: 0.14.1) has no TLS. A URL is never quoted back with its
 * password: bbr_url_redact writes "***" in its place.
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

/* The text of s with the password of its userinfo replaced by "***". */
void bbr_url_redact(const char *s, char *out, size_t cap) {
    const char *scheme = strstr(s, "://");
    const char *auth = scheme ? scheme + 3 : s;
    const char *at = strchr(auth, '@'), *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
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

/* HOST[:PORT] of p[0 .. len) into u->host, u->port (default 6379). */
static bb_status host_port(bb_redis *r, const char *s, const char *p, size_t len,
                           bbr_url *u) {
    const char *host = p, *port = NULL;
    size_t hl = len;
    if (len && p[0] == '[') { /* [IPv6] */
        const char *close = memchr(p, ']', len);
        if (!close) return bad(r, s, "no ']' after an IPv6 address");
        host = p + 1;
        hl = (size_t)(close - host);
        if (close + 1 < p + len) {
            if (close[1] != ':') return bad(r, s, "text after ']'");
            port = close + 2;
        }
    } else {
        const char *colon = NULL;
        for (size_t i = 0; i < len; i++)
            if (p[i] == ':') colon = p + i;
        if (colon) {
            hl = (size_t)(colon - p);
            port = colon + 1;
        }
    }
    if (hl == 0) return bad(r, s, "no host");
    if (hl >= sizeof u->host) return bad(r, s, "host name too long");
    memcpy(u->host, host, hl);
    u->host[hl] = '\0';
    u->port = 6379;
    if (port) {
        size_t pl = (size_t)(p + len - port);
        long v = 0;
        for (size_t i = 0; i < pl && v <= 65535; i++)
            v = isdigit((unsigned char)port[i]) ? v * 10 + (port[i] - '0') : 65536;
        if (pl == 0 || v < 1 || v > 65535) return bad(r, s, "the port must be 1 .. 65535");
        u->port = (int)v;
    }
    return BB_OK;
}

bb_status bbr_url_parse(bb_redis *r, const char *s, bbr_url *u) {
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
    if (url) {
        const char *at = NULL;
        for (const char *q = p; q < end && *q != '/'; q++)
            if (*q == '@') at = q; /* the last '@' before the path: a raw '@' in a password */
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
    decoded:;
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
    }
    bb_status st = host_port(r, s, p, (size_t)(end - p), u);
    if (st != BB_OK) bbr_url_free(u);
    return st;
}
