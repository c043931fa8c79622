/* The kernels API in a build without CUDA: no device is ever present. */
#include <errno.h>

#include "kernels/kernels.h"

int kernels_device_count(int *count)
{
    *count = 0;
    return 0;
}
