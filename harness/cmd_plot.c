/* `zkbench plot`: being written. */
#include "harness/cli.h"
#include "harness/commands.h"

int cmd_plot(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(2, "plot: not built yet");
}
