//! `ace-mcp`: serves the location until the client goes.

use crate::{error, ExitStatus};

use crate::cli::mcp::*;

pub fn run(args: &Args) -> ExitStatus {
    let served = ace_mcp::Served {
        location: args.location.clone(),
        wait: args.lock_timeout,
        config: args.config.clone(),
        force: args.force,
    };
    match ace_mcp::serve(served) {
        Ok(()) => ExitStatus::Ok,
        Err(e) => {
            error(PROG, e);
            ExitStatus::Refused
        }
    }
}
