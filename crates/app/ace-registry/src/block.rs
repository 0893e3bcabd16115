//! `managed-block`: a playbook kept in an agent's context file (CLAUDE.md,
//! AGENTS.md, GEMINI.md, `.github/copilot-instructions.md`, a Cursor
//! `.mdc` rule) between kayba's `<!-- ACE:START ... -->` and
//! `<!-- ACE:END -->` markers ([`ace_block`]). The block is written in one
//! of four [`Style`]s, three of which are other formats' texts; only the
//! registry knows those formats, so the block is put together here.
//!
//! A file with the markers reads as the block's entries, so ace-validate,
//! ace-diff and ace-apply work on CLAUDE.md itself; a rewrite keeps every
//! byte outside the block and the block's style.

pub use ace_block::{as_written, place, splice, Block};
use ace_exec::Out;
use ace_format::{
    Confidence, Curation, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax, WriteCtx,
    WriteOption,
};
use ace_model::{rules, Diagnostic, Losses, Playbook, ReadOutput, Span, WriteReport};
use serde_json::{json, Value};

/// The owner name of the layout a file is read with.
pub const LAYOUT_KEY: &str = "managed-block";

/// `--style`: how the block is written.
pub const STYLE: WriteOption = WriteOption {
    name: "style",
    values: &["prompt", "agents", "kayba", "content"],
    help: "how a managed block is written: prompt (the paper's `## SECTION` and `[id] helpful=N harmful=M :: text`), agents (AGENTS.md bullets), kayba (kayba's as_prompt form) or content (`- text` bullets, no IDs or counters); unset, a block keeps its style and a new one is prompt",
};

/// How a block is written, and read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The paper's prompt form: the markdown playbook format.
    Prompt,
    /// AGENTS.md bullets (`[Bullet #id, helpful:N, harmful:M] text`).
    Agents,
    /// kayba's `Skillbook.as_prompt()`: `- [id]` with `Keywords:`,
    /// `Issue:`, `Insight:` lines, no counters.
    Kayba,
    /// The entries' text alone ([`ace_block::content`]).
    Content,
}

impl Style {
    pub const ALL: [Style; 4] = [Style::Prompt, Style::Agents, Style::Kayba, Style::Content];

    pub fn name(self) -> &'static str {
        match self {
            Style::Prompt => "prompt",
            Style::Agents => "agents",
            Style::Kayba => "kayba",
            Style::Content => "content",
        }
    }

    /// A style by its name, or by the name of the format it writes
    /// (`markdown`, `agents-md`, `kayba-md`).
    pub fn from_name(name: &str) -> Option<Style> {
        match name {
            "prompt" | "markdown" => Some(Style::Prompt),
            "agents" | "agents-md" => Some(Style::Agents),
            "kayba" | "kayba-md" => Some(Style::Kayba),
            "content" => Some(Style::Content),
            _ => None,
        }
    }

    /// The format whose text the style is; `None` for content.
    fn format(self) -> Option<&'static dyn PlaybookFormat> {
        match self {
            Style::Prompt => Some(&ace_markdown::FORMAT),
            Style::Agents => Some(&ace_agents::FORMAT),
            Style::Kayba => Some(&ace_kaybamd::FORMAT),
            Style::Content => None,
        }
    }

    /// The style of a block's text: kayba's shapes and AGENTS.md bullets
    /// by their marks, the prompt form by its entry lines, content when
    /// every line is what that style writes; prompt otherwise (the
    /// markdown reader keeps prose as the playbook's description).
    pub fn of(text: &str) -> Style {
        if ace_kaybamd::detect(text).is_some() {
            return Style::Kayba;
        }
        let sniff = Sniff::new(None, text);
        let sure = |f: &dyn PlaybookFormat| f.sniff(&sniff) >= Some(Confidence::Content);
        if sure(&ace_agents::FORMAT) {
            Style::Agents
        } else if sure(&ace_markdown::FORMAT) {
            Style::Prompt
        } else if ace_block::content::is_content(text) {
            Style::Content
        } else {
            Style::Prompt
        }
    }
}

/// The managed block of a context file.
pub struct ManagedBlock;

pub static MANAGED_BLOCK: ManagedBlock = ManagedBlock;

