/* circom / snarkjs .wtns files (prover/iden3/wtns_file.c). */
#include "tests/fuzz/fuzz_common.h"

#include "prover/iden3/wtns_file.h"
#include "prover/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    fr_t *w = NULL;
    size_t n = 0;
    iden3_error_t err;
    if (iden3_wtns_read(&w, &n, path, 0, &err) == 0)
        mem_free(w);
    return 0;
}
