/* bellperson .params files: prover/params.c's reader with the full check
 * (encoding, curve, subgroup). */
#include "tests/fuzz/fuzz_common.h"

#include "prover/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_params_t *p = NULL;
    params_error_t err;
    if (params_read(&p, path, 0, 1, &err) == 0)
        params_free(p);
    return 0;
}
