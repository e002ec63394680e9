/* SPDX-License-Identifier: MIT */
/*
 * main.c - the blockbloom command: global options (--help, --version, --isa), `help [COMMAND]`,
 * and dispatch to one subcommand per file (build.c, add.c, query.c, info.c, remove.c,
 * merge.c, export.c, demo.c; parquet.c when built with libblockbloom_parquet).
 *
 * Global options are parsed with getopt_long in "+" mode (stop at the first non-option), so
 * the subcommand's options reach the subcommand. The subcommand then gets argv starting at
 * its own name, with that slot set to "blockbloom" because glibc's getopt prefixes its
 * messages ("unrecognized option ...") with argv[0], and optind = 0, which makes glibc
 * re-initialise getopt for the new vector. Exit codes: see cli.h and docs/CLI.md "Exit status".
 */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"build", bb_cmd_build, "create a filter file from keys"},
    {"add", bb_cmd_add, "add keys to a filter file"},
    {"query", bb_cmd_query, "print the keys possibly in a filter (like grep -Fx)"},
    {"info", bb_cmd_info, "describe a filter file (--json for JSON)"},
    {"remove", bb_cmd_remove, "remove keys from a counting filter file"},
    {"merge", bb_cmd_merge, "write the union of filter files"},
    {"export", bb_cmd_export, "write the plain blocked filter of a counting filter"},
    {"demo", bb_cmd_demo, "run the demonstration"},
    {"bench", bb_cmd_bench, "run the benchmark program (bench/; see docs/PERFORMANCE.md)"},
#ifdef BB_HAVE_REDIS
    {"redis", bb_cmd_redis, "keep a filter in Redis / Redis Cluster (BF.* commands)"},
#endif
#ifdef BB_WITH_PARQUET
    {"parquet", bb_cmd_parquet, "Parquet files' Bloom filters: info, probe, extract, index"},
#endif
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static int usage(void) {
    fputs("Usage: blockbloom COMMAND [OPTION]... [ARG]...\n"
          "Build and query Bloom filter files (cache-line-blocked, sectorized, classic, counting,\n"
          "scalable or Parquet's split-block).\n"
          "\n"
          "Commands:\n",
          stdout);
    for (size_t i = 0; i < N_COMMANDS; i++)
        printf("  %-8s %s\n", commands[i].name, commands[i].summary);
    /* The kernels' names come from the library's ISA table, so a new one needs no edit. */
    char names[160] = "", bars[160] = "";
    for (size_t i = 0, u = 0, b = 0; i < bb_isa_count(); i++) {
        const char *name = bb_isa_to_string(bb_isa_at(i));
        if (u < sizeof names) u += (size_t)snprintf(names + u, sizeof names - u, "%s, ", name);
        if (b < sizeof bars)
            b += (size_t)snprintf(bars + b, sizeof bars - b, "%s%s", i ? "|" : "", name);
    }
    printf("  help     show this help, or a command's help: help COMMAND\n"
           "\n"
           "Options:\n"
           "      --isa=KERNEL  run every operation on KERNEL, as BB_ISA does: one of\n"
           "                    %sor auto (the automatic choice)\n"
           "  -h, --help        show this help and exit\n"
           "  -V, --version     show the version and exit\n"
           "\n"
           "Run 'blockbloom COMMAND --help' for the options of a command.\n"
           "Environment: BB_ISA=%s chooses the filter kernel.\n"
           "Exit status: 0 success, 1 error (input/output, corrupt file, memory), 2 usage "
           "error.\n",
           names, bars);
    return cli_finish_stdout(BB_EXIT_OK);
}

static int version(void) {
    printf("blockbloom %s (library %s)\n", BB_VERSION_STRING, bb_version_string());
    return cli_finish_stdout(BB_EXIT_OK);
}

/* --isa KERNEL: the kernel for the whole run. It is also put in BB_ISA, so the benchmark
 * program that `bench` runs, and the check of BB_ISA below, see the same choice. The names
 * in the message come from the library, so a new kernel needs no edit here. */
static int use_isa(const char *name) {
    bb_isa isa;
    if (bb_isa_from_string(name, &isa) != BB_OK) {
        char names[160] = "auto";
        size_t used = strlen(names);
        for (size_t i = 0; i < bb_isa_count() && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, ", %s",
                                     bb_isa_to_string(bb_isa_at(i)));
        return cli_usage_error(NULL, "unknown kernel '%s' (expected %s)", name, names);
    }
    if (!bb_isa_available(isa)) {
        cli_error("kernel '%s' is not available on this CPU (it runs %s)", name, bb_isa_name());
        return BB_EXIT_RUNTIME;
    }
    if (setenv("BB_ISA", isa == BB_ISA_AUTO ? "" : name, 1) != 0 || bb_set_isa(isa) != BB_OK) {
        cli_error("cannot select the kernel '%s'", name);
        return BB_EXIT_RUNTIME;
    }
    return BB_EXIT_OK;
}

static const command *find_command(const char *name) {
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* Run `cmd` on argv[0 .. argc), argv[0] being the command's name. */
static int run_command(const command *cmd, int argc, char **argv) {
    argv[0] = (char *)"blockbloom";
    optind = 0;
    return cmd->run(argc, argv);
}

/* `blockbloom help [COMMAND]` */
static int help(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) return usage();
    const command *cmd = find_command(argv[1]);
    if (!cmd) return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
    char *help_argv[] = {argv[1], (char *)"--help", NULL};
    return run_command(cmd, 2, help_argv);
}

int main(int argc, char **argv) {
    enum { OPT_ISA = 256 };
    static const struct option long_opts[] = {{"help", no_argument, NULL, 'h'},
                                              {"version", no_argument, NULL, 'V'},
                                              {"isa", required_argument, NULL, OPT_ISA},
                                              {NULL, 0, NULL, 0}};
    argv[0] = (char *)"blockbloom";
    /* Past a file-size limit (ulimit -f) SIGXFSZ would kill the program in the middle of a
     * save, without a message and with the temporary file left behind; ignored, the write
     * fails with EFBIG and is reported and cleaned up like any other write error. */
    signal(SIGXFSZ, SIG_IGN);
    cli_stdio_claim();
    cli_stdio_wait();
    int c;
    while ((c = getopt_long(argc, argv, "+hV", long_opts, NULL)) != -1) {
        if (c == 'h') return usage();
        if (c == 'V') return version();
        if (c == OPT_ISA) {
            int st = use_isa(optarg);
            if (st != BB_EXIT_OK) return st;
            continue;
        }
        return cli_bad_option(NULL);
    }
    if (optind >= argc) return cli_usage_error(NULL, "missing command");
    const char *name = argv[optind];
    if (strcmp(name, "help") == 0) return help(argc - optind, argv + optind);
    const command *cmd = find_command(name);
    if (!cmd) return cli_usage_error(NULL, "unknown command '%s'", name);
    cli_check_isa_env();
    return run_command(cmd, argc - optind, argv + optind);
}
