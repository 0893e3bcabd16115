//! The paper's curator operations (`ace-agent/ace`, `playbook_utils`):
//! JSON objects with `operation_type`, one per line (the
//! `curator_operations_diff.jsonl` its runs write), in an array, or alone.
//! They are the markdown playbook's own deltas, as canonical [`Delta`]s.
//! The paper's code implements `ADD` only; each operation is one delta.

use ace_jsonspan::Node;
use ace_model::delta::{Change, Delta, Op, Reason};
use ace_model::{Diagnostic, Entry};

fn is_operation(n: &Node) -> bool {
    n.get("operation_type").and_then(Node::as_str).is_some()
}

/// The operations in `text`, or `None` when it holds none.
pub fn read_operations(text: &str) -> Result<Option<Vec<Delta>>, Diagnostic> {
    // Every operation names its type: a text without the key is no file
    // of operations, found without parsing it (the caller tries the other
    // dialects next).
    if memchr::memmem::find(text.as_bytes(), b"\"operation_type\"").is_none() {
        return Ok(None);
    }
    let nodes = ace_jsonspan::records(text, &[])?;
    if nodes.is_empty() || !nodes.iter().all(is_operation) {
        return Ok(None);
    }
    Ok(Some(nodes.iter().map(operation).collect()))
}

fn operation(n: &Node) -> Delta {
    let mut d = Delta::new(n.span);
    let text = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_owned);
    d.created_at = text("timestamp");
    let kind = text("operation_type").unwrap_or_default();
    match (kind.to_ascii_uppercase().as_str(), text("section"), text("content")) {
        ("ADD", Some(section), Some(content)) => {
            let mut entry = Entry {
                section: Some(section),
                content,
                helpful: Some(0),
                harmful: Some(0),
                ..Entry::default()
            };
            // ace-tools' own key: the project marker of ace_claude_mcp's
            // playbook (`[id] ... [project] :: text`), which the paper's
            // operations have no key for.
            if let Some(p) = text("project_id") {
                entry.project_id = Some(p);
            }
            d.ops.push(Op {
                change: Change::Add(entry),
                span: n.span,
            })
        }
        ("ADD", ..) => d.refuse(
            Reason::Invalid,
            n.span,
            "an `ADD` operation needs `section` and `content` strings",
        ),
        (other, ..) => d.refuse(
            Reason::Invalid,
            n.get("operation_type").map_or(n.span, |t| t.span),
            format!("operation `{other}` is not one the paper's curator defines: its code applies `ADD` only"),
        ),
    }
    d
}
