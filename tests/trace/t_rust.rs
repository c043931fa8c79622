// Rust's default allocator reaches malloc through __rust_alloc: the leak is
// named by the Rust function and the line of its `vec!`, not alloc.rs.
// rust_leak_step keeps 3 MiB five times; rust_work_step's 2.4 MB are freed.
#[inline(never)]
fn rust_leak_step(keep: &mut Vec<Vec<u8>>) {
    let v = vec![1u8; 3 << 20];
    keep.push(v);
}

#[inline(never)]
fn rust_work_step() -> u64 {
    let v: Vec<u64> = (0..300_000u64).collect();
    v.iter().sum()
}

fn main() {
    let mut keep = Vec::new();
    let mut s = 0;
    for _ in 0..5 {
        rust_leak_step(&mut keep);
        s += rust_work_step();
    }
    std::mem::forget(keep);
    println!("rust leaked {} bytes ({})", 5 * (3 << 20), s);
}
