//! The managed block of an agent's context file: the lines between
//! kayba's markers,
//!
//! ```text
//! <!-- ACE:START - Do not edit manually -->
//! ...the playbook, rendered...
//! <!-- ACE:END -->
//! ```
//!
//! in CLAUDE.md, AGENTS.md, GEMINI.md, `.github/copilot-instructions.md` or
//! a Cursor `.mdc` rule. kayba's Claude Code integration (0.7.3 to 0.8.x)
//! wrote its skillbook there; ace-tools writes any playbook there. Code
//! Engine ACE's plugin (before 5.5) put its instructions between
//! `<!-- ACE_SECTION_START vX.Y.Z -->` and `<!-- ACE_SECTION_END vX.Y.Z -->`;
//! such a block is found as well, and a write replaces its marker lines
//! with kayba's (Code Engine's own clean-up deletes everything between
//! its markers, a playbook put there included). This
//! crate knows the markers only: where the block is, whether the markers
//! are sound, and how to put new text between them without changing a
//! byte outside. What the block holds is read and written by the format
//! crates, through the registry.

use std::ops::Range;

pub mod content;

/// kayba's start marker, as written.
pub const START: &str = "<!-- ACE:START - Do not edit manually -->";
/// kayba's end marker, as written.
pub const END: &str = "<!-- ACE:END -->";

/// Which marker a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Start,
    End,
}

impl Kind {
    pub fn text(self) -> &'static str {
        match self {
            Kind::Start => START,
            Kind::End => END,
        }
    }

    /// The word of Code Engine's marker, before its version.
    fn code_engine_word(self) -> &'static str {
        match self {
            Kind::Start => "ACE_SECTION_START",
            Kind::End => "ACE_SECTION_END",
        }
    }
}

/// A marker line of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub kind: Kind,
    /// The plugin version a Code Engine marker names (`3.3.2`); `None`
    /// for kayba's markers.
    pub version: Option<String>,
    /// 1-based.
    pub line: usize,
    /// The line, its line break included.
    pub span: Range<usize>,
}

/// Where a text's block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The start marker's line, its line break included.
    pub start: Range<usize>,
    /// The text between the two marker lines: the block's content.
    pub inner: Range<usize>,
    /// The end marker's line, its line break included when there is one.
    pub end: Range<usize>,
    /// The markers' lines, 1-based.
    pub start_line: usize,
    pub end_line: usize,
    /// The plugin version of a Code Engine block's start marker, whose
    /// markers a write replaces with kayba's.
    pub code_engine: Option<String>,
}

/// Markers that do not make one block: nothing may be written then, as
/// there is no telling which text is the block and which the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerError {
    pub message: String,
    /// The markers the message is about, in the text's order.
    pub markers: Vec<Marker>,
    /// The line of the code fence the message is about, when it is one
    /// that never closes: the fault's place, before any marker.
    pub fence: Option<Range<usize>>,
}

impl std::fmt::Display for MarkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MarkerError {}

/// The marker a line is, if it is one: the marker alone on its line, with
/// white space after it and at most three spaces before it, and the
/// version a Code Engine marker names. Four spaces or a tab before it make
/// the line indented code in markdown (a README's example of the markers),
/// as a fence does. kayba's text after `ACE:START` is not required
/// (`<!-- ACE:START -->` is a start marker too); Code Engine's markers
/// name a version or none.
fn kind_of(line: &str) -> Option<(Kind, Option<String>)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 || line[indent..].starts_with('\t') {
        return None;
    }
    let t = line.trim();
    let body = t.strip_prefix("<!--")?.strip_suffix("-->")?.trim();
    let word = |w: &str| {
        body.strip_prefix(w)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '-']))
    };
    let versioned = |w: &str| -> Option<String> {
        let rest = body.strip_prefix(w)?;
        if rest.is_empty() {
            return Some(String::new());
        }
        let v = rest.strip_prefix([' ', '\t'])?.trim();
        (!v.contains(char::is_whitespace)).then(|| v.trim_start_matches('v').to_owned())
    };
    if word("ACE:START") {
        Some((Kind::Start, None))
    } else if word("ACE:END") {
        Some((Kind::End, None))
    } else if let Some(v) = versioned(Kind::Start.code_engine_word()) {
        Some((Kind::Start, Some(v)))
    } else {
        versioned(Kind::End.code_engine_word()).map(|v| (Kind::End, Some(v)))
    }
}

