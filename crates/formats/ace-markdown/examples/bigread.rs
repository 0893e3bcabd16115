fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    for _ in 0..5 {
        let out = ace_markdown::read(&src);
        std::hint::black_box(out);
    }
}
