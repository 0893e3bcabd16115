//! Input read safely: UTF-8 text without NUL bytes, large files mapped.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use ace_model::LineIndex;

/// Input that could not be turned into text.
#[derive(Debug)]
pub enum LoadError {
    NotFound(String),
    IsDirectory(String),
    Binary(String),
    InvalidUtf8 {
        name: String,
        line: usize,
        col: usize,
        byte: u8,
    },
    Io(String, std::io::Error),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound(n) => write!(f, "{n}: no such file"),
            LoadError::IsDirectory(n) => write!(f, "{n}: is a directory; expected a playbook file"),
            LoadError::Binary(n) => write!(
                f,
                "{n}: binary file (contains NUL bytes); expected UTF-8 text"
            ),
            LoadError::InvalidUtf8 {
                name,
                line,
                col,
                byte,
            } => {
                write!(
                    f,
                    "{name}:{line}:{col}: invalid UTF-8 (byte 0x{byte:02x}); expected UTF-8 text"
                )
            }
            LoadError::Io(n, e) => write!(f, "{n}: {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<LoadError> for ace_model::Error {
    fn from(e: LoadError) -> Self {
        let text = e.to_string();
        match e {
            LoadError::NotFound(path)
            | LoadError::IsDirectory(path)
            | LoadError::Binary(path)
            | LoadError::Io(path, _) => ace_model::Error::Io {
                message: text[path.len() + 2..].to_owned(),
                path,
            },
            LoadError::InvalidUtf8 {
                name,
                line,
                col,
                byte,
            } => ace_model::Error::Content {
                place: format!("{name}:{line}:{col}"),
                message: format!("invalid UTF-8 (byte 0x{byte:02x}); expected UTF-8 text"),
            },
        }
    }
}

/// A loaded input: its display name, path (none for stdin) and text.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub path: Option<PathBuf>,
    pub text: Text,
}

/// The text of an input, checked to be UTF-8 without NUL bytes. A large
/// regular file is mapped instead of read: reading it means zeroing fresh
/// pages for a buffer and copying the page cache into them
/// (docs/performance.md, "Choices the figures rest on").
#[derive(Debug, Default)]
pub struct Text(Repr);

#[derive(Debug)]
enum Repr {
    Owned(String),
    Mapped(memmap2::Mmap),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Owned(String::new())
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Repr::Owned(s))
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Owned(s) => s,
            // SAFETY: `map_text` checked these bytes as UTF-8 and the map is
            // read-only. Another process truncating or rewriting the file
            // while it is mapped is the accepted risk of mapping it
            // (docs/decisions.md); files below MAP_AT are read instead.
            Repr::Mapped(m) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }
}

/// A copy is owned text: it outlives the map.
impl Clone for Text {
    fn clone(&self) -> Self {
        String::from(&**self).into()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self
    }
}

/// Files smaller than this are read: mapping them saves nothing measurable.
const MAP_AT: u64 = 1 << 20;

pub fn load(path: &Path) -> Result<Source, LoadError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => LoadError::NotFound(name.clone()),
        _ => LoadError::Io(
            name.clone(),
            crate::target::named_on_the_way(e, path, |file| {
                format!("no such file: `{file}` is a file, not a folder")
            }),
        ),
    })?;
    if meta.is_dir() {
        return Err(LoadError::IsDirectory(name));
    }
    let text = if meta.is_file() && meta.len() >= MAP_AT {
        map_text(path, &name)?
    } else {
        let file = std::fs::File::open(path).map_err(|e| LoadError::Io(name.clone(), e))?;
        decode(read_text_bytes(file, &name, meta.len() as usize)?, &name)?.into()
    };
    Ok(Source {
        text,
        name,
        path: Some(path.to_owned()),
    })
}

fn map_text(path: &Path, name: &str) -> Result<Text, LoadError> {
    let file = std::fs::File::open(path).map_err(|e| LoadError::Io(name.to_owned(), e))?;
    // SAFETY: the map is only read, and only through `Text`, after the
    // check below. See `Text`'s `deref` for the risk of a concurrent writer.
    // Populated: the kernel maps the file's cached pages in one call,
    // where the checks' first touches took a fault a page.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
        .map_err(|e| LoadError::Io(name.to_owned(), e))?;
    check_text(&map, name)?;
    Ok(Text(Repr::Mapped(map)))
}

pub fn load_stdin(name: &str) -> Result<Source, LoadError> {
    let bytes = read_text_bytes(std::io::stdin().lock(), name, 0)?;
    Ok(Source {
        text: decode(bytes, name)?.into(),
        name: name.to_owned(),
        path: None,
    })
}

/// Everything `from` gives, stopping at the first piece that holds a NUL
/// byte: a link to `/dev/zero` or `/dev/urandom` (a device, which never
/// ends) is then refused as binary at once rather than read until memory
/// runs out. `size` is what the file's length said, if anything.
fn read_text_bytes(mut from: impl Read, name: &str, size: usize) -> Result<Vec<u8>, LoadError> {
    let mut bytes = Vec::with_capacity(size + 1);
    loop {
        let start = bytes.len();
        let n = (&mut from)
            .take(1 << 16)
            .read_to_end(&mut bytes)
            .map_err(|e| LoadError::Io(name.to_owned(), e))?;
        check_no_nul(&bytes[start..], name)?;
        if n == 0 {
            return Ok(bytes);
        }
    }
}

