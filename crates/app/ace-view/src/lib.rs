//! `ace-view`: one self-contained HTML page of a playbook, for the people
//! who decide what it keeps. Where the tokens go (per section, as an SVG
//! bar chart and a table), each entry's counters as bars, its findings and
//! whether `ace-apply --prune` would remove it, the near-duplicate
//! clusters `--dedup` would merge, and with `--history` the file's commits
//! as an SVG chart of entries and tokens with what each commit added and
//! removed.
//!
//! The page has its CSS and SVG inline and no reference to anything
//! outside it; everything is in the HTML as written, so it reads with
//! scripts off; a small inline script adds the filter box. Sections are
//! collapsible (`<details>`), and closed when the playbook is large, so a
//! page of 10,000 entries opens at once. Same input, same page.

pub mod history;

use std::collections::HashMap;
use std::fmt::Write as _;

use ace_apply::dedup::Merged;
use ace_apply::prune::Pruned;
use ace_check::budget::TokenCount;
use ace_model::{Diagnostic, Entry, Playbook, Severity};
use ace_registry::Format;

pub use history::Commit;

/// Above this many entries sections start closed.
const OPEN_UP_TO: usize = 400;

/// The IDs a list shows before "and N more" (a cluster's merged entries,
/// what a commit added).
const SHOWN_IDS: usize = 12;

