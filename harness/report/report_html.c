/*
 * HTML pieces of the report: escaping, and gnuplot's SVG made safe to
 * inline (see report_html.h). The SVG is rewritten tag by tag, not parsed:
 * gnuplot writes plain SVG, and what it might carry that a page must not
 * run or fetch (a script, an event handler, an external reference) is
 * dropped rather than trusted.
 */
#include "harness/report/report_html.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SVG_MAX_BYTES (256u << 20)

void html_esc_n(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; s && i < n && s[i]; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(s[i], f);
        }
    }
}

void html_esc(FILE *f, const char *s)
{
    if (s)
        html_esc_n(f, s, strlen(s));
}

/* Reads a whole file (NUL-terminated). 0 or -errno. */
static int read_all(char **ret, size_t *len, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap >= SVG_MAX_BYTES) {
                free(buf);
                fclose(f);
                return -EFBIG;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int e = ferror(f) ? EIO : 0;
    fclose(f);
    if (!buf)
        return -ENOMEM;
    if (e) {
        free(buf);
        return -e;
    }
    buf[n] = 0;
    *ret = buf;
    *len = n;
    return 0;
}

/* Case-insensitive search for needle in s[0..n). */
static const char *find_ci(const char *s, const char *end, const char *needle)
{
    size_t m = strlen(needle);
    for (; s + m <= end; s++)
        if (strncasecmp(s, needle, m) == 0)
            return s;
    return NULL;
}

static bool name_is(const char *name, size_t len, const char *what)
{
    return strlen(what) == len && strncasecmp(name, what, len) == 0;
}

/* Writes an attribute value, prefixing url(#x) references. */
static void put_value(FILE *f, const char *v, size_t n, const char *prefix)
{
    for (size_t i = 0; i < n; i++) {
        if (i + 5 <= n && strncmp(v + i, "url(#", 5) == 0) {
            fprintf(f, "url(#%s-", prefix);
            i += 4;
            continue;
        }
        fputc(v[i], f);
    }
}

/* One start (or empty) tag from p (at its name, after '<') to its '>':
 * attributes kept, rewritten or dropped. Returns the position after '>'. */
static const char *put_tag(FILE *f, const char *p, const char *end, const char *prefix)
{
    const char *name = p;
    while (p < end && !isspace((unsigned char)*p) && *p != '>' && *p != '/')
        p++;
    fputc('<', f);
    fwrite(name, 1, (size_t)(p - name), f);
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p >= end)
            break;
        if (*p == '>') {
            fputc('>', f);
            return p + 1;
        }
        if (*p == '/') {
            fputc('/', f);
            p++;
            continue;
        }
        const char *an = p;
        while (p < end && !isspace((unsigned char)*p) && *p != '=' && *p != '>' && *p != '/')
            p++;
        size_t alen = (size_t)(p - an);
        const char *v = NULL;
        size_t vlen = 0;
        char q = '"';
        const char *eq = p; /* gnuplot writes "fill = 'x'" */
        while (eq < end && isspace((unsigned char)*eq))
            eq++;
        if (eq < end && *eq == '=') {
            p = eq + 1;
            while (p < end && isspace((unsigned char)*p))
                p++;
            if (p < end && (*p == '"' || *p == '\'')) {
                q = *p++;
                v = p;
                while (p < end && *p != q)
                    p++;
                vlen = (size_t)(p - v);
                if (p < end)
                    p++;
            } else {
                v = p;
                while (p < end && !isspace((unsigned char)*p) && *p != '>')
                    p++;
                vlen = (size_t)(p - v);
            }
        }
        if (alen == 0) { /* a stray character: skip it */
            p++;
            continue;
        }
        bool href = alen >= 4 && strncasecmp(an + alen - 4, "href", 4) == 0;
        if ((alen > 2 && strncasecmp(an, "on", 2) == 0) || (href && !(v && vlen > 0 && v[0] == '#')) ||
            (v && find_ci(v, v + vlen, "javascript:")))
            continue; /* an event handler, an external reference, a script URL: dropped */
        fputc(' ', f);
        fwrite(an, 1, alen, f);
        if (!v)
            continue;
        fprintf(f, "=%c", q == '\'' ? '\'' : '"');
        if (name_is(an, alen, "id"))
            fprintf(f, "%s-", prefix);
        if (href) {
            fprintf(f, "#%s-", prefix);
            v++, vlen--;
        }
        put_value(f, v, vlen, prefix);
        fputc(q == '\'' ? '\'' : '"', f);
    }
    return p;
}

int html_inline_svg(FILE *f, const char *path, const char *prefix, const char *title)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = read_all(&buf, &len, path);
    if (rc < 0)
        return rc;
    const char *end = buf + len, *p = find_ci(buf, end, "<svg");
    if (!p) {
        free(buf);
        return -EINVAL;
    }
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) {
            fwrite(p, 1, (size_t)(end - p), f);
            break;
        }
        fwrite(p, 1, (size_t)(lt - p), f);
        p = lt + 1;
        if (p < end && (*p == '?' || *p == '!')) {
            /* processing instructions and doctypes are dropped, comments too */
            const char *close = *p == '!' && end - p >= 3 && strncmp(p, "!--", 3) == 0 ? strstr(p, "-->") : NULL;
            if (close) {
                p = close + 3;
            } else {
                const char *gt = memchr(p, '>', (size_t)(end - p));
                p = gt ? gt + 1 : end;
            }
            continue;
        }
        if (p < end && *p == '/') { /* an end tag */
            const char *gt = memchr(p, '>', (size_t)(end - p));
            const char *stop = gt ? gt + 1 : end;
            fputc('<', f);
            fwrite(p, 1, (size_t)(stop - p), f);
            p = stop;
            continue;
        }
        const char *name = p;
        size_t nlen = 0;
        while (name + nlen < end && (isalnum((unsigned char)name[nlen]) || name[nlen] == ':' || name[nlen] == '-'))
            nlen++;
        if (name_is(name, nlen, "title")) {
            /* gnuplot names every figure "Gnuplot": it gets the figure's own name */
            static const char generic[] = "Gnuplot</title>";
            const char *gt = memchr(p, '>', (size_t)(end - p));
            if (gt && gt[-1] != '/' && (size_t)(end - gt - 1) >= sizeof generic - 1 &&
                strncasecmp(gt + 1, generic, sizeof generic - 1) == 0) {
                fputs("<title>", f);
                html_esc(f, title);
                fputs("</title>", f);
                p = gt + 1 + sizeof generic - 1;
                continue;
            }
        }
        if (name_is(name, nlen, "script") || name_is(name, nlen, "foreignObject") || name_is(name, nlen, "iframe")) {
            /* dropped with everything inside it */
            char closing[32];
            snprintf(closing, sizeof closing, "</%.*s", (int)nlen, name);
            const char *gt = memchr(p, '>', (size_t)(end - p));
            bool empty = gt && gt > p && gt[-1] == '/';
            const char *c = empty ? NULL : find_ci(p, end, closing);
            const char *stop = c ? memchr(c, '>', (size_t)(end - c)) : gt;
            p = stop ? stop + 1 : end;
            continue;
        }
        p = put_tag(f, p, end, prefix);
    }
    fputc('\n', f);
    free(buf);
    return 0;
}
