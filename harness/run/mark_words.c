/* The words of a state mark (mark_states.h): "STATE start|end [ID]". Apart
 * from the replay, so that analyze reads the grammar without the writer. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "harness/run/mark_states.h"

static const char *const state_col[MARK_STATE_COUNT] = {"n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish"};
static const char *const state_word[MARK_STATE_COUNT] = {"synth", "wait", "queue", "prove", "finish"};

const char *mark_state_column(enum mark_state s)
{
    return (unsigned)s < MARK_STATE_COUNT ? state_col[s] : NULL;
}

const char *mark_state_word(enum mark_state s)
{
    return (unsigned)s < MARK_STATE_COUNT ? state_word[s] : "?";
}

/* The words of each state: the capacity model's and batch's stage names
 * and their common spellings. */
static int state_of(const char *w, size_t n)
{
    static const struct {
        const char *w;
        enum mark_state s;
    } words[] = {
        {"synth", MARK_STATE_SYNTH},     {"synthesis", MARK_STATE_SYNTH},  {"synthesize", MARK_STATE_SYNTH},
        {"synthesizing", MARK_STATE_SYNTH}, {"wait", MARK_STATE_WAIT},     {"waiting", MARK_STATE_WAIT},
        {"blocked", MARK_STATE_WAIT},    {"queue", MARK_STATE_QUEUE},      {"queued", MARK_STATE_QUEUE},
        {"prove", MARK_STATE_PROVE},     {"proving", MARK_STATE_PROVE},    {"gpu", MARK_STATE_PROVE},
        {"finish", MARK_STATE_FINISH},   {"finishing", MARK_STATE_FINISH},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].w) == n && strncasecmp(words[i].w, w, n) == 0)
            return (int)words[i].s;
    return -1;
}

int mark_state_parse(mark_state_mark_t *out, const char *name)
{
    const char *tok[4];
    size_t len[4], nt = 0;
    for (const char *p = name ? name : ""; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t')
            q++;
        if (nt == 4)
            return nt && state_of(tok[0], len[0]) >= 0 ? -EINVAL : 0;
        tok[nt] = p;
        len[nt++] = (size_t)(q - p);
        p = q;
    }
    int s = nt ? state_of(tok[0], len[0]) : -1;
    if (s < 0)
        return 0;
    if (nt < 2 || nt > 3)
        return -EINVAL;
    bool start = len[1] == 5 && strncasecmp(tok[1], "start", 5) == 0,
         end = len[1] == 3 && strncasecmp(tok[1], "end", 3) == 0;
    if (!start && !end)
        return -EINVAL;
    mark_state_mark_t m = {.state = (enum mark_state)s, .start = start};
    if (nt == 3) {
        if (len[2] >= sizeof m.id)
            return -EINVAL;
        memcpy(m.id, tok[2], len[2]);
    }
    *out = m;
    return 1;
}

