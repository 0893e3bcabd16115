//! How many tokens a text is: OpenAI's `cl100k_base` (the encoding the ACE
//! paper's code counts playbooks with, tiktoken's, and the default here)
//! and `o200k_base`, exactly as tiktoken counts them with no special
//! tokens (`<|endoftext|>` in a playbook is text like any other), or
//! kayba's estimate of a quarter of the characters. The encodings' ranks
//! are built into the binary (`data/`, gzip) and made into an encoder the
//! first time one is used (0.4 s for cl100k_base, 1.1 s for o200k_base);
//! nothing is downloaded.

use std::fmt;
use std::io::Read;
use std::str::FromStr;
use std::sync::LazyLock;

use bpe::byte_pair_encoding::{read_tiktoken, BytePairEncoding};
use bpe_openai::Tokenizer;

/// The hash factor bpe-openai builds its encoders with: one without
/// collisions among these ranks.
const HASH_FACTOR: u64 = 17846336922010275747;

/// tiktoken's ranks, gzipped: the SHA-256 of each unpacked file is the
/// one tiktoken checks (data/README.md).
static CL100K_RANKS: &[u8] = include_bytes!("../data/cl100k_base.tiktoken.gz");
static O200K_RANKS: &[u8] = include_bytes!("../data/o200k_base.tiktoken.gz");

fn build(gz: &[u8]) -> BytePairEncoding {
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("the ranks built in unpack");
    let tokens = read_tiktoken(&text).expect("the ranks built in read");
    BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR))
}

/// Encoders made once, kept on disk for the next process: building one
/// from the ranks takes 0.4 s (cl100k_base) to 1 s (o200k_base), reading
/// it back 0.02 s. The folder is `ACE_TOOLS_CACHE`, else
/// `$XDG_CACHE_HOME/ace-tools`, else `~/.cache/ace-tools`;
/// `ACE_TOOLS_CACHE=off` keeps nothing. A file is named by the encoding,
/// this version and a digest of the ranks and the build's parameters, and
/// is used only if it reads whole and counts [`PROBE`] as an encoder built
/// from the ranks does; else the encoder is built again. Nothing is downloaded: the
/// cache holds what the binary makes from its own ranks.
mod cache {
    use std::hash::Hasher;
    use std::path::PathBuf;

    use bpe::byte_pair_encoding::BytePairEncoding;

    /// A text with words, numbers, punctuation, runs of spaces, newlines
    /// and characters of several scripts; its tokens in each encoding
    /// (the tests check them against encoders built from the ranks).
    pub(crate) const PROBE: &str = "[str-00001] helpful=5 harmful=0 :: Retry a 429 after `Retry-After`; log it. Ünïcödé, 東京, emoji 🙂 and  spaces\n\n";

    pub(crate) fn probe_tokens(name: &str) -> usize {
        match name {
            "cl100k_base" => 43,
            _ => 38,
        }
    }

    pub(crate) fn dir() -> Option<PathBuf> {
        match std::env::var_os("ACE_TOOLS_CACHE") {
            Some(v) if v == "off" => None,
            Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
            _ => std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .map(|d| d.join("ace-tools")),
        }
    }

    fn path(dir: &std::path::Path, name: &str, gz: &[u8]) -> PathBuf {
        // What the encoder is made of: the ranks and the hash factor.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        h.write(gz);
        h.write_u64(super::HASH_FACTOR);
        let file = format!(
            "{name}-{}-{:016x}.bpe",
            env!("CARGO_PKG_VERSION"),
            h.finish()
        );
        dir.join(file)
    }

    pub(crate) fn load(dir: &std::path::Path, name: &str, gz: &[u8]) -> Option<BytePairEncoding> {
        let bytes = std::fs::read(path(dir, name, gz)).ok()?;
        rmp_serde::from_slice(&bytes).ok()
    }

