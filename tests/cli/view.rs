//! `ace-view`: the page of a playbook, of its git history, of every corpus
//! playbook, and the pages loaded in headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

const PLAYBOOK: &str = "\
## STRATEGIES AND HARD RULES
[str-00001] helpful=5 harmful=0 :: Read the API documentation of an app before calling any of its endpoints.
[str-00002] helpful=0 harmful=6 :: Guess the parameters of an endpoint from its name.
[str-00003] helpful=2 harmful=0 :: Check the HTTP status code before parsing the body of a response.
[str-00004] helpful=1 harmful=0 :: Check the HTTP status code before parsing the body of each response.

## USEFUL CODE SNIPPETS AND TEMPLATES

## TROUBLESHOOTING AND PITFALLS
[ts-00005] helpful=1 harmful=0 :: Page through every list endpoint <until> a page comes back \"empty\" & stop.
";

fn view() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("ace-view").unwrap();
    c.env_remove("SOURCE_DATE_EPOCH").arg("--isolated");
    c
}

fn page(file: &Path, extra: &[&str]) -> String {
    let o = view().arg(file).args(extra).output().unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The references a page makes to anything outside itself: `src`, `href`
/// and `url(...)` values and `@import`s that are not fragments or data.
fn outside_references(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attr in [
        "src=\"",
        "href=\"",
        "url(",
        "@import",
        "<link",
        "xmlns=\"http",
    ] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            let value: String = rest[i + attr.len()..].chars().take(40).collect();
            if !(value.starts_with('#') || value.starts_with("data:")) {
                found.push(format!("{attr}{value}"));
            }
            rest = &rest[i + attr.len()..];
        }
    }
    found
}

#[test]
fn a_page_shows_sections_counters_findings_pruning_and_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::write(&pb, PLAYBOOK).unwrap();
    let html = page(&pb, &[]);
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert_eq!(outside_references(&html), Vec::<String>::new());
    for key in [
        "strategies_and_hard_rules",
        "useful_code_snippets_and_templates",
        "troubleshooting_and_pitfalls",
    ] {
        assert!(
            html.contains(&format!(
                "<details class=\"section\" id=\"sec-{key}\" data-section=\"{key}\" open>"
            )),
            "{key}"
        );
    }
    // Every entry, its text escaped, its counters as bars.
    for id in [
        "str-00001",
        "str-00002",
        "str-00003",
        "str-00004",
        "ts-00005",
    ] {
        assert!(
            html.contains(&format!("<tr id=\"e-{id}\" data-entry")),
            "{id}"
        );
    }
    assert!(html.contains("&lt;until&gt; a page comes back &quot;empty&quot; &amp; stop."));
    assert!(html.contains("<span class=\"bar x\" title=\"harmful 6\">"));
    // Pruning: the harmful-dominated entry, and only it.
    assert_eq!(html.matches("would be removed").count(), 1);
    let row = &html[html.find("<tr id=\"e-str-00002\"").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("would be removed"), "{row}");
    // The near-duplicate pair, as --dedup finds it.
    assert!(
        html.contains(
            "<a href=\"#e-str-00003\"><code>str-00003</code></a></td><td><a href=\"#e-str-00004\">"
        ),
        "{html}"
    );
    // A finding at its entry: the empty section is the file's (ACE020).
    assert!(html.contains("ACE020"));
    // The tokens: the whole file's count, as ace-validate --tokens gives it.
    let tokens = ace_tokens::Encoding::default().count(PLAYBOOK);
    assert!(
        html.contains(&format!("<dt>Tokens (cl100k_base)</dt><dd>{tokens}</dd>")),
        "{tokens}"
    );
    // The same page again, byte for byte; and to a file.
    assert_eq!(page(&pb, &[]), html);
    let out = dir.path().join("page.html");
    view().arg(&pb).arg("-o").arg(&out).assert().code(0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), html);
}

