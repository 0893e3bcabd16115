//! What the two binaries share: argument types and input loading. Everything
//! else lives in the library crates.

use std::path::Path;

use ace_io::{Format, LoadError, Source};

/// Exit codes, as ruff and markdownlint-cli2 use them.
pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_USAGE: i32 = 2;

/// clap value parser for format names.
pub fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| {
        let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown format `{s}`; expected one of: {}",
            names.join(", ")
        )
    })
}

/// `-` reads standard input, anything else a file.
pub fn load_input(arg: &str, stdin_name: &str) -> Result<Source, LoadError> {
    if arg == "-" {
        ace_io::load_stdin(stdin_name)
    } else {
        ace_io::load(Path::new(arg))
    }
}

/// Prints `prog: error: message` on stderr.
pub fn error(prog: &str, message: impl std::fmt::Display) {
    eprintln!("{prog}: error: {message}");
}
