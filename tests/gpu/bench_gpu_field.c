/*
 * Field multiplication throughput on the GPU (kernels_field_mul_throughput):
 * one line per field with the device-wide cost of a multiplication, for the
 * benchmark tables in results/. A benchmark, not a test: it asserts nothing,
 * and reports "skipped" (exit 77) without a device.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/kernels.h"

int main(int argc, char **argv)
{
    /* optional: threads and chain length; 0 picks the defaults */
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 0;
    int reps = argc > 2 ? atoi(argv[2]) : 0;
    int count = 0;
    if (kernels_device_count(&count) < 0 || count == 0) {
        printf("no CUDA device: skipped (%s)\n", kernels_last_error());
        return 77;
    }
    struct kernels_device_props props;
    int runtime = 0, driver = 0;
    if (kernels_device_props(0, &props) < 0 ||
        kernels_cuda_version(&runtime, &driver) < 0) {
        fprintf(stderr, "bench_gpu_field: %s\n", kernels_last_error());
        return 1;
    }
    printf("device: %s, sm_%d%d, %d SMs, CUDA runtime %d, driver %d\n",
           props.name, props.cc_major, props.cc_minor, props.sm_count,
           runtime, driver);
    static const struct {
        enum kernels_field f;
        const char *name;
    } fields[] = {{KERNELS_FIELD_FR, "fr"},
                  {KERNELS_FIELD_FP, "fp"},
                  {KERNELS_FIELD_FP2, "fp2"}};
    printf("%-5s %12s %14s\n", "field", "ns/mul", "Gmul/s");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        double ns = 0;
        int rc = kernels_field_mul_throughput(fields[i].f, n, reps, &ns);
        if (rc < 0) {
            fprintf(stderr, "bench_gpu_field: %s: %d: %s\n", fields[i].name,
                    rc, kernels_last_error());
            return 1;
        }
        printf("%-5s %12.5f %14.2f\n", fields[i].name, ns, 1.0 / ns);
    }
    return 0;
}
