//! Text output that reaches its destination in blocks as it is produced.
//!
//! Writers print into an [`Out`]. Collected in memory it is a string; sent
//! to a file, only the last block is ever held, so converting a million
//! entries does not keep a second copy of the playbook as text (nor, while
//! that string grows, a third).

use std::fmt;
use std::io;

/// Bytes gathered before they are handed to the sink.
const BLOCK: usize = 1 << 16;
/// Bytes kept back when a block is handed on: writers look back at the
/// end of their output (`ends_with("\n\n")`, `pop`) and never further.
const KEEP: usize = 8;

pub struct Out<'w> {
    buf: Vec<u8>,
    /// Bytes already handed to the sink.
    sent: usize,
    sink: Option<&'w mut dyn io::Write>,
    /// The first error of the sink; what follows it is not written.
    error: Option<io::Error>,
}

impl Default for Out<'_> {
    fn default() -> Self {
        Out::new()
    }
}

impl<'w> Out<'w> {
    /// Output gathered in memory, returned by [`Out::finish`].
    pub fn new() -> Self {
        Out {
            buf: Vec::new(),
            sent: 0,
            sink: None,
            error: None,
        }
    }

    pub fn with_capacity(capacity: usize) -> Self {
        Out {
            buf: Vec::with_capacity(capacity),
            ..Out::new()
        }
    }

    /// Output handed to `sink` in blocks.
    pub fn to(sink: &'w mut dyn io::Write) -> Self {
        Out {
            buf: Vec::with_capacity(BLOCK + BLOCK / 2),
            sent: 0,
            sink: Some(sink),
            error: None,
        }
    }

    /// Reserves room for `additional` more bytes when gathering in memory
    /// (a sink needs no more than a block).
    pub fn reserve(&mut self, additional: usize) {
        if self.sink.is_some() {
            return;
        }
        if self.buf.is_empty() && self.buf.capacity() < additional {
            // Nothing to keep: growing would copy the old room, unused.
            self.buf = Vec::with_capacity(additional);
        } else {
            self.buf.reserve(additional);
        }
    }

    #[inline]
    pub fn push_str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
        if self.buf.len() >= BLOCK && self.sink.is_some() {
            self.send();
        }
    }

    #[inline]
    pub fn push(&mut self, c: char) {
        if c.is_ascii() {
            self.buf.push(c as u8);
            if self.buf.len() >= BLOCK && self.sink.is_some() {
                self.send();
            }
        } else {
            self.push_str(c.encode_utf8(&mut [0; 4]));
        }
    }

    /// Bytes written so far, sent or not.
    pub fn len(&self) -> usize {
        self.sent + self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the output ends with `tail`, which must be at most 8 bytes.
    pub fn ends_with(&self, tail: &str) -> bool {
        debug_assert!(tail.len() <= KEEP);
        self.buf.ends_with(tail.as_bytes())
    }

    /// Removes the last character.
    pub fn pop(&mut self) -> Option<char> {
        let start = (0..self.buf.len())
            .rev()
            .find(|&i| (self.buf[i] & 0xC0) != 0x80)?;
        let c = std::str::from_utf8(&self.buf[start..])
            .ok()
            .and_then(|s| s.chars().next());
        self.buf.truncate(start);
        c
    }

    fn send(&mut self) {
        let cut = self.buf.len() - KEEP;
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            if let Err(e) = sink.write_all(&self.buf[..cut]) {
                self.error = Some(e);
            }
        }
        self.buf.drain(..cut);
        self.sent += cut;
    }

    /// The text gathered in memory; with a sink, what is left is sent and
    /// the string is empty. The sink's first error, if any.
    pub fn finish(mut self) -> io::Result<String> {
        match self.sink.take() {
            Some(sink) => {
                if let Some(e) = self.error.take() {
                    return Err(e);
                }
                sink.write_all(&self.buf)?;
                sink.flush()?;
                Ok(String::new())
            }
            None => String::from_utf8(self.buf)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
        }
    }

    /// The bytes gathered in memory, unchecked: for a run printed on
    /// another thread and appended to the output with [`Out::append`],
    /// where [`Out::finish`] checks them, or no one needs to (a sink takes
    /// bytes).
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        debug_assert!(self.sink.is_none());
        self.buf
    }

    /// Appends what another `Out` gathered ([`Out::into_bytes`]). Handed
    /// to a sink straight from `bytes` where they fill blocks, not copied
    /// into one first: runs are large.
    pub(crate) fn append(&mut self, bytes: &[u8]) {
        if self.sink.is_none() || bytes.len() < BLOCK {
            self.buf.extend_from_slice(bytes);
            if self.buf.len() >= BLOCK && self.sink.is_some() {
                self.send();
            }
            return;
        }
        // What is held goes first, then all but the last few bytes of the
        // run, which stay for the writers' look back (`KEEP`).
        let cut = bytes.len() - KEEP;
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            let sent = sink
                .write_all(&self.buf)
                .and_then(|()| sink.write_all(&bytes[..cut]));
            if let Err(e) = sent {
                self.error = Some(e);
            }
        }
        self.sent += self.buf.len() + cut;
        self.buf.clear();
        self.buf.extend_from_slice(&bytes[cut..]);
    }

    /// [`Out::finish`] for output gathered in memory, which cannot fail
    /// (every writer prints whole strings).
    pub fn into_string(self) -> String {
        debug_assert!(self.sink.is_none());
        self.finish().unwrap_or_default()
    }
}

