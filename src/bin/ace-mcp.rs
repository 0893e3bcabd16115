#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

use ace_tools::cli::mcp::Args;

fn main() {
    ace_tools::prepare_process();
    let args = Args::parse();
    ace_tools::exit(ace_tools::run::mcp::run(&args))
}
