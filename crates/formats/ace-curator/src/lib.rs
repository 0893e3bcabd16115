//! The ace_beads curator's JSON: AceDelta objects (alone, in an array, or in the
//! curator's input `{deltas, playbook, agentsMd}`) and the curator's output
//! `{patchAgentsMd, playbookYaml, accepted, rejected}`.
//!
//! The checks are the curator's own rejection rules, so each finding says
//! which reason code (`duplicate`, `low-evidence`, `low-confidence`,
//! `invalid`) the curator would give, plus the curator spec's write scope.

mod format;
pub mod ops;

pub use format::{AceDeltas, CuratorJson, ReflectorInsights, ACEDELTA, CHECK, INSIGHTS};

use std::collections::HashMap;
use std::path::{Component, Path};

use ace_jsonspan::Node;
use ace_model::{normalize, rules, Diagnostic, Playbook, Span};
use ace_schema::curator::{self, CuratorSchema};
use serde_json::Value;

/// What a curator JSON file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// One AceDelta object.
    Delta,
    /// An array of AceDelta objects.
    Batch,
    /// The curator's input: `{deltas, playbook, agentsMd}`.
    Input,
    /// The curator's output: `{accepted, rejected, ...}`.
    Output,
}

/// The thresholds of the curator spec's rejection rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Reject below this confidence (0.80).
    pub confidence: f64,
    /// Reject evidence shorter than this many characters (8).
    pub evidence_length: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            confidence: 0.80,
            evidence_length: 8,
        }
    }
}

const OPS: [&str; 3] = ["add", "amend", "deprecate"];

fn looks_like_delta(v: &Value) -> bool {
    v.get("op")
        .and_then(Value::as_str)
        .is_some_and(|op| OPS.contains(&op))
        && (v.get("section").is_some() || v.get("metadata").is_some())
}

/// What `value` is, if it is curator JSON at all. Cheap enough to call on
/// every JSON file a directory walk finds.
pub fn classify(value: &Value) -> Option<DocumentKind> {
    match value {
        Value::Object(m) if m.get("deltas").is_some_and(Value::is_array) => {
            Some(DocumentKind::Input)
        }
        Value::Object(m)
            if m.get("rejected").is_some_and(Value::is_array)
                && (m.contains_key("accepted") || m.contains_key("patchAgentsMd")) =>
        {
            Some(DocumentKind::Output)
        }
        Value::Object(_) if looks_like_delta(value) => Some(DocumentKind::Delta),
        Value::Array(items) if !items.is_empty() && items.iter().all(looks_like_delta) => {
            Some(DocumentKind::Batch)
        }
        _ => None,
    }
}

/// [`classify`] on text; `None` when it is not JSON or not curator JSON.
pub fn sniff(text: &str) -> Option<DocumentKind> {
    if !(text.contains("\"op\"") || text.contains("\"deltas\"") || text.contains("\"rejected\"")) {
        return None;
    }
    classify(&serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?)
}

/// Whether the ace_beads curator may write `path`: relative, inside
/// `knowledge/` or `prompts/`, never climbing out with `..`. A `file://`
/// prefix is allowed. `Err` says why not.
pub fn check_write_path(path: &str) -> Result<(), ace_model::Error> {
    let p = path.strip_prefix("file://").unwrap_or(path);
    if p.is_empty() {
        return Err(ace_model::Error::Refused("the path is empty".into()));
    }
    let as_path = Path::new(p);
    if as_path.is_absolute()
        || p.starts_with('/')
        || p.starts_with('\\')
        || p.get(1..2) == Some(":")
    {
        return Err(ace_model::Error::Refused(format!("`{path}` is absolute")));
    }
    let mut depth: Vec<String> = Vec::new();
    for c in as_path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if depth.pop().is_none() {
                    return Err(ace_model::Error::Refused(format!(
                        "`{path}` climbs out of the project with `..`"
                    )));
                }
                if depth.is_empty() {
                    return Err(ace_model::Error::Refused(format!(
                        "`{path}` leaves its top folder with `..`"
                    )));
                }
            }
            Component::Normal(s) => depth.push(s.to_string_lossy().into_owned()),
            _ => return Err(ace_model::Error::Refused(format!("`{path}` is absolute"))),
        }
    }
    match depth.first().map(String::as_str) {
        Some("knowledge" | "prompts") if depth.len() > 1 => Ok(()),
        _ => Err(ace_model::Error::Refused(format!(
            "`{path}` is outside `knowledge/**` and `prompts/**`"
        ))),
    }
}

