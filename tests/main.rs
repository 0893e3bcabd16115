//! The workspace's integration tests, one module per subject, in one test
//! binary: each binary links the whole workspace, and eighteen of them
//! were most of a CI run's link time (docs/decisions.md, "Tests").
//! `cargo test -p ace-tests MODULE::` runs one subject.

// The fuzz targets' checks, which `fuzz_regressions` replays and
// `new_format` runs on a format of its own.
#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod fuzz_checks;

mod apply;
mod apply_properties;
mod chains;
mod corpus;
mod curator;
mod diff;
mod diff_dialects;
mod docs;
mod fuzz_regressions;
mod grammar_diff;
mod layers;
mod markdown_fixtures;
mod matrix;
mod migration;
mod new_dialect;
mod new_format;
mod properties;
mod schema_lines;
mod skill;
mod skillbook;
mod tron;
mod tron_js;
mod vagenda;