/// Whether `text` may hold a marker at all: one search for both kinds,
/// which every text a format is sniffed for meets.
fn may_hold(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, b"ACE").any(|at| {
        let rest = &b[at + 3..];
        rest.starts_with(b":") || rest.starts_with(b"_SECTION_")
    })
}

/// The fence a line opens or closes (its character and length), if it is
/// one: markdown's ``` and ~~~, indented by at most three spaces.
fn fence(line: &str) -> Option<(u8, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|&b| b == c).count();
    (n >= 3).then_some((c, n))
}

/// Every marker line of `text`, outside fenced code (a CLAUDE.md that
/// shows the markers in an example has no block for it).
pub fn markers(text: &str) -> Vec<Marker> {
    if !may_hold(text) {
        return Vec::new();
    }
    scan(text, true).markers
}

/// Whether `text` has markers: outside fenced code, or after a fence
/// that never closes (which [`locate`] refuses, so they are not taken for
/// an example either).
pub fn has_markers(text: &str) -> bool {
    if !may_hold(text) {
        return false;
    }
    let scan = scan(text, true);
    !scan.markers.is_empty()
        || scan
            .unclosed
            .is_some_and(|(_, _, hidden)| !hidden.is_empty())
}

/// What a scan of the markers found.
struct Scan {
    markers: Vec<Marker>,
    /// A fence opened outside the block and never closed (its line and
    /// span), and the marker lines after it, which only that fence hides.
    unclosed: Option<(usize, Range<usize>, Vec<Marker>)>,
}

/// The markers and fences of `text`; `markers_possible`: what
/// [`may_hold`] says of it, which the caller has asked already.
fn scan(text: &str, markers_possible: bool) -> Scan {
    let mut found = Vec::new();
    let mut open: Option<(u8, usize, usize, Range<usize>)> = None;
    let mut hidden: Vec<Marker> = Vec::new();
    // Inside a block fences are not followed: its text is the playbook's,
    // whose entries may open a fence they never close, and its end marker
    // ends it all the same.
    let mut inside = false;
    let mut at = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let span = at..at + raw.len();
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if !inside {
            match (open.clone(), fence(line)) {
                (None, Some((c, n))) => {
                    open = Some((c, n, i + 1, span));
                    hidden.clear();
                    continue;
                }
                (Some((c, n, _, _)), Some((c2, n2))) => {
                    // A closing fence has nothing after its characters.
                    if c == c2 && n2 >= n && line.trim().bytes().all(|b| b == c) {
                        open = None;
                    }
                    continue;
                }
                (Some(_), None) => {
                    if markers_possible {
                        if let Some((kind, version)) = kind_of(line) {
                            hidden.push(Marker {
                                kind,
                                version,
                                line: i + 1,
                                span,
                            });
                        }
                    }
                    continue;
                }
                (None, None) => {}
            }
        }
        if !markers_possible {
            continue;
        }
        if let Some((kind, version)) = kind_of(line) {
            inside = kind == Kind::Start;
            found.push(Marker {
                kind,
                version,
                line: i + 1,
                span,
            });
        }
    }
    Scan {
        markers: found,
        unclosed: open.map(|(_, _, line, span)| (line, span, hidden)),
    }
}

