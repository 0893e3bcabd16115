//! Parses a TRON file ten times, for profiling the parser
//! (`perf record target/release/examples/bigparse FILE`).

fn main() {
    let path = std::env::args().nth(1).expect("usage: bigparse FILE.tron");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let opts = ace_tron::Options {
        max_size: usize::MAX,
        ..ace_tron::Options::default()
    };
    for _ in 0..10 {
        let doc = ace_tron::parse(&text, &opts).expect("parses");
        std::hint::black_box(doc);
    }
}
