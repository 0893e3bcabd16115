//! The 164-case TRON suite (`$ACE_CORPUS/tron/DERIVED__tron-reference-cases.json`):
//! every decode case must agree with its `proposed` column, unless listed in
//! docs/formats/tron.md as a deliberate difference (none at present).

use std::path::PathBuf;

const NEEDS_CORPUS: &str = "this test needs ACE_CORPUS, the shared corpus folder: \
     ACE_CORPUS=../shared/corpus cargo test --workspace -- --include-ignored";

fn cases() -> Vec<serde_json::Value> {
    let root = std::env::var_os("ACE_CORPUS").expect(NEEDS_CORPUS);
    let path = PathBuf::from(root).join("tron/DERIVED__tron-reference-cases.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("ACE_CORPUS is set but {}: {e}", path.display()));
    serde_json::from_str(&without_lone_surrogates(&text)).expect("the case file is JSON")
}

/// The file records what the JavaScript parser returned, lone surrogates
/// included (`"\ud83d"`), which Python writes and serde_json refuses. They
/// occur only in the reference columns, never in an input or a proposed
/// value, so they are replaced by U+FFFD before parsing.
fn without_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let hex = |i: usize| {
        text.get(i..i + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'u') {
            if let Some(u) = hex(i + 2) {
                let high = (0xD800..0xDC00).contains(&u);
                let low = (0xDC00..0xE000).contains(&u);
                let paired = high
                    && b.get(i + 6) == Some(&b'\\')
                    && b.get(i + 7) == Some(&b'u')
                    && hex(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
                if paired {
                    out.push_str(&text[i..i + 12]);
                    i += 12;
                    continue;
                }
                if high || low {
                    out.push_str("\\ufffd");
                    i += 6;
                    continue;
                }
            }
        }
        if b[i] == b'\\' {
            out.push_str(&text[i..i + 2]);
            i += 2;
            continue;
        }
        let ch = text[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_decode_case_agrees_with_the_proposed_grammar() {
    let cases = cases();
    assert_eq!(cases.len(), 164);
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        if case["mode"] != "decode" {
            continue;
        }
        let id = case["id"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let want = &case["proposed"];
        let got = ace_tron::parse(input, &ace_tron::Options::default());
        checked += 1;
        match (want["ok"].as_bool().unwrap(), got) {
            (true, Ok(doc)) => {
                if !same_values(&doc.root.to_value(), &want["value"]) {
                    failures.push(format!(
                        "{id}: got {}, want {}",
                        doc.root.to_value(),
                        want["value"]
                    ));
                }
            }
            (true, Err(e)) => failures.push(format!(
                "{id}: error {} at {:?}, want {}",
                e.message, e.span, want["value"]
            )),
            (false, Ok(doc)) => failures.push(format!(
                "{id}: parsed {}, want error {}",
                doc.root.to_value(),
                want["error"]
            )),
            (false, Err(e)) => {
                assert!(e.span.end <= input.len(), "{id}: span outside the input");
                assert!(!e.message.is_empty());
            }
        }
    }
    assert_eq!(checked, 155);
    assert!(
        failures.is_empty(),
        "{} of {checked} cases disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Drops `null` members of objects, the way vAgenda's JSON twins omit the
/// fields that TRON must write positionally as `null`.
fn without_nulls(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k.clone(), without_nulls(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// The recorded pair checks compare as Python does, where `11 == 11.0`.
fn numbers_as_floats(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap_or(f64::NAN)),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), numbers_as_floats(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(numbers_as_floats).collect()),
        other => other.clone(),
    }
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_tron_file_parses_as_recorded_and_matches_its_json_twin() {
    let root = std::env::var_os("ACE_CORPUS").expect(NEEDS_CORPUS);
    let dir = PathBuf::from(root).join("tron");
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("DERIVED__corpus-reference-results.json"))
            .expect("ACE_CORPUS is set but the corpus results file is missing"),
    )
    .unwrap();
    let results = results.as_object().unwrap();
    assert_eq!(results.len(), 31);
    let mut compared = 0;
    for (name, r) in results {
        let text =
            std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = ace_tron::parse(&text, &ace_tron::Options::default());
        let want_ok = r["proposed-grammar"]["ok"].as_bool().unwrap();
        assert_eq!(got.is_ok(), want_ok, "{name}: {:?}", got.as_ref().err());
        let Ok(doc) = got else { continue };
        // The twin is the same name as .json; the spec's quick example
        // pairs `-tron.tron` with `-json.json`, and the weather example's
        // three TRON layouts share one JSON file.
        let twins: Vec<serde_json::Value> = [
            name.replace(".tron", ".json"),
            name.replace("-tron.tron", "-json.json"),
            name.replace(
                &name[name.find("__tron_").map_or(name.len(), |i| i)..],
                "__json_original.json",
            ),
        ]
        .iter()
        .filter_map(|t| std::fs::read_to_string(dir.join(t)).ok())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .map(|t| numbers_as_floats(&t))
        .collect();
        let value = numbers_as_floats(&doc.root.to_value());
        match r["pair_check"].as_str().unwrap() {
            "EQUAL" => {
                assert!(
                    twins.contains(&value),
                    "{name}: no JSON twin equals {value}"
                );
                compared += 1;
            }
            "EQUAL-MODULO-NULL-OMISSION" => {
                assert!(!twins.contains(&value), "{name}: nulls make the difference");
                let v = without_nulls(&value);
                assert!(
                    twins.iter().any(|t| without_nulls(t) == v),
                    "{name}: no JSON twin equals {v} once nulls are dropped"
                );
                compared += 1;
            }
            _ => {}
        }
    }
    assert_eq!(
        compared, 26,
        "22 equal pairs and 4 equal once nulls are dropped"
    );
}

/// Equal as JSON values, numbers by the number they denote: the suite was
/// written by Python (`1e+10` as `10000000000.0`), and the parser keeps
/// each number's lexeme as written.
fn same_values(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_values(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_values(v, w)))
        }
        _ => a == b,
    }
}
