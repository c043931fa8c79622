/* circom .r1cs files (prover/iden3/r1cs_file.c). */
#include "tests/fuzz/fuzz_common.h"

#include "prover/iden3/r1cs_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    iden3_r1cs_t *r = NULL;
    iden3_error_t err;
    if (iden3_r1cs_read(&r, path, &err) == 0)
        iden3_r1cs_free(r);
    return 0;
}