/// A marker of `kind` as written in the style of `like`: kayba's, or Code
/// Engine's with the version `like` names, so that a message shows the
/// file's own form.
fn text_like(kind: Kind, like: &Marker) -> String {
    let word = kind.code_engine_word();
    match like.version.as_deref() {
        None => kind.text().to_owned(),
        Some("") => format!("<!-- {word} -->"),
        Some(v) => format!("<!-- {word} v{v} -->"),
    }
}

fn lines(ms: &[&Marker]) -> String {
    let n: Vec<String> = ms.iter().map(|m| m.line.to_string()).collect();
    match n.len() {
        1 => format!("line {}", n[0]),
        _ => format!("lines {}", n.join(", ")),
    }
}

/// The block of `text`: `None` when it has no markers, an error when they
/// are unbalanced, repeated or out of order.
/// Markers inside a fence that never closes are an error too: whether
/// the fence was meant to end before them cannot be told, and taking them
/// for an example would make every update append another block.
pub fn locate(text: &str) -> Result<Option<Block>, MarkerError> {
    if !may_hold(text) {
        return Ok(None);
    }
    let Scan {
        markers: found,
        unclosed,
    } = scan(text, true);
    if let Some((fence_line, fence, hidden)) = unclosed.filter(|(_, _, h)| !h.is_empty()) {
        let refs: Vec<&Marker> = hidden.iter().collect();
        return Err(MarkerError {
            message: format!(
                "the code fence opened on line {fence_line} is never closed, and the marker{} on {} \
                 {} inside it: close the fence before the block, or remove the markers",
                if hidden.len() == 1 { "" } else { "s" },
                lines(&refs),
                if hidden.len() == 1 { "is" } else { "are" },
            ),
            markers: hidden,
            fence: Some(fence),
        });
    }
    let starts: Vec<&Marker> = found.iter().filter(|m| m.kind == Kind::Start).collect();
    let ends: Vec<&Marker> = found.iter().filter(|m| m.kind == Kind::End).collect();
    let fail = |message: String| MarkerError {
        message,
        markers: found.clone(),
        fence: None,
    };
    match (starts.as_slice(), ends.as_slice()) {
        ([], []) => Ok(None),
        ([s], [e]) if s.line < e.line && s.version.is_some() != e.version.is_some() => {
            let whose = |m: &Marker| match m.version {
                Some(_) => "Code Engine's `ACE_SECTION_*`",
                None => "kayba's `ACE:*`",
            };
            Err(fail(format!(
                "the start marker (line {}) is {} and the end marker (line {}) is {}: a block \
                 opens and closes with one kind",
                s.line,
                whose(s),
                e.line,
                whose(e)
            )))
        }
        ([s], [e]) if s.line < e.line => Ok(Some(Block {
            start: s.span.clone(),
            inner: s.span.end..e.span.start,
            end: e.span.clone(),
            start_line: s.line,
            end_line: e.line,
            code_engine: s.version.clone(),
        })),
        ([s], [e]) => Err(fail(format!(
            "the end marker `{}` (line {}) comes before the start marker `{}` (line {})",
            text_like(Kind::End, e),
            e.line,
            text_like(Kind::Start, s),
            s.line
        ))),
        ([s], []) => Err(fail(format!(
            "the start marker `{}` (line {}) has no end marker `{}` after it",
            text_like(Kind::Start, s),
            s.line,
            text_like(Kind::End, s)
        ))),
        ([], [e]) => Err(fail(format!(
            "the end marker `{}` (line {}) has no start marker `{}` before it",
            text_like(Kind::End, e),
            e.line,
            text_like(Kind::Start, e)
        ))),
        _ if starts.len() > 1 => Err(fail(format!(
            "{} start markers (`{}`, {}): a file holds one managed block",
            starts.len(),
            text_like(Kind::Start, starts[0]),
            lines(&starts)
        ))),
        _ => Err(fail(format!(
            "{} end markers (`{}`, {}): a file holds one managed block",
            ends.len(),
            text_like(Kind::End, ends[0]),
            lines(&ends)
        ))),
    }
}