/// What the page shows, computed from the playbook's file.
pub struct View {
    pub name: String,
    pub format: Format,
    pub playbook: Playbook,
    pub tokens: TokenCount,
    /// The tokens of what an agent is shown, where that is not the file
    /// (a skillbook's `as_prompt()`), and what prints it.
    pub prompt: Option<(usize, &'static str)>,
    /// Each entry's own tokens (its title and content), by index.
    pub entry_tokens: Vec<usize>,
    /// Every finding of ace-validate, in source order.
    pub findings: Vec<Diagnostic>,
    /// Line of each finding.
    pub lines: Vec<usize>,
    /// What `ace-apply --prune` would remove, with the budget given.
    pub pruned: Vec<Pruned>,
    /// What the prune counted it against, for the page to say.
    pub budget: String,
    /// The clusters `ace-apply --dedup` would merge.
    pub clusters: Vec<Merged>,
    /// The file's commits, oldest first, with `--history`.
    pub history: Option<Vec<Commit>>,
    /// The title of each section, by key, as `Playbook::section` finds it.
    titles: HashMap<String, Option<String>>,
}

/// How the page is computed.
pub struct Options {
    pub encoding: ace_tokens::Encoding,
    pub lint: ace_check::LintOptions,
    /// The pruning `ace-apply --prune` would do: the spec's rule, the
    /// budget of `ace.toml` and the flags.
    pub prune: ace_apply::prune::PruneOptions,
    pub dedup: ace_apply::dedup::DedupOptions,
}

impl Options {
    /// The page's options for the configuration `config` names, else the
    /// ace.toml ace-validate finds (none when `isolated`), with a budget
    /// of `max_tokens` and `max_entries` in `tokenizer` over its
    /// `[budget]`.
    pub fn of(
        config: Option<&std::path::Path>,
        isolated: bool,
        max_tokens: Option<usize>,
        max_entries: Option<usize>,
        tokenizer: Option<ace_tokens::Encoding>,
    ) -> Result<Options, ace_model::Error> {
        let loaded = ace_check::run::configuration(config, isolated)?;
        let settings = ace_check::run::settings(&loaded, &Default::default())?;
        let asked = ace_apply::CurateArgs {
            dedup: true,
            prune: true,
            max_tokens,
            max_entries,
            tokenizer,
            ..Default::default()
        };
        let curate = ace_apply::Curate::of(&asked, &loaded.config)?;
        let (Some(prune), Some(dedup)) = (curate.prune, curate.dedup) else {
            return Err(ace_model::Error::Usage(
                "no pruning or de-duplication options".into(),
            ));
        };
        Ok(Options {
            encoding: prune.budget.encoding,
            lint: settings.lint.clone(),
            prune,
            dedup,
        })
    }
}

/// What the page shows of `source`, read as `format` into `input`
/// (`ace_registry::convert::read_input`, its companion with it).
pub fn view(
    source: &ace_fs::Source,
    format: Format,
    input: ace_registry::convert::Input,
    opts: &Options,
) -> View {
    let (name, text) = (source.name.as_str(), &*source.text);
    let companion = input.companion.as_ref().map(|c| &*c.text);
    let playbook = input.parsed.playbook.clone();
    let findings = ace_check::validate_parsed(format, input.parsed, &opts.lint);
    let index = ace_model::LineIndex::new(text);
    let lines = findings
        .iter()
        .map(|d| index.line_col(text, d.span.start).line)
        .collect();
    let tokens = ace_check::budget::count(
        format.imp().playbook_text(text),
        Some(&playbook),
        opts.encoding,
    );
    let prompt = ace_registry::prompt_text(format, &playbook)
        .map(|(text, by)| (opts.encoding.count(&text), by));
    let entry_tokens = playbook
        .entries
        .iter()
        .map(|e| ace_check::budget::entry_tokens(e, opts.encoding))
        .collect();
    let pruned = prune_plan(format, text, companion, &playbook, &opts.prune);
    let c = format.imp().curation(&playbook);
    let apart = c.kept_apart.map(|f| f(&playbook)).unwrap_or_default();
    let (_, clusters) = ace_apply::dedup::plan(
        &playbook,
        &opts.dedup,
        &ace_apply::dedup::Holds {
            status: false,
            field: &|_| false,
            kept_apart: &apart,
        },
    );
    let b = &opts.prune.budget;
    let mut budget = format!(
        "the prune rule (harmful > helpful + {})",
        opts.prune.threshold
    );
    if let Some(n) = b.whole.max_tokens {
        let _ = write!(budget, ", at most {n} tokens ({})", b.encoding.name());
    }
    if let Some(n) = b.whole.max_entries {
        let _ = write!(budget, ", at most {n} entries");
    }
    let mut titles = HashMap::with_capacity(playbook.sections.len());
    for s in &playbook.sections {
        titles
            .entry(s.key.clone())
            .or_insert_with(|| s.title.clone());
    }
    View {
        name: name.to_owned(),
        format,
        titles,
        playbook,
        tokens,
        prompt,
        entry_tokens,
        findings,
        lines,
        pruned,
        budget,
        clusters,
        history: None,
    }
}

/// What `ace-apply FILE --prune` would remove: its own pipeline, run on
/// the text with nothing written.
fn prune_plan(
    format: Format,
    text: &str,
    companion: Option<&str>,
    pb: &Playbook,
    opts: &ace_apply::prune::PruneOptions,
) -> Vec<Pruned> {
    let run = ace_apply::RunOptions {
        registry: ace_registry::Registry::builtin(),
        dialect: None,
        read: Default::default(),
        apply: ace_apply::Options {
            compat: ace_apply::Compat::Spec,
            append_only: false,
            now: "1970-01-01T00:00:00Z".to_owned(),
            verbatim: false,
        },
    };
    let curate = ace_apply::Curate {
        dedup: None,
        prune: Some(opts.clone()),
    };
    let subject = ace_apply::Subject {
        format,
        text,
        companion,
        playbook: pb.clone(),
    };
    ace_apply::run_curated(subject, &[], &run, &curate)
        .curated
        .pruned
}

/// Text for HTML: `&`, `<`, `>` and both quotes escaped, so it is safe in
/// text and in attributes.
/// A character that reorders or hides text (ACE090), or a control
/// character, is shown as `[U+XXXX]`: the page shows what the agent reads.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&#39;"),
        c if ace_model::controls::is_raw_control(c) || ace_model::controls::hidden(c).is_some() => {
            let _ = write!(out, "[U+{:04X}]", c as u32);
        }
        c => out.push(c),
    }
}

/// Characters of a word after which the page may break it: a browser
/// breaking a word only where it must (`overflow-wrap: anywhere`) lays a
/// 100 KB word out in quadratic time, and given a break this often, at
/// once.
const WORD_BREAK: usize = 32;

/// [`esc`] for text in an element, with a `<wbr>` every [`WORD_BREAK`]
/// characters of a word.
fn esc_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut run = 0;
    for c in s.chars() {
        if c.is_whitespace() {
            run = 0;
        } else {
            run += 1;
            if run > WORD_BREAK {
                out.push_str("<wbr>");
                run = 1;
            }
        }
        push_escaped(&mut out, c);
    }
    out
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        _ => "info",
    }
}

/// A number with thousands separated, as the page prints counts.
fn n(v: usize) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