fn reason(code: &str) -> String {
    format!("the curator rejects it with reason `{code}`")
}

/// Every finding for a curator JSON file. `playbook` is the playbook the
/// deltas are for (`--playbook`), whose `section::content` hashes an `add`
/// must not repeat. A file that does not parse is the error.
pub fn check(
    text: &str,
    playbook: Option<&Playbook>,
    opts: &Options,
) -> Result<Vec<Diagnostic>, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let mut out = doc.diagnostics;
    let root = &doc.root;
    let value = root.to_value();
    let Some(kind) = classify(&value) else {
        out.push(Diagnostic::new(
            &rules::DELTA_INVALID,
            root.span,
            "expected an AceDelta, an array of them, a curator input `{deltas}` or a curator output `{accepted, rejected}`",
        ));
        return Ok(out);
    };
    let mut known: HashMap<String, String> = playbook
        .map(|pb| {
            pb.entries
                .iter()
                .map(|e| (e.dedup_key(), format!("entry `{}` of the playbook", e.id)))
                .collect()
        })
        .unwrap_or_default();
    let mut deltas = |nodes: &[Node], values: &[Value], base: &str, out: &mut Vec<Diagnostic>| {
        for (i, (node, v)) in nodes.iter().zip(values).enumerate() {
            check_delta(node, v, &format!("{base}/{i}"), &mut known, opts, out);
        }
    };
    match kind {
        DocumentKind::Delta => check_delta(root, &value, "", &mut known, opts, &mut out),
        DocumentKind::Batch => {
            let nodes = root.as_array().unwrap_or(&[]);
            let values = value.as_array().map(Vec::as_slice).unwrap_or(&[]);
            deltas(nodes, values, "", &mut out);
        }
        DocumentKind::Input => {
            let errors: Vec<_> = curator::validate(CuratorSchema::Input, &value)
                .into_iter()
                .filter(|e| e.path.first().map(String::as_str) != Some("deltas"))
                .collect();
            out.extend(schema_diagnostics(&errors, root, "", CuratorSchema::Input));
            let nodes = root.get("deltas").and_then(Node::as_array).unwrap_or(&[]);
            let values = value["deltas"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            deltas(nodes, values, "/deltas", &mut out);
            for key in ["playbook", "agentsMd"] {
                if let Some(n) = root.get(key) {
                    if let Some(Err(why)) = n.as_str().map(check_write_path) {
                        out.push(Diagnostic::new(
                            &rules::WRITE_SCOPE,
                            n.span,
                            format!("`{key}`: {why}; the curator may only write `knowledge/**` and `prompts/**`"),
                        ));
                    }
                }
            }
        }
        DocumentKind::Output => {
            let errors = curator::validate(CuratorSchema::Output, &value);
            out.extend(schema_diagnostics(&errors, root, "", CuratorSchema::Output));
            if let Some(n) = root.get("patchAgentsMd") {
                for path in diff_targets(n.as_str().unwrap_or("")) {
                    if let Err(why) = check_write_path(&path) {
                        out.push(Diagnostic::new(
                            &rules::WRITE_SCOPE,
                            n.span,
                            format!("`patchAgentsMd` writes {why}; the curator may only write `knowledge/**` and `prompts/**`"),
                        ));
                    }
                }
            }
        }
    }
    out.sort_by_key(|d| (d.span.start, d.code));
    Ok(out)
}

/// The files a unified diff writes: its `+++` lines, less the `b/` prefix
/// git adds and `/dev/null` (a deletion).
fn diff_targets(diff: &str) -> Vec<String> {
    diff.lines()
        .filter_map(|l| l.strip_prefix("+++ "))
        .map(|p| p.split('\t').next().unwrap_or(p).trim())
        .filter(|p| *p != "/dev/null")
        .map(|p| p.strip_prefix("b/").unwrap_or(p).to_owned())
        .collect()
}

