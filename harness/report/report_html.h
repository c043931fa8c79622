/*
 * HTML pieces of the report (report_html.c): escaping text taken from a
 * run, and inlining a gnuplot SVG into the page.
 */
#ifndef ZKB_REPORT_HTML_H
#define ZKB_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Writes s with &, <, >, " and ' escaped (s NULL: nothing). */
void html_esc(FILE *f, const char *s);
/* The same for the first n bytes of s. */
void html_esc_n(FILE *f, const char *s, size_t n);

/* Inlines the SVG file path into f as an <svg> element: the XML prolog and
 * doctype are dropped, <script> and <foreignObject> elements and event
 * attributes (on...) removed, and every id (and the references to it:
 * href="#x", url(#x)) prefixed with prefix, so several figures in one page
 * keep their own definitions. gnuplot's <title>Gnuplot</title> (what a
 * browser shows on hover and reads out) becomes <title>title</title>. 0,
 * or -errno (the file unreadable, or no <svg> in it) with nothing written. */
int html_inline_svg(FILE *f, const char *path, const char *prefix, const char *title);

#endif
