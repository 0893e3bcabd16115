//! The playbook's `metrics` as the ACE extension computes them, which the
//! reader keeps the basis of and the writer recomputes when it changed.

use ace_model::{Confidence, Entry};
use serde_json::{Map, Number, Value};

/// What the metrics were computed from, to tell whether the entries changed.
pub(crate) fn metrics_basis(entries: &[Entry]) -> Value {
    let (total, avg) = metrics_numbers(entries);
    let mut m = Map::new();
    m.insert("totalEntries".into(), Value::from(total));
    m.insert(
        "averageConfidence".into(),
        avg.map_or(Value::Null, Value::Number),
    );
    Value::Object(m)
}

/// The entry count and the mean confidence rounded to two places (as the
/// ACE extension's example computes it), `None` without any confidence.
pub(crate) fn metrics_numbers(entries: &[Entry]) -> (u64, Option<Number>) {
    let scores: Vec<f64> = entries
        .iter()
        .filter_map(|e| e.confidence.as_ref().and_then(Confidence::score))
        .collect();
    let avg = (!scores.is_empty())
        .then(|| (scores.iter().sum::<f64>() / scores.len() as f64 * 100.0).round() / 100.0)
        .and_then(Number::from_f64);
    (entries.len() as u64, avg)
}
