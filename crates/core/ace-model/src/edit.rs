//! Edits of a text by byte range: how a format writes a change over the
//! file it read, so that every byte the change does not touch stays.

/// The bytes `start..end` of a text become `text`; an insertion has
/// `start == end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Edit {
    pub fn replace(start: usize, end: usize, text: String) -> Edit {
        Edit { start, end, text }
    }

    pub fn insert(at: usize, text: String) -> Edit {
        Edit::replace(at, at, text)
    }

    pub fn delete(start: usize, end: usize) -> Edit {
        Edit::replace(start, end, String::new())
    }
}

/// Edits of one text, in the order of their places, none overlapping: a
/// changed file as the bytes it keeps and the bytes it gets, which can be
/// written out without copying the kept ones into a new text first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edits(Vec<Edit>);

impl Edits {
    /// `edits` of `src` put in order. Insertions at a point go after a
    /// replacement that ends there and keep their own order among
    /// themselves. `None` when two edits overlap or one falls outside
    /// `src` or inside a character: the caller's spans were wrong, and it
    /// should write the whole file.
    pub fn new(src: &str, mut edits: Vec<Edit>) -> Option<Edits> {
        edits.sort_by_key(|e| (e.start, e.end != e.start));
        let mut pos = 0;
        for e in &edits {
            if e.start < pos || e.end < e.start {
                return None;
            }
            src.get(pos..e.start)?;
            src.get(e.start..e.end)?;
            pos = e.end;
        }
        Some(Edits(edits))
    }

    /// The edited text, piece by piece: kept runs of `src` and new text.
    pub fn pieces<'a>(&'a self, src: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let mut pos = 0;
        self.0
            .iter()
            .flat_map(move |e| {
                let kept = &src[pos..e.start];
                pos = e.end;
                [kept, e.text.as_str()]
            })
            .chain(std::iter::once_with(move || {
                let last = self.0.last().map_or(0, |e| e.end);
                &src[last..]
            }))
            .filter(|piece| !piece.is_empty())
    }

    /// The edited text.
    pub fn text(&self, src: &str) -> String {
        let grows: usize = self.0.iter().map(|e| e.text.len()).sum();
        let mut out = String::with_capacity(src.len() + grows);
        self.pieces(src).for_each(|p| out.push_str(p));
        out
    }
}

/// `src` with `edits` made ([`Edits::new`]).
pub fn apply(src: &str, edits: Vec<Edit>) -> Option<String> {
    Edits::new(src, edits).map(|e| e.text(src))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_order_of_place() {
        let src = "abcdef";
        let out = apply(
            src,
            vec![
                Edit::insert(4, "Y".into()),
                Edit::replace(1, 3, "X".into()),
                Edit::insert(4, "Z".into()),
                Edit::delete(5, 6),
            ],
        );
        assert_eq!(out.as_deref(), Some("aXdYZe"));
    }

    #[test]
    fn an_insertion_where_a_replacement_ends_goes_after_it() {
        let out = apply(
            "abc",
            vec![Edit::insert(2, "+".into()), Edit::replace(1, 2, "B".into())],
        );
        assert_eq!(out.as_deref(), Some("aB+c"));
    }

    #[test]
    fn pieces_are_the_text() {
        let src = "abcdef";
        let edits = Edits::new(src, vec![Edit::delete(0, 1), Edit::insert(6, "!".into())]).unwrap();
        assert_eq!(edits.pieces(src).collect::<Vec<_>>(), ["bcdef", "!"]);
        let same = Edits::new(src, vec![Edit::replace(1, 2, "b".into())]).unwrap();
        assert_eq!(same.text(src), src);
    }

    #[test]
    fn overlapping_or_outside_edits_give_none() {
        assert_eq!(
            apply("abc", vec![Edit::delete(0, 2), Edit::delete(1, 3)]),
            None
        );
        assert_eq!(apply("abc", vec![Edit::delete(2, 5)]), None);
        assert_eq!(apply("é", vec![Edit::insert(1, "x".into())]), None);
    }
}
