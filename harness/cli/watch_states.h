/*
 * `zkbench watch --trace` and `zkbench trace collect`: once the program's
 * marks are in marks.csv, its partition states ("synth start", "prove end
 * 7": harness/run/mark_states.h) become samples.csv's occupancy columns,
 * with a run.json object and one line saying what was counted.
 */
#ifndef ZKB_WATCH_STATES_H
#define ZKB_WATCH_STATES_H

#include <jansson.h>
#include <stddef.h>

/* Fills DIR/samples.csv from DIR/marks.csv. Returns run.json's
 * "mark_states" object (new reference), or NULL when marks.csv holds no
 * state mark, well formed or not (line then ""). line gets what the
 * console says after "states": the marks counted, the most partitions in
 * each state, what was not counted; or why samples.csv was left as it was
 * (an unreadable or unwritable file: the run goes on without occupancy). */
json_t *watch_states_apply(const char *dir, char *line, size_t cap);

#endif
