/* snarkjs public.json (harness/formats/iden3_json.c). */
#include "tests/fuzz/fuzz_common.h"

#include "harness/formats/iden3_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    fr_t *inputs = NULL;
    size_t n = 0;
    char msg[512];
    if (iden3_json_public_read(&inputs, &n, path, msg, sizeof msg) == 0)
        free(inputs);
    return 0;
}
