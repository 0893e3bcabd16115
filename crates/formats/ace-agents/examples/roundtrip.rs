//! Dev tool: reads each AGENTS.md given, prints counts, diagnostics and
//! whether a no-op rewrite and a rewrite without the layout are stable.
fn main() {
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).unwrap();
        let out = ace_agents::read(&src);
        let again = ace_agents::write(&out.playbook);
        let mut bare = out.playbook.clone();
        bare.layout = Default::default();
        let fresh = ace_agents::write(&bare);
        let reread = ace_agents::read(&fresh.text);
        println!(
            "{path}: {} bullets, {} sections, identical={}, fresh-reread-entries={}",
            out.playbook.entries.len(),
            out.playbook.sections.len(),
            again.text == src,
            reread.playbook.entries.len()
        );
        for d in &out.diagnostics {
            println!("  {} {}", d.code, d.message);
        }
        if std::env::var("SHOW").is_ok() {
            print!("{}", fresh.text);
        }
    }
}
