/*
 * The verdict engine's lines on a command's console (analyze.h,
 * analyze_verdict_lines): batch and watch print them as analyze does, word
 * for word, with the console's key width.
 */
#ifndef ZKB_SAY_VERDICT_H
#define ZKB_SAY_VERDICT_H

#include "harness/run/console.h"
#include "harness/diagnose/analyze.h"

/* Prints r's verdict lines: the "verdict" line after indent with
 * console_final (so that --quiet keeps it), the others after indent_rest
 * with console_say. */
void say_verdict(console_t *con, const analyze_result_t *r, const char *indent, const char *indent_rest);

#endif
