pragma circom 2.0.0;

// A 200-bit decomposition of a small public number: a witness of zeros.
template Bits(N) {
    signal input in;
    signal bits[N];
    var sum = 0;
    for (var i = 0; i < N; i++) {
        bits[i] <-- (in >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        sum += bits[i] * (1 << i);
    }
    sum === in;
}

component main {public [in]} = Bits(200);
