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

fn encoder(gz: &[u8]) -> BytePairEncoding {
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("the ranks built in unpack");
    let tokens = read_tiktoken(&text).expect("the ranks built in read");
    BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR))
}

// tiktoken's pre-tokenizing patterns, the negative look-ahead `\s+(?!\S)`
// written as a look-ahead of one character that the pre-tokenizer drops
// (as bpe-openai does), and `\s+$` for the end of the text.
static CL100K: LazyLock<Tokenizer> = LazyLock::new(|| {
    let pat = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$";
    Tokenizer::new_lookahead(
        encoder(CL100K_RANKS),
        &[(pat, false), ("\\s+\\s", true), ("\\s+", false)],
        false,
    )
    .expect("the pattern compiles")
});

static O200K: LazyLock<Tokenizer> = LazyLock::new(|| {
    let pat = [
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "\\p{N}{1,3}",
        " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
        "\\s*[\\r\\n]+",
        "\\s+$",
    ]
    .join("|");
    Tokenizer::new_lookahead(
        encoder(O200K_RANKS),
        &[(&pat, false), ("\\s+\\s", true), ("\\s+", false)],
        false,
    )
    .expect("the pattern compiles")
});

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
