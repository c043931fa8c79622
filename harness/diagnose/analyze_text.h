/*
 * The diagnosis of a run in words, as `zkbench analyze` prints it (and the
 * HTML report shows it): analyze_text.c.
 */
#ifndef ZKB_ANALYZE_TEXT_H
#define ZKB_ANALYZE_TEXT_H

#include <stdio.h>

#include "harness/diagnose/analyze.h"

/* Writes the report of r (a batch or a watch run) to f; dir is the run
 * folder as the user named it. */
void analyze_text_write(FILE *f, const char *dir, const analyze_result_t *r);

#endif
