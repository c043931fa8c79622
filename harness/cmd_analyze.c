/* `zkbench analyze`: being written. */
#include "harness/cli.h"
#include "harness/commands.h"

int cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(2, "analyze: not built yet");
}
