/* Proof files of zkbench prove / verify (harness/formats/proof_files.c). */
#include "tests/fuzz/fuzz_common.h"

#include "harness/formats/proof_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_proof_t *proofs = NULL;
    size_t n = 0;
    char msg[512];
    if (proof_file_read(path, &proofs, &n, msg, sizeof msg) == 0)
        free(proofs);
    return 0;
}