#[test]
fn a_file_that_is_no_playbook_exits_1_and_history_outside_git_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("skill.json");
    std::fs::write(&bad, "{\"bullets\": [").unwrap();
    view().arg(&bad).assert().code(1);
    let pb = dir.path().join("playbook.md");
    std::fs::write(&pb, PLAYBOOK).unwrap();
    view()
        .arg(&pb)
        .arg("--history")
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("git"));
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A repository whose playbook has three commits: created, grown, and one
/// entry removed as another is added. Returns the playbook's path.
fn three_commits(dir: &Path) -> PathBuf {
    git(dir, &["init", "-q", "-b", "main"]);
    let pb = dir.join("playbook.md");
    let v1 =
        "## STRATEGIES AND HARD RULES\n[str-00001] helpful=1 harmful=0 :: Read the docs first.\n";
    let v2 = format!("{v1}[str-00002] helpful=0 harmful=0 :: Check the status code.\n");
    let v3 = "## STRATEGIES AND HARD RULES\n[str-00001] helpful=3 harmful=0 :: Read the docs first.\n[str-00003] helpful=0 harmful=0 :: Page through lists.\n";
    for (text, msg) in [(v1, "create"), (v2.as_str(), "grow"), (v3, "replace")] {
        std::fs::write(&pb, text).unwrap();
        git(dir, &["add", "playbook.md"]);
        git(dir, &["commit", "-q", "-m", &format!("playbook: {msg}")]);
    }
    pb
}

fn commit_ids(dir: &Path) -> Vec<String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["log", "--format=%H"])
        .output()
        .unwrap();
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn history_shows_every_commit_with_what_it_added_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let pb = three_commits(dir.path());
    let html = page(&pb, &["--history"]);
    assert_eq!(outside_references(&html), Vec::<String>::new());
    let ids = commit_ids(dir.path());
    assert_eq!(ids.len(), 3);
    for id in &ids {
        // A row of the table and a point of the chart, each naming it.
        assert!(html.contains(&format!("<tr data-commit=\"{id}\">")), "{id}");
        assert!(
            html.contains(&format!(
                "<g class=\"point\" data-commit=\"{id}\"><title>{}",
                &id[..7]
            )),
            "{id}"
        );
    }
    // Newest first in the table: the last commit added str-00003, removed
    // str-00002 and changed str-00001's counter.
    let newest = &html[html
        .find(&format!("<tr data-commit=\"{}\">", ids[0]))
        .unwrap()..];
    let newest = &newest[..newest.find("</tr>").unwrap()];
    let cells: Vec<&str> = newest.split("<td").collect();
    assert!(newest.contains("playbook: replace"), "{newest}");
    assert!(cells[cells.len() - 3].contains("str-00003"), "{newest}");
    assert!(cells[cells.len() - 2].contains("str-00002"), "{newest}");
    assert!(cells[cells.len() - 1].contains("str-00001"), "{newest}");
    assert!(html.contains("<desc id=\"hist-d\">Line chart over 3 commits"));
}

/// On a history with a branch merged in, each commit is compared with
/// the file in its first parent, not with the commit listed before it: a
/// commit on main that counted one entry did not remove the branch's new
/// entry nor change its counts, and the merge that joined them shows as
/// what it brought to main.
#[test]
fn history_compares_each_commit_with_its_first_parent() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    let pb = d.join("playbook.md");
    let line = |id: &str, h: u32, text: &str| format!("[{id}] helpful={h} harmful=0 :: {text}\n");
    let (a, b, c) = (
        "Check the input before parsing it.",
        "Keep each function small enough to test.",
        "Retry a failed call once before giving up.",
    );
    let commit = |text: String, msg: &str| {
        std::fs::write(&pb, text).unwrap();
        git(d, &["add", "playbook.md"]);
        git(d, &["commit", "-q", "-m", msg]);
    };
    commit(
        format!("## S\n{}{}", line("s-00001", 1, a), line("s-00002", 0, b)),
        "base",
    );
    git(d, &["checkout", "-q", "-b", "side"]);
    commit(
        format!(
            "## S\n{}{}{}",
            line("s-00001", 2, a),
            line("s-00002", 0, b),
            line("s-00003", 0, c)
        ),
        "side: count s1, add s3",
    );
    git(d, &["checkout", "-q", "main"]);
    commit(
        format!("## S\n{}{}", line("s-00001", 1, a), line("s-00002", 4, b)),
        "main: count s2",
    );
    let merged = format!(
        "## S\n{}{}{}",
        line("s-00001", 2, a),
        line("s-00002", 4, b),
        line("s-00003", 0, c)
    );
    let o = Command::new("git")
        .arg("-C")
        .arg(d)
        .args(["merge", "-q", "side", "-m", "merge side"])
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .output()
        .unwrap();
    assert!(!o.status.success(), "the branches conflict");
    commit(merged, "merge side");
    let html = page(&pb, &["--history"]);
    let row = |subject: &str| -> Vec<String> {
        let row = html
            .split("<tr data-commit")
            .skip(1)
            .map(|r| &r[..r.find("</tr>").unwrap()])
            .find(|r| r.contains(subject))
            .unwrap_or_else(|| panic!("no row for {subject}"));
        row.split("<td").map(str::to_owned).collect()
    };
    // Added, removed, changed: the last three cells.
    let main = row("main: count s2");
    let n = main.len();
    assert!(!main[n - 3].contains("s-0000"), "{main:?}");
    assert!(!main[n - 2].contains("s-0000"), "{main:?}");
    assert!(
        main[n - 1].contains("s-00002") && !main[n - 1].contains("s-00001"),
        "{main:?}"
    );
    let side = row("side: count s1");
    assert!(
        side[n - 3].contains("s-00003") && side[n - 1].contains("s-00001"),
        "{side:?}"
    );
    let merge = row("merge side");
    assert!(
        merge[n - 3].contains("s-00003") && merge[n - 1].contains("s-00001"),
        "{merge:?}"
    );
    assert!(!merge[n - 2].contains("s-0000"), "{merge:?}");
}

