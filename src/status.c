/* SPDX-License-Identifier: MIT */
/*
 * status.c - bb_strerror and the version string. Status values are pinned in blockbloom.h;
 * this table only names them.
 */
#include "internal.h"

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
    }
    return "unknown status";
}
