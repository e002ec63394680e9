/* SPDX-License-Identifier: MIT */
/*
 * nomem_memstream.c - a preload library (LD_PRELOAD) for test_keyreader.c: malloc fails with
 * ENOMEM for the size glibc's open_memstream asks for when the stream first grows past the
 * BUFSIZ bytes it starts with (2 * BUFSIZ + 100, _IO_str_overflow), as it would when memory
 * has run out, and notes each refusal in the file $BB_NOMEM_LOG, so that the test knows it
 * tested something. Every other size goes to the real malloc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Default visibility: the build hides symbols, and a hidden malloc would not interpose. */
__attribute__((visibility("default"))) void *malloc(size_t size) {
    static void *(*real)(size_t);
    if (size == 2 * BUFSIZ + 100) {
        const char *log = getenv("BB_NOMEM_LOG");
        int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
        if (fd >= 0) {
            ssize_t n = write(fd, "refused\n", 8); /* a short write still leaves the file */
            (void)n;
            close(fd);
        }
        errno = ENOMEM;
        return NULL;
    }
    if (!real) real = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    return real(size);
}
