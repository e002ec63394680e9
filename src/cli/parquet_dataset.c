/* SPDX-License-Identifier: MIT */
/*
 * parquet_dataset.c - the FILE operands of `parquet info`, `probe` and `index` as datasets:
 * an analytics table is a directory of many files, often hive-partitioned
 * (`sales/date=2026-12-01/part-0.parquet`). An operand that is a directory stands for every
 * file named *.parquet below it (recursively; names starting with '.' or '_' are skipped, as
 * Spark and Hive skip _SUCCESS, _metadata and .crc files); one holding a wildcard (* ? [)
 * that names no existing file is a glob(3) pattern, whose matches (directories among them
 * expanded again) it stands for; any other operand is a file. Files are listed in byte order
 * of their paths within each operand, so runs are repeatable.
 *
 * A directory is listed once per operand, however many paths lead to it: symbolic links
 * back to a parent (`d/self -> ..`) end the walk there rather than down every path the
 * kernel resolves (two such links in one directory gave 2^40 paths before ELOOP:
 * `parquet info` had not ended after 30 s), and a second link to a directory adds none of
 * its files again (they keep the path that comes first in byte order).
 *
 * Each file keeps the path relative to its operand's root (the directory, or a glob's
 * longest leading part free of wildcards), which `parquet index` recreates under its output
 * directory: `index sales -o indexed` writes indexed/date=2026-12-01/part-0.parquet.
 */
#include "parquet_dataset.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool add(cli_pq_inputs *in, const char *path, size_t root_len) {
    if (in->n == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 16;
        cli_pq_input *v = realloc(in->v, cap * sizeof *v);
        if (!v) return false;
        in->v = v;
        in->cap = cap;
    }
    char *p = strdup(path);
    if (!p) return false;
    const char *rel = p + root_len;
    while (*rel == '/') rel++;
    in->v[in->n++] = (cli_pq_input){p, rel};
    return true;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_parquet_name(const char *name) {
    size_t n = strlen(name);
    return name[0] != '.' && name[0] != '_' && n > 8 && strcmp(name + n - 8, ".parquet") == 0;
}

/* The directories one walk has listed, by device and inode: an open-addressing set. */
typedef struct seen_dirs {
    struct seen_dir { dev_t dev; ino_t ino; bool used; } *v;
    size_t n, cap; /* cap a power of two, kept at least twice n */
} seen_dirs;

static size_t seen_slot(const seen_dirs *s, dev_t dev, ino_t ino) {
    uint64_t h = ((uint64_t)dev * 0x9E3779B97F4A7C15u) ^ ((uint64_t)ino * 0xC2B2AE3D27D4EB4Fu);
    size_t i = (size_t)(h ^ (h >> 29)) & (s->cap - 1);
    while (s->v[i].used && (s->v[i].dev != dev || s->v[i].ino != ino)) i = (i + 1) & (s->cap - 1);
    return i;
}

/* 1 if (dev, ino) is new (now recorded), 0 if seen before, -1 out of memory. */
static int seen_add(seen_dirs *s, dev_t dev, ino_t ino) {
    if (2 * (s->n + 1) > s->cap) {
        seen_dirs g = {calloc(s->cap ? 2 * s->cap : 64, sizeof *g.v), s->n, s->cap ? 2 * s->cap : 64};
        if (!g.v) return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i].used) g.v[seen_slot(&g, s->v[i].dev, s->v[i].ino)] = s->v[i];
        free(s->v);
        *s = g;
    }
    size_t i = seen_slot(s, dev, ino);
    if (s->v[i].used) return 0;
    s->v[i] = (struct seen_dir){dev, ino, true};
    s->n++;
    return 1;
}

/* Every *.parquet file below dir, sorted; hidden and '_' entries skipped; a directory seen
 * before in this walk (a symbolic link loop, or a second link) adds nothing. */
