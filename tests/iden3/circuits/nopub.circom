pragma circom 2.0.0;

// No public signals at all: no outputs, only private inputs.
template NoPub(N) {
    signal input a;
    signal input b;
    signal x[N];
    x[0] <== a * b;
    for (var i = 1; i < N; i++) {
        x[i] <== x[i - 1] * a + b;
    }
}

component main = NoPub(50);
