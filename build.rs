//! Says where a build came from, for `--version`: the package version, and
//! when built from a git checkout, the commit and its date
//! (`ace-convert 0.1.0 (a2b9557 2026-11-26)`). A build from a source
//! archive, with no git, says the version alone.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let described = match (
        git(&["rev-parse", "--short=7", "HEAD"]),
        git(&["log", "-1", "--format=%cs"]),
    ) {
        (Some(commit), Some(date)) => format!("{version} ({commit} {date})"),
        _ => version.to_owned(),
    };
    println!("cargo:rustc-env=ACE_TOOLS_VERSION={described}");
    // A new commit or checkout changes what HEAD points at.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head}");
        }
        println!("cargo:rerun-if-changed={dir}/packed-refs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
