/* The C side of bindings/bench.py: `bench RUNS FILE...` prints `file ns_per_run` for
 * mlsched_run (the kind's own algorithm) on each scenario file, RUNS times each. */
#define _POSIX_C_SOURCE 199309L
#include "mlsched.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) return 3;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        char *scn = malloc((size_t)n);
        if (fread(scn, 1, (size_t)n, f) != (size_t)n) return 3;
        fclose(f);
        long runs = atol(argv[1]);
        double ns = 1e300;
        for (int round = 0; round < 5; round++) { /* the best of 5 rounds, as the Rust side */
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            for (long r = 0; r < runs; r++) {
                uint8_t *out;
                size_t len;
                if (mlsched_run((const uint8_t *)scn, (size_t)n, NULL, 0, &out, &len) != 0) return 1;
                mlsched_free(out, len);
            }
            clock_gettime(CLOCK_MONOTONIC, &b);
            double r_ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)runs;
            if (r_ns < ns) ns = r_ns;
        }
        printf("%s %.0f\n", argv[i], ns);
        free(scn);
    }
    return 0;
}
