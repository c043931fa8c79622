/*
 * zkbench-iden3: the two iden3 commands on their own (prove --zkey, verify
 * --vk *.json), for the interop test while harness/main.c's routing to
 * them is wired up; the test also drives zkbench itself when it routes.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/cmd_iden3.h"

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "prove") == 0)
        return cmd_prove_zkey(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "verify") == 0)
        return cmd_verify_snarkjs(argc - 1, argv + 1);
    return cli_error(2, "usage: zkbench-iden3 prove|verify OPTIONS");
}
