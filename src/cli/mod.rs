//! The tools' command lines, in the library so that `cargo xtask`
//! can generate shell completions and man pages from the same definitions
//! the binaries parse with.

pub mod apply;
pub mod convert;
pub mod diff;
pub mod mcp;
pub mod merge;
pub mod validate;
pub mod view;

/// The command line parsed as `A`, or the process ended as clap ends it
/// (help, version, a usage error), except that a help or version text
/// that cannot be written (`--help > /dev/full`) is an error, exit 2:
/// exit 0 says the text was printed. A reader that went away (`| head`)
/// is no error.
pub fn parse<A: clap::Parser>() -> A {
    parsed(A::try_parse())
}

/// What [`parse`] does with clap's answer, for a command put together
/// before it is parsed (ace-convert's writer flags).
pub fn parsed<T>(answer: Result<T, clap::Error>) -> T {
    use std::io::Write as _;
    let e = match answer {
        Ok(t) => return t,
        Err(e) if e.use_stderr() => e.exit(),
        Err(e) => e,
    };
    let printed = e.print().and_then(|()| std::io::stdout().flush());
    match ace_fs::reader_left_is_ok(printed) {
        Ok(()) => crate::exit(crate::ExitStatus::Ok),
        Err(err) => {
            let name = std::env::args()
                .next()
                .map(std::path::PathBuf::from)
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            eprintln!("{name}: error: standard output: {err}");
            crate::exit(crate::ExitStatus::Refused)
        }
    }
}

/// A number from 0 to 1 (`--similarity`).
pub fn unit_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number from 0 to 1")),
    }
}

/// A whole number 0 or more (`--threshold`): below 0, `harmful > helpful
/// + N` holds for an entry never counted harmful.
pub fn non_negative(s: &str) -> Result<i64, String> {
    match s.parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number 0 or more")),
    }
}

/// Every tool's command, as its binary parses it (ace-convert's with the
/// writers' flags): what completions and man pages are made from.
pub fn commands() -> Vec<clap::Command> {
    use clap::CommandFactory;
    let registry = ace_registry::Registry::builtin();
    vec![
        crate::with_writer_flags(convert::Args::command(), registry),
        validate::Args::command(),
        apply::Args::command(),
        diff::Args::command(),
        merge::Args::command(),
        view::Args::command(),
        mcp::Args::command(),
    ]
}

/// Writes one completion script per tool and shell into `dir`:
/// `ace-convert.bash`, `_ace-convert` (zsh), `ace-convert.fish`,
/// `ace-convert.elv`, `_ace-convert.ps1`. Returns the paths written.
pub fn write_completions(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    use clap_complete::Shell;
    let mut written = Vec::new();
    for mut cmd in commands() {
        let name = cmd.get_name().to_owned();
        for shell in [
            Shell::Bash,
            Shell::Zsh,
            Shell::Fish,
            Shell::Elvish,
            Shell::PowerShell,
        ] {
            written.push(clap_complete::generate_to(shell, &mut cmd, &name, dir)?);
        }
    }
    Ok(written)
}

/// Writes each tool's man page (`ace-convert.1`, in roff) into `dir`.
pub fn write_man_pages(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for cmd in commands() {
        let path = dir.join(format!("{}.1", cmd.get_name()));
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        ace_fs::write_atomic(&path, &page, None)?;
        written.push(path);
    }
    Ok(written)
}
