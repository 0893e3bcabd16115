//! `cargo xtask completions` and `cargo xtask man`: shell completions and
//! man pages for the five tools, made from the same clap definitions the
//! binaries parse with (`ace_tools::cli`), so they cannot drift.

use std::path::PathBuf;

/// `--out DIR`, else `target/DEFAULT`.
fn out_dir(args: &[String], default: &str) -> Result<PathBuf, String> {
    let dir = match args {
        [] => PathBuf::from("target").join(default),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => return Err(format!("usage: cargo xtask {default} [--out DIR]")),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

pub fn completions(args: &[String]) -> Result<(), String> {
    let dir = out_dir(args, "completions")?;
    let written = ace_tools::cli::write_completions(&dir).map_err(|e| e.to_string())?;
    eprintln!("{} completion scripts in {}", written.len(), dir.display());
    Ok(())
}

pub fn man(args: &[String]) -> Result<(), String> {
    let dir = out_dir(args, "man")?;
    let written = ace_tools::cli::write_man_pages(&dir).map_err(|e| e.to_string())?;
    eprintln!("{} man pages in {}", written.len(), dir.display());
    Ok(())
}
