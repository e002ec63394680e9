/* SPDX-License-Identifier: MIT */
/*
 * status.c - bb_strerror, the version string and the thread's detail text (bb_last_error;
 * lasterror.h says who writes it). Status values are pinned in blockbloom.h; this table only
 * names them.
 */
#include "internal.h"
#include "lasterror.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[BB_LAST_ERROR_CAP];

const char *bb_last_error(void) { return last_error; }

char *bb_error_buffer(void) { return last_error; }

bb_status bb_error_set(bb_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

const char *bb_version_string(void) { return BB_VERSION_STRING; }

const char *bb_strerror(bb_status status) {
    switch (status) {
    case BB_OK: return "success";
    case BB_E_INVAL: return "invalid argument";
    case BB_E_NOMEM: return "out of memory";
    case BB_E_TOO_LARGE: return "filter too large";
    case BB_E_IO: return "input/output error";
    case BB_E_TRUNCATED: return "truncated filter data";
    case BB_E_BAD_MAGIC: return "not a blockbloom filter (bad magic)";
    case BB_E_BAD_VERSION: return "unsupported file format version";
    case BB_E_CORRUPT: return "corrupt filter data (checksum mismatch)";
    case BB_E_INCONSISTENT: return "inconsistent filter header";
    case BB_E_UNSUPPORTED: return "not supported";
    case BB_E_MISMATCH: return "filters do not match";
    case BB_E_FULL: return "filter is full";
    case BB_E_ABSENT: return "key is not in the filter";
    case BB_E_READONLY: return "filter is read-only";
    case BB_E_MALFORMED: return "malformed URL, domain, address or range";
    case BB_E_SERVER: return "the server answered with an error";
    case BB_E_EXISTS: return "a filter of that name exists";
    case BB_E_NOT_FOUND: return "no filter of that name";
    case BB_E_WRONGTYPE: return "the name holds something other than a blockbloom filter";
    case BB_E_TIMEOUT: return "timed out";
    }
    return "unknown status";
}
