/* `zkbench check`: being written. */
#include "harness/cli.h"
#include "harness/commands.h"

int cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(2, "check: not built yet");
}
