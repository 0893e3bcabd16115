//! Each tool's command-line flow: `src/bin` parses the arguments and
//! calls its `run`.

pub mod apply;
pub mod convert;
pub mod diff;
pub mod mcp;
pub mod merge;
pub mod validate;
pub mod view;
