/*
 * The what-if figure (plot_figs.h): analyze's what-if entries (JSON
 * what_if[], docs/diagnosis.md "What-if") as horizontal bars in analyze's
 * rank, the pw gained first, then the peak saved: each bar the peak RSS the
 * change saves at the run's pw, beside it that figure and the largest pw
 * that fits with the change; the changes the prover cannot make (model
 * results only) hatched.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/plot/plot.h"
#include "harness/plot/plot_figs.h"
#include "harness/plot/plot_style.h"
#include "harness/run/units.h"

/* A field of an entry as a gnuplot tab-separated cell: tabs and line
 * breaks become spaces, and a cell never starts with a quote (gnuplot
 * would read it as a quoted string). */
static void cell(FILE *f, const char *s)
{
    fputc('\t', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        fputc(*p < 32 || *p == 127 ? ' ' : *p == '"' ? '\'' : *p, f);
}

void plot_whatif_now_text(char *buf, size_t len, const json_t *e, int largest_pw)
{
    if (json_is_true(json_object_get(e, "largest_pw_now_any")))
        snprintf(buf, len, "any (pw above %d adds no memory)", largest_pw);
    else if (largest_pw >= 0)
        snprintf(buf, len, "%d", largest_pw);
    else
        snprintf(buf, len, "none");
}

void plot_whatif_pw_text(char *buf, size_t len, const json_t *e)
{
    const json_t *lp = json_object_get(e, "largest_pw"), *now = json_object_get(e, "largest_pw_now");
    if (!json_is_integer(lp) || !json_is_integer(now)) {
        snprintf(buf, len, "no limit to fit a pw to");
        return;
    }
    char a[24], b[24];
    if (json_is_true(json_object_get(e, "largest_pw_now_any")))
        snprintf(a, sizeof a, "any");
    else
        snprintf(a, sizeof a, "%lld", (long long)json_integer_value(now));
    if (json_is_true(json_object_get(e, "largest_pw_any")))
        snprintf(b, sizeof b, "any");
    else
        snprintf(b, sizeof b, "%lld", (long long)json_integer_value(lp));
    snprintf(buf, len, "pw %s \xe2\x86\x92 %s", a, b);
}

/* An entry's words: its label on the left axis (rank, change, a model
 * result marked) and the two lines beside its bar: the peak saved with the
 * largest pw, and what makes the change (its switch, or why none does). */
static void entry_texts(char lab[200], char beside[128], char by[200], size_t i, const json_t *e)
{
    bool model = !json_is_true(json_object_get(e, "checkable"));
    double s = json_number_value(json_object_get(e, "peak_saved_bytes"));
    const char *made_by = json_string_value(json_object_get(e, "made_by"));
    char pw[64], b1[32];
    snprintf(lab, 200, "%zu. %s%s", i + 1, json_string_value(json_object_get(e, "change")),
             model ? " (model result only)" : "");
    plot_whatif_pw_text(pw, sizeof pw, e);
    snprintf(beside, 128, "%s %s; %s", s < 0 ? "adds" : "saves", fmt_bytes(b1, fabs(s)), pw);
    snprintf(by, 200, "%s", made_by ? made_by : "");
}

/* Characters of UTF-8 text (what its width on the figure goes by). */
static size_t chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The figure's geometry in pixels (common.gp: 1400 wide, sans 11: 7 to 9
 * pixels a character, the most for capitals, digits and underscores): the
 * margins are set here, because gnuplot reckons a label's width by a wider
 * character and leaves a left margin far wider than the labels, and the
 * room for the text beside the bars is reckoned from them. */
#define FIG_WIDTH_PX 1400.0
#define LABEL_PX 8.0
#define TEXT_PX 9.0
#define RIGHT_PX 24.0

