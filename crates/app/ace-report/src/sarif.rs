//! SARIF 2.1.0 output (OASIS), the format GitHub code scanning uploads.
//! One run; the driver lists every rule that has a result, with its
//! summary, doc paragraph and default level, so a viewer can explain a
//! finding without ace-tools at hand.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use ace_model::{rules, LineIndex, Severity};
use serde_json::{json, Value};

use crate::FileReport;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The id SARIF viewers resolve relative URIs against: the root of the
/// checkout, which GitHub code scanning sets to the repository.
const SRCROOT: &str = "%SRCROOT%";

/// The rules' documentation on the web, when the package names a real
/// repository; `None` for the `.invalid` placeholder, so that no log
/// carries a link that leads nowhere.
fn rules_doc() -> Option<String> {
    rules_doc_of(env!("CARGO_PKG_REPOSITORY"))
}

fn rules_doc_of(repository: &str) -> Option<String> {
    let repo = repository.trim().trim_end_matches('/');
    let host = repo.split("://").nth(1)?.split('/').next()?;
    if host.is_empty() || host.ends_with(".invalid") || host == "example.com" {
        return None;
    }
    Some(format!("{repo}/blob/main/docs/rules.md"))
}

/// Where a file is, for SARIF: relative to the working directory (what
/// `%SRCROOT%` stands for) when it is under it, else an absolute `file:`
/// URI with no base.
fn artifact_location(name: &str, cwd: Option<&Path>) -> Value {
    let path = Path::new(name);
    let relative = if path.is_absolute() {
        cwd.and_then(|c| path.strip_prefix(c).ok())
    } else {
        Some(path)
    };
    match relative {
        Some(rel) => {
            let rel = rel.to_string_lossy();
            let rel = rel.trim_start_matches("./");
            json!({"uri": uri(rel), "uriBaseId": SRCROOT})
        }
        None => json!({"uri": file_uri(name)}),
    }
}

