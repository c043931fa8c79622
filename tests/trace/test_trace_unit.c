/* The collector's name handling (harness/trace/trace_symbols.c): the demangler on
 * the shapes C++ and Rust (legacy) produce, truncated and foreign input
 * left alone, and the CSV sanitizer. */
#include <stdio.h>
#include <string.h>

#include "harness/trace/trace_symbols.h"

static int fails;

static void expect(const char *mangled, const char *want, int want_ok)
{
    char out[256];
    int ok = trace_syms_demangle(out, sizeof out, mangled);
    if (strcmp(out, want) != 0 || ok != want_ok) {
        printf("FAIL: demangle(%s) = %s (%d), expected %s (%d)\n", mangled, out, ok, want, want_ok);
        fails++;
    }
}

int main(void)
{
    expect("_Z9leak_stepv", "leak_step", 1);
    expect("_ZL13balanced_stepv", "balanced_step", 1);
    expect("_ZN3foo3barEv", "foo::bar", 1);
    expect("_ZNK3foo3barEv", "foo::bar", 1);
    expect("_ZN3FooC1Ev", "Foo::Foo", 1);
    expect("_ZN3FooD0Ev", "Foo::~Foo", 1);
    expect("_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<>::push_back", 1);
    expect("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", "core::ptr::drop_in_place", 1);
    expect("_ZN5ArrayILi3EE4fillEv", "Array<>::fill", 1);
    expect("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal", "std::rt::lang_start_internal", 1);
    expect("_RNCNvCs1234_5rleak4main0", "rleak::main::{closure}", 1);
    expect("_RNvMs_Cs1_3fooNtB2_3Bar3new", "_RNvMs_Cs1_3fooNtB2_3Bar3new", 0);
    expect("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE",
           "std::rt::lang_start::{{closure}}", 1);
    expect("_Znwm", "operator new", 1);
    expect("_Znam", "operator new[]", 1);
    expect("_ZnwmSt11align_val_t", "operator new", 1);
    expect("main", "main", 0);
    expect("_Z", "_Z", 0);
    expect("_ZN3fo", "_ZN3fo", 0);
    expect("_Z99x", "_Z99x", 0);
    char s[] = "a, b\"c d;e\nf'g";
    trace_syms_sanitize(s);
    if (strcmp(s, "a__b_c_d_e_f_g") != 0) {
        printf("FAIL: sanitize gave %s\n", s);
        fails++;
    }
    char tiny[4];
    trace_syms_demangle(tiny, sizeof tiny, "_Z9leak_stepv");
    if (strcmp(tiny, "lea") != 0) {
        printf("FAIL: a short buffer gave %s, expected the name cut to fit\n", tiny);
        fails++;
    }
    printf(fails ? "%d failure(s)\n" : "trace unit: all passed\n", fails);
    return fails != 0;
}