impl fmt::Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// For serializers that write bytes (serde_json); they write whole UTF-8
/// sequences.
impl io::Write for Out<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= BLOCK && self.sink.is_some() {
            self.send();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether `print` prints `text`, byte for byte, compared block by block
/// as it is printed rather than held: the check that a rewrite would give
/// a large file back unchanged then costs no second copy of it.
pub fn prints_same(text: &str, print: impl FnOnce(&mut Out<'_>)) -> bool {
    let mut same = Same {
        text: text.as_bytes(),
        at: 0,
        differs: false,
    };
    let mut out = Out::to(&mut same);
    print(&mut out);
    // `Same` never fails a write: the only error is the one it reports.
    out.finish().is_ok() && !same.differs && same.at == text.len()
}

/// A sink that compares what it is given with `text` from the start.
struct Same<'t> {
    text: &'t [u8],
    at: usize,
    differs: bool,
}

impl io::Write for Same<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let end = self.at + bytes.len();
        if self.differs || self.text.get(self.at..end) != Some(bytes) {
            self.differs = true;
        }
        self.at = end;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Far more than a block, with multi-byte characters across block
    /// boundaries, and look-backs after blocks were sent.
    fn print(out: &mut Out<'_>) {
        for i in 0..20_000 {
            out.push_str("entry é ∑ 𝄞 ");
            out.push(char::from_u32(0x41 + (i % 26)).unwrap());
            out.push('\n');
            out.push('\n');
            if out.ends_with("\n\n") {
                assert_eq!(out.pop(), Some('\n'));
            }
            if i % 7 == 0 {
                out.push('ü');
                assert_eq!(out.pop(), Some('ü'));
            }
        }
    }

    #[test]
    fn a_sink_receives_exactly_what_memory_would_hold() {
        let mut mem = Out::new();
        print(&mut mem);
        let len = mem.len();
        let text = mem.into_string();
        assert_eq!(text.len(), len);
        let mut bytes = Vec::new();
        let mut sunk = Out::to(&mut bytes);
        print(&mut sunk);
        assert_eq!(sunk.len(), len);
        assert_eq!(sunk.finish().unwrap(), "");
        assert_eq!(String::from_utf8(bytes).unwrap(), text);
    }

    /// Runs printed apart and appended (small ones, and ones of several
    /// blocks that go to a sink without a copy) give what printing them in
    /// place gives, look-backs across the seam included.
    #[test]
    fn appended_runs_are_what_printing_in_place_gives() {
        let run = |n: usize| {
            let mut r = Out::new();
            for i in 0..n {
                r.push_str("run é ∑ ");
                r.push(char::from_u32(0x61 + (i % 26) as u32).unwrap());
            }
            r.push_str("\n\n");
            r.into_bytes()
        };
        let runs = [run(3), run(20_000), run(1), run(9_000), run(50_000)];
        let both = |out: &mut Out<'_>, appended: bool| {
            for r in &runs {
                out.push_str("head ");
                if appended {
                    out.append(r);
                } else {
                    out.push_str(std::str::from_utf8(r).unwrap());
                }
                assert!(out.ends_with("\n\n"));
                assert_eq!(out.pop(), Some('\n'));
            }
        };
        let mut direct = Out::new();
        both(&mut direct, false);
        let len = direct.len();
        let direct = direct.into_string();
        let mut mem = Out::new();
        both(&mut mem, true);
        assert_eq!(mem.len(), len);
        assert_eq!(mem.into_string(), direct);
        let mut bytes = Vec::new();
        let mut sunk = Out::to(&mut bytes);
        both(&mut sunk, true);
        assert_eq!(sunk.len(), len);
        assert_eq!(sunk.finish().unwrap(), "");
        assert_eq!(String::from_utf8(bytes).unwrap(), direct);
        let mut full = Full;
        let mut failing = Out::to(&mut full);
        both(&mut failing, true);
        assert_eq!(failing.finish().unwrap_err().to_string(), "disk full");
    }

    struct Full;

    impl io::Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_sinks_first_error_is_returned() {
        let mut full = Full;
        let mut out = Out::to(&mut full);
        print(&mut out);
        assert_eq!(out.finish().unwrap_err().to_string(), "disk full");
    }

    #[test]
    fn prints_same_compares_across_blocks() {
        let mut whole = Out::new();
        print(&mut whole);
        let text = whole.into_string();
        assert!(text.len() > 4 * BLOCK);
        assert!(prints_same(&text, print));
        let mut changed = text.clone().into_bytes();
        changed[3 * BLOCK + 5] ^= 1;
        let changed = String::from_utf8_lossy(&changed).into_owned();
        assert!(!prints_same(&changed, print));
        assert!(!prints_same(&text[..text.len() - 1], print));
        assert!(!prints_same(&format!("{text}x"), print));
        assert!(prints_same("", |_| {}));
        assert!(!prints_same("", |out| out.push('a')));
    }
}
