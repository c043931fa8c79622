pragma circom 2.0.0;

// The fuzz seeds' circuit (make_seeds.sh): y = (x^2 + a)^2 + a, public
// a and x, so the .r1cs, .wtns and .zkey seeds stay a few KiB.
template Sq2() {
    signal input a;
    signal input x;
    signal output y;
    signal t;
    t <== x * x + a;
    y <== t * t + a;
}

component main {public [a, x]} = Sq2();
