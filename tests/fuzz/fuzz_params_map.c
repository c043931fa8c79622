/* The proving key file (NAME.key, prover/params_map.c), the file
 * harness/run/param_cache.c maps: header, layout, offsets, size, the block
 * table and every block's checksum, without an origin. */
#include "tests/fuzz/fuzz_common.h"

#include "prover/params_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_params_t *p = NULL;
    params_error_t err;
    if (params_map_read(&p, path, NULL, PARAMS_MAP_SAMPLE_ALL, 1, NULL, &err) == 0)
        params_free(p);
    return 0;
}
