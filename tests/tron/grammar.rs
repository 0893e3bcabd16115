//! grammars/tron.ebnf is normative: every `ok:` example in it must parse and
//! every `err:` example must be rejected, and every production it defines
//! must be named by the parser function that implements it.

use std::path::Path;

fn grammar() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../grammars/tron.ebnf");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An example as written in the grammar: a JSON string literal.
fn examples(kind: &str) -> Vec<String> {
    let prefix = format!("(* {kind}: ");
    grammar()
        .lines()
        .filter_map(|l| l.trim().strip_prefix(&prefix)?.strip_suffix(" *)"))
        .map(|lit| serde_json::from_str::<String>(lit).unwrap_or_else(|e| panic!("{lit}: {e}")))
        .collect()
}

#[test]
fn ok_examples_parse() {
    let ok = examples("ok");
    assert!(ok.len() >= 15, "{} ok examples", ok.len());
    for text in ok {
        if let Err(e) = ace_tron::parse(&text, &ace_tron::Options::default()) {
            panic!("{text:?} must parse: {} at {:?}", e.message, e.span);
        }
    }
}

#[test]
fn err_examples_are_rejected_with_a_position() {
    let err = examples("err");
    assert!(err.len() >= 25, "{} err examples", err.len());
    for text in err {
        match ace_tron::parse(&text, &ace_tron::Options::default()) {
            Ok(doc) => panic!("{text:?} must not parse, got {}", doc.root.to_value()),
            Err(e) => {
                assert_eq!(e.code, "ACE000");
                assert!(e.span.end <= text.len(), "{text:?}: span {:?}", e.span);
            }
        }
    }
}

#[test]
fn every_production_is_implemented_by_name() {
    let sources = [
        include_str!("../../crates/support/ace-tron/src/parser.rs"),
        include_str!("../../crates/support/ace-tron/src/lexer.rs"),
    ]
    .concat();
    let productions: Vec<String> = grammar()
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("(*"))
        .filter_map(|l| l.split_once(" = ").or_else(|| l.split_once("= ")))
        .map(|(name, _)| name.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    assert!(productions.len() >= 20, "{productions:?}");
    for p in productions {
        assert!(
            sources.contains(&format!("{p} ="))
                || sources.contains(&format!("`{p}"))
                || sources.contains(&format!("{p}`")),
            "production `{p}` is not named in the parser"
        );
    }
}
