/* The console of batch and watch; see console.h. */
#include "harness/run/console.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "harness/run/run_clock.h"
#include "harness/run/units.h"

/* Seconds between two redraws of a live line (completions redraw at once). */
#define CONSOLE_REDRAW_S 0.25

/* ---- ETA ------------------------------------------------------------------- */

void console_eta_init(console_eta_t *e)
{
    e->deadline = e->t_last = 0;
    e->known = e->overdue = e->finished = false;
}

void console_eta_update(console_eta_t *e, double now, double t_work, double t_first_done, unsigned done,
                        unsigned count)
{
    if (done == 0)
        return;
    double per_proof = now - t_work;
    if (done >= 2) {
        per_proof = (now - t_first_done) / (done - 1);
        if (e->known && now - e->t_last > per_proof)
            per_proof = now - e->t_last;
    }
    if (!(per_proof >= 0))
        per_proof = 0;
    double deadline = now + per_proof * (double)(count > done ? count - done : 0);
    if (done >= count)
        deadline = now;
    if (!e->known || e->overdue || deadline < e->deadline)
        e->deadline = deadline; /* later only when the old one has passed */
    e->overdue = false;
    e->finished = done >= count;
    e->t_last = now;
    e->known = true;
}

double console_eta_left(console_eta_t *e, double now)
{
    if (!e->known)
        return NAN;
    double left = e->deadline - now;
    if (!(left > 0)) {
        left = 0;
        e->overdue = !e->finished;
    }
    return left;
}

const char *console_fmt_duration(char buf[32], double seconds)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, 32, "--");
        return buf;
    }
    double s = ceil(seconds);
    if (s < 60)
        snprintf(buf, 32, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, 32, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, 32, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    return buf;
}

/* Elapsed run time: "12.4 s", "3m05s". */
static const char *fmt_elapsed(char buf[32], double s)
{
    if (s < 60)
        snprintf(buf, 32, "%.1f s", s < 0 ? 0 : s);
    else
        console_fmt_duration(buf, s);
    return buf;
}

/* ---- lines ----------------------------------------------------------------- */

void console_init(console_t *c, FILE *out, bool quiet)
{
    memset(c, 0, sizeof *c);
    c->out = out;
    c->tty = isatty(fileno(out)) == 1;
    c->quiet = quiet;
    console_eta_init(&c->eta);
}

void console_start(console_t *c, double t0)
{
    c->t0 = t0;
    c->last_line = run_clock_now();
}

void console_end_live(console_t *c)
{
    if (!c->live_len)
        return;
    fputc('\n', c->out);
    fflush(c->out);
    c->live_len = 0;
}

/* Erases the live line (the next line is written in its place). */
static void clear_live(console_t *c)
{
    if (!c->live_len)
        return;
    fprintf(c->out, "\r%*s\r", (int)c->live_len, "");
    c->live_len = 0;
}

static void vline(console_t *c, const char *fmt, va_list ap)
{
    console_end_live(c);
    vfprintf(c->out, fmt, ap);
    fputc('\n', c->out);
    fflush(c->out);
    c->last_line = run_clock_now();
}