static int walk_dir(cli_pq_inputs *in, const char *dir, size_t root_len, int depth,
                    seen_dirs *seen) {
    struct stat ds;
    if (stat(dir, &ds) == 0) {
        int fresh = seen_add(seen, ds.st_dev, ds.st_ino);
        if (fresh < 0) {
            cli_error("out of memory");
            return BB_EXIT_RUNTIME;
        }
        if (!fresh) return BB_EXIT_OK;
    }
    if (depth > 64) {
        cli_error("'%s': directories nested more than 64 deep", dir);
        return BB_EXIT_RUNTIME;
    }
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("cannot read directory '%s': %s", dir, strerror(errno));
        return BB_EXIT_RUNTIME;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int st = BB_EXIT_OK;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **v = realloc(names, cap * sizeof *v);
            if (!v) {
                st = BB_EXIT_RUNTIME;
                break;
            }
            names = v;
        }
        if (!(names[n] = strdup(e->d_name))) {
            st = BB_EXIT_RUNTIME;
            break;
        }
        n++;
    }
    closedir(d);
    if (st != BB_EXIT_OK) cli_error("out of memory");
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n && st == BB_EXIT_OK; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        struct stat sb;
        if (!path) {
            cli_error("out of memory");
            st = BB_EXIT_RUNTIME;
            break;
        }
        snprintf(path, len, "%s/%s", dir, names[i]);
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
            st = walk_dir(in, path, root_len, depth + 1, seen);
        else if (is_parquet_name(names[i]) && !add(in, path, root_len)) {
            cli_error("out of memory");
            st = BB_EXIT_RUNTIME;
        }
        free(path);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return st;
}

static int expand_dir(cli_pq_inputs *in, const char *dir, size_t root_len) {
    size_t before = in->n;
    seen_dirs seen = {0};
    int st = walk_dir(in, dir, root_len, 0, &seen);
    free(seen.v);
    if (st == BB_EXIT_OK && in->n == before) {
        cli_error("no *.parquet file under the directory '%s'", dir);
        st = BB_EXIT_RUNTIME;
    }
    return st;
}

/* The length of the pattern's leading directories free of wildcards ("data/" of
 * "data/date=*"). */
static size_t glob_root(const char *pattern) {
    size_t wild = strcspn(pattern, "*?[");
    size_t root = 0;
    for (size_t i = 0; i < wild; i++)
        if (pattern[i] == '/') root = i + 1;
    return root;
}

static int expand_glob(cli_pq_inputs *in, const char *pattern) {
    glob_t g;
    int rc = glob(pattern, 0, NULL, &g);
    if (rc == GLOB_NOMATCH) {
        cli_error("no file matches '%s'", pattern);
        return BB_EXIT_RUNTIME;
    }
    if (rc != 0) {
        cli_error("cannot expand '%s': %s", pattern, rc == GLOB_NOSPACE ? "out of memory"
                                                                          : "read error");
        return BB_EXIT_RUNTIME;
    }
    size_t root = glob_root(pattern);
    int st = BB_EXIT_OK;
    for (size_t i = 0; i < g.gl_pathc && st == BB_EXIT_OK; i++) {
        struct stat sb;
        if (stat(g.gl_pathv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            st = expand_dir(in, g.gl_pathv[i], root);
        } else if (!add(in, g.gl_pathv[i], root)) {
            cli_error("out of memory");
            st = BB_EXIT_RUNTIME;
        }
    }
    globfree(&g);
    return st;
}

int cli_pq_expand(char *const *operands, size_t n, cli_pq_inputs *in) {
    memset(in, 0, sizeof *in);
    in->dataset = n > 1;
    int st = BB_EXIT_OK;
    for (size_t i = 0; i < n && st == BB_EXIT_OK; i++) {
        const char *op = operands[i];
        struct stat sb;
        bool exists = stat(op, &sb) == 0;
        if (exists && S_ISDIR(sb.st_mode)) {
            in->dataset = true;
            st = expand_dir(in, op, strlen(op));
        } else if (!exists && strpbrk(op, "*?[")) {
            in->dataset = true;
            st = expand_glob(in, op);
        } else if (!add(in, op, 0)) {
            cli_error("out of memory");
            st = BB_EXIT_RUNTIME;
        } else {
            /* A plain file keeps its base name as its path within the dataset. */
            const char *slash = strrchr(op, '/');
            in->v[in->n - 1].rel = in->v[in->n - 1].path + (slash ? slash - op + 1 : 0);
        }
    }
    if (st != BB_EXIT_OK) cli_pq_inputs_free(in);
    return st;
}

void cli_pq_inputs_free(cli_pq_inputs *in) {
    for (size_t i = 0; i < in->n; i++) free(in->v[i].path);
    free(in->v);
    memset(in, 0, sizeof *in);
}