/// Where `content` goes in `host`: its block, or (`None`) new markers at
/// its end. Unsound markers are an error, and so is a host that ends
/// inside a code fence, where new markers would be taken for an example.
pub fn place(host: &str) -> Result<Option<Block>, MarkerError> {
    let block = locate(host)?;
    if block.is_none() {
        if let Some((line, fence, _)) = scan(host, may_hold(host)).unclosed {
            return Err(MarkerError {
                message: format!(
                    "the code fence opened on line {line} is never closed: a block added at the \
                     end would be inside it; close the fence first"
                ),
                markers: Vec::new(),
                fence: Some(fence),
            });
        }
    }
    Ok(block)
}

/// `content` with each line that would read as a marker (an entry whose
/// text holds `<!-- ACE:END -->` on a line of its own) behind a `\\`, so
/// the block ends where it should; `None` when no line is one.
pub fn escape_markers(content: &str) -> Option<String> {
    if !may_hold(content) {
        return None;
    }
    let mut changed = false;
    let mut out = String::with_capacity(content.len() + 8);
    for line in content.split_inclusive('\n') {
        if kind_of(line.trim_end_matches(['\n', '\r'])).is_some() {
            out.push('\\');
            changed = true;
        }
        out.push_str(line);
    }
    changed.then_some(out)
}

/// The line break `text` uses: CRLF when its first line ends so.
pub fn line_break(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The text [`splice`] puts between the markers of `host` for `content`:
/// `content` with `host`'s line break and a break after its last line.
/// What a budget of the block counts.
pub fn as_written(host: &str, content: &str) -> String {
    with_breaks(content, line_break(host))
}

fn with_breaks(content: &str, nl: &str) -> String {
    let mut s = String::with_capacity(content.len() + 64);
    for line in content.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        s.push_str(bare);
        s.push_str(nl);
    }
    s
}

