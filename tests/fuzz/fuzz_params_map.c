/* The parameter layout cache (NAME.params.map, prover/params_map.c), the
 * file harness/run/param_cache.c maps: header, layout, offsets, size and
 * checksums, without a source identity (any .params). */
#include "tests/fuzz/fuzz_common.h"

#include "prover/params_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    groth16_params_t *p = NULL;
    params_error_t err;
    if (params_map_read(&p, path, NULL, 1, &err) == 0)
        params_free(p);
    return 0;
}
