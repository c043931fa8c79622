/* A watch run's partition states from its marks (watch_states.h). */
#include "harness/cli/watch_states.h"

#include <stdio.h>
#include <string.h>

#include "harness/run/mark_states.h"

json_t *watch_states_apply(const char *dir, char *line, size_t cap)
{
    mark_states_t s;
    char err[4400] = "";
    line[0] = '\0';
    int rc = mark_states_fill(dir, &s, err, sizeof err);
    if (rc < 0) {
        snprintf(line, cap, "partition states not counted: %s", err);
        return json_pack("{s:s}", "error", err);
    }
    if (s.marks == 0 && s.malformed == 0)
        return NULL;
    char problems[640];
    mark_states_problems(problems, sizeof problems, &s);
    if (s.marks == 0) {
        snprintf(line, cap, "no state mark counted: %s", problems);
        return mark_states_json(&s);
    }
    char most[200] = "";
    size_t n = 0;
    for (int i = 0; i < MARK_STATE_COUNT; i++)
        if (s.most[i] > 0 && n < sizeof most)
            n += (size_t)snprintf(most + n, sizeof most - n, "%s%s up to %d", n ? ", " : "",
                                  mark_state_column((enum mark_state)i), s.most[i]);
    snprintf(line, cap, "%zu state marks (%zu with a partition id, %zu per process), %zu partitions: %s in "
             "samples.csv%s%s", s.marks, s.with_id, s.without_id, s.partitions, most[0] ? most : "no state held",
             problems[0] ? "; " : "", problems);
    return mark_states_json(&s);
}
