// C++ new/delete through libstdc++: balanced_step news and deletes 4 MiB,
// leak_array leaks a new double[] of 1.5 MiB per call.
#include <cstdio>
#include <cstdlib>
#include <vector>

void *volatile t_sink;

__attribute__((noinline)) static void balanced_step()
{
    char *p = new char[4 << 20];
    t_sink = p;
    p[0] = 1;
    delete[] p;
    std::vector<int> *v = new std::vector<int>(300000); // 1.2 MB inside the vector, freed
    t_sink = v;
    delete v;
}

__attribute__((noinline)) static double *leak_array()
{
    double *d = new double[196608]; // 1.5 MiB
    d[0] = 1;
    t_sink = d;
    return d;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 6;
    for (int i = 0; i < n; i++) {
        balanced_step();
        leak_array();
    }
    std::printf("leaked %zu bytes\n", (size_t)n * 196608 * sizeof(double));
    return 0;
}
