//! A merge's conflict markers left in a file (ACE093): what every read
//! refuses before a format's reader sees the text.

use ace_model::rules::MERGE_CONFLICT;
use ace_model::{Diagnostic, Span};

/// A marker line: a run of at least seven `c`, then the end of the line,
/// or (for `<` and `>`) a space and git's label.
fn marker(line: &str, c: u8) -> bool {
    let b = line.trim_end_matches(['\r', '\n']).as_bytes();
    let run = b.iter().take_while(|&&x| x == c).count();
    run >= 7
        && match b.get(run) {
            None => true,
            Some(b' ' | b'\t') => c != b'=',
            Some(_) => false,
        }
}

/// The first block of conflict markers in `text` (`<<<<<<<`, then
/// `=======`, then `>>>>>>>`, each at the start of a line), as an error
/// naming its three lines and how many blocks there are; `None` when
/// there is none. Fenced code is no exception, as it is none for `git diff
/// --check`: a playbook's code snippets are where two runs' edits meet.
pub(crate) fn markers(text: &str) -> Option<Diagnostic> {
    // Nearly every file has no marker at all: one search says so.
    memchr::memmem::find(text.as_bytes(), b"<<<<<<<")?;
    let mut blocks: Vec<[Span; 3]> = Vec::new();
    let mut open: Option<(Span, Option<Span>)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\r', '\n']);
        let span = Span::new(at, at + body.len());
        at += line.len();
        if marker(line, b'<') {
            open = Some((span, None));
        } else if marker(line, b'=') {
            if let Some((_, middle @ None)) = &mut open {
                *middle = Some(span);
            }
        } else if marker(line, b'>') {
            if let Some((start, Some(middle))) = open.take() {
                blocks.push([start, middle, span]);
            }
        }
    }
    let [start, middle, end] = *blocks.first()?;
    let more = match blocks.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more block)".into(),
        n => format!(" (and {n} more blocks)"),
    };
    Some(
        Diagnostic::new(
            &MERGE_CONFLICT,
            start,
            format!("unresolved merge conflict{more}: two versions of these lines, neither chosen"),
        )
        .with_related(middle, "the other version starts after this line")
        .with_related(end, "the block ends here")
        .with_help("keep one version of each block and delete the marker lines; `git diff` lists every block (an example of markers, in fenced code too, is written with its marker lines indented)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_found_with_its_three_lines_and_the_count_of_the_others() {
        let text = "# P\n<<<<<<< HEAD\n[a] x\n=======\n[a] y\n>>>>>>> run1\n\
                    <<<<<<< HEAD\n[b] x\n||||||| base\n[b] o\n=======\n[b] y\n>>>>>>> run1\n";
        let d = markers(text).unwrap();
        assert_eq!(d.code, "ACE093");
        assert_eq!(&text[d.span.start..d.span.end], "<<<<<<< HEAD");
        assert_eq!(
            &text[d.related[0].span.start..d.related[0].span.end],
            "======="
        );
        assert_eq!(
            &text[d.related[1].span.start..d.related[1].span.end],
            ">>>>>>> run1"
        );
        assert!(d.message.contains("and 1 more block"), "{}", d.message);
        // CRLF lines, and git's --marker-size.
        let crlf = "a\r\n<<<<<<<<< ours\r\nx\r\n=========\r\ny\r\n>>>>>>>>> theirs\r\n";
        assert!(markers(crlf).is_some());
        // Inside a code snippet, where two runs edited one line, and after
        // a fence one side opened and never closed.
        let snippet =
            "[c] Page:\n```python\n<<<<<<< HEAD\npage = 2\n=======\npage = 1\n>>>>>>> a\n```\n";
        assert!(markers(snippet).is_some());
        let unclosed = "[c] x\n<<<<<<< HEAD\n```\n=======\ny\n>>>>>>> a\n";
        assert!(markers(unclosed).is_some());
    }

    #[test]
    fn lines_that_only_look_like_markers_are_not_a_conflict() {
        for text in [
            "# Title\n=======\n[a] x\n",
            "[a] Use <<<<<<< in a heredoc\n=======\n>>>>>>> done\n",
            "<<<<<<<x\n=======\n>>>>>>> b\n",
            "<<<<<<< a\n======= b\n>>>>>>> c\n",
            "<<<<<<< a\n>>>>>>> c\n",
            "[a] an example:\n```\n    <<<<<<< HEAD\n    x\n    =======\n    y\n    >>>>>>> b\n```\n",
            "{\"content\": \"<<<<<<< HEAD\\n=======\\n>>>>>>> b\"}",
        ] {
            assert_eq!(markers(text), None, "{text:?}");
        }
    }
}