/// Every corpus playbook's page refers to nothing outside itself and shows
/// every section.
#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_playbook_has_a_self_contained_page() {
    let files = corpus_playbooks();
    assert!(files.len() > 40, "{} files", files.len());
    let mut shown = 0;
    for f in &files {
        let o = view().arg(f).output().unwrap();
        if o.status.code() == Some(1) {
            continue;
        }
        assert!(
            o.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let html = String::from_utf8(o.stdout).unwrap();
        assert_eq!(
            outside_references(&html),
            Vec::<String>::new(),
            "{}",
            f.display()
        );
        for key in sections_of(f) {
            assert!(
                html.contains(&format!("data-section=\"{}\"", html_escape(&key))),
                "{}: section {key}",
                f.display()
            );
        }
        shown += 1;
    }
    assert!(shown > 40, "{shown} pages");
}

fn corpus_playbooks() -> Vec<PathBuf> {
    ace_tests::corpus_texts(&ace_tests::PLAYBOOK_VARIANTS)
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The sections `ace-validate --tokens` lists for a file.
fn sections_of(f: &Path) -> Vec<String> {
    let o = assert_cmd::Command::cargo_bin("ace-validate")
        .unwrap()
        .args(["--tokens", "--output-format", "json"])
        .arg(f)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    v[0]["sections"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| s["key"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A generated playbook of `n` entries in eight sections.
fn generated(n: usize) -> String {
    let sections = [
        "STRATEGIES AND HARD RULES",
        "APIS TO USE FOR SPECIFIC INFORMATION",
        "USEFUL CODE SNIPPETS AND TEMPLATES",
        "COMMON MISTAKES AND CORRECT STRATEGIES",
        "PROBLEM-SOLVING HEURISTICS",
        "VERIFICATION CHECKLIST",
        "TROUBLESHOOTING AND PITFALLS",
        "OTHERS",
    ];
    let words = [
        "check", "the", "status", "before", "parsing", "each", "page", "token", "retry", "limit",
    ];
    let mut s = String::new();
    for (k, title) in sections.iter().enumerate() {
        s.push_str(&format!("## {title}\n"));
        for i in (k..n).step_by(sections.len()) {
            let text: Vec<&str> = (0..12)
                .map(|j| words[(i * 7 + j * 3) % words.len()])
                .collect();
            s.push_str(&format!(
                "[x{k}-{i:05}] helpful={} harmful={} :: Entry {i}: {}.\n",
                i % 9,
                i % 4,
                text.join(" ")
            ));
        }
        s.push('\n');
    }
    s
}

/// What Chromium reported of the page of `src`: no console error, no
/// request leaving it, every section of `src` in its DOM.
fn loaded_whole(r: &serde_json::Value, src: &Path, name: &str) {
    assert_eq!(r["errors"], serde_json::json!([]), "{name}");
    assert_eq!(r["requests"], serde_json::json!([]), "{name}");
    let shown: Vec<&str> = r["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(shown, sections_of(src), "{name}: every section in the DOM");
}

/// The pages in a real browser: the AppWorld online playbook's, a
/// three-commit history's, a 10,000-entry playbook's and every other
/// corpus playbook's load in headless Chromium with
/// no console error and no request leaving the page; the DOM shows every
/// section and every commit; the filter finds an entry; a screenshot of
/// each is kept (`ACE_VIEW_SHOTS`, else a temporary folder) to look at.
#[test]
#[ignore = "needs ACE_CHROMIUM, ACE_TRON_JS and ACE_CORPUS"]
fn pages_load_in_chromium_with_every_section_and_commit() {
    let chromium = std::env::var_os("ACE_CHROMIUM")
        .map(PathBuf::from)
        .expect("this test needs ACE_CHROMIUM, a Chromium binary (apt-get install chromium)");
    let js = std::env::var_os("ACE_TRON_JS").map(PathBuf::from).expect(
        "this test needs ACE_TRON_JS: `npm ci` in tests/js, then ACE_TRON_JS=$PWD/tests/js",
    );
    assert!(
        js.join("node_modules/puppeteer-core").is_dir(),
        "ACE_TRON_JS={} has no node_modules/puppeteer-core; run npm ci there",
        js.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let shots = std::env::var_os("ACE_VIEW_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.path().join("shots"));
    std::fs::create_dir_all(&shots).unwrap();
    let appworld = ace_tests::corpus_dir("markdown-playbook").join(
        "ace-agent__ace-appworld__experiments__playbooks__appworld_online_trained_playbook.txt",
    );
    assert!(appworld.is_file(), "{} is missing", appworld.display());
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let history = three_commits(&repo);
    let big = dir.path().join("generated-10000.md");
    std::fs::write(&big, generated(10_000)).unwrap();
    let pages = [
        (appworld.clone(), "appworld-online", vec![]),
        (history.clone(), "history", vec!["--history"]),
        (big.clone(), "generated-10000", vec![]),
    ];
    let mut files = Vec::new();
    for (src, name, extra) in &pages {
        let out = dir.path().join(format!("{name}.html"));
        view()
            .arg(src)
            .args(extra)
            .arg("-o")
            .arg(&out)
            .assert()
            .code(0);
        files.push(out);
    }
    // Then every corpus playbook's page.
    let mut corpus = Vec::new();
    for (i, src) in corpus_playbooks().into_iter().enumerate() {
        let out = dir.path().join(format!("corpus-{i:03}.html"));
        let o = view().arg(&src).arg("-o").arg(&out).output().unwrap();
        if o.status.success() {
            files.push(out);
            corpus.push(src);
        }
    }
    assert!(corpus.len() > 40, "{} corpus pages", corpus.len());
    let o = Command::new("node")
        .arg(js.join("view.mjs"))
        .arg(&chromium)
        .arg(&shots)
        .args(&files)
        .output()
        .expect("node runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let results: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 3 + corpus.len());
    for (r, src) in results[3..].iter().zip(&corpus) {
        let name = src.display();
        loaded_whole(r, src, &name.to_string());
        if r["entries"].as_u64() > Some(0) {
            // The first entry's ID finds that entry (and any row that
            // names it).
            assert!(r["filtered"].as_u64() >= Some(1), "{name}");
        }
    }
    eprintln!("{} corpus pages loaded with no console error", corpus.len());
    for (r, (src, name, _)) in results.iter().zip(&pages) {
        eprintln!(
            "{name}: {} entries, load {} ms, scroll {} ms, filter {} ms; screenshot {}",
            r["entries"], r["loadMs"], r["scrollMs"], r["filterMs"], r["shot"]
        );
        loaded_whole(r, src, name);
        assert_eq!(r["filterShown"], true, "{name}");
        assert_eq!(
            r["filtered"], 1,
            "{name}: the filter finds one entry by its ID"
        );
        assert!(Path::new(r["shot"].as_str().unwrap()).is_file());
    }
    assert_eq!(results[0]["entries"], 359);
    assert_eq!(results[2]["entries"], 10_000);
    let commits: Vec<String> = results[1]["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(commits, commit_ids(&repo), "every commit, newest first");
    assert_eq!(results[1]["points"].as_array().unwrap().len(), 3);
}

/// A kayba skill is shown as the agent reads it in `as_prompt`: its issue
/// and its insight, with its keywords.
#[test]
fn a_kayba_skill_shows_its_issue_insight_and_keywords() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("skillbook.json");
    std::fs::write(
        &book,
        r#"{"skills": {"context-00001": {"id": "context-00001", "section": "context", "keywords": ["api", "retries"], "issue": "Requests fail now and then.", "insight": "Retry a failed request once before reporting it.", "helpful_count": 1, "harmful_count": 0, "neutral_count": 0, "active": true}}, "sections": {"context": ["context-00001"]}, "next_id": 1, "schema_version": "2"}"#,
    )
    .unwrap();
    let html = page(&book, &[]);
    assert!(
        html.contains("<b>Issue:</b> Requests fail now and then.<br><b>Insight:</b> Retry a failed request once before reporting it."),
        "{html}"
    );
    assert!(html.contains("Keywords: api, retries"), "{html}");
}
