/* SPDX-License-Identifier: MIT */
/*
 * atomicfile.c - bb_write_file_atomically: the one way this project replaces a file. The new
 * content goes to `path`.tmp.XXXXXX in the same directory (the name cut to fit NAME_MAX), is
 * fsynced, renamed over the target and the directory is fsynced, so a reader (or a crash)
 * sees the old complete file or the new complete one, never a half-written one; on any error
 * the temporary file is removed and the target untouched. A symlink is followed (its final
 * target is replaced and the link stays, as editors do), a dangling one is refused, and so is
 * a target that is not a regular file: renaming over a FIFO or a device node would replace
 * the node instead of writing to it.
 *
 * Why an exported function (blockbloom.h) and not an internal helper: its users are bb_save
 * here, and two that live outside this shared library, libblockbloom_parquet (`parquet
 * index`) and the CLI (`build --slice`). The core is built with hidden visibility, so an
 * internal function cannot be called from them; compiling this file into each of them (or
 * an internal static library linked into each) would put three private copies into one
 * process and a second definition of the same name into any static link of both libraries.
 * One documented entry point keeps a single copy and states the guarantees where users read.
 * The content comes as a list of byte ranges, so callers need no file descriptor or writer
 * callback: a filter is its header, payload and trailer; a Parquet copy its head and tail.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every system call that can be interrupted is retried on EINTR; errno is kept from the call
 * that failed (close and unlink during clean-up do not overwrite it). */
static void close_keep_errno(int fd) {
    int e = errno;
    close(fd);
    errno = e;
}

/* Write all n bytes, resuming after short writes. Chunks of 1 GiB: Linux moves at most
 * 0x7ffff000 bytes per call anyway, and ssize_t must hold the result. */
static bool write_full(int fd, const uint8_t *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* The permission bits open(path, O_CREAT, 0666) would give: the process umask, read from
 * /proc/self/status (Linux >= 4.7) because umask(2) can only be read by changing it, which
 * races with other threads. Without /proc: 0600, mkstemp's own safe default. */
static mode_t new_file_mode(void) {
    unsigned mask = 077;
    FILE *fp = fopen("/proc/self/status", "re");
    if (fp) {
        char line[256];
        while (fgets(line, sizeof line, fp))
            if (sscanf(line, "Umask: %o", &mask) == 1) break;
        fclose(fp);
    }
    return (mode_t)(0666 & ~mask);
}

/* mkstemp creates mode 0600; a replaced file keeps its permission bits, a new one gets the
 * umask's (the owner becomes the saving user either way). */
static bool set_mode(int fd, const char *path) {
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? (st.st_mode & 0777) : new_file_mode();
    return fchmod(fd, mode) == 0;
}

/* fsync the directory holding `path` so the rename itself survives a crash (rename(2) is
 * atomic, but only durable once the directory is synced). Truncates `path` in place.
 * EINVAL means the file system cannot sync directories: there is nothing more to do. */
static bool sync_parent(char *path) {
    char *slash = strrchr(path, '/');
    const char *dir = path;
    if (!slash)
        dir = ".";
    else
        slash[slash == path] = '\0'; /* "/name" -> "/", "a/b/name" -> "a/b" */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = fsync(fd) == 0 || errno == EINVAL;
    close_keep_errno(fd);
    return ok;
}

/* The file to replace: `path` itself, or a symlink's final target; only ever a regular file.
 * *target is malloc'd. BB_E_IO with errno ENOENT for a dangling link, EISDIR or EINVAL for
 * other file types, or lstat's errno. */
static bb_status save_target(const char *path, char **target) {
    struct stat st;
    *target = NULL;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) return BB_E_IO;
        *target = strdup(path);
        return *target ? BB_OK : BB_E_NOMEM;
    }
    if (S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL); /* fails (ENOENT) on a dangling link */
        if (!*target || stat(*target, &st) != 0) {
            free(*target);
            *target = NULL;
            return BB_E_IO;
        }
    } else if (!(*target = strdup(path))) {
        return BB_E_NOMEM;
    }
    if (!S_ISREG(st.st_mode)) {
        free(*target);
        *target = NULL;
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return BB_E_IO;
    }
    return BB_OK;
}

/* Mode, every part, fsync, close (NFS reports failed writes at close); errno of the failure. */
static bool write_parts(int fd, const char *path, const bb_file_part *parts, size_t n_parts) {
    bool ok = set_mode(fd, path);
    for (size_t i = 0; ok && i < n_parts; i++)
        ok = write_full(fd, parts[i].data, parts[i].len_bytes);
    ok = ok && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) return false;
    errno = e;
    return ok;
}

/* `path`.tmp.XXXXXX, its file name cut short so that it stays within NAME_MAX: names of
 * NAME_MAX - 10 .. NAME_MAX bytes are valid and must be writable too (ENAMETOOLONG from
 * mkostemp otherwise). malloc'd; NULL when out of memory. */
static char *temp_name(const char *path) {
    static const char suffix[] = ".tmp.XXXXXX";
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash + 1 - path) : 0, name = strlen(path + dir);
    if (name > NAME_MAX - (sizeof suffix - 1)) name = NAME_MAX - (sizeof suffix - 1);
    char *tmp = malloc(dir + name + sizeof suffix);
    if (!tmp) return NULL;
    memcpy(tmp, path, dir + name);
    memcpy(tmp + dir + name, suffix, sizeof suffix);
    return tmp;
}

bb_status bb_write_file_atomically(const char *path_in, const bb_file_part *parts,
                                   size_t n_parts) {
    if (!path_in || (!parts && n_parts)) return BB_E_INVAL;
    for (size_t i = 0; i < n_parts; i++)
        if (!parts[i].data && parts[i].len_bytes) return BB_E_INVAL;
    char *path;
    bb_status st = save_target(path_in, &path);
    if (st != BB_OK) return st;
    char *tmp = temp_name(path);
    if (!tmp) {
        free(path);
        return BB_E_NOMEM;
    }
    bb_status s = BB_E_IO;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0) {
        if (write_parts(fd, path, parts, n_parts) && rename(tmp, path) == 0) {
            /* From here `path` is the new file; a failed directory sync only means the
             * rename may not survive a crash, and that is what BB_E_IO then reports. */
            s = sync_parent(tmp) ? BB_OK : BB_E_IO;
        } else {
            int e = errno;
            unlink(tmp);
            errno = e;
        }
    }
    free(tmp);
    free(path);
    return s;
}
