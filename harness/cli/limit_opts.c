/* --ram, --mem-limit and --margin; see limit_opts.h. */
#include "harness/cli/limit_opts.h"

#include <stdlib.h>
#include <string.h>

int limit_opt_take(analyze_opts_t *o, int key, const char *val, const char *command)
{
    switch (key) {
    case LIMIT_OPT_RAM:
    case LIMIT_OPT_MEM_LIMIT:
        if (o->ram_bytes) {
            cli_error(2, "%s: give one of --ram and --mem-limit", command);
            return -1;
        }
        if (!analyze_parse_size(&o->ram_bytes, val) || o->ram_bytes == 0) {
            o->ram_bytes = 0;
            cli_error(2, "%s: --%s must be a size like 755GiB, 128G or 64000000000, got '%s'", command,
                      key == LIMIT_OPT_RAM ? "ram" : "mem-limit", val);
            return -1;
        }
        o->ram_from = key == LIMIT_OPT_RAM ? "--ram" : "--mem-limit";
        return 1;
    case LIMIT_OPT_MARGIN: {
        char *end;
        double m = strtod(val, &end);
        if (end == val || (*end && strcmp(end, "%") != 0) || !(m >= 0 && m < 100)) {
            cli_error(2, "%s: --margin must be a percentage in [0, 100), got '%s'", command, val);
            return -1;
        }
        o->margin = m / 100;
        return 1;
    }
    default:
        return 0;
    }
}
