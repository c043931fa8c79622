/*
 * The report's what-if section (report_sections.h): analyze's what-if
 * entries (JSON what_if[], docs/diagnosis.md "What-if") as the whatif
 * figure and a table, in analyze's rank.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/plot/plot.h"
#include "harness/report/report_html.h"
#include "harness/report/report_sections.h"
#include "harness/run/units.h"

static const char *sz(char buf[32], double v)
{
    if (!isfinite(v))
        return "\xe2\x80\x93";
    return fmt_bytes(buf, fabs(v) < 0.5 ? 0 : v); /* not "-0 B" */
}

/* Why a run has no entries, in one line. */
static const char *why_none(const analyze_result_t *r)
{
    if (r->watch)
        return "a watch run has no model of a pipeline's states to change: the what-if comes from a "
               "zkbench batch run's capacity model";
    const char *why = json_string_value(json_object_get(r->json, "what_if_why"));
    return why ? why : "the analysis gives no what-if entries";
}

void report_sec_whatif(FILE *f, const analyze_result_t *r, const char *svg, const char *no_plot)
{
    const json_t *arr = json_object_get(r->json, "what_if");
    size_t n = json_array_size(arr);
    fputs("<h2 id=\"what-if\">What-if: what each change would buy</h2>\n", f);
    if (n == 0) {
        fputs("<p class=\"muted\">No what-if entries: ", f);
        html_esc(f, why_none(r));
        fputs(".</p>\n", f);
        return;
    }
    char a[32], b[64], c[32];
    fprintf(f, "<p>The capacity model with one thing changed, at this run's pw %d", r->pw);
    if (isfinite(r->limit_rss))
        fprintf(f, ", against the limit less its margin, %s (largest pw that fits now: %s)", sz(a, r->limit_rss),
                (plot_whatif_now_text(b, sizeof b, json_array_get(arr, 0), r->largest_pw), b));
    fputs("; ranked by the pw gained, then the peak saved. Each change names the switch of zkbench batch that "
          "makes it, or is a model result only.</p>\n",
          f);
    if (svg) {
        fputs("<figure id=\"plot-whatif\">\n", f);
        if (html_inline_svg(f, svg, "whatif", "whatif: what each change would buy, ranked") < 0)
            fputs("<p class=\"warn\">whatif.svg could not be read.</p>\n", f);
        fputs("<figcaption>whatif: each bar the peak RSS the change saves at this run's pw, the largest pw that "
              "then fits beside it; model results only hatched</figcaption>\n</figure>\n",
              f);
    } else if (no_plot) {
        fputs("<p class=\"muted\">No figure: ", f);
        html_esc(f, no_plot);
        fputs(".</p>\n", f);
    }
    fprintf(f, "<table id=\"what-if-table\">\n<tr><th class=\"n\">rank</th><th>change</th><th>made by</th>"
               "<th class=\"n\">predicted peak at pw %d</th><th class=\"n\">peak saved</th><th>largest pw</th>"
               "<th>s/proof change</th></tr>\n",
            r->pw);
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e) {
        bool model = !json_is_true(json_object_get(e, "checkable"));
        char pw[64];
        plot_whatif_pw_text(pw, sizeof pw, e);
        fprintf(f, "<tr class=\"%s\"><td class=\"n\">%zu</td><td>", model ? "model-only" : "made", i + 1);
        html_esc(f, json_string_value(json_object_get(e, "change")));
        if (model)
            fputs(" <span class=\"tag off\">model result only</span>", f);
        fputs("</td><td>", f);
        if (model)
            fputs("<span class=\"muted\">", f);
        else
            fputs("<code>", f);
        html_esc(f, json_string_value(json_object_get(e, "made_by")));
        fputs(model ? "</span>" : "</code>", f);
        double saved = json_number_value(json_object_get(e, "peak_saved_bytes"));
        fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s%s</td><td>",
                sz(a, json_number_value(json_object_get(e, "peak_bytes"))), saved < 0 ? "adds " : "",
                sz(b, fabs(saved)));
        html_esc(f, pw);
        fputs("</td><td>", f);
        const json_t *sp = json_object_get(e, "s_per_proof");
        if (json_is_number(sp)) {
            snprintf(c, sizeof c, "%.2f s", json_number_value(sp));
            if (isfinite(r->s_per_proof))
                fprintf(f, "%s (now %.2f s)", c, r->s_per_proof);
            else
                html_esc(f, c);
        } else {
            fputs("cannot be given", f);
            const char *why = json_string_value(json_object_get(e, "s_per_proof_why"));
            if (why) {
                fputs(": <span class=\"muted\">", f);
                html_esc(f, why);
                fputs("</span>", f);
            }
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}
