/* snarkjs verification_key.json (harness/formats/iden3_json.c). */
#include "tests/fuzz/fuzz_common.h"

#include "harness/formats/iden3_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_vk_t vk;
    char msg[512];
    if (iden3_json_vk_read(&vk, path, msg, sizeof msg) == 0)
        free(vk.ic);
    return 0;
}
