/*
 * The zkbench commands for circom / snarkjs workloads (harness/cli/main.c
 * routes to them):
 *   zkbench prove --zkey F --wtns F [--r1cs F] [--proof proof.json]
 *                 [--public public.json] [--threads T]
 *   zkbench verify --vk verification_key.json --proof proof.json
 *                  --public public.json
 * Exit 0 on success, 1 when a proof does not verify, 2 for bad input.
 */
#ifndef ZKB_CMD_IDEN3_H
#define ZKB_CMD_IDEN3_H

int cmd_prove_zkey(int argc, char **argv);
int cmd_verify_snarkjs(int argc, char **argv);

#endif