void console_say(console_t *c, const char *fmt, ...)
{
    if (c->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vline(c, fmt, ap);
    va_end(ap);
}

void console_final(console_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(c, fmt, ap);
    va_end(ap);
}

/* Redraws the live line with text, padded over a longer previous one. */
static void live(console_t *c, const char *text)
{
    size_t n = strlen(text);
    fprintf(c->out, "\r%s", text);
    if (c->live_len > n)
        fprintf(c->out, "%*s", (int)(c->live_len - n), "");
    fflush(c->out);
    c->live_len = n > c->live_len ? n : c->live_len;
    c->last_draw = run_clock_now();
}

/* ---- phases ---------------------------------------------------------------- */

void console_phase(console_t *c, const char *what)
{
    snprintf(c->phase, sizeof c->phase, "%s", what);
    c->phase_t = run_clock_now();
    console_say(c, "%s ...", what);
}

void console_phase_tick(console_t *c, uint64_t rss)
{
    if (c->quiet || !c->phase[0])
        return;
    double now = run_clock_now();
    char el[32], b[32], text[256];
    if (c->tty) {
        if (now - c->last_draw < CONSOLE_REDRAW_S)
            return;
        snprintf(text, sizeof text, "  %s, RSS %s", fmt_elapsed(el, now - c->phase_t), fmt_bytes(b, (double)rss));
        live(c, text);
    } else if (now - c->last_line >= CONSOLE_HEARTBEAT_S) {
        console_say(c, "  still %s: %s, RSS %s", c->phase, fmt_elapsed(el, now - c->phase_t),
                    fmt_bytes(b, (double)rss));
    }
}

void console_phase_end(console_t *c)
{
    if (c->tty)
        clear_live(c);
    c->phase[0] = 0;
}

/* ---- the proofs ------------------------------------------------------------ */

void console_work(console_t *c, unsigned count, unsigned partitions)
{
    c->t_work = run_clock_now();
    c->count = count;
    c->partitions = partitions;
    c->done = 0;
    console_eta_init(&c->eta);
}

static void draw_work(console_t *c, double now, uint64_t rss, uint64_t peak)
{
    char el[32], r[32], p[32], eta[32], text[256];
    double left = console_eta_left(&c->eta, now);
    if (c->done >= c->count)
        snprintf(eta, sizeof eta, "0 s");
    else if (c->eta.overdue)
        snprintf(eta, sizeof eta, "overdue"); /* renewed at the next completion */
    else
        console_fmt_duration(eta, left);
    snprintf(text, sizeof text, "proofs %u/%u  %s  RSS %s  peak %s  ETA %s", c->done, c->count,
             fmt_elapsed(el, now - c->t0), fmt_bytes(r, (double)rss), fmt_bytes(p, (double)peak), eta);
    live(c, text);
}

void console_proof(console_t *c, const console_proof_t *pp, uint64_t rss, uint64_t peak)
{
    double now = run_clock_now();
    c->done = pp->order;
    c->last_done_ms = pp->t_done_ms;
    if (pp->order == 1)
        c->t_first_done = now;
    console_eta_update(&c->eta, now, c->t_work, c->t_first_done, c->done, c->count);
    if (c->quiet)
        return;
    if (c->tty) {
        draw_work(c, now, rss, peak);
        return;
    }
    char r[32], p[32];
    console_say(c, "proof %u/%u done at %.2f s (proof %u, %.2f s, %s)  RSS %s  peak %s", pp->order, c->count,
                pp->t_done_ms / 1e3, pp->proof, (pp->t_done_ms - pp->t_submit_ms) / 1e3,
                pp->verified == 1 ? "verified" : pp->verified == 0 ? "FAILED verification" : "not verified",
                fmt_bytes(r, (double)rss), fmt_bytes(p, (double)peak));
}

void console_progress(console_t *c, const console_occ_t *occ, uint64_t rss, uint64_t peak)
{
    if (c->quiet)
        return;
    double now = run_clock_now();
    if (c->tty) {
        if (now - c->last_draw >= CONSOLE_REDRAW_S)
            draw_work(c, now, rss, peak);
        return;
    }
    if (now - c->last_line < CONSOLE_HEARTBEAT_S)
        return;
    char r[32], p[32], what[256] = "", wait[64] = "";
    if (occ) {
        if (occ->waiting)
            snprintf(wait, sizeof wait, ", %llu waiting for a queue slot", occ->waiting);
        snprintf(what, sizeof what, "; partitions: %llu synthesizing%s, %llu queued, %llu proving, %llu finishing, "
                                    "%llu of %llu done",
                 occ->synthesizing, wait, occ->queued, occ->proving, occ->finishing, occ->done,
                 (unsigned long long)c->count * c->partitions);
    }
    console_say(c, "  at %.1f s: %u/%u proofs done%s  RSS %s  peak %s", now - c->t0, c->done, c->count, what,
                fmt_bytes(r, (double)rss), fmt_bytes(p, (double)peak));
}

void console_watch(console_t *c, uint64_t rss, uint64_t peak)
{
    if (c->quiet)
        return;
    double now = run_clock_now();
    char el[32], r[32], p[32], text[160];
    if (c->tty) {
        if (now - c->last_draw < CONSOLE_REDRAW_S)
            return;
        snprintf(text, sizeof text, "watching  %s  RSS %s  peak %s", fmt_elapsed(el, now - c->t0),
                 fmt_bytes(r, (double)rss), fmt_bytes(p, (double)peak));
        live(c, text);
    } else if (now - c->last_line >= CONSOLE_HEARTBEAT_S) {
        console_say(c, "  at %.1f s: RSS %s  peak %s", now - c->t0, fmt_bytes(r, (double)rss),
                    fmt_bytes(p, (double)peak));
    }
}