/// The diagnostic for markers that make no block, at the first marker.
pub fn marker_diagnostic(e: &ace_block::MarkerError) -> Diagnostic {
    let first = e
        .fence
        .clone()
        .or_else(|| e.markers.first().map(|m| m.span.clone()));
    let span = first.map(|r| Span::new(r.start, r.end)).unwrap_or_default();
    let mut d = Diagnostic::new(&rules::BLOCK_MARKERS, span, e.message.clone());
    let rest = if e.fence.is_some() { 0 } else { 1 };
    for m in e.markers.iter().skip(rest) {
        d = d.with_related(
            Span::new(m.span.start, m.span.end),
            format!(
                "{} marker",
                if m.kind == ace_block::Kind::Start {
                    "start"
                } else {
                    "end"
                }
            ),
        );
    }
    d.help = Some(if e.fence.is_some() {
        "end the code fence with a line of its own ``` or ~~~ before the block".to_owned()
    } else {
        format!(
            "keep one `{}` line and one `{}` line after it; the block is the text between them",
            ace_block::START,
            ace_block::END
        )
    });
    d
}

/// Moves every position of a read of the block's text by `by`, to the
/// context file's.
fn shift(read: &mut ReadOutput, by: usize) {
    let move_span = |s: &mut Span| {
        s.start += by;
        s.end += by;
    };
    for s in &mut read.playbook.sections {
        if let Some(span) = s.origin.0.as_mut() {
            move_span(span);
        }
    }
    for e in &mut read.playbook.entries {
        if let Some(span) = e.origin.0.as_mut() {
            move_span(span);
        }
    }
    for d in &mut read.diagnostics {
        move_span(&mut d.span);
        for r in &mut d.related {
            move_span(&mut r.span);
        }
    }
}

/// Reads the block of `text` (the whole context file) in its style.
fn read_block(text: &str, ctx: &ReadCtx) -> Result<ReadOutput, Diagnostic> {
    let block = ace_block::locate(text).map_err(|e| marker_diagnostic(&e))?;
    let Some(b) = block else {
        // Named as a managed block, with no markers yet: no entries, and
        // the whole text is the host a write keeps.
        let mut pb = Playbook::default();
        set_layout(&mut pb, Style::Prompt, text, "", None);
        return Ok(ReadOutput {
            playbook: pb,
            diagnostics: Vec::new(),
        });
    };
    let inner = &text[b.inner.clone()];
    if let Some(version) = &b.code_engine {
        // Code Engine's block holds its plugin's instructions, never a
        // playbook: its bullets are not entries.
        let mut pb = Playbook::default();
        set_layout(
            &mut pb,
            Style::Prompt,
            &text[..b.inner.start],
            &text[b.inner.end..],
            None,
        );
        let line_end = b.start.start + text[b.start.clone()].trim_end_matches(['\n', '\r']).len();
        let v = if version.is_empty() {
            String::new()
        } else {
            format!(" v{version}")
        };
        return Ok(ReadOutput {
            playbook: pb,
            diagnostics: vec![Diagnostic::new(
                &rules::BLOCK_CONTENT,
                Span::new(b.start.start, line_end),
                format!(
                    "Code Engine ACE's block{v} holds that plugin's instructions, not playbook entries; `ace-convert PLAYBOOK --into FILE` replaces it, markers included, and keeps the rest of the file"
                ),
            )],
        });
    }
    let style = Style::of(inner);
    let mut read = match style.format() {
        Some(f) => {
            let ctx = ReadCtx {
                layout: true,
                ..ctx.clone()
            };
            f.read(inner, &ctx)
                .map_err(|mut d| {
                    d.span = Span::new(d.span.start + b.inner.start, d.span.end + b.inner.start);
                    d
                })?
                .parsed
        }
        None => ace_block::content::read(inner, &ctx.sections),
    };
    shift(&mut read, b.inner.start);
    if read.playbook.entries.is_empty() && !inner.trim().is_empty() {
        let first = text[b.inner.clone()]
            .find(|c: char| !c.is_whitespace())
            .map_or(b.inner.start, |i| b.inner.start + i);
        let line_end = text[first..].find('\n').map_or(text.len(), |i| first + i);
        read.diagnostics.push(Diagnostic::new(
            &rules::BLOCK_CONTENT,
            Span::new(first, line_end),
            "the managed block's text holds no entry in a style ace-tools reads (prompt, agents, kayba or content)",
        ));
    }
    let inner_layout = read.playbook.layout.0.take().map(|l| (l.owner, l.value));
    set_layout(
        &mut read.playbook,
        style,
        &text[..b.inner.start],
        &text[b.inner.end..],
        inner_layout,
    );
    Ok(read)
}

