fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let out = ace_markdown::read(&src);
    let idx = ace_model::LineIndex::new(&src);
    for d in &out.diagnostics {
        let lc = idx.line_col(&src, d.span.start);
        println!("{}:{} {} {}", lc.line, lc.col, d.code, d.message);
    }
    println!("{}", ace_model::json::write(&out.playbook));
}