fn level(sev: Severity) -> &'static str {
    match sev {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// An absolute path as a `file:` URI (RFC 8089): `/home/x` as
/// `file:///home/x`; on Windows, `C:\x\y` as `file:///C:/x/y` (the drive's
/// colon kept), a UNC path `\\server\share\x` as `file://server/share/x`,
/// and the verbatim forms `\\?\C:\x` and `\\?\UNC\server\x` as the paths
/// they stand for.
pub(crate) fn file_uri(path: &str) -> String {
    let path = match path.strip_prefix(r"\\?\UNC\") {
        Some(rest) => format!(r"\\{rest}"),
        None => path.strip_prefix(r"\\?\").unwrap_or(path).to_owned(),
    };
    if let Some(unc) = path.strip_prefix(r"\\") {
        return format!("file://{}", uri(unc));
    }
    let slashed = path.replace('\\', "/");
    let b = slashed.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return format!("file:///{}:{}", &slashed[..1], uri(&slashed[2..]));
    }
    format!("file://{}", uri(&slashed))
}

/// A file name as a relative URI reference: `/` separators, and every byte
/// outside RFC 3986's unreserved set and `/` percent-encoded (so `<stdin>`
/// and spaces are valid).
pub(crate) fn uri(name: &str) -> String {
    let name = name.replace('\\', "/");
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(crate) fn render(reports: &[FileReport], out: &mut dyn Write) -> io::Result<()> {
    let docs = rules_doc();
    let cwd = std::env::current_dir().ok();
    let mut used: BTreeMap<&str, usize> = BTreeMap::new();
    for d in reports.iter().flat_map(|r| r.diagnostics) {
        used.insert(d.code, 0);
    }
    for (i, v) in used.values_mut().enumerate() {
        *v = i;
    }
    let rule_objects: Vec<Value> = used
        .keys()
        .map(|code| {
            let r = rules::by_code(code);
            let mut rule = json!({
                "id": code,
                "name": r.map_or("", |r| r.name),
                "shortDescription": {"text": r.map_or("", |r| r.summary)},
                "fullDescription": {"text": r.map_or("", |r| r.doc)},
                "defaultConfiguration": {"level": r.map_or("warning", |r| level(r.severity))},
                "properties": {"source": r.map_or("", |r| r.source)}
            });
            if let Some(doc) = &docs {
                rule["helpUri"] = json!(format!("{doc}#{}", code.to_lowercase()));
            }
            rule
        })
        .collect();
    let mut results = Vec::new();
    for r in reports {
        let index = LineIndex::new(r.text);
        let artifact = artifact_location(r.name, cwd.as_deref());
        let location = |start: usize, end: usize| {
            let s = index.line_col(r.text, start);
            let e = index.line_col(r.text, end.max(start));
            json!({
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {
                        "startLine": s.line,
                        "startColumn": s.col,
                        "endLine": e.line,
                        "endColumn": e.col.max(if e.line == s.line { s.col } else { 1 }),
                    }
                }
            })
        };
        for d in r.diagnostics {
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": used[d.code],
                "level": level(d.severity),
                "message": {"text": match &d.help {
                    Some(h) => format!("{} (help: {h})", d.message),
                    None => d.message.clone(),
                }},
                "locations": [location(d.span.start, d.span.end)],
            });
            if !d.related.is_empty() {
                result["relatedLocations"] = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, rel)| {
                        let mut l = location(rel.span.start, rel.span.end);
                        l["id"] = json!(i);
                        l["message"] = json!({"text": rel.message});
                        l
                    })
                    .collect();
            }
            results.push(result);
        }
    }
    let mut driver = json!({
        "name": "ace-validate",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rule_objects,
    });
    if let Some(doc) = &docs {
        driver["informationUri"] = json!(doc);
    }
    let mut run = json!({
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if let Some(cwd) = &cwd {
        let mut root = file_uri(&cwd.to_string_lossy());
        if !root.ends_with('/') {
            root.push('/');
        }
        run["originalUriBaseIds"] = json!({SRCROOT: {"uri": root}});
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run]
    });
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_paths_are_file_uris_with_their_drive() {
        assert_eq!(
            file_uri(r"C:\Users\me\play book.md"),
            "file:///C:/Users/me/play%20book.md"
        );
        assert_eq!(
            file_uri(r"\\?\D:\repo\AGENTS.md"),
            "file:///D:/repo/AGENTS.md"
        );
        assert_eq!(
            file_uri(r"\\server\share\pb.md"),
            "file://server/share/pb.md"
        );
        assert_eq!(
            file_uri(r"\\?\UNC\server\share\pb.md"),
            "file://server/share/pb.md"
        );
        assert_eq!(file_uri("/home/me/pb.md"), "file:///home/me/pb.md");
        // A relative Windows name keeps `/` separators under %SRCROOT%.
        assert_eq!(uri(r"docs\play books\pb.md"), "docs/play%20books/pb.md");
    }

    #[test]
    fn help_links_only_for_a_real_repository() {
        assert_eq!(rules_doc_of("https://example.invalid/ace-tools"), None);
        assert_eq!(rules_doc_of(""), None);
        assert_eq!(
            rules_doc_of("https://github.com/org/ace-tools/").as_deref(),
            Some("https://github.com/org/ace-tools/blob/main/docs/rules.md")
        );
    }

    #[test]
    fn locations_are_relative_to_the_working_directory() {
        let cwd = Path::new("/work/repo");
        assert_eq!(
            artifact_location("/work/repo/knowledge/AGENTS.md", Some(cwd)),
            json!({"uri": "knowledge/AGENTS.md", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("./my playbook.md", Some(cwd)),
            json!({"uri": "my%20playbook.md", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("/elsewhere/p.md", Some(cwd)),
            json!({"uri": "file:///elsewhere/p.md"})
        );
    }
}