/// Keeps what a rewrite needs: the style, the text before the block's
/// content (the start marker's line included) and after it (from the end
/// marker's line), and the layout the style's reader kept.
fn set_layout(
    pb: &mut Playbook,
    style: Style,
    before: &str,
    after: &str,
    inner: Option<(&'static str, Value)>,
) {
    let (owner, value) = match inner {
        Some((owner, value)) => (Value::from(owner), value),
        None => (Value::Null, Value::Null),
    };
    let prose = |s: &str| {
        s.lines()
            .any(|l| !l.trim().is_empty() && ace_block::markers(l).is_empty())
    };
    let holds = match prose(before) || prose(after) {
        true => vec!["the context file's text around the managed block".to_owned()],
        false => Vec::new(),
    };
    pb.set_layout_holding(
        LAYOUT_KEY,
        json!({
            "style": style.name(),
            "before": before,
            "after": after,
            "inner_owner": owner,
            "inner": value,
        }),
        holds,
    );
}

/// The text of the block for `pb` in `style`, each style's writer given
/// the layout its reader kept, and what the style cannot hold.
pub fn render(pb: &Playbook, style: Style, ctx: &WriteCtx) -> (String, WriteReport) {
    let kept = pb.layout_of(LAYOUT_KEY).and_then(|l| {
        let owner = l.get("inner_owner")?.as_str()?;
        Some((owner, l.get("inner")?.clone()))
    });
    let mut out = Out::new();
    let report = match style.format() {
        Some(f) => {
            let ctx = match style {
                Style::Kayba => ctx.clone().with_option(ace_kaybamd::SHAPE.name, "prompt"),
                _ => ctx.clone(),
            };
            // The style's writer sees the layout its reader kept, and no
            // other (a layout it does not own reads as a loss).
            match (kept, f.layout_owner()) {
                (Some((owner, value)), Some(own)) if owner == own => {
                    let mut view = pb.clone();
                    view.set_layout(own, value);
                    f.write(&view, &ctx, &mut out)
                }
                _ if pb.layout.0.is_some() => {
                    let mut view = pb.clone();
                    view.layout = Default::default();
                    f.write(&view, &ctx, &mut out)
                }
                _ => f.write(pb, &ctx, &mut out),
            }
        }
        None => {
            out.push_str(&ace_block::content::render(pb));
            let mut report = WriteReport::default();
            content_losses(pb, &mut report.losses);
            report
        }
    };
    let mut report = report;
    let mut text = out.into_string();
    if let Some(escaped) = ace_block::escape_markers(&text) {
        text = escaped;
        report.losses.lose(
            &rules::ALTERED_TEXT,
            None,
            "entries",
            "a line of an entry's text that reads as a block marker is written behind a `\\`, so that the block ends at its own marker",
        );
    }
    (text, report)
}

impl PlaybookFormat for ManagedBlock {
    fn name(&self) -> &'static str {
        "managed-block"
    }

    fn describe(&self) -> &'static str {
        "a playbook in an agent's context file (CLAUDE.md, AGENTS.md, .mdc) between kayba's <!-- ACE:START --> and <!-- ACE:END --> markers"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["mdc"]
    }

    /// A text with a marker line is the block's, whatever its name: the
    /// markers say which lines the playbook is. A file whose markers are
    /// unsound is claimed too, so that reading it says where they are.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        let text_like =
            input.syntax() == Syntax::Text || input.extension().as_deref() == Some("mdc");
        (text_like && ace_block::has_markers(input.text)).then_some(Confidence::Declared)
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        read_block(text, ctx).map(Read::from)
    }

    /// The file as read, with the block's content written anew in its
    /// style (or `--style`); a playbook read from another format is
    /// written as a new file holding the block alone.
    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let layout = pb.layout_of(LAYOUT_KEY);
        let kept = layout
            .and_then(|l| l.get("style"))
            .and_then(Value::as_str)
            .and_then(Style::from_name);
        let style = ctx
            .option(STYLE.name)
            .and_then(Style::from_name)
            .or(kept)
            .unwrap_or(Style::Prompt);
        let (content, report) = render(pb, style, ctx);
        let part = |k: &str| {
            layout
                .and_then(|l| l.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let (before, after) = (part("before"), part("after"));
        let host = format!("{before}{after}");
        let block = ace_block::locate(&host).ok().flatten();
        out.push_str(&ace_block::splice(&host, block.as_ref(), &content));
        report
    }

    fn playbook_text<'t>(&self, text: &'t str) -> &'t str {
        match ace_block::locate(text) {
            Ok(Some(b)) => &text[b.inner],
            _ => "",
        }
    }

    fn write_options(&self) -> &'static [WriteOption] {
        &[STYLE]
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(LAYOUT_KEY)
    }

    /// The IDs and counters of the block's style (the prompt form's for a
    /// new block, or one in the content style); the block is text lines.
    fn curation(&self, pb: &Playbook) -> Curation {
        let style = pb
            .layout_of(LAYOUT_KEY)
            .and_then(|l| l.get("style"))
            .and_then(Value::as_str)
            .and_then(Style::from_name);
        let format = style
            .and_then(Style::format)
            .unwrap_or(&ace_markdown::FORMAT);
        Curation {
            line_based: true,
            ..format.curation(pb)
        }
    }

    /// The generic rules that hold for every style: kayba's and the
    /// content style's IDs are not the playbook format spec's.
    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            ..LintProfile::default()
        }
    }
}

