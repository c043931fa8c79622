/*
 * `--listen ADDR:PORT`: the listening socket, made before any work (so a
 * port in use is refused at once), and the HTTP server (libmicrohttpd) that
 * serves GET /metrics from it: OpenMetrics to a client that accepts it
 * (Prometheus does), Prometheus's text format 0.0.4 otherwise.
 */
#ifndef ZKB_METRICS_HTTP_H
#define ZKB_METRICS_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "harness/metrics/metrics.h"

/*
 * Parses spec, ADDR:PORT ("127.0.0.1:9100", "0.0.0.0:9100", "[::1]:9100",
 * "localhost:9100"; ":9100" alone is the loopback address 127.0.0.1; PORT 0
 * takes a free port), and opens a listening TCP socket there (close-on-exec,
 * so a command `watch` starts does not inherit it). 0 and *fd, or -errno
 * with err naming the value: -EINVAL (not ADDR:PORT, or a name that does not
 * resolve), -EADDRINUSE, -EADDRNOTAVAIL, -EACCES...
 */
int metrics_http_listen(int *fd, const char *spec, char *err, size_t errlen);
/* "ADDR:PORT" of a listening socket ("[ADDR]:PORT" for IPv6). */
void metrics_http_describe(int fd, char *out, size_t cap);

typedef struct metrics_http metrics_http_t;

/* Serves m on the listening socket fd from a thread of its own; fd is the
 * server's from then on (closed by metrics_http_stop), and stays the
 * caller's when this fails. 0 or -errno. */
int metrics_http_start(metrics_http_t **ret, int fd, metrics_t *m);
/* Scrapes of /metrics served a state after metrics_set_running(false). */
uint64_t metrics_http_final_scrapes(metrics_http_t *h);
/* Scrapes of /metrics served in all. */
uint64_t metrics_http_scrapes(metrics_http_t *h);
/* Stops serving and closes the socket; NULL accepted. */
void metrics_http_stop(metrics_http_t *h);

#endif