/// `host` with `content` as its block: between its markers when it has
/// them, else in new markers at its end, after a blank line. Every byte
/// of `host` outside the block is kept; the content gets `host`'s line
/// break.
pub fn splice(host: &str, block: Option<&Block>, content: &str) -> String {
    let nl = line_break(host);
    let content = with_breaks(content, nl);
    match block {
        Some(b) if b.code_engine.is_some() => {
            // Code Engine's marker lines become kayba's, each keeping its
            // line break (an end marker on the last line may have none).
            let end_break =
                &host[b.end.clone()][host[b.end.clone()].trim_end_matches(['\n', '\r']).len()..];
            let mut s = String::with_capacity(host.len() + content.len() + 64);
            s.push_str(&host[..b.start.start]);
            s.push_str(START);
            s.push_str(nl);
            s.push_str(&content);
            s.push_str(END);
            s.push_str(end_break);
            s.push_str(&host[b.end.end..]);
            s
        }
        Some(b) => {
            let mut s = String::with_capacity(host.len() + content.len());
            s.push_str(&host[..b.inner.start]);
            s.push_str(&content);
            s.push_str(&host[b.inner.end..]);
            s
        }
        None => {
            let mut s = String::with_capacity(host.len() + content.len() + 80);
            s.push_str(host);
            if !host.is_empty() {
                if !host.ends_with('\n') {
                    s.push_str(nl);
                }
                if !host.ends_with(&format!("{nl}{nl}")) {
                    s.push_str(nl);
                }
            }
            s.push_str(START);
            s.push_str(nl);
            s.push_str(&content);
            s.push_str(END);
            s.push_str(nl);
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_engine_block_gets_kaybas_markers_and_keeps_the_prose() {
        let text = "# Mine\r\n\r\n<!-- ACE_SECTION_START v3.3.2 -->\r\n# ACE Orchestration Plugin\r\n- **Implementation**: implement\r\n<!-- ACE_SECTION_END v3.3.2 -->\r\nafter, byte for byte\r\n";
        let b = locate(text).unwrap().unwrap();
        assert_eq!(b.code_engine.as_deref(), Some("3.3.2"));
        assert_eq!((b.start_line, b.end_line), (3, 6));
        let out = splice(text, Some(&b), "[s-1] helpful=0 harmful=0 :: x\n");
        assert_eq!(
            out,
            "# Mine\r\n\r\n<!-- ACE:START - Do not edit manually -->\r\n[s-1] helpful=0 harmful=0 :: x\r\n<!-- ACE:END -->\r\nafter, byte for byte\r\n"
        );
        let again = locate(&out).unwrap().unwrap();
        assert_eq!(again.code_engine, None);
        let mixed = "<!-- ACE_SECTION_START v3.2.40 -->\nx\n<!-- ACE:END -->\n";
        assert!(locate(mixed).unwrap_err().message.contains("one kind"));
        assert_eq!(
            kind_of("<!-- ACE_SECTION_END -->"),
            Some((Kind::End, Some(String::new())))
        );
        assert_eq!(kind_of("<!-- ACE_SECTION_STARTS -->"), None);
    }

    #[test]
    fn a_block_is_found_between_its_markers() {
        let text = "# Project\n\nprose\n\n<!-- ACE:START - Do not edit manually -->\n[a] x\n<!-- ACE:END -->\nafter\n";
        let b = locate(text).unwrap().unwrap();
        assert_eq!(&text[b.inner.clone()], "[a] x\n");
        assert_eq!((b.start_line, b.end_line), (5, 7));
        assert_eq!(&text[b.end.clone()], "<!-- ACE:END -->\n");
    }

    #[test]
    fn markers_in_fenced_code_are_examples() {
        let text = "```\n<!-- ACE:START -->\n```\n~~~~\n<!-- ACE:END -->\n~~~\nstill\n~~~~\n";
        assert_eq!(locate(text).unwrap(), None);
    }

    #[test]
    fn markers_in_indented_code_are_examples() {
        let text = "# Notes\n\n    <!-- ACE:START - Do not edit manually -->\n    example\n\t<!-- ACE:END -->\n\nprose\n";
        assert_eq!(locate(text).unwrap(), None);
        assert!(!has_markers(text));
        let b = locate("   <!-- ACE:START -->\n[a] x\n<!-- ACE:END -->  \n")
            .unwrap()
            .unwrap();
        assert_eq!((b.start_line, b.end_line), (1, 3));
    }

    #[test]
    fn a_fence_opened_inside_the_block_does_not_hide_its_end() {
        let text = "```\n<!-- ACE:START -->\n```\n<!-- ACE:START -->\n- a fence: ```\n```python\n<!-- ACE:END -->\nafter\n";
        let b = locate(text).unwrap().unwrap();
        assert_eq!((b.start_line, b.end_line), (4, 7));
    }

    #[test]
    fn unsound_markers_are_errors_naming_their_lines() {
        let cases = [
            ("<!-- ACE:START -->\nx\n", "line 1) has no end marker"),
            ("x\n<!-- ACE:END -->\n", "line 2) has no start marker"),
            (
                "<!-- ACE:END -->\n<!-- ACE:START -->\n",
                "(line 1) comes before the start marker",
            ),
            (
                "<!-- ACE:START -->\n<!-- ACE:END -->\n<!-- ACE:START -->\n<!-- ACE:END -->\n",
                "2 start markers (`<!-- ACE:START - Do not edit manually -->`, lines 1, 3)",
            ),
            (
                "<!-- ACE:START -->\n<!-- ACE:END -->\n<!-- ACE:END -->\n",
                "2 end markers (`<!-- ACE:END -->`, lines 2, 3)",
            ),
            // Code Engine's markers are named in its own form.
            (
                "<!-- ACE_SECTION_START -->\n",
                "`<!-- ACE_SECTION_START -->` (line 1) has no end marker `<!-- ACE_SECTION_END -->`",
            ),
            (
                "x\n<!-- ACE_SECTION_END v3.3.2 -->\n",
                "`<!-- ACE_SECTION_END v3.3.2 -->` (line 2) has no start marker `<!-- ACE_SECTION_START v3.3.2 -->`",
            ),
        ];
        for (text, expected) in cases {
            let e = locate(text).unwrap_err();
            assert!(e.message.contains(expected), "{text:?}: {}", e.message);
            assert!(!e.markers.is_empty());
        }
    }

    /// A fence that never closes hides nothing it comes before: markers
    /// after it are refused, not taken for an example, and a block is
    /// never added inside it.
    #[test]
    fn markers_after_a_fence_that_never_closes_are_refused() {
        let fenced = format!("# Notes\n```bash\nls\n\n{START}\n[a] x\n{END}\n");
        let e = locate(&fenced).unwrap_err();
        assert!(
            e.message.contains("opened on line 2 is never closed")
                && e.message.contains("lines 5, 7"),
            "{}",
            e.message
        );
        assert_eq!(e.markers.len(), 2);
        let open = "# Notes\n```bash\nls\n";
        assert_eq!(locate(open).unwrap(), None);
        let e = place(open).unwrap_err();
        assert!(
            e.message.contains("line 2 is never closed"),
            "{}",
            e.message
        );
        // Closed, the same fence is an example and the block is found.
        let closed = format!("# Notes\n```bash\nls\n```\n{START}\n[a] x\n{END}\n");
        assert_eq!(place(&closed).unwrap().unwrap().start_line, 5);
        assert_eq!(place("# Notes\n").unwrap(), None);
    }

    #[test]
    fn a_marker_in_an_entrys_text_is_escaped() {
        let content = "- Never write\n  <!-- ACE:END -->\n- by hand\n";
        let escaped = escape_markers(content).unwrap();
        assert_eq!(escaped, "- Never write\n\\  <!-- ACE:END -->\n- by hand\n");
        let host = splice("", None, &escaped);
        let b = locate(&host).unwrap().unwrap();
        assert_eq!(&host[b.inner.clone()], escaped);
        assert_eq!(escape_markers("- plain\n"), None);
    }

    #[test]
    fn new_markers_go_at_the_end_after_a_blank_line() {
        assert_eq!(
            splice("# T\nprose", None, "x"),
            format!("# T\nprose\n\n{START}\nx\n{END}\n")
        );
        assert_eq!(
            splice("# T\n\n", None, "x\n"),
            format!("# T\n\n{START}\nx\n{END}\n")
        );
        assert_eq!(splice("", None, ""), format!("{START}\n{END}\n"));
        assert_eq!(
            splice("a\r\nb\r\n", None, "x\ny\n"),
            format!("a\r\nb\r\n\r\n{START}\r\nx\r\ny\r\n{END}\r\n")
        );
    }

    proptest::proptest! {
        /// Whatever the block held and whatever replaces it, every byte
        /// outside the markers' lines stays, and writing the same content
        /// again changes nothing.
        #[test]
        fn only_the_block_changes(
            before in "[a-z #\n]{0,40}",
            old in "[a-z\\[\\] \n]{0,40}",
            after in "[a-z #\n]{0,40}",
            new in "[a-z\\[\\] \n]{0,40}",
        ) {
            let before = if before.is_empty() || before.ends_with('\n') { before } else { format!("{before}\n") };
            let host = format!("{before}{START}\n{old}{}{END}\n{after}", if old.is_empty() || old.ends_with('\n') { "" } else { "\n" });
            let b = locate(&host).unwrap().unwrap();
            let once = splice(&host, Some(&b), &new);
            proptest::prop_assert!(once.starts_with(&host[..b.inner.start]));
            proptest::prop_assert!(once.ends_with(&host[b.inner.end..]));
            let b2 = locate(&once).unwrap().unwrap();
            proptest::prop_assert_eq!(splice(&once, Some(&b2), &new), once.clone());
        }
    }
}
