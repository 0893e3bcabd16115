//! The CommonMark line shapes that every markdown-based ACE format must agree
//! on: headings, blank lines, code fences and HTML comments. The markdown
//! playbook and AGENTS.md readers both use these, so a fence or heading means
//! the same in both.

/// `#` to `######` followed by a space, a tab or the end of the line.
pub fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&c| c == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    match line.as_bytes().get(level) {
        None => Some((level, "")),
        Some(b' ' | b'\t') => Some((level, line[level..].trim())),
        _ => None,
    }
}

pub fn is_blank(line: &str) -> bool {
    line.bytes().all(|c| c == b' ' || c == b'\t')
}

/// An opening code fence: up to three spaces, then three or more of one
/// fence character. Returns the character and the run length.
pub fn fence_open(line: &str) -> Option<(u8, usize)> {
    let indent = line.bytes().take_while(|&c| c == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line.as_bytes()[indent..];
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let run = rest.iter().take_while(|&&c| c == ch).count();
    // A backtick fence's info string may not contain backticks.
    (run >= 3 && !(ch == b'`' && rest[run..].contains(&b'`'))).then_some((ch, run))
}

pub fn is_fence_close(line: &str, ch: u8, run: usize) -> bool {
    let indent = line.bytes().take_while(|&c| c == b' ').count();
    if indent > 3 {
        return false;
    }
    let rest = &line.as_bytes()[indent..];
    let n = rest.iter().take_while(|&&c| c == ch).count();
    n >= run && rest[n..].iter().all(|&c| c == b' ' || c == b'\t')
}

pub fn comment_open(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with("<!--")
}

/// Finds where fences and multi-line comments close, remembering searches
/// that failed: every search runs to the end of the file, so once no closer
/// exists after some line, none exists after a later one either. Without
/// this, a file of unclosed openers costs quadratic time.
#[derive(Debug, Clone, Default)]
pub struct BlockEnds {
    /// Per fence character: the shortest run for which no closer exists.
    no_fence_close: [Option<usize>; 2],
    no_comment_close: bool,
}

impl BlockEnds {
    /// The line that closes a fence opened at `from` with `run` of `ch`,
    /// searching lines `from + 1 .. to`.
    pub fn fence_end<'a>(
        &mut self,
        from: usize,
        to: usize,
        ch: u8,
        run: usize,
        text: impl Fn(usize) -> &'a str,
    ) -> Option<usize> {
        let slot = usize::from(ch == b'~');
        if self.no_fence_close[slot].is_some_and(|min| run >= min) {
            return None;
        }
        let found = (from + 1..to).find(|&k| is_fence_close(text(k), ch, run));
        if found.is_none() {
            self.no_fence_close[slot] = Some(self.no_fence_close[slot].map_or(run, |m| m.min(run)));
        }
        found
    }

    /// The line holding `-->` for a comment opened at `from`.
    pub fn comment_end<'a>(
        &mut self,
        from: usize,
        to: usize,
        text: impl Fn(usize) -> &'a str,
    ) -> Option<usize> {
        if self.no_comment_close {
            return None;
        }
        let found = (from + 1..to).find(|&k| text(k).contains("-->"));
        self.no_comment_close = found.is_none();
        found
    }
}

/// The text of an `ace-validate` directive comment on one line
/// (`<!-- ace-validate: disable-next-line ACE012 -->` gives
/// `disable-next-line ACE012`). Readers treat such a line as a comment that
/// belongs to no entry and takes no part in spacing rules.
pub fn tool_directive(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim()
        .strip_prefix("ace-validate:")
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences() {
        assert_eq!(fence_open("```markdown"), Some((b'`', 3)));
        assert_eq!(fence_open("~~~~"), Some((b'~', 4)));
        assert_eq!(fence_open("    ```"), None);
        assert_eq!(fence_open("``` a`b"), None);
        assert!(is_fence_close("```", b'`', 3));
        assert!(!is_fence_close("```py", b'`', 3));
        assert!(!is_fence_close("``", b'`', 3));
    }

    #[test]
    fn block_ends_and_failed_searches() {
        let lines = ["```", "x", "```", "<!--", "~~~~"];
        let text = |k: usize| lines[k];
        let mut ends = BlockEnds::default();
        assert_eq!(ends.fence_end(0, lines.len(), b'`', 3, text), Some(2));
        assert_eq!(ends.comment_end(3, lines.len(), text), None);
        assert_eq!(ends.comment_end(4, lines.len(), text), None);
        assert_eq!(ends.fence_end(4, lines.len(), b'~', 4, text), None);
        assert_eq!(ends.fence_end(4, lines.len(), b'~', 5, text), None);
        assert_eq!(
            ends.fence_end(0, lines.len(), b'`', 3, text),
            Some(2),
            "backticks unaffected"
        );
    }
}