int plot_whatif(plot_ctx_t *c, char *err, size_t errlen)
{
    const analyze_result_t *r = c->res;
    const json_t *arr = r ? json_object_get(r->json, "what_if") : NULL;
    size_t n = json_array_size(arr);
    if (n == 0)
        return 0; /* no entries: no figure (the report says why) */
    double smax = 0, smin = 0;
    size_t n_model = 0, lab_max = 0;
    size_t i;
    const json_t *e;
    char lab[200], beside[128], by[200];
    json_array_foreach(arr, i, e) {
        double s = json_number_value(json_object_get(e, "peak_saved_bytes"));
        smax = fmax(smax, s), smin = fmin(smin, s);
        n_model += !json_is_true(json_object_get(e, "checkable"));
        entry_texts(lab, beside, by, i, e);
        lab_max = chars(lab) > lab_max ? chars(lab) : lab_max;
    }
    plot_unit_t u = plot_unit_for(fmax(smax, -smin) > 0 ? fmax(smax, -smin) : 1024 * 1024);
    double hi = fmax(smax, 0) / u.div, lo = fmin(smin, 0) / u.div, span = hi - lo > 0 ? hi - lo : 1;
    double xlo = lo < 0 ? lo - 0.05 * span : 0, xhi = hi > 0 ? hi * 1.05 : 1;
    /* the plot's width left of the axis labels; each bar's text must end
     * inside it: the bar's end at (end - xlo) / (xhi - xlo) of it */
    double left = fmin(LABEL_PX * (double)lab_max + 24, 0.6 * FIG_WIDTH_PX), width = FIG_WIDTH_PX - left - RIGHT_PX;
    FILE *fm = plot_gp_open(c->tmp, "whatif.dat", err, errlen), *fo = plot_gp_open(c->tmp, "whatif_model.dat", err, errlen);
    json_array_foreach(arr, i, e) {
        bool model = !json_is_true(json_object_get(e, "checkable"));
        double s = json_number_value(json_object_get(e, "peak_saved_bytes")) / u.div, end = fmax(s, 0);
        entry_texts(lab, beside, by, i, e);
        size_t text = chars(beside) > chars(by) ? chars(beside) : chars(by);
        double room = fmax(width - 24 - TEXT_PX * (double)text, 0.2 * width);
        xhi = fmax(xhi, xlo + (end - xlo) * width / room);
        FILE *to = model ? fo : fm;
        if (!to)
            continue;
        fprintf(to, "%zu\t%.9g\t%.9g", i + 1, s, end);
        cell(to, lab);
        cell(to, beside);
        cell(to, by);
        fputc('\n', to);
    }
    int rc = 0;
    if (!fm || plot_gp_close(fm, err, errlen) < 0)
        rc = -EIO;
    if (!fo || plot_gp_close(fo, err, errlen) < 0)
        rc = -EIO;
    FILE *f;
    if (rc < 0 || !(f = plot_gp_open(c->tmp, "vars.gp", err, errlen)))
        return -EIO;

    char t1[400], t2[400], b1[32], b2[32], b3[32], b4[64];
    snprintf(t1, sizeof t1, "%s: what each change saves at pw %d, ranked by the pw gained, then the peak saved",
             c->name, r->pw);
    double base = analyze_predict_peak(r, r->pw);
    if (isfinite(r->limit_rss))
        snprintf(t2, sizeof t2, "predicted peak RSS %s; limit %s less %.0f%%: %s; largest pw that fits now %s",
                 fmt_bytes(b1, base), fmt_bytes(b2, r->ram_bytes), 100 * r->margin, fmt_bytes(b3, r->limit_rss),
                 (plot_whatif_now_text(b4, sizeof b4, json_array_get(json_object_get(r->json, "what_if"), 0),
                                       r->largest_pw),
                  b4));
    else
        snprintf(t2, sizeof t2, "predicted peak RSS %s; no RAM size or memory limit to fit a pw to",
                 fmt_bytes(b1, base));
    plot_vars_str(f, "title1", t1);
    plot_vars_str(f, "title2", t2);
    plot_vars_str(f, "unit", u.name);
    plot_vars_num(f, "lm", left / FIG_WIDTH_PX);
    plot_vars_num(f, "rm", 1 - RIGHT_PX / FIG_WIDTH_PX);
    plot_vars_num(f, "xlo", xlo);
    plot_vars_num(f, "xhi", xhi);
    plot_vars_num(f, "n", (double)n);
    fprintf(f, "has_made = %d\nhas_model = %d\n", n_model < n, n_model > 0);
    plot_vars_str(f, "made_label", "a switch of zkbench batch makes the change (named beside its bar)");
    plot_vars_str(f, "model_label", "model result only: the prover cannot make the change");
    if ((rc = plot_gp_close(f, err, errlen)) < 0)
        return rc;
    return plot_figs_draw(&c->figs, c->tmp, "whatif.gp", "whatif", err, errlen);
}
