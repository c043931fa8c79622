/* Verifying-key files (the first part of a .params file): params_vk_read. */
#include "tests/fuzz/fuzz_common.h"

#include "prover/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_vk_t vk;
    params_error_t err;
    if (params_vk_read(&vk, path, &err) == 0)
        params_vk_clear(&vk);
    return 0;
}
