/*
 * What zkbench says about itself beyond one command's usage: the top-level
 * help, the version line, the exit status of every command and the terms
 * its reports use; and, from the commands' option tables (cli.h), the
 * man page's include file (help2man) and the bash completion script, both
 * made at build time by hidden commands.
 */
#ifndef ZKB_CLI_DOCS_H
#define ZKB_CLI_DOCS_H

#include <stdio.h>

/* "zkbench 0.2.0 (commit 1a2b3c4d5e6f)\n": meson's project version and
 * the commit of the build (harness/version.h). */
void cli_docs_version(FILE *f);
/* zkbench --help. */
void cli_docs_help(FILE *f);
/* The exit-status table and the glossary, as zkbench help exit-status /
 * zkbench help terms print them. */
void cli_docs_exit_status(FILE *f);
void cli_docs_terms(FILE *f);
/* help2man's include file: NAME, every command's usage, EXIT STATUS and
 * GLOSSARY (zkbench __man). */
void cli_docs_man_include(FILE *f);
/* zkbench __complete [--bash | CMD]: the command names, one command's
 * options ("--name ARG" a line), or the bash completion script. 0, or 2 after one line for an
 * unknown CMD. */
int cli_docs_complete(int argc, char **argv);

#endif
