//! Generated documentation is committed; this fails when it is stale.

#[test]
fn rules_doc_is_fresh() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == ace_model::rules::markdown_doc(),
        "docs/rules.md is stale: run `cargo xtask docs`"
    );
}