fn decode(bytes: Vec<u8>, name: &str) -> Result<String, LoadError> {
    check_no_nul(&bytes, name)?;
    String::from_utf8(bytes).map_err(|e| utf8_error(e.as_bytes(), e.utf8_error(), name))
}

fn check_no_nul(bytes: &[u8], name: &str) -> Result<(), LoadError> {
    match memchr::memchr(0, bytes) {
        Some(_) => Err(LoadError::Binary(name.to_owned())),
        None => Ok(()),
    }
}

/// Accepts UTF-8 text without NUL bytes, as [`decode`] does.
fn check_text(bytes: &[u8], name: &str) -> Result<(), LoadError> {
    if plain_in_halves(bytes) {
        return Ok(());
    }
    check_no_nul(bytes, name)?;
    // The SIMD check passes valid text at memory speed; only a failure
    // asks std's check for where the bad byte is.
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return Ok(());
    }
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|e| utf8_error(bytes, e, name))
}

/// Whether a large text is UTF-8 without NUL bytes, its two halves
/// checked at once (a mapped file is checked before anything else can
/// run). `false` also for a small text, and for one that fails, whose
/// fault the whole check then finds first.
fn plain_in_halves(bytes: &[u8]) -> bool {
    const LARGE: usize = 8 << 20;
    if bytes.len() < LARGE {
        return false;
    }
    // Cut where a character starts: each half is then UTF-8 alone if the
    // whole is.
    let Some(cut) = (bytes.len() / 2..bytes.len()).find(|&i| bytes[i] & 0xC0 != 0x80) else {
        return false;
    };
    let plain = |b: &[u8]| memchr::memchr(0, b).is_none() && simdutf8::basic::from_utf8(b).is_ok();
    let (head, tail) = bytes.split_at(cut);
    std::thread::scope(|s| {
        let other = s.spawn(|| plain(tail));
        plain(head) & other.join().unwrap_or(false)
    })
}

fn utf8_error(bytes: &[u8], e: std::str::Utf8Error, name: &str) -> LoadError {
    let valid = e.valid_up_to();
    let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
    let pos = LineIndex::new(prefix).line_col(prefix, valid);
    LoadError::InvalidUtf8 {
        name: name.to_owned(),
        line: pos.line,
        col: pos.col,
        byte: bytes[valid],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_errors_name_the_position() {
        assert!(matches!(
            decode(b"a\0b".to_vec(), "f"),
            Err(LoadError::Binary(_))
        ));
        let err = decode(b"ok\nab\xffc".to_vec(), "f").unwrap_err();
        assert_eq!(
            err.to_string(),
            "f:2:3: invalid UTF-8 (byte 0xff); expected UTF-8 text"
        );
    }

    #[test]
    fn a_large_text_checked_in_halves_is_checked_as_a_whole() {
        // 9 MiB of four-byte characters: the middle falls inside one.
        let text = "𝄞".repeat(9 << 18);
        let mid = text.len() / 2;
        assert!(plain_in_halves(text.as_bytes()));
        assert!(!plain_in_halves(b"small"), "small texts are left whole");
        for (at, bad) in [
            (10, 0xffu8),
            (mid + 1, 0xff),
            (text.len() - 2, 0),
            (mid, 0x80),
        ] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = bad;
            assert!(!plain_in_halves(&bytes), "{at}");
            assert!(check_text(&bytes, "f").is_err(), "{at}");
        }
        // A character cut by a split that ignored boundaries.
        let mut odd = vec![b'a'; mid - 1];
        odd.extend_from_slice("é".as_bytes());
        odd.resize(text.len(), b'b');
        assert!(plain_in_halves(&odd));
    }

    #[test]
    fn large_files_are_mapped_and_checked_like_read_ones() {
        let dir = tempfile::tempdir().unwrap();
        let big = "[str-00001] helpful=1 harmful=0 :: x\n".repeat(40_000);
        let cases: [(&str, Vec<u8>); 4] = [
            ("small", b"## A\n".to_vec()),
            ("big", big.clone().into_bytes()),
            ("nul", [big.as_bytes(), b"a\0"].concat()),
            ("bad", [big.as_bytes(), b"ab\xffc"].concat()),
        ];
        for (name, bytes) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let mapped = bytes.len() as u64 >= MAP_AT;
            assert_eq!(mapped, name != "small");
            match (name, load(&path)) {
                ("small" | "big", Ok(s)) => {
                    assert_eq!(s.text.as_bytes(), &bytes[..]);
                    assert!(matches!(s.text.0, Repr::Mapped(_)) == mapped, "{name}");
                    assert_eq!(&*s.text.clone(), &*s.text);
                }
                ("nul", Err(LoadError::Binary(_))) => {}
                ("bad", Err(e)) => assert_eq!(
                    e.to_string(),
                    format!(
                        "{}:40001:3: invalid UTF-8 (byte 0xff); expected UTF-8 text",
                        path.display()
                    )
                ),
                (name, other) => panic!("{name}: {other:?}"),
            }
        }
    }
}
