//! The bracketed block both JSON-like printers write: `open`, then the
//! items one a line, each indented a level deeper than the block and
//! followed by a comma but the last, then `close` on a line of its own;
//! `open` and `close` side by side when there are no items.

use std::ops::Range;

use crate::out::Out;
use crate::par;

/// A printer that writes blocks: where its text goes, and how it indents.
pub trait Blocks<'w> {
    fn out(&mut self) -> &mut Out<'w>;
    /// Writes the indentation of nesting `level`.
    fn indent(&mut self, level: usize);
}

/// A block of `n` items at nesting `level`, item `i` printed by `item`
/// after its indentation.
pub fn block<'w, P: Blocks<'w>>(
    p: &mut P,
    open: &str,
    close: &str,
    n: usize,
    level: usize,
    item: impl FnMut(&mut P, usize),
) {
    if !opened(p, open, close, n) {
        return;
    }
    lines(p, 0..n, n, level, item);
    closed(p, close, level);
}

/// [`block`] for blocks that may be long: runs of items are printed on
/// several threads, each run by `run` into text of its own, which calls
/// [`lines`] with a printer of that text. The result is what [`block`]
/// prints.
pub fn spread_block<'w, P: Blocks<'w>>(
    p: &mut P,
    open: &str,
    close: &str,
    n: usize,
    level: usize,
    run: impl for<'o> Fn(Range<usize>, &mut Out<'o>) + Sync,
) {
    if !opened(p, open, close, n) {
        return;
    }
    par::print_runs(n, p.out(), run);
    closed(p, close, level);
}

/// Items `range` of a block of `n` items at nesting `level`.
pub fn lines<'w, P: Blocks<'w>>(
    p: &mut P,
    range: Range<usize>,
    n: usize,
    level: usize,
    mut item: impl FnMut(&mut P, usize),
) {
    for i in range {
        p.indent(level + 1);
        item(p, i);
        if i + 1 < n {
            p.out().push(',');
        }
        p.out().push('\n');
    }
}

/// Writes the opening; false when the block is empty and already closed.
fn opened<'w, P: Blocks<'w>>(p: &mut P, open: &str, close: &str, n: usize) -> bool {
    p.out().push_str(open);
    if n == 0 {
        p.out().push_str(close);
        return false;
    }
    p.out().push('\n');
    true
}

fn closed<'w, P: Blocks<'w>>(p: &mut P, close: &str, level: usize) {
    p.indent(level);
    p.out().push_str(close);
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two<'a, 'w>(&'a mut Out<'w>);

    impl<'w> Blocks<'w> for Two<'_, 'w> {
        fn out(&mut self) -> &mut Out<'w> {
            self.0
        }
        fn indent(&mut self, level: usize) {
            for _ in 0..level {
                self.0.push_str("  ");
            }
        }
    }

    fn printed(n: usize, spread: bool) -> String {
        let mut out = Out::new();
        let mut p = Two(&mut out);
        let item = |p: &mut Two<'_, '_>, i: usize| p.0.push_str(&i.to_string());
        if spread {
            spread_block(&mut p, "[", "]", n, 1, |range, out| {
                lines(&mut Two(out), range, n, 1, item)
            });
        } else {
            block(&mut p, "[", "]", n, 1, item);
        }
        out.into_string()
    }

    #[test]
    fn items_one_a_line_with_commas_between() {
        assert_eq!(printed(0, false), "[]");
        assert_eq!(printed(2, false), "[\n    0,\n    1\n  ]");
    }

    #[test]
    fn a_spread_block_prints_what_one_thread_does() {
        let n = 100_000;
        assert_eq!(printed(n, true), printed(n, false));
        assert_eq!(printed(0, true), "[]");
    }
}
