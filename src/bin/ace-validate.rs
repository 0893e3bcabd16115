#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ace_tools::cli::validate::Args;

fn main() {
    ace_tools::prepare_process();
    ace_tools::exit(ace_tools::run::validate::run(
        ace_tools::cli::parse::<Args>(),
    ))
}
