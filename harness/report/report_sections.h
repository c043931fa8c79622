/*
 * The sections of a run's report page (report_sections.c), in the order
 * the page shows them; each writes one part of the HTML body to f. The
 * page around them, the plots and the writing of the file are report.c's.
 */
#ifndef ZKB_REPORT_SECTIONS_H
#define ZKB_REPORT_SECTIONS_H

#include <jansson.h>
#include <stdio.h>

#include "harness/diagnose/analyze.h"

/* The verdict, the sentence with its numbers, which checks held. */
void report_sec_verdict(FILE *f, const analyze_result_t *r);
/* The headline numbers as cards: peak and baseline RSS, proofs, s/proof, pw, growth. */
void report_sec_facts(FILE *f, const analyze_result_t *r);
/* Memory by layer: a batch run's L0..GPU table, a watch run's floors. */
void report_sec_layers(FILE *f, const analyze_result_t *r);
/* Never-freed tracked buffers and GiB*s held by kind (batch), traced sites (watch). */
void report_sec_sites(FILE *f, const analyze_result_t *r);
/* The limit, the bytes a partition holds per state, the predicted peaks by pw. */
void report_sec_capacity(FILE *f, const analyze_result_t *r);
/* What each change would buy (analyze's what-if entries): the whatif
 * figure (svg: its drawn SVG, NULL when none; no_plot: why the plots are
 * missing, or NULL) and the entries as a table in their rank, model results
 * only marked; a run without entries says why in one line, with no figure
 * (report_whatif.c). */
void report_sec_whatif(FILE *f, const analyze_result_t *r, const char *svg, const char *no_plot);
/* Per-proof and per-stage times (batch), the proof boundaries (watch). */
void report_sec_times(FILE *f, const analyze_run_t *run, const analyze_result_t *r);
/* The run's settings and measurements from run.json (report_settings.c):
 * every scalar of it and of its config, machine, versions, params,
 * circuit_shape, gpu_plan, summary, baseline and memory_events objects,
 * nested ones flattened (summary.proof_wall_ms.avg), each value formatted
 * (sizes, durations, counts), none that was not measured. */
void report_sec_settings(FILE *f, const json_t *rj);

#endif
