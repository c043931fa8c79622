pragma circom 2.0.0;

// x <- x^2 + a, repeated: the benchmark's circuit; three public signals
// (the output y and the inputs a, x0).
template Sq(N) {
    signal input a;
    signal input x0;
    signal output y;
    signal x[N + 1];
    x[0] <== x0;
    for (var i = 0; i < N; i++) {
        x[i + 1] <== x[i] * x[i] + a;
    }
    y <== x[N];
}

component main {public [a, x0]} = Sq(100);
