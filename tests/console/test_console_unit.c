/*
 * The console's arithmetic (harness/run/console.h) against values worked
 * out by hand: the ETA's deadline from planted completion times (it counts
 * down, moves earlier at a completion, never later unless overdue, is never
 * negative), the duration format, the live line's sizes in auto units, and
 * the heartbeat lines off a terminal (a long phase, a long proof).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run/console.h"
#include "harness/run/run_clock.h"
#include "tests/check.h"


static void near(double got, double want, const char *what)
{
    CHECK(fabs(got - want) < 1e-9, "%s: %.9f, expected %.9f", what, got, want);
}

static void check_duration(double s, const char *want)
{
    char b[32];
    console_fmt_duration(b, s);
    CHECK(strcmp(b, want) == 0, "duration %.3f: '%s', expected '%s'", s, b, want);
}

/* Off a terminal, a long phase or a long proof prints a line once
 * CONSOLE_HEARTBEAT_S have passed without one, and not before: the run
 * clock is real, so the console's state is moved back in time instead of
 * waiting. */
static void check_heartbeats(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL, "memstream");
    if (!f)
        return;
    console_t c;
    console_init(&c, f, false);
    console_start(&c, run_clock_now());
    console_phase(&c, "generating the parameters");
    fflush(f);
    size_t after_phase = len;
    console_phase_tick(&c, 5u << 20);
    fflush(f);
    CHECK(len == after_phase, "a tick within the heartbeat printed: %s", buf + after_phase);
    c.last_line -= CONSOLE_HEARTBEAT_S + 1;
    c.phase_t -= 74.5; /* durations round up: 74.5 s and a little read 1m15s */
    console_phase_tick(&c, 5u << 20);
    fflush(f);
    CHECK(strstr(buf + after_phase, "  still generating the parameters: 1m15s, RSS 5.00 MiB\n") == buf + after_phase,
          "the phase's heartbeat: '%s'", buf + after_phase);
    size_t after_beat = len;
    console_phase_tick(&c, 5u << 20);
    fflush(f);
    CHECK(len == after_beat, "a second line right after a heartbeat: %s", buf + after_beat);
    console_phase_end(&c);

    /* during the work: what the pipeline holds, the proofs done, the sizes */
    console_work(&c, 4, 2);
    fflush(f);
    size_t before = len;
    console_occ_t occ = {.synthesizing = 2, .waiting = 1, .queued = 1, .proving = 1, .finishing = 0, .done = 2};
    console_progress(&c, &occ, (uint64_t)3 << 30, (uint64_t)4 << 30);
    fflush(f);
    CHECK(len == before, "progress within the heartbeat printed: %s", buf + before);
    c.last_line -= CONSOLE_HEARTBEAT_S + 1;
    console_progress(&c, &occ, (uint64_t)3 << 30, (uint64_t)4 << 30);
    fflush(f);
    const char *line = buf + before;
    CHECK(strncmp(line, "  at ", 5) == 0 && strstr(line, " s: 0/4 proofs done; partitions: 2 synthesizing, 1 waiting "
                                                      "for a queue slot, 1 queued, 1 proving, 0 finishing, 2 of 8 done"
                                                      "  RSS 3.00 GiB  peak 4.00 GiB\n"),
          "the work's heartbeat: '%s'", line);
    fclose(f);
    free(buf);
}

