/* snarkjs proof.json (harness/formats/iden3_json.c). */
#include "tests/fuzz/fuzz_common.h"

#include "harness/formats/iden3_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_proof_t proof;
    char msg[512];
    (void)iden3_json_proof_read(&proof, path, msg, sizeof msg);
    return 0;
}
