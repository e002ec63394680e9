/* SPDX-License-Identifier: MIT */
/*
 * lasterror.h - the thread's detail text behind bb_last_error(), shared by libblockbloom and
 * the libraries built on it (libblockbloom_parquet, libblockbloom_redis), so that one call
 * gives the detail of a failure in any of them. The buffer lives in libblockbloom (status.c);
 * bb_error_buffer and bb_error_set are exported for those libraries only and declared in no
 * public header. A call documented to give detail clears the text on entry and fills it when
 * it fails, so after a failure the text describes that failure, or is "".
 */
#ifndef BB_LASTERROR_H
#define BB_LASTERROR_H

#include "blockbloom.h"

/** Bytes of the buffer: room for a server's one-line reply and the node that sent it. */
#define BB_LAST_ERROR_CAP 512

/** This thread's buffer, BB_LAST_ERROR_CAP bytes, NUL-terminated. */
BB_API char *bb_error_buffer(void);

/** Format the detail text of a failure into the buffer (truncated to fit); returns s. */
BB_API bb_status bb_error_set(bb_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Empty the detail text (on entry to a call that gives detail). */
static inline void bb_error_clear(void) { bb_error_buffer()[0] = '\0'; }

#endif