const CSS: &str = r#"
:root{--fg:#1a1a1a;--muted:#555;--line:#c8c8c8;--bg:#fff;--soft:#f3f4f6;--help:#1f5fa8;--harm:#b3261e;--neutral:#6b6b6b;--err:#b3261e;--warn:#8a5a00;--info:#1f5fa8}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:0 1.5rem 3rem;max-width:80rem}
h1{font-size:1.6rem;margin:1.2rem 0 .2rem}h2{font-size:1.25rem;margin:2rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{display:inline;font-size:1.05rem;margin:0}
.sub{color:var(--muted);margin:0 0 1rem}
dl.summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.6rem;margin:0}
dl.summary div{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.5rem .7rem}
dl.summary dt{color:var(--muted);font-size:.85rem}dl.summary dd{margin:0;font-size:1.3rem;font-weight:600}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem}
th,td{border-bottom:1px solid var(--line);padding:.3rem .45rem;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.text{white-space:pre-wrap;overflow-wrap:anywhere;max-width:46rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code,td.date{white-space:nowrap}
.dup{color:var(--muted);font-size:.85rem}
details.section{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.3rem .7rem}
details.section>summary{cursor:pointer;padding:.2rem 0}
details.section>summary .meta{color:var(--muted);margin-left:.5rem}
details.section tbody{content-visibility:auto;contain-intrinsic-size:auto 40rem}
.bars{display:flex;flex-direction:column;gap:2px;min-width:7rem}
.bar{display:flex;align-items:center;gap:.3rem;font-size:.8rem;font-variant-numeric:tabular-nums}
.bar i{display:inline-block;height:.55rem;border-radius:2px;min-width:1px}
.bar.h i{background:var(--help)}.bar.x i{background:var(--harm);background-image:repeating-linear-gradient(45deg,transparent 0 3px,rgba(255,255,255,.45) 3px 5px)}
.bar.n i{background:var(--neutral)}
ul.findings{margin:0;padding-left:1rem;font-size:.85rem}
.sev-error{color:var(--err)}.sev-warning{color:var(--warn)}.sev-info{color:var(--info)}
.prune{font-weight:600;color:var(--harm)}
.filter{margin:.6rem 0;display:flex;gap:.6rem;align-items:center}
.filter input{font:inherit;padding:.35rem .5rem;width:24rem;max-width:100%;border:1px solid var(--muted);border-radius:4px}
svg text{font:12px system-ui,sans-serif;fill:var(--fg)}
svg .grid{stroke:var(--line)}
.chart{max-width:100%;height:auto}
tr[hidden]{display:none}
@media print{body{max-width:none;padding:0}details.section{break-inside:avoid-page}.filter{display:none}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"#;

const SCRIPT: &str = r#"
(function(){
  var box=document.getElementById('filter-box'),input=document.getElementById('filter'),count=document.getElementById('filter-count');
  if(!box||!input)return;box.hidden=false;
  var rows=Array.prototype.slice.call(document.querySelectorAll('tr[data-entry]'));
  var texts=rows.map(function(r){return r.textContent.toLowerCase();});
  var timer=null;
  function run(){
    var q=input.value.trim().toLowerCase(),shown=0,open={};
    for(var i=0;i<rows.length;i++){
      var hit=!q||texts[i].indexOf(q)>=0;rows[i].hidden=!hit;
      if(hit){shown++;open[rows[i].getAttribute('data-section')]=true;}
    }
    if(q){document.querySelectorAll('details.section').forEach(function(d){d.open=!!open[d.getAttribute('data-section')];});}
    count.textContent=q?(shown+' of '+rows.length+' entries match'):'';
  }
  input.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(run,120);});
})();
"#;

impl View {
    /// The page.
    pub fn html(&self) -> String {
        let mut h = String::with_capacity(64 * 1024 + self.playbook.entries.len() * 600);
        let base = self.name.rsplit(['/', '\\']).next().unwrap_or(&self.name);
        let title = self.playbook.title.as_deref().unwrap_or(base);
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"ace-view\">\n<title>{} · ace-view</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n<p class=\"sub\">{} · {} · {}</p>\n</header>\n<main>\n",
            esc(title),
            esc(title),
            esc(&self.name),
            esc(self.format.name()),
            esc(self.tokens.encoding.name()),
        );
        self.summary(&mut h);
        self.token_chart(&mut h);
        if let Some(commits) = &self.history {
            history_section(&mut h, commits, self.tokens.encoding.name());
        }
        self.duplicates(&mut h);
        self.file_findings(&mut h);
        self.entries(&mut h);
        let _ = write!(h, "</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n");
        h
    }

    fn severity_counts(&self) -> [usize; 3] {
        let mut c = [0; 3];
        for d in &self.findings {
            c[match d.severity {
                Severity::Error => 0,
                Severity::Warning => 1,
                _ => 2,
            }] += 1;
        }
        c
    }

    fn summary(&self, h: &mut String) {
        let active = self
            .playbook
            .entries
            .iter()
            .filter(|e| !ace_check::budget::retired(e))
            .count();
        let [e, w, i] = self.severity_counts();
        let sections = self.tokens.sections.len();
        let _ = write!(
            h,
            "<section aria-labelledby=\"summary-h\">\n<h2 id=\"summary-h\">Summary</h2>\n<dl class=\"summary\">\n"
        );
        let mut item = |label: &str, value: String| {
            let _ = writeln!(h, "<div><dt>{label}</dt><dd>{value}</dd></div>");
        };
        let total = self.playbook.entries.len();
        item(
            "Entries",
            match active == total {
                true => n(total),
                false => format!("{} <small>({} active)</small>", n(total), n(active)),
            },
        );
        item("Sections", n(sections));
        let encoding = esc(self.tokens.encoding.name());
        match self.prompt {
            Some((tokens, by)) => item(
                &format!("Tokens the agent reads ({encoding})"),
                format!(
                    "{} <small>({}; the file: {})</small>",
                    n(tokens),
                    esc(by),
                    n(self.tokens.tokens)
                ),
            ),
            None => item(&format!("Tokens ({encoding})"), n(self.tokens.tokens)),
        }
        item(
            "Findings",
            format!(
                "<span class=\"sev-error\">{} error{}</span>, <span class=\"sev-warning\">{} warning{}</span>, <span class=\"sev-info\">{} info</span>",
                n(e),
                if e == 1 { "" } else { "s" },
                n(w),
                if w == 1 { "" } else { "s" },
                n(i)
            ),
        );
        item("Pruning would remove", n(self.pruned.len()));
        item(
            "Near-duplicate clusters",
            format!(
                "{} <small>({} entries)</small>",
                n(self.clusters.len()),
                n(self.clusters.iter().map(|c| c.merged.len() + 1).sum())
            ),
        );
        let _ = write!(
            h,
            "</dl>\n<p class=\"sub\">Pruning as <code>ace-apply --prune</code> would do it: {}. Near-duplicates as <code>ace-apply --dedup</code> finds them.</p>\n</section>\n",
            esc(&self.budget)
        );
    }

    fn section_title<'a>(&'a self, key: &'a str) -> &'a str {
        if key.is_empty() {
            return "(no section)";
        }
        self.titles
            .get(key)
            .and_then(Option::as_deref)
            .unwrap_or(key)
    }

    fn token_chart(&self, h: &mut String) {
        let secs = &self.tokens.sections;
        let _ = write!(
            h,
            "<section aria-labelledby=\"tokens-h\">\n<h2 id=\"tokens-h\">Where the tokens go</h2>\n"
        );
        let in_entries: usize = secs.iter().map(|s| s.tokens).sum();
        let max = secs.iter().map(|s| s.tokens).max().unwrap_or(0).max(1);
        let row_h = 22;
        let label_w = 340;
        let bar_w = 520;
        let height = secs.len() * row_h + 10;
        let _ = write!(
            h,
            "<svg class=\"chart\" role=\"img\" aria-labelledby=\"tok-t tok-d\" width=\"{}\" height=\"{height}\" viewBox=\"0 0 {} {height}\">\n<title id=\"tok-t\">Tokens per section</title>\n<desc id=\"tok-d\">Bar chart of each section's tokens (its entries' titles and contents); the table below gives the same figures.</desc>\n",
            label_w + bar_w + 120,
            label_w + bar_w + 120
        );
        for (i, s) in secs.iter().enumerate() {
            let y = i * row_h + 4;
            let w = (s.tokens as f64 / max as f64 * bar_w as f64)
                .round()
                .max(1.0);
            let mut label: String = self.section_title(&s.key).chars().take(40).collect();
            if label.len() < self.section_title(&s.key).len() {
                label.push('…');
            }
            let _ = writeln!(
                h,
                "<g><title>{}: {} tokens, {:.1}%</title><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{y}\" width=\"{w}\" height=\"{}\" fill=\"#1f5fa8\"/><text x=\"{}\" y=\"{}\">{} ({:.1}%)</text></g>",
                esc(self.section_title(&s.key)),
                n(s.tokens),
                pct(s.tokens, in_entries),
                label_w - 8,
                y + 13,
                esc(&label),
                label_w,
                row_h - 6,
                label_w as f64 + w + 6.0,
                y + 13,
                n(s.tokens),
                pct(s.tokens, in_entries)
            );
        }
        let _ = write!(
            h,
            "</svg>\n<table>\n<caption class=\"sub\">Per section: entries, and tokens of their titles and contents ({} of the file's {} tokens; the rest is headings, IDs, counters and layout).</caption>\n<thead><tr><th scope=\"col\">Section</th><th scope=\"col\" class=\"num\">Entries</th><th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\" class=\"num\">Share</th></tr></thead>\n<tbody>\n",
            n(in_entries),
            n(self.tokens.tokens)
        );
        for s in secs {
            let _ = writeln!(
                h,
                "<tr><th scope=\"row\"><a href=\"#sec-{}\">{}</a></th><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}%</td></tr>",
                esc(&anchor(&s.key)),
                esc(self.section_title(&s.key)),
                n(s.entries),
                n(s.tokens),
                pct(s.tokens, in_entries)
            );
        }
        let _ = write!(h, "</tbody>\n</table>\n</section>\n");
    }

    fn duplicates(&self, h: &mut String) {
        let _ = write!(
            h,
            "<section aria-labelledby=\"dup-h\">\n<h2 id=\"dup-h\">Near-duplicates</h2>\n"
        );
        if self.clusters.is_empty() {
            let _ = write!(h, "<p>No near-duplicate entries.</p>\n</section>\n");
            return;
        }
        let _ = write!(
            h,
            "<table>\n<thead><tr><th scope=\"col\">Kept</th><th scope=\"col\">Merged into it</th><th scope=\"col\">Section</th><th scope=\"col\" class=\"num\">Similarity</th></tr></thead>\n<tbody>\n"
        );
        for c in &self.clusters {
            let mut merged: Vec<String> = c
                .merged
                .iter()
                .take(SHOWN_IDS)
                .map(|id| {
                    format!(
                        "<a href=\"#e-{}\"><code>{}</code></a>",
                        esc(&anchor(id)),
                        esc(id)
                    )
                })
                .collect();
            if c.merged.len() > SHOWN_IDS {
                merged.push(format!(
                    "<small>and {} more</small>",
                    n(c.merged.len() - SHOWN_IDS)
                ));
            }
            let _ = writeln!(
                h,
                "<tr><td><a href=\"#e-{}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td class=\"num\">{:.2}</td></tr>",
                esc(&anchor(&c.keep)),
                esc(&c.keep),
                merged.join(", "),
                esc(self.section_title(c.section.as_deref().unwrap_or(""))),
                c.similarity
            );
        }
        let _ = write!(h, "</tbody>\n</table>\n</section>\n");
    }

    /// Findings not inside any entry: the file's own.
    fn file_findings(&self, h: &mut String) {
        let owners = self.owners();
        let loose: Vec<usize> = (0..self.findings.len())
            .filter(|&i| owners[i].is_none())
            .collect();
        if loose.is_empty() {
            return;
        }
        let _ = write!(
            h,
            "<section aria-labelledby=\"ff-h\">\n<h2 id=\"ff-h\">Findings about the file</h2>\n<ul class=\"findings\">\n"
        );
        for i in loose {
            let d = &self.findings[i];
            let _ = writeln!(
                h,
                "<li class=\"sev-{}\">line {}: <code>{}</code> {}</li>",
                severity_name(d.severity),
                self.lines[i],
                d.code,
                esc(&d.message)
            );
        }
        let _ = write!(h, "</ul>\n</section>\n");
    }

    /// The entry each finding is inside, by span.
    fn owners(&self) -> Vec<Option<usize>> {
        let mut spans: Vec<(usize, usize, usize)> = self
            .playbook
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.origin.0.map(|s| (s.start, s.end, i)))
            .collect();
        spans.sort_unstable();
        self.findings
            .iter()
            .map(|d| {
                let at = d.span.start;
                let k = spans.partition_point(|s| s.0 <= at);
                (k > 0 && at < spans[k - 1].1.max(spans[k - 1].0 + 1)).then(|| spans[k - 1].2)
            })
            .collect()
    }

    fn entries(&self, h: &mut String) {
        let owners = self.owners();
        let mut by_entry: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, o) in owners.iter().enumerate() {
            if let Some(e) = o {
                by_entry.entry(*e).or_default().push(i);
            }
        }
        let pruned: HashMap<&str, &Pruned> =
            self.pruned.iter().map(|p| (p.id.as_str(), p)).collect();
        // Each entry's place in a near-duplicate cluster.
        let mut dups: HashMap<&str, Dup> = HashMap::new();
        for c in &self.clusters {
            dups.insert(c.keep.as_str(), Dup::Keeps(c.merged.len()));
            for m in &c.merged {
                dups.insert(m.as_str(), Dup::Into(c.keep.as_str()));
            }
        }
        let total = self.playbook.entries.len();
        let open = total <= OPEN_UP_TO;
        let max_count = self
            .playbook
            .entries
            .iter()
            .map(|e| {
                e.helpful
                    .unwrap_or(0)
                    .max(e.harmful.unwrap_or(0))
                    .max(e.neutral.unwrap_or(0))
            })
            .max()
            .unwrap_or(0)
            .max(1);
        let _ = write!(
            h,
            "<section aria-labelledby=\"entries-h\">\n<h2 id=\"entries-h\">Entries</h2>\n<div class=\"filter\" id=\"filter-box\" hidden><label for=\"filter\">Filter entries</label><input type=\"search\" id=\"filter\" placeholder=\"ID, words, a rule code\"><span id=\"filter-count\" aria-live=\"polite\"></span></div>\n"
        );
        if !open {
            let _ = writeln!(
                h,
                "<p class=\"sub\">{} entries: each section is closed until opened (or matched by the filter).</p>",
                n(total)
            );
        }
        // Entries grouped by section in the order the token table lists
        // sections.
        let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, e) in self.playbook.entries.iter().enumerate() {
            groups
                .entry(e.section.as_deref().unwrap_or(""))
                .or_default()
                .push(i);
        }
        let none = Vec::new();
        for s in &self.tokens.sections {
            let list = groups.get(s.key.as_str()).unwrap_or(&none);
            let _ = write!(
                h,
                "<details class=\"section\" id=\"sec-{}\" data-section=\"{}\"{}>\n<summary><h3>{}</h3><span class=\"meta\">{} entries · {} tokens</span></summary>\n<table>\n<thead><tr><th scope=\"col\">ID</th><th scope=\"col\">Counters</th><th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\">Entry</th><th scope=\"col\">Findings</th><th scope=\"col\">Curation</th></tr></thead>\n<tbody>\n",
                esc(&anchor(&s.key)),
                esc(&s.key),
                if open { " open" } else { "" },
                esc(self.section_title(&s.key)),
                n(list.len()),
                n(s.tokens)
            );
            for &i in list {
                let e = &self.playbook.entries[i];
                self.entry_row(
                    h,
                    e,
                    i,
                    &s.key,
                    max_count,
                    by_entry.get(&i).map(Vec::as_slice).unwrap_or(&[]),
                    pruned.get(e.id.as_str()).copied(),
                    dups.get(e.id.as_str()).copied(),
                );
            }
            if list.is_empty() {
                let _ = writeln!(h, "<tr><td colspan=\"6\">No entries.</td></tr>");
            }
            let _ = write!(h, "</tbody>\n</table>\n</details>\n");
        }
        let _ = writeln!(h, "</section>");
    }

    #[allow(clippy::too_many_arguments)]
    fn entry_row(
        &self,
        h: &mut String,
        e: &Entry,
        i: usize,
        section: &str,
        max_count: i64,
        findings: &[usize],
        pruned: Option<&Pruned>,
        dup: Option<Dup<'_>>,
    ) {
        let _ = write!(
            h,
            "<tr id=\"e-{}\" data-entry data-section=\"{}\"><td><code>{}</code>",
            esc(&anchor(&e.id)),
            esc(section),
            esc(&e.id)
        );
        if let Some(st) = &e.status {
            if ace_check::budget::retired(e) {
                let _ = write!(h, "<br><small>{}</small>", esc(&String::from(st.clone())));
            }
        }
        let _ = write!(h, "</td><td>");
        let counters = [
            ("h", "helpful", e.helpful),
            ("x", "harmful", e.harmful),
            ("n", "neutral", e.neutral),
        ];
        if counters.iter().all(|c| c.2.is_none()) {
            let _ = write!(h, "<small>none</small>");
        } else {
            let _ = write!(h, "<div class=\"bars\">");
            for (class, label, v) in counters {
                if let Some(v) = v {
                    let w = (v.max(0) as f64 / max_count as f64 * 80.0).round();
                    let _ = write!(
                        h,
                        "<span class=\"bar {class}\" title=\"{label} {v}\"><i style=\"width:{w}px\"></i>{label} {v}</span>"
                    );
                }
            }
            let _ = write!(h, "</div>");
        }
        let _ = write!(
            h,
            "</td><td class=\"num\">{}</td><td class=\"text\">",
            n(self.entry_tokens[i])
        );
        if let Some(t) = &e.title {
            let _ = writeln!(h, "<strong>{}</strong>", esc_text(t));
        }
        // A kayba skill is its issue and its insight, as the agent reads
        // them in `as_prompt`, with its keywords.
        match e.extra.get("issue").and_then(|v| v.as_str()) {
            Some(issue) => {
                let _ = write!(
                    h,
                    "<b>Issue:</b> {}<br><b>Insight:</b> {}",
                    esc_text(issue),
                    esc_text(&e.content)
                );
            }
            None => {
                let _ = write!(h, "{}", esc_text(&e.content));
            }
        }
        if let Some(tags) = e.tags.as_deref().filter(|t| !t.is_empty()) {
            let _ = write!(
                h,
                "<br><span class=\"sub\">Keywords: {}</span>",
                esc(&tags.join(", "))
            );
        }
        let _ = write!(h, "</td><td>");
        if !findings.is_empty() {
            let _ = write!(h, "<ul class=\"findings\">");
            for &f in findings {
                let d = &self.findings[f];
                let _ = write!(
                    h,
                    "<li class=\"sev-{}\"><code>{}</code> {}</li>",
                    severity_name(d.severity),
                    d.code,
                    esc(&d.message)
                );
            }
            let _ = write!(h, "</ul>");
        }
        let _ = write!(h, "</td><td>");
        if let Some(p) = pruned {
            let _ = write!(
                h,
                "<span class=\"prune\">would be removed</span><br><small>{}</small>",
                esc(&p.why.to_string())
            );
        }
        match dup {
            Some(Dup::Into(keep)) => {
                let _ = write!(
                    h,
                    "<div class=\"dup\">near-duplicate: --dedup merges it into <a href=\"#e-{}\"><code>{}</code></a></div>",
                    esc(&anchor(keep)),
                    esc(keep)
                );
            }
            Some(Dup::Keeps(k)) => {
                let _ = write!(
                    h,
                    "<div class=\"dup\">--dedup keeps it and merges {k} near-duplicate{} into it</div>",
                    if k == 1 { "" } else { "s" }
                );
            }
            None => {}
        }
        let _ = writeln!(h, "</td></tr>");
    }
}

