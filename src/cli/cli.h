/*
 * cli.h - what the blockbloom command's source files share: one entry point per subcommand
 * (one file each), the exit codes, and the error reporter. Only the CLI includes this.
 */
#ifndef BB_CLI_H
#define BB_CLI_H

#include "blockbloom.h"

/* Exit codes (documented in README "Command-line tool"). */
enum { BB_EXIT_OK = 0, BB_EXIT_RUNTIME = 1, BB_EXIT_USAGE = 2 };

int bb_cmd_build(int argc, char **argv);
int bb_cmd_add(int argc, char **argv);
int bb_cmd_query(int argc, char **argv);
int bb_cmd_info(int argc, char **argv);
int bb_cmd_demo(int argc, char **argv);

#endif
