/* The verdict engine's lines on a console; see say_verdict.h. */
#include "harness/cli/say_verdict.h"

#include <string.h>

void say_verdict(console_t *con, const analyze_result_t *r, const char *indent, const char *indent_rest)
{
    analyze_line_t lines[ANALYZE_LINES_MAX];
    size_t n = analyze_verdict_lines(lines, r);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(lines[i].key, "verdict") == 0)
            console_final(con, "%s%-10s %s", indent, lines[i].key, lines[i].text);
        else
            console_say(con, "%s%-10s %s", indent_rest, lines[i].key, lines[i].text);
    }
}
