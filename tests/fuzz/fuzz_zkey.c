/* snarkjs Groth16 .zkey files (prover/iden3/zkey_file.c), with the
 * subgroup check of every point, then matched against the A and B rows it
 * holds itself (iden3_zkey_match_r1cs walks the coefficient section). */
#include "tests/fuzz/fuzz_common.h"

#include "prover/iden3/zkey_file.h"

/* With the subgroup check of every query point, whichever way the reader
 * spells it: an opt-in flag, or the default (IDEN3_ZKEY_NO_SUBGROUP_CHECK). */
#ifdef IDEN3_ZKEY_SUBGROUP_CHECK
#define FUZZ_ZKEY_FLAGS IDEN3_ZKEY_SUBGROUP_CHECK
#else
#define FUZZ_ZKEY_FLAGS 0u
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    iden3_zkey_t *z = NULL;
    iden3_error_t err;
    if (iden3_zkey_read(&z, path, FUZZ_ZKEY_FLAGS, 1, &err) == 0) {
        char msg[256];
        (void)iden3_zkey_match_r1cs(z, z->ab, msg, sizeof msg);
        iden3_zkey_free(z);
    }
    return 0;
}
