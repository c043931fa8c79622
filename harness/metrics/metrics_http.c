/* The /metrics endpoint; see metrics_http.h. */
#define _GNU_SOURCE
#include "harness/metrics/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct metrics_http {
    struct MHD_Daemon *d;
    metrics_t *m;
    atomic_uint_fast64_t scrapes, final_scrapes;
};

/* Splits spec into host and port text; false when it is not ADDR:PORT. */
static bool split_spec(const char *spec, char *host, size_t host_cap, char *port, size_t port_cap)
{
    const char *colon;
    size_t hl;
    const char *h = spec;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':')
            return false;
        h = spec + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
        if (hl == 0)
            return false;
    } else {
        colon = strrchr(spec, ':');
        if (!colon || memchr(spec, ':', (size_t)(colon - spec)))
            return false; /* no port, or a bare IPv6 address: it needs brackets */
        hl = (size_t)(colon - spec);
    }
    const char *p = colon + 1;
    size_t pl = strlen(p);
    if (hl >= host_cap || pl == 0 || pl > 5 || pl >= port_cap || strspn(p, "0123456789") != pl || atoi(p) > 65535)
        return false;
    memcpy(host, h, hl);
    host[hl] = 0;
    memcpy(port, p, pl + 1);
    if (hl == 0)
        snprintf(host, host_cap, "127.0.0.1");
    return true;
}

int metrics_http_listen(int *fd, const char *spec, char *err, size_t errlen)
{
    char host[256], port[8];
    if (!split_spec(spec, host, sizeof host, port, sizeof port)) {
        snprintf(err, errlen, "--listen must be ADDR:PORT or :PORT with PORT 0..65535 (e.g. 127.0.0.1:9100), got '%s'",
                 spec);
        return -EINVAL;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *res = NULL;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g != 0) {
        snprintf(err, errlen, "--listen %s: cannot resolve '%s': %s", spec, host, gai_strerror(g));
        return -EINVAL;
    }
    int rc = 0, s = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        rc = -errno;
    } else {
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* a restart within TIME_WAIT */
        if (bind(s, res->ai_addr, res->ai_addrlen) != 0 || listen(s, 64) != 0) {
            rc = -errno;
            close(s);
        }
    }
    freeaddrinfo(res);
    if (rc < 0) {
        snprintf(err, errlen, "--listen %s: %s", spec,
                 rc == -EADDRINUSE      ? "the port is in use"
                 : rc == -EADDRNOTAVAIL ? "not an address of this machine"
                                        : strerror(-rc));
        return rc;
    }
    *fd = s;
    return 0;
}

void metrics_http_describe(int fd, char *out, size_t cap)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
    if (getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        getnameinfo((struct sockaddr *)&a, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
    if (a.ss_family == AF_INET6)
        snprintf(out, cap, "[%s]:%s", host, serv);
    else
        snprintf(out, cap, "%s:%s", host, serv);
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **req_cls)
{
    (void)version;
    (void)upload_data;
    (void)upload_size;
    (void)req_cls;
    metrics_http_t *h = cls;
    if (strcmp(url, "/metrics") != 0)
        return send_text(c, MHD_HTTP_NOT_FOUND, "zkbench serves /metrics only\n");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD /metrics\n");
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    enum metrics_format fmt =
        accept && strstr(accept, "application/openmetrics-text") ? METRICS_OPENMETRICS : METRICS_TEXT;
    char *text = NULL;
    size_t len = 0;
    bool ended = false;
    if (metrics_render(h->m, fmt, &text, &len, &ended) < 0)
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, metrics_content_type(fmt));
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    atomic_fetch_add(&h->scrapes, 1);
    if (ended)
        atomic_fetch_add(&h->final_scrapes, 1);
    return ret;
}

int metrics_http_start(metrics_http_t **ret, int fd, metrics_t *m)
{
    metrics_http_t *h = calloc(1, sizeof *h);
    if (!h)
        return -ENOMEM;
    h->m = m;
    atomic_init(&h->scrapes, 0);
    atomic_init(&h->final_scrapes, 0);
    /* one thread polls every connection: a scrape a second needs no more */
    h->d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, h,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
                            MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_END);
    if (!h->d) {
        free(h);
        return -EIO;
    }
    *ret = h;
    return 0;
}

uint64_t metrics_http_final_scrapes(metrics_http_t *h)
{
    return atomic_load(&h->final_scrapes);
}

uint64_t metrics_http_scrapes(metrics_http_t *h)
{
    return atomic_load(&h->scrapes);
}

void metrics_http_stop(metrics_http_t *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    free(h);
}