    /// Written to a temporary file and renamed, so that a process reading
    /// it while another writes sees a whole file or none; a failure is
    /// no error (the next run builds it again).
    pub(crate) fn store(dir: &std::path::Path, name: &str, gz: &[u8], bpe: &BytePairEncoding) {
        let path = path(dir, name, gz);
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let Ok(bytes) = rmp_serde::to_vec(bpe) else {
            return;
        };
        // Unique to the process and the thread: two writers never share
        // a temporary file.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The pre-tokenizing pattern of encoding `name`: tiktoken's, whose
/// negative look-ahead `\s+(?!\S)` [`tokenizer`] writes as a look-ahead of
/// one character that the pre-tokenizer drops (as bpe-openai does), with
/// `\s+$` for the end of the text.
fn pattern(name: &str) -> String {
    match name {
        "cl100k_base" => "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$".to_owned(),
        _ => [
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "\\p{N}{1,3}",
            " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
            "\\s*[\\r\\n]+",
            "\\s+$",
        ]
        .join("|"),
    }
}

fn tokenizer_of(name: &str, bpe: BytePairEncoding) -> Tokenizer {
    Tokenizer::new_lookahead(
        bpe,
        &[
            (pattern(name).as_str(), false),
            ("\\s+\\s", true),
            ("\\s+", false),
        ],
        false,
    )
    .expect("the pattern compiles")
}

/// The tokenizer of encoding `name` from the ranks `gz`: its encoder from
/// the cache when an earlier run left one there that counts the probe
/// right, else built (and left there).
fn tokenizer(name: &str, gz: &[u8]) -> Tokenizer {
    tokenizer_cached(name, gz, cache::dir().as_deref())
}

/// [`tokenizer`] with the cache in `dir` (none: built every time).
fn tokenizer_cached(name: &str, gz: &[u8], dir: Option<&std::path::Path>) -> Tokenizer {
    if let Some(bpe) = dir.and_then(|d| cache::load(d, name, gz)) {
        let t = tokenizer_of(name, bpe);
        if t.count(cache::PROBE) == cache::probe_tokens(name) {
            return t;
        }
    }
    let bpe = build(gz);
    if let Some(d) = dir {
        cache::store(d, name, gz, &bpe);
    }
    tokenizer_of(name, bpe)
}

static CL100K: LazyLock<Tokenizer> = LazyLock::new(|| tokenizer("cl100k_base", CL100K_RANKS));
static O200K: LazyLock<Tokenizer> = LazyLock::new(|| tokenizer("o200k_base", O200K_RANKS));

/// A way of counting tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// GPT-4 and GPT-3.5's encoding, which the ACE paper's code counts
    /// with (`tiktoken.get_encoding("cl100k_base")`).
    #[default]
    Cl100k,
    /// GPT-4o's and later models' encoding.
    O200k,
    /// A quarter of the characters (Unicode scalar values), rounded up:
    /// kayba's estimate.
    Chars4,
}

impl Encoding {
    pub const ALL: [Encoding; 3] = [Encoding::Cl100k, Encoding::O200k, Encoding::Chars4];

    /// Their names, in the order of [`Encoding::ALL`].
    pub const NAMES: [&'static str; 3] = ["cl100k_base", "o200k_base", "chars4"];

    /// The name `--tokenizer` and reports use.
    pub fn name(self) -> &'static str {
        Encoding::NAMES[self as usize]
    }

    /// The tokens of `text`.
    pub fn count(self, text: &str) -> usize {
        match self {
            Encoding::Cl100k => CL100K.count(text),
            Encoding::O200k => O200K.count(text),
            Encoding::Chars4 => text.chars().count().div_ceil(4),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.name()).collect();
                format!(
                    "unknown tokenizer `{s}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known counts; tests/cli/tokens.rs compares every corpus playbook
    /// with js-tiktoken's.
    #[test]
    fn counts_are_tiktokens() {
        let text = "[str-00001] helpful=5 harmful=0 :: Always check the input first.";
        assert_eq!(Encoding::Cl100k.count(""), 0);
        assert_eq!(Encoding::Cl100k.count("Hello, world!"), 4);
        assert_eq!(Encoding::O200k.count("Hello, world!"), 4);
        assert!(Encoding::Cl100k.count(text) > 10);
        assert_eq!(Encoding::Chars4.count("abcde"), 2);
        assert_eq!(Encoding::Chars4.count("éééé"), 1);
    }

    /// A cached encoder is trusted only if it counts the probe as one
    /// built from the ranks does: the probe's counts are those.
    #[test]
    fn the_probe_counts_are_the_built_encoders() {
        for (name, gz) in [("cl100k_base", CL100K_RANKS), ("o200k_base", O200K_RANKS)] {
            let built = tokenizer_of(name, build(gz));
            assert_eq!(
                built.count(cache::PROBE),
                cache::probe_tokens(name),
                "{name}"
            );
        }
    }

    /// An encoder stored and read back counts as the one built; a broken
    /// cache file is built over.
    #[test]
    fn the_cache_round_trips_and_a_broken_file_is_rebuilt() {
        let dir = std::env::temp_dir().join(format!("ace-tokens-cache-{}", std::process::id()));
        let tokenizer =
            |d: &std::path::Path| tokenizer_cached("cl100k_base", CL100K_RANKS, Some(d));
        let t = tokenizer(&dir);
        let files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let again = tokenizer(&dir);
        let text = "[str-00001] helpful=5 harmful=0 :: Always check the input first.\n";
        assert_eq!(t.count(text), again.count(text));
        std::fs::write(&files[0], b"not an encoder").unwrap();
        let rebuilt = tokenizer(&dir);
        assert_eq!(rebuilt.count(text), t.count(text));
        assert!(std::fs::metadata(&files[0]).unwrap().len() > 1_000_000);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The ranks built in are the files tiktoken downloads, by the hashes
    /// it checks them with.
    #[test]
    fn the_ranks_are_tiktokens() {
        use sha2::Digest;
        for (gz, want) in [
            (
                CL100K_RANKS,
                "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            ),
            (
                O200K_RANKS,
                "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            ),
        ] {
            let mut raw = Vec::new();
            flate2::read::GzDecoder::new(gz)
                .read_to_end(&mut raw)
                .unwrap();
            let hex: String = sha2::Sha256::digest(&raw)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(hex, want);
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(e.name().parse::<Encoding>(), Ok(e));
        }
        assert!("gpt2"
            .parse::<Encoding>()
            .unwrap_err()
            .contains("cl100k_base"));
    }
}
