#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ace_tools::cli::diff::Args;

fn main() {
    ace_tools::prepare_process();
    let args = ace_tools::cli::parse::<Args>();
    ace_tools::exit(ace_tools::run::diff::run(&args))
}
