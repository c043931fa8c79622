/*
 * The budget's admission rules on hand-made events (harness/run/mem_budget.c),
 * with the answers worked out here. A learned model takes the largest
 * bytes per state and the largest untracked share over the partitions it
 * was learned from, so it can ask more than any of them used: partition A
 * held 100 bytes synthesizing with RSS 150 above the baseline (k 0.5), B
 * 120 proving with RSS 125 above it (k 0.04); the model needs 1.5 x 120 =
 * 180 a partition. Under a budget whose room (160) is below that but above
 * what A and B raised RSS to (250 and 225 with the baseline of 100), a
 * third partition is admitted alone, since A and B ran alone within it;
 * under a budget below what A raised RSS to, it is refused, and so is a
 * partition a loaded model (--model) says does not fit.
 */
#include <errno.h>
#include <stdint.h>

#include "harness/run/mem_budget.h"
#include "tests/common.h"

static uint64_t next_id = 1;

static void event(mem_budget_t *b, int proof, int part, uint64_t bytes, bool is_free)
{
    struct mem_event ev = {.id = next_id++, .bytes = bytes, .kind = MEM_KIND_AUX, .device = MEM_HOST,
                           .proof = proof, .partition = part, .is_free = is_free};
    mem_budget_sink(b, &ev);
}

/* A and B learned, one after the other; returns the budget. */
static mem_budget_t *learned(uint64_t budget)
{
    mem_budget_t *b = NULL;
    CHECK(mem_budget_new(&b, budget, NULL, 100) == 0);
    uint64_t ra = 0, rb = 0;
    CHECK(mem_budget_admit_locked(b, 0, 0, &ra) == 1);
    CHECK(mem_budget_admit_locked(b, 0, 1, &rb) == 0); /* one at a time while learning */
    event(b, 0, 0, 100, false);
    mem_budget_on_rss(b, 250);
    event(b, 0, 0, 100, true);
    mem_budget_done_locked(b, 0, 0, false, &ra);
    CHECK(mem_budget_admit_locked(b, 0, 1, &rb) == 1);
    mem_budget_move_locked(b, 0, 1, MEM_BUDGET_PROVE, &rb);
    event(b, 0, 1, 120, false);
    mem_budget_on_rss(b, 225);
    event(b, 0, 1, 120, true);
    mem_budget_done_locked(b, 0, 1, false, &rb);
    return b;
}

int main(void)
{
    test_init("mem-budget-unit");
    /* room 160 < need 180, but A and B ran alone with RSS <= 260 */
    mem_budget_t *b = learned(260);
    uint64_t r = 0, r2 = 0;
    struct mem_budget_model probe = {.state_bytes = {100, 0, 120, 0}, .untracked_share = 0.5};
    CHECK(mem_budget_model_need(&probe, MEM_BUDGET_SYNTH) == 180);
    CHECK(mem_budget_admit_locked(b, 1, 0, &r) == 1);
    CHECK(r == 160);                                     /* alone: all the room */
    CHECK(mem_budget_admit_locked(b, 1, 1, &r2) == 0);   /* and nothing beside it */
    mem_budget_done_locked(b, 1, 0, false, &r);
    CHECK(mem_budget_reserved_locked(b) == 0);
    json_t *j = mem_budget_json(b);
    CHECK(json_integer_value(json_object_get(j, "admitted_alone")) == 1);
    CHECK(json_integer_value(json_object_get(json_object_get(j, "need_bytes"), "synthesizing")) == 180);
    json_decref(j);
    mem_budget_free(b);

    /* a budget below A's RSS (250): A did not run within it, so no fallback */
    b = learned(240);
    r = 0;
    CHECK(mem_budget_admit_locked(b, 1, 0, &r) == -E2BIG);
    mem_budget_free(b);

    /* a budget room enough for the model: admitted on the model's need */
    b = learned(100 + 2 * 180);
    r = r2 = 0;
    CHECK(mem_budget_admit_locked(b, 1, 0, &r) == 1 && r == 180);
    CHECK(mem_budget_admit_locked(b, 1, 1, &r2) == 1 && r2 == 180);
    mem_budget_free(b);

    /* a loaded model that says one partition does not fit: refused */
    struct mem_budget_model m = {.state_bytes = {100, 0, 120, 0}, .untracked_share = 0.5, .partitions = 4};
    CHECK(mem_budget_new(&b, 260, &m, 100) == 0);
    r = 0;
    CHECK(mem_budget_admit_locked(b, 0, 0, &r) == -E2BIG);
    mem_budget_free(b);
    return test_finish();
}