fn schema_diagnostics(
    errors: &[ace_schema::SchemaError],
    node: &Node,
    base: &str,
    schema: CuratorSchema,
) -> Vec<Diagnostic> {
    ace_schema::diagnostics(
        errors,
        node,
        &rules::DELTA_INVALID,
        base,
        schema.file_name(),
    )
    .into_iter()
    .map(|d| {
        let message = format!("{}; {}", d.message, reason("invalid"));
        Diagnostic { message, ..d }
    })
    .collect()
}

fn check_delta(
    node: &Node,
    v: &Value,
    base: &str,
    known: &mut HashMap<String, String>,
    opts: &Options,
    out: &mut Vec<Diagnostic>,
) {
    let errors = curator::validate(CuratorSchema::AceDelta, v);
    out.extend(schema_diagnostics(
        &errors,
        node,
        base,
        CuratorSchema::AceDelta,
    ));
    let id = v.get("id").and_then(Value::as_str).unwrap_or("?");
    let meta = node.get("metadata");
    let confidence = meta.and_then(|m| m.get("confidence"));
    if let Some((n, c)) = confidence.and_then(|n| n.to_value().as_f64().map(|c| (n, c))) {
        if c < opts.confidence {
            out.push(Diagnostic::new(
                &rules::DELTA_LOW_CONFIDENCE,
                n.span,
                format!(
                    "delta `{id}`: confidence {c} is below {}; {}",
                    opts.confidence,
                    reason("low-confidence")
                ),
            ));
        }
    }
    let evidence = meta.and_then(|m| m.get("evidence"));
    let short = match evidence.map(|n| (n, n.as_str())) {
        None => Some((
            meta.map_or(node.span, |m| Span::new(m.span.start, m.span.start + 1)),
            "has no `metadata.evidence`".to_owned(),
        )),
        Some((n, Some(s))) if s.trim().chars().count() < opts.evidence_length => Some((
            n.span,
            format!(
                "evidence {:?} is {} characters, fewer than {}",
                s,
                s.trim().chars().count(),
                opts.evidence_length
            ),
        )),
        _ => None,
    };
    if let Some((span, why)) = short {
        out.push(Diagnostic::new(
            &rules::DELTA_LOW_EVIDENCE,
            span,
            format!("delta `{id}` {why}; {}", reason("low-evidence")),
        ));
    }
    let op = v.get("op").and_then(Value::as_str);
    if let (Some(section), Some(content)) = (
        v.get("section").and_then(Value::as_str),
        v.get("content").and_then(Value::as_str),
    ) {
        let hash = normalize::dedup_key(section, content);
        match (op, known.get(&hash)) {
            (Some("add"), Some(first)) => out.push(Diagnostic::new(
                &rules::DELTA_DUPLICATE,
                node.get("content").map_or(node.span, |n| n.span),
                format!(
                    "delta `{id}` adds `{hash}`, which {first} already has; {}",
                    reason("duplicate")
                ),
            )),
            (Some("add"), None) => {
                known.insert(hash, format!("delta `{id}` earlier in this file"));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_scope() {
        for ok in [
            "knowledge/AGENTS.md",
            "file://knowledge/playbook.yaml",
            "prompts/a/b.md",
            "./knowledge/x",
            "knowledge/a/../b",
        ] {
            assert!(check_write_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "/etc/passwd",
            "file:///knowledge/x",
            "src/main.rs",
            "knowledge/../src/x",
            "../knowledge/x",
            "knowledge",
            "C:\\knowledge\\x",
            "",
        ] {
            assert!(check_write_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn diff_targets_drop_git_prefixes() {
        let d = "--- a/knowledge/AGENTS.md\n+++ b/knowledge/AGENTS.md\n@@ -1 +1 @@\n+++ not a header?\n";
        assert_eq!(diff_targets(d)[0], "knowledge/AGENTS.md");
    }
}