/// An entry's place in a near-duplicate cluster.
#[derive(Clone, Copy)]
enum Dup<'a> {
    /// --dedup merges it into this entry.
    Into(&'a str),
    /// --dedup keeps it, merging this many into it.
    Keeps(usize),
}

/// An ID or key as an HTML id: letters, digits, `-` and `_` kept, each
/// other byte as `.XX` (so two IDs never share an anchor).
fn anchor(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            let _ = write!(out, ".{b:02x}");
        }
    }
    out
}

fn history_section(h: &mut String, commits: &[Commit], encoding: &str) {
    let _ = write!(
        h,
        "<section aria-labelledby=\"hist-h\">\n<h2 id=\"hist-h\">History</h2>\n"
    );
    let w = 760.0;
    let ht = 200.0;
    let (left, right, top, bottom) = (60.0, 60.0, 14.0, 40.0);
    let count = commits.len();
    let x = |i: usize| {
        if count <= 1 {
            left + (w - left - right) / 2.0
        } else {
            left + i as f64 * (w - left - right) / (count - 1) as f64
        }
    };
    let max_e = commits
        .iter()
        .filter_map(|c| c.entries)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let max_t = commits
        .iter()
        .filter_map(|c| c.tokens)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let y = |v: f64, max: f64| top + (ht - top - bottom) * (1.0 - v / max);
    let _ = write!(
        h,
        "<svg class=\"chart\" role=\"img\" aria-labelledby=\"hist-t hist-d\" width=\"{w}\" height=\"{ht}\" viewBox=\"0 0 {w} {ht}\">\n<title id=\"hist-t\">Entries and tokens per commit</title>\n<desc id=\"hist-d\">Line chart over {count} commits, oldest on the left: entries (solid, left axis, up to {}) and tokens (dashed, right axis, up to {}). The table below lists each commit's figures.</desc>\n",
        max_e as usize,
        max_t as usize
    );
    let _ = writeln!(
        h,
        "<line class=\"grid\" x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text><text x=\"{}\" y=\"{}\">{}</text>",
        ht - bottom,
        w - right,
        ht - bottom,
        left - 6.0,
        top + 4.0,
        max_e as usize,
        left - 6.0,
        ht - bottom,
        w - right + 6.0,
        top + 4.0,
        max_t as usize
    );
    let line = |get: &dyn Fn(&Commit) -> Option<usize>, max: f64| -> String {
        commits
            .iter()
            .enumerate()
            .filter_map(|(i, c)| get(c).map(|v| format!("{:.1},{:.1}", x(i), y(v as f64, max))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        h,
        "<polyline fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"2\" points=\"{}\"/>",
        line(&|c| c.entries, max_e)
    );
    let _ = writeln!(
        h,
        "<polyline fill=\"none\" stroke=\"#b3261e\" stroke-width=\"2\" stroke-dasharray=\"6 4\" points=\"{}\"/>",
        line(&|c| c.tokens, max_t)
    );
    let every = count.div_ceil(12).max(1);
    for (i, c) in commits.iter().enumerate() {
        let label = format!(
            "{} {}: {}; {} entries, {} tokens",
            c.short,
            c.date.get(..10).unwrap_or(&c.date),
            c.subject,
            c.entries.map_or("?".into(), n),
            c.tokens.map_or("?".into(), n)
        );
        let _ = write!(
            h,
            "<g class=\"point\" data-commit=\"{}\"><title>{}</title>",
            esc(&c.id),
            esc(&label)
        );
        if let Some(e) = c.entries {
            let _ = write!(
                h,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#1f5fa8\"/>",
                x(i),
                y(e as f64, max_e)
            );
        }
        if let Some(t) = c.tokens {
            let _ = write!(
                h,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"7\" height=\"7\" fill=\"#b3261e\"/>",
                x(i) - 3.5,
                y(t as f64, max_t) - 3.5
            );
        }
        if i % every == 0 || i + 1 == count {
            let _ = write!(
                h,
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                x(i),
                ht - bottom + 16.0,
                esc(&c.short)
            );
        }
        let _ = writeln!(h, "</g>");
    }
    let _ = write!(
        h,
        "<text x=\"{left}\" y=\"{}\">● entries</text><text x=\"{}\" y=\"{}\">■ tokens ({})</text>\n</svg>\n",
        ht - 6.0,
        left + 90.0,
        ht - 6.0,
        esc(encoding)
    );
    let _ = write!(
        h,
        "<table>\n<thead><tr><th scope=\"col\">Commit</th><th scope=\"col\">Date</th><th scope=\"col\">Subject</th><th scope=\"col\" class=\"num\">Entries</th><th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\">Added</th><th scope=\"col\">Removed</th><th scope=\"col\">Changed</th></tr></thead>\n<tbody>\n"
    );
    let ids = |v: &[String]| -> String {
        if v.is_empty() {
            return String::new();
        }
        let shown: Vec<String> = v
            .iter()
            .take(SHOWN_IDS)
            .map(|id| format!("<code>{}</code>", esc(id)))
            .collect();
        let more = v.len().saturating_sub(SHOWN_IDS);
        let mut s = format!("{} <small>({})</small>", shown.join(" "), n(v.len()));
        if more > 0 {
            let _ = write!(s, " <small>and {} more</small>", n(more));
        }
        s
    };
    for c in commits.iter().rev() {
        let _ = writeln!(
            h,
            "<tr data-commit=\"{}\"><th scope=\"row\"><code title=\"{}\">{}</code></th><td class=\"date\">{}</td><td>{}{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&c.id),
            esc(&c.id),
            esc(&c.short),
            esc(c.date.get(..10).unwrap_or(&c.date)),
            esc(&c.subject),
            c.problem
                .as_deref()
                .map(|p| format!("<br><small class=\"sev-error\">{}</small>", esc(p)))
                .unwrap_or_default(),
            c.entries.map_or("?".into(), n),
            c.tokens.map_or("?".into(), n),
            ids(&c.added),
            ids(&c.removed),
            ids(&c.changed)
        );
    }
    let _ = write!(h, "</tbody>\n</table>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_html() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(anchor("str-001/x_y z"), "str-001.2fx_y.20z");
        assert_eq!(n(1234567), "1,234,567");
    }
}
