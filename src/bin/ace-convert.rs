#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ace_tools::cli::convert::Args;

fn main() {
    ace_tools::prepare_process();
    let args = Args::parse_with_writer_flags();
    ace_tools::exit(ace_tools::run::convert::run(args))
}