/// What the content style leaves out: every field but an entry's text and
/// its section, each named as the other writers name them.
fn content_losses(pb: &Playbook, losses: &mut Vec<ace_model::LossEntry>) {
    const WHY: &str =
        "the content style writes each entry's text alone, under its section's heading";
    for key in pb.extra.keys() {
        losses.lose(&rules::DROPPED_FIELD, None, format!("extra.{key}"), WHY);
    }
    for e in &pb.entries {
        let id = Some(e.id.as_str());
        losses.lose(&rules::DROPPED_FIELD, id, "id", WHY);
        let counters = [
            ("helpful", e.helpful.is_some()),
            ("harmful", e.harmful.is_some()),
            ("neutral", e.neutral.is_some()),
        ];
        for (name, present) in counters.into_iter().chain(e.optional_fields()) {
            if present {
                losses.lose(&rules::DROPPED_FIELD, id, name, WHY);
            }
        }
        for key in e.extra.keys() {
            losses.lose(&rules::DROPPED_FIELD, id, format!("extra.{key}"), WHY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ReadOutput {
        read_block(text, &ReadCtx::default()).expect("reads")
    }

    fn write(pb: &Playbook, style: Option<&str>) -> String {
        let mut ctx = WriteCtx::default();
        if let Some(s) = style {
            ctx = ctx.with_option(STYLE.name, s);
        }
        let mut out = Out::new();
        MANAGED_BLOCK.write(pb, &ctx, &mut out);
        out.into_string()
    }

    const HOST: &str = "# Project\n\nProse above.\n\n## ACE Learned Strategies\n\n<!-- ACE:START - Do not edit manually -->\n## STRATEGIES & INSIGHTS\n[str-00001] helpful=3 harmful=0 :: Check the logs first.\n[str-00002] helpful=0 harmful=1 :: Retry twice.\n<!-- ACE:END -->\n\n## Notes\n\nProse below.\n";

    #[test]
    fn a_block_reads_as_its_entries_at_the_files_positions() {
        let r = read(HOST);
        let ids: Vec<&str> = r.playbook.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["str-00001", "str-00002"]);
        let span = r.playbook.entries[0].origin.0.unwrap();
        assert!(HOST[span.start..span.end].starts_with("[str-00001]"));
    }

    #[test]
    fn each_style_reads_back_as_written_and_a_rewrite_keeps_the_host() {
        let pb = read(HOST).playbook;
        assert_eq!(write(&pb, None), HOST);
        for style in Style::ALL {
            let text = write(&pb, Some(style.name()));
            assert!(text.starts_with(&HOST[..HOST.find("<!-- ACE:START").unwrap()]));
            assert!(text.ends_with("<!-- ACE:END -->\n\n## Notes\n\nProse below.\n"));
            let back = read(&text);
            assert_eq!(
                back.playbook.layout_of(LAYOUT_KEY).unwrap()["style"],
                style.name(),
                "{text}"
            );
            let contents: Vec<&str> = back
                .playbook
                .entries
                .iter()
                .map(|e| e.content.as_str())
                .collect();
            assert_eq!(
                contents,
                ["Check the logs first.", "Retry twice."],
                "{style:?}: {text}"
            );
            assert_eq!(write(&back.playbook, None), text, "{style:?} twice");
        }
    }

    #[test]
    fn text_in_no_style_is_reported_not_taken_for_an_empty_playbook() {
        let toon = "<!-- ACE:START - Do not edit manually -->\nskills[1]{id,content}:\n  a,b\n<!-- ACE:END -->\n";
        let r = read(toon);
        assert!(r.playbook.entries.is_empty());
        assert!(r
            .diagnostics
            .iter()
            .any(|d| d.code == rules::BLOCK_CONTENT.code));
        let empty = read("<!-- ACE:START -->\n<!-- ACE:END -->\n");
        assert!(empty.diagnostics.is_empty());
    }

    #[test]
    fn unsound_markers_stop_the_read_at_a_marker() {
        let e = read_block("a\n<!-- ACE:START -->\nb\n", &ReadCtx::default()).unwrap_err();
        assert_eq!(e.code, rules::BLOCK_MARKERS.code);
        assert_eq!(e.span.start, 2);
    }
}
