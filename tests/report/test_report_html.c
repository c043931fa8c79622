/*
 * The report's HTML helpers on crafted input: html_esc escapes the five
 * characters that matter, and html_inline_svg drops what could run or
 * fetch (scripts, foreignObject, event handlers, external and javascript:
 * references, the prolog and doctype) while prefixing ids and the
 * references to them, whatever the quoting and spacing gnuplot uses, and
 * names the figure in place of gnuplot's <title>Gnuplot</title>.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/report/report_html.h"

static int failures;

static void expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "FAIL %s:\n  got  %s\n  want %s\n", what, got, want);
        failures++;
    }
}

/* Runs html_inline_svg on svg (written to a temporary file); the output, owned by the caller. */
static char *inline_svg(const char *svg, const char *prefix, int *rc)
{
    char path[] = "/tmp/zkb-test-svg-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, svg, strlen(svg)) != (ssize_t)strlen(svg)) {
        perror("tmp");
        exit(1);
    }
    close(fd);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    *rc = html_inline_svg(f, path, prefix, "memory: RSS <over> time");
    fclose(f);
    unlink(path);
    return out;
}

int main(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    html_esc(f, "a<b>&\"c\"'d' é");
    html_esc(f, NULL);
    html_esc_n(f, "<<x", 2);
    fclose(f);
    expect("html_esc", out, "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39; é&lt;&lt;");
    free(out);

    int rc;
    out = inline_svg("<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
                     "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
                     "<svg viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\">\n"
                     "<title>Gnuplot</title>\n<desc>Produced by GNUPLOT 5.4 patchlevel 4 </desc>\n"
                     "<!-- a comment -->"
                     "<defs><path id='gpPt0' d='M0,0'/><clipPath id=\"c1\"><rect/></clipPath></defs>"
                     "<use xlink:href='#gpPt0' x='1'/><g clip-path=\"url(#c1)\" style='fill:url(#c1)'>"
                     "<polygon fill = 'rgb(  0,   0,   0)' points = '1,2 3,4'/>"
                     "<SCRIPT type=\"text/javascript\">alert(2)</script>"
                     "<script xlink:href=\"gnuplot_svg.js\"/>"
                     "<foreignObject><div>x</div></foreignObject>"
                     "<g id=\"gnuplot_plot_1\"><title>RAM</title></g>"
                     "<a href=\"https://example.com/\" onclick='x()'><text>&lt;script> 1 &amp; 2</text></a>"
                     "<image href=\"javascript:alert(3)\" width=\"1\"/>"
                     "</g></svg>\n",
                     "memory", &rc);
    expect("inline svg",
           out,
           "<svg viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">\n"
           "<title>memory: RSS &lt;over&gt; time</title>\n<desc>Produced by GNUPLOT 5.4 patchlevel 4 </desc>\n"
           "<defs><path id='memory-gpPt0' d='M0,0'/><clipPath id=\"memory-c1\"><rect/></clipPath></defs>"
           "<use xlink:href='#memory-gpPt0' x='1'/><g clip-path=\"url(#memory-c1)\" style='fill:url(#memory-c1)'>"
           "<polygon fill='rgb(  0,   0,   0)' points='1,2 3,4'/>"
           "<g id=\"memory-gnuplot_plot_1\"><title>RAM</title></g>"
           "<a><text>&lt;script> 1 &amp; 2</text></a>"
           "<image width=\"1\"/>"
           "</g></svg>\n\n");
    if (rc != 0) {
        fprintf(stderr, "FAIL inline svg returned %d\n", rc);
        failures++;
    }
    free(out);

    out = inline_svg("<html>no svg here</html>", "x", &rc);
    expect("no svg: nothing written", out, "");
    if (rc != -EINVAL) {
        fprintf(stderr, "FAIL no svg: returned %d, expected -EINVAL\n", rc);
        failures++;
    }
    free(out);

    f = open_memstream(&out, &len);
    rc = html_inline_svg(f, "/nonexistent/zkb.svg", "x", "x");
    fclose(f);
    if (rc != -ENOENT || len != 0) {
        fprintf(stderr, "FAIL missing file: returned %d, wrote %zu bytes\n", rc, len);
        failures++;
    }
    free(out);

    /* an unterminated tag at the end of a truncated file ends the output, no overrun */
    out = inline_svg("<svg><path id='a' d='M0", "t", &rc);
    expect("truncated", out, "<svg><path id='t-a' d='M0'\n");
    free(out);

    if (failures)
        return 1;
    printf("report html: all checks passed\n");
    return 0;
}
