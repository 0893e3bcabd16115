//! Times a target needs and the source lacks: the clock by default, never
//! the Unix epoch unless SOURCE_DATE_EPOCH or --now says so.

use assert_cmd::Command;

use crate::fixture;

fn convert_to(to: &str, env: Option<&str>, extra: &[&str]) -> String {
    let mut c = Command::cargo_bin("ace-convert").unwrap();
    c.env_remove("SOURCE_DATE_EPOCH");
    if let Some(v) = env {
        c.env("SOURCE_DATE_EPOCH", v);
    }
    let out = c
        .arg(fixture("canonical.md"))
        .args(["--to", to])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_playbook_without_dates_is_dated_today_not_1970() {
    let today = ace_model::time::clock()[..10].to_owned();
    for to in ["skill-json", "vagenda-json", "vagenda-tron"] {
        let text = convert_to(to, None, &[]);
        assert!(!text.contains("1970"), "{to}: {text}");
        assert!(text.contains(&today), "{to}: {text}");
    }
    // Asked for: SOURCE_DATE_EPOCH, or --now, which wins.
    let text = convert_to("skill-json", Some("0"), &[]);
    assert!(text.contains("bullet-1970-01-01-001"), "{text}");
    let text = convert_to(
        "vagenda-json",
        Some("0"),
        &["--now", "2026-01-31T12:00:00Z"],
    );
    assert!(
        text.contains("\"created\": \"2026-01-31T12:00:00Z\""),
        "{text}"
    );
    assert!(!text.contains("1970"), "{text}");
}