int main(void)
{
    check_duration(0, "0 s");
    check_duration(0.2, "1 s"); /* rounded up: 0 s only when due */
    check_duration(59, "59 s");
    check_duration(59.5, "1m00s");
    check_duration(61, "1m01s");
    check_duration(3599, "59m59s");
    check_duration(3599.2, "1h00m");
    check_duration(7445, "2h04m"); /* hours and whole minutes */
    check_duration(NAN, "--");
    check_duration(-1, "--");

    /* 4 proofs; work from t = 0 */
    console_eta_t e;
    console_eta_init(&e);
    CHECK(isnan(console_eta_left(&e, 5)), "unknown before the first completion");
    console_eta_update(&e, 10, 0, 10, 1, 4); /* 10 s for the first: 3 x 10 s left */
    near(console_eta_left(&e, 10), 30, "after proof 1");
    near(console_eta_left(&e, 25), 15, "counting down");
    /* proof 2 at 26: mean 16 s since the first, 2 left: deadline 58 > 40, kept at 40 */
    console_eta_update(&e, 26, 0, 10, 2, 4);
    near(console_eta_left(&e, 26), 14, "a slower proof does not move the deadline later");
    /* proof 3 at 28: mean 9, last 2: 9 per proof, 1 left: deadline 37 < 40 */
    console_eta_update(&e, 28, 0, 10, 3, 4);
    near(console_eta_left(&e, 28), 9, "a faster pace moves it earlier");
    CHECK(!e.overdue, "not overdue before the deadline");
    near(console_eta_left(&e, 40), 0, "never negative");
    CHECK(e.overdue, "overdue once the deadline passed with a proof left");
    /* done: 0 at once */
    console_eta_update(&e, 45, 0, 10, 4, 4);
    near(console_eta_left(&e, 45), 0, "all done");
    CHECK(!e.overdue, "not overdue when done");

    /* overdue, then renewed (later) by the next completion */
    console_eta_init(&e);
    console_eta_update(&e, 2, 0, 2, 1, 5); /* deadline 2 + 4 x 2 = 10 */
    near(console_eta_left(&e, 11), 0, "overdue");
    console_eta_update(&e, 12, 0, 2, 2, 5); /* mean 10, 3 left: deadline 42 */
    near(console_eta_left(&e, 12), 30, "renewed after overdue");
    /* the slower of the mean and the last interval: mean (20-2)/2 = 9, last 8 */
    console_eta_update(&e, 20, 0, 2, 3, 5); /* 9 x 2 = 18: deadline 38 < 42 */
    near(console_eta_left(&e, 20), 18, "mean interval");
    console_eta_update(&e, 34, 0, 2, 4, 5); /* mean 32/3 = 10.67, last 14: 14 x 1 = 48 > 38: kept */
    near(console_eta_left(&e, 34), 4, "kept when the estimate is later");

    /* the same sequence drawn as live lines: the ETA seconds never rise
     * between two overdue states, and no size below 1 GiB reads as GiB */
    char path[] = "/tmp/zkb-console-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    CHECK(f != NULL, "temporary file");
    if (f) {
        console_t c;
        console_init(&c, f, false);
        CHECK(!c.tty, "a file is not a terminal");
        console_start(&c, 0);
        console_proof_t p = {.order = 1, .proof = 0, .t_submit_ms = 0, .t_done_ms = 1234.5, .verified = 1};
        console_work(&c, 3, 2);
        console_proof(&c, &p, 27u << 20, 900u << 20);
        console_say(&c, "x %d", 1);
        rewind(f);
        char line[512];
        CHECK(fgets(line, sizeof line, f) != NULL, "a proof line");
        CHECK(strstr(line, "proof 1/3 done at 1.23 s") == line, "proof line: %s", line);
        CHECK(strstr(line, "RSS 27.0 MiB") && strstr(line, "peak 900 MiB") && !strstr(line, "GiB"),
              "sizes: %s", line);
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "x 1\n") == 0, "a said line: %s", line);
        CHECK(c.last_done_ms == 1234.5, "last_done_ms %f", c.last_done_ms);
        fclose(f);
        /* quiet: only console_final */
        f = fopen(path, "w+");
        console_init(&c, f, true);
        console_start(&c, 0);
        console_work(&c, 3, 2);
        console_proof(&c, &p, 1, 1);
        console_say(&c, "hidden");
        console_final(&c, "verdict %s", "v");
        rewind(f);
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "verdict v\n") == 0, "quiet: %s", line);
        CHECK(!fgets(line, sizeof line, f), "quiet: a second line: %s", line);
        fclose(f);
    }
    unlink(path);
    check_heartbeats();
    if (fails)
        fprintf(stderr, "%d check(s) failed\n", fails);
    else
        printf("console: all checks passed\n");
    return fails ? 1 : 0;
}
