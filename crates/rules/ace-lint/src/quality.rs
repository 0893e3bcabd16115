//! The playbook format spec's anti-patterns (too vague, secrets, one-off
//! specifics), the skill spec's tag and evidence vocabulary and likely
//! duplicates, the append-only ADR's quarantine condition and the vAgenda
//! ACE extension's self-report caution.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use ace_model::{rules, Diagnostic, Entry, Evidence, Playbook};
use regex_automata::meta::{self, Regex};
use regex_automata::{Input, MatchKind, PatternSet};

use crate::{span, Options};

/// The playbook format spec's examples of entries not to add, and their common relatives,
/// normalised (lower case, letters and spaces only).
const GENERIC: &[&str] = &[
    "be careful",
    "think before acting",
    "check your work",
    "remember to save files",
    "double check",
    "double check your work",
    "pay attention",
    "pay attention to details",
    "be thorough",
    "be precise",
    "do your best",
    "think step by step",
    "use best practices",
    "follow best practices",
    "be accurate",
    "stay focused",
    "take your time",
    "avoid mistakes",
    "test your code",
];

/// The most words any phrase in [`GENERIC`] has.
const GENERIC_MAX_WORDS: usize = 4;

fn word_iter(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '\'')
        .filter(|w| !w.is_empty())
}

fn words(s: &str) -> Vec<String> {
    word_iter(s).map(str::to_lowercase).collect()
}

pub(crate) fn vague(e: &Entry, opts: &Options, out: &mut Vec<Diagnostic>) {
    if e.content.trim().is_empty() {
        return; // ACE021
    }
    // Counting first: only short content can be generic or too short, so
    // only short content is lowered word by word.
    let count = word_iter(&e.content).count();
    let generic =
        count <= GENERIC_MAX_WORDS && GENERIC.contains(&words(&e.content).join(" ").as_str());
    let why = if generic {
        format!(
            "\"{}\" is generic advice the ACE playbook format spec lists as an anti-pattern",
            e.content.trim()
        )
    } else if count < opts.vague_words {
        format!(
            "{count} word{} of content (fewer than {}) cannot say what to do, when and why",
            if count == 1 { "" } else { "s" },
            opts.vague_words
        )
    } else {
        return;
    };
    out.push(
        Diagnostic::new(
            &rules::VAGUE_CONTENT,
            span(e),
            format!("entry `{}`: {why}", e.id),
        )
        .with_help("state the situation, the action and the reason"),
    );
}

struct SecretPatterns {
    set: Regex,
    names: Vec<&'static str>,
}

/// Compiling these patterns is paid by every ace-validate run, and with
/// `regex`'s defaults it costs more than validating a small playbook. So
/// they are ASCII-only (`(?-u)`: credentials and the one-off values are
/// ASCII; Unicode `\b`, `\d` and case folding blow up the automata) and
/// built without a literal prefilter, whose construction is most of the
/// rest. Entries are short, so the lazy DFA alone scans them fast enough.
fn compile(patterns: &[&str], kind: MatchKind) -> Regex {
    let ascii: Vec<String> = patterns.iter().map(|p| format!("(?-u){p}")).collect();
    meta::Builder::new()
        .configure(Regex::config().auto_prefilter(false).match_kind(kind))
        .build_many(&ascii)
        .expect("valid patterns")
}

fn secret_patterns() -> &'static SecretPatterns {
    static P: OnceLock<SecretPatterns> = OnceLock::new();
    P.get_or_init(|| {
        let table: [(&str, &str); 9] = [
            ("an AWS access key", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
            ("a GitHub token", r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
            ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
            ("an API secret key", r"\bsk-(ant-|proj-|live_|test_)?[A-Za-z0-9_-]{16,}"),
            ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
            ("a JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
            ("a private key", r"-----BEGIN ([A-Z]+ )?PRIVATE KEY-----"),
            ("a bearer token", r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*"),
            // `api key was abc123`, `password: hunter2`, `token=...`: a
            // credential word, a verb or sign, then a value with a digit or
            // of some length (so that "the token is expired" is not one).
            (
                "a credential value",
                r#"(?i)\b(api[ _-]?key|apikey|access[ _-]?key|secret(?:[ _-]?key)?|password|passwd|pwd|token|auth[ _-]?token|client[ _-]?secret)\s*(?:was|is|=|:)\s*["'`]?([A-Za-z0-9_\-./+]*\d[A-Za-z0-9_\-./+]*|[A-Za-z0-9_\-./+]{12,})["'`]?"#,
            ),
        ];
        SecretPatterns {
            set: compile(&table.map(|(_, p)| p), MatchKind::All),
            names: table.iter().map(|(n, _)| *n).collect(),
        }
    })
}

/// `its FIELD holds U+XXXX (NAME) at character N`, of the first of `texts`
/// (field, text) that holds a character hiding text.
fn hidden_in(texts: &[(&str, &str)]) -> Option<String> {
    texts.iter().find_map(|(field, text)| {
        ace_model::controls::first_hidden(text).map(|(at, c, name)| {
            format!(
                "its {field} holds U+{:04X} ({name}) at character {}",
                c as u32,
                at + 1
            )
        })
    })
}

/// ACE090: a character that reorders the text shown or that no one sees,
/// in any text of the entry an agent or a reviewer reads.
pub(crate) fn hidden_text(e: &Entry, out: &mut Vec<Diagnostic>) {
    if let Some(what) = hidden_in(&e.texts()) {
        out.push(
            Diagnostic::new(
                &rules::HIDDEN_TEXT,
                span(e),
                format!("entry `{}`: {what}", e.id),
            )
            .with_help("remove it: a reviewer is shown other text than the agent reads"),
        );
    }
}

/// What a delta's operation would write that a playbook must not hold: a
/// character that hides text from a reviewer (ACE090), or what looks like
/// a credential in a content or title (ACE057), with the field (`its
/// content holds ...`). A credential is named by its kind, never its
/// value. Agents write deltas, and text injected into an agent's prompt
/// or a secret from its context would reach every later run.
pub fn unsafe_text(change: &ace_model::delta::Change) -> Option<(&'static rules::Rule, String)> {
    let texts = change.texts();
    if let Some(what) = hidden_in(&texts) {
        return Some((
            &rules::HIDDEN_TEXT,
            format!("{what}, which hides text from a reviewer"),
        ));
    }
    texts
        .iter()
        .filter(|(field, _)| matches!(*field, "content" | "title"))
        .find_map(|(field, text)| {
            credential(text).map(|what| {
                (
                    &rules::SECRET_IN_CONTENT,
                    format!("its {field} holds what looks like {what}, which every run would read and a repository keep"),
                )
            })
        })
}

/// What credential `text` looks like it holds (`an AWS access key`), if
/// any: ACE057's patterns. Only the kind is given, never the value.
fn credential(text: &str) -> Option<&'static str> {
    let p = secret_patterns();
    let mut found = PatternSet::new(p.set.pattern_len());
    p.set
        .which_overlapping_matches(&Input::new(text), &mut found);
    found.iter().next().map(|id| p.names[id.as_usize()])
}

pub(crate) fn secrets(e: &Entry, out: &mut Vec<Diagnostic>) {
    let mut texts = vec![e.content.as_str()];
    texts.extend(e.title.as_deref());
    for text in texts {
        if let Some(what) = credential(text) {
            out.push(
                Diagnostic::new(
                    &rules::SECRET_IN_CONTENT,
                    span(e),
                    format!("entry `{}` contains what looks like {what}", e.id),
                )
                .with_help(
                    "remove the value and rotate the credential; keep the lesson without it",
                ),
            );
            return;
        }
    }
}

fn one_off_patterns() -> &'static [(&'static str, Regex)] {
    static P: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    P.get_or_init(|| {
        [
            (
                "a UUID",
                r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
            ),
            ("a commit or content hash", r"\b[0-9a-f]{16,64}\b"),
            (
                "a home-directory path",
                r"(/home/[A-Za-z0-9._-]+/|/Users/[A-Za-z0-9._-]+/|[A-Za-z]:\\Users\\)",
            ),
            (
                "an IP address",
                r"\b(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\b",
            ),
            (
                "an e-mail address",
                r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
            ),
            (
                "a timestamp",
                r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?",
            ),
        ]
        .into_iter()
        .map(|(n, p)| (n, compile(&[p], MatchKind::LeftmostFirst)))
        .collect()
    })
}

pub(crate) fn one_off(e: &Entry, out: &mut Vec<Diagnostic>) {
    for (what, re) in one_off_patterns() {
        if let Some(found) = re.find(&e.content).and_then(|m| e.content.get(m.range())) {
            out.push(
                Diagnostic::new(
                    &rules::ONE_OFF_SPECIFIC,
                    span(e),
                    format!(
                        "entry `{}` names {what} (`{}`): it records one occurrence rather than a lesson",
                        e.id, found
                    ),
                )
                .with_help("replace the value by what it stands for"),
            );
            return;
        }
    }
}

/// The skill spec's taxonomy: lower-case segments joined by dots.
pub(crate) fn is_taxonomy_tag(tag: &str) -> bool {
    !tag.is_empty()
        && tag.split('.').all(|seg| {
            !seg.is_empty()
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        })
}

/// What a tag would be in the taxonomy: lower case, separators as dots,
/// spaces as underscores.
fn normalise_tag(tag: &str) -> String {
    let lowered: String = tag
        .trim()
        .chars()
        .map(|c| match c {
            '/' | ':' | '\\' => '.',
            c if c.is_whitespace() => '_',
            c => c.to_ascii_lowercase(),
        })
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        .collect();
    lowered
        .split('.')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(".")
}

pub(crate) fn tags(e: &Entry, out: &mut Vec<Diagnostic>) {
    for tag in e.tags.iter().flatten() {
        if !is_taxonomy_tag(tag) {
            let fixed = normalise_tag(tag);
            let hint = if fixed.is_empty() {
                String::new()
            } else {
                format!("; in the taxonomy it would be `{fixed}`")
            };
            out.push(Diagnostic::new(
                &rules::TAG_TAXONOMY,
                span(e),
                format!(
                    "entry `{}`: tag `{tag}` is not lower-case and dotted{hint}",
                    e.id
                ),
            ));
        }
    }
}

/// The skill spec's evidence types, plus `error_log` from its bullet schema.
pub const EVIDENCE_TYPES: [&str; 7] = [
    "execution",
    "validation",
    "test_result",
    "user_feedback",
    "documentation",
    "low_confidence",
    "error_log",
];

pub(crate) fn evidence(e: &Entry, out: &mut Vec<Diagnostic>) {
    for ev in e.evidence.iter().flatten() {
        if let Evidence::Ref(r) = ev {
            if let Some(kind) = r.kind.as_deref().filter(|k| !EVIDENCE_TYPES.contains(k)) {
                out.push(Diagnostic::new(
                    &rules::EVIDENCE_TYPE,
                    span(e),
                    format!(
                        "entry `{}`: evidence type `{kind}` is not one of {}",
                        e.id,
                        EVIDENCE_TYPES.join(", ")
                    ),
                ));
            }
        }
    }
}

pub(crate) fn quarantine(e: &Entry, out: &mut Vec<Diagnostic>) {
    let (Some(helpful), Some(harmful)) = (e.helpful, e.harmful) else {
        return;
    };
    // Any status but active: kayba's removed skills (`active: false`)
    // among them.
    let retired = e
        .status
        .as_ref()
        .is_some_and(|s| *s != ace_model::Status::Active);
    if harmful >= helpful && harmful.saturating_add(helpful) >= 1 && !retired {
        out.push(Diagnostic::new(
            &rules::QUARANTINE,
            span(e),
            format!(
                "entry `{}`: harmful={harmful} >= helpful={helpful}: GuardrailMonitor would quarantine it",
                e.id
            ),
        ));
    }
}

pub(crate) fn self_report(e: &Entry, opts: &Options, out: &mut Vec<Diagnostic>) {
    let self_reported = e
        .extra
        .get("feedbackType")
        .and_then(|v| v.as_str())
        .is_some_and(|t| t == "selfReport");
    let Some(score) = e.confidence.as_ref().and_then(|c| c.score()) else {
        return;
    };
    if self_reported && score >= opts.self_report_confidence {
        out.push(
            Diagnostic::new(
                &rules::SELF_REPORT_CONFIDENCE,
                span(e),
                format!(
                    "entry `{}` has confidence {score} on `selfReport` feedback alone (at or above {})",
                    e.id, opts.self_report_confidence
                ),
            )
            .with_help("lower the confidence, or record human review or execution outcomes"),
        );
    }
}

/// How [`similar_pairs`] compares entries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Similarity {
    /// The Jaccard index of the word sets of title and content above
    /// which two entries are alike.
    pub similarity: f64,
    /// The Jaccard index of the tag sets above which two tagged entries
    /// share their tags.
    pub tag_overlap: f64,
    /// Compare entries without tags too (on their words alone): ACE061
    /// compares tagged entries only, de-duplication every entry.
    pub untagged: bool,
    /// Include entries whose normalised content is the same (ACE008's).
    pub exact: bool,
}

/// Two entries found alike: indices into the list given, `earlier` before
/// `later`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub later: usize,
    pub earlier: usize,
    pub similarity: f64,
    /// Their tags' overlap, when both have tags.
    pub overlap: Option<f64>,
}

/// Pairs of entries with similar words (and shared tags, where both have
/// tags): for each entry, the earliest entry it is like.
///
/// Candidates come from prefix filtering, as similarity joins find them
/// (AllPairs, Bayardo et al. 2007): with the words of every entry ordered
/// rarest first, two sets whose Jaccard similarity reaches `t` share a word
/// among the first `|x| - ceil(t |x|) + 1` of each. Only word sets sharing
/// such a word are compared, so a playbook whose entries share a few
/// common tags (every entry tagged `testing`) is not compared pair by pair.
///
/// The search runs over distinct word sets, and each set's similar sets
/// are found once (then only among sets new since): entries that repeat a
/// few sentences under many tags cost what their distinct word sets cost.
/// Within similar sets, the entries' variants (tags, normalised content)
/// are compared for the tag overlap. A search visits at most
/// [`CANDIDATES`] sets sharing a word, which bounds the cost of any file;
/// below that bound the pairs are exactly those the definition gives.
pub fn similar_pairs(entries: &[&Entry], opts: &Similarity) -> Vec<Pair> {
    let threshold = opts.similarity.clamp(0.0, 1.0);
    // Each entry's words as numbers, ascending, and each number's word.
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut tags: Vec<Vec<&str>> = Vec::with_capacity(entries.len());
    let mut word_ids: Vec<Vec<u32>> = Vec::with_capacity(entries.len());
    for x in entries {
        let mut t: Vec<&str> = x.tags.iter().flatten().map(String::as_str).collect();
        t.sort_unstable();
        t.dedup();
        let mut w: Vec<u32> = Vec::new();
        if !t.is_empty() || opts.untagged {
            let title = x.title.as_deref().map(words).unwrap_or_default();
            for word in words(&x.content).into_iter().chain(title) {
                let next = names.len() as u32;
                let id = *ids.entry(word).or_insert_with_key(|k| {
                    names.push(k.clone());
                    next
                });
                w.push(id);
            }
            w.sort_unstable();
            w.dedup();
        }
        tags.push(t);
        word_ids.push(w);
    }
    drop(ids);
    // Each word's rank, rarest first (ties by the word, for a fixed order).
    let mut frequency = vec![0usize; names.len()];
    for w in word_ids.iter().flatten() {
        frequency[*w as usize] += 1;
    }
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    order.sort_unstable_by(|a, b| {
        frequency[*a as usize]
            .cmp(&frequency[*b as usize])
            .then_with(|| names[*a as usize].cmp(&names[*b as usize]))
    });
    let mut rank = vec![0u32; names.len()];
    for (r, w) in order.iter().enumerate() {
        rank[*w as usize] = r as u32;
    }
    drop(names);

    let mut sets: Vec<WordSet> = Vec::new();
    // Each word list's hash, with the last set of that hash (the sets chain
    // back through `same_hash`).
    let mut set_of: HashMap<u64, usize> = HashMap::new();
    let mut variants: Vec<Variant> = Vec::new();
    // Each key's hash, with the last variant of that hash; the variants
    // chain back through `same_hash`, so no key is held twice.
    let mut variant_of: HashMap<u64, usize> = HashMap::new();
    // Each word of a set's prefix, with the sets whose prefix has it, in
    // set order.
    let mut by_word: HashMap<u32, Vec<Posting>> = HashMap::new();
    // Two variants of similar sets: alike when their tags overlap (where
    // both have tags) and, without `exact`, their content differs.
    let alike = |a: &Variant, b: &Variant| -> Option<Option<f64>> {
        let (ta, tb) = (&tags[a.entry], &tags[b.entry]);
        let tagged = !ta.is_empty() && !tb.is_empty();
        let overlap = tagged.then(|| sorted_jaccard(ta, tb));
        if overlap.is_some_and(|o| o <= opts.tag_overlap) {
            return None;
        }
        if a.normalized.is_some() && a.normalized == b.normalized {
            return None; // ACE008
        }
        Some(overlap)
    };
    let mut pairs = Vec::new();
    for i in 0..entries.len() {
        if word_ids[i].is_empty() {
            continue;
        }
        let mut ranks: Vec<u32> = word_ids[i].iter().map(|w| rank[*w as usize]).collect();
        ranks.sort_unstable();
        let hash = hash_of(&ranks);
        let same = chained(
            &set_of,
            hash,
            |w| sets[w].same_hash,
            |w| sets[w].ranks == ranks,
        );
        let set = match same {
            Some(w) => w,
            None => {
                let w = sets.len();
                let b = bits(&ranks);
                for (p, r) in ranks[..prefix_len(ranks.len(), threshold)]
                    .iter()
                    .enumerate()
                {
                    by_word.entry(*r).or_default().push(Posting {
                        set: w,
                        at: p as u32,
                        len: ranks.len() as u32,
                        bits: b,
                    });
                }
                sets.push(WordSet {
                    ranks,
                    similar: Vec::new(),
                    variants: Vec::new(),
                    searched: 0,
                    same_hash: set_of.insert(hash, w),
                });
                w
            }
        };
        let normalized =
            (!opts.exact).then(|| ace_model::normalize::normalize(&entries[i].content));
        let hash = hash_of(&(set, &tags[i], &normalized));
        let same = chained(
            &variant_of,
            hash,
            |u| variants[u].same_hash,
            |u| {
                let x = &variants[u];
                x.set == set && tags[x.entry] == tags[i] && x.normalized == normalized
            },
        );
        let v = match same {
            Some(v) => v,
            None => {
                let v = variants.len();
                variants.push(Variant {
                    entry: i,
                    set,
                    normalized,
                    like: None,
                    checked: 0,
                    same_hash: variant_of.insert(hash, v),
                });
                sets[set].variants.push(v);
                v
            }
        };
        let new = variants[v].entry == i;
        // The earliest entry alike: a variant made before this one (found
        // when it was made), else (counting exact repeats) this variant's
        // first entry, else one made since, looked for as they come.
        let earlier = match variants[v].like {
            Some(u) if u < v => Some(u),
            _ if !new
                && opts.exact
                && similar(&sets, set, set, opts.similarity)
                && alike(&variants[v], &variants[v]).is_some() =>
            {
                Some(v)
            }
            Some(u) => Some(u),
            None => {
                let made = sets.len();
                if sets[set].searched < made {
                    let found = search(&sets, set, &by_word, threshold, opts.similarity);
                    let w = &mut sets[set];
                    w.similar.extend(found);
                    w.searched = made;
                }
                let from = variants[v].checked;
                let mut best: Option<usize> = None;
                for &s in &sets[set].similar {
                    let list = &sets[s].variants;
                    for &u in &list[list.partition_point(|&u| u < from)..] {
                        if best.is_some_and(|b| u > b) {
                            break;
                        }
                        if u != v && alike(&variants[v], &variants[u]).is_some() {
                            best = Some(u);
                            break;
                        }
                    }
                }
                let found = best;
                variants[v].like = found;
                variants[v].checked = variants.len();
                found
            }
        };
        if let Some(u) = earlier {
            let other = &variants[u];
            pairs.push(Pair {
                later: i,
                earlier: other.entry,
                similarity: sorted_jaccard(&sets[set].ranks, &sets[other.set].ranks),
                overlap: alike(&variants[v], other).expect("found alike"),
            });
        }
    }
    pairs
}

/// Entries with the same words, whichever their tags.
struct WordSet {
    /// The words as ranks, ascending.
    ranks: Vec<u32>,
    /// The sets similar to it (itself too), among those before `searched`.
    similar: Vec<usize>,
    /// Its variants, in the order they were made.
    variants: Vec<usize>,
    searched: usize,
    /// The set made before it whose words have the same hash.
    same_hash: Option<usize>,
}

fn hash_of(key: &impl Hash) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// The item of `hash` in `index` for which `is` holds: the last of that
/// hash, then each one before it (`before`).
fn chained(
    index: &HashMap<u64, usize>,
    hash: u64,
    before: impl Fn(usize) -> Option<usize>,
    is: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut at = index.get(&hash).copied();
    while let Some(i) = at {
        if is(i) {
            return Some(i);
        }
        at = before(i);
    }
    None
}

/// Entries alike or not to every other entry together: the same word set,
/// tags and (unless counted alike) normalised content.
struct Variant {
    /// Its first entry.
    entry: usize,
    set: usize,
    /// Its normalised content, when entries with the same are not alike.
    normalized: Option<String>,
    /// The earliest variant alike to it among those before `checked`.
    like: Option<usize>,
    checked: usize,
    /// The variant made before it whose key has the same hash.
    same_hash: Option<usize>,
}

/// A set whose prefix has a word: the set, the word's place in its list,
/// the list's length and its [`bits`], which the search's filters need;
/// the set itself is looked at only when they pass (at 100,000 entries,
/// loading each candidate set was most of ACE061's time).
struct Posting {
    set: usize,
    at: u32,
    len: u32,
    bits: u64,
}

/// The bit of each word's rank modulo 64. Two sets with `x` and `y` words
/// and these bits share at most `(x + y - popcount(bits ^ bits')) / 2`
/// words (the bitmap filter of Sandes et al. 2020): each bit set in one
/// and not the other stands for a word of only one set. Ranks are
/// consecutive, so a vocabulary of up to 64 words gives each its own bit.
fn bits(ranks: &[u32]) -> u64 {
    ranks.iter().fold(0, |b, r| b | 1 << (r % 64))
}

/// Candidates a search of [`similar_pairs`] visits at most.
pub const CANDIDATES: usize = 256;

/// How many of a word list's rarest words two lists that reach `threshold`
/// must share one of.
fn prefix_len(n: usize, threshold: f64) -> usize {
    (n + 1)
        .saturating_sub((threshold * n as f64).ceil() as usize)
        .clamp(1, n.max(1))
}

/// Whether sets `a` and `b` are more alike than `similarity`.
fn similar(sets: &[WordSet], a: usize, b: usize, similarity: f64) -> bool {
    sorted_jaccard(&sets[a].ranks, &sets[b].ranks) > similarity
}

/// The sets from set `w`'s last search on (itself among them) more alike
/// to it than `similarity`, among those sharing a prefix word with it, in
/// set order, visiting at most [`CANDIDATES`] sets.
fn search(
    sets: &[WordSet],
    w: usize,
    by_word: &HashMap<u32, Vec<Posting>>,
    threshold: f64,
    similarity: f64,
) -> Vec<usize> {
    let from = sets[w].searched;
    let ranks = &sets[w].ranks;
    let len = ranks.len();
    let own = bits(ranks);
    // The sets sharing a prefix word, earliest first: each word's list is
    // in set order, and the lists are merged.
    let mut lists: Vec<(usize, &[Posting])> = ranks[..prefix_len(len, threshold)]
        .iter()
        .enumerate()
        .filter_map(|(p, r)| {
            let l = by_word.get(r)?;
            let start = l.partition_point(|x| x.set < from);
            (start < l.len()).then(|| (p, &l[start..]))
        })
        .collect();
    let mut found = Vec::new();
    let mut checked = None;
    let mut counted = None;
    let mut visits = 0;
    while let Some((
        k,
        &Posting {
            set: j,
            at,
            len: m,
            bits: b,
        },
    )) = lists
        .iter()
        .enumerate()
        .filter_map(|(k, (_, l))| l.first().map(|x| (k, x)))
        .min_by_key(|(_, x)| x.set)
    {
        let (q, m) = (at as usize, m as usize);
        let p = lists[k].0;
        lists[k].1 = &lists[k].1[1..];
        if checked == Some(j) {
            continue;
        }
        // Distinct sets visited: each costs at most one step a list.
        if counted != Some(j) {
            counted = Some(j);
            visits += 1;
            if visits > CANDIDATES {
                break;
            }
        }
        // Filters exact for a similarity of `threshold` or more (PPJoin,
        // Xiao et al. 2008): sizes within the ratio, and enough words
        // left after the first shared one to reach the overlap that
        // similarity needs.
        if (m as f64) < threshold * len as f64 || (len as f64) < threshold * m as f64 {
            continue;
        }
        let needed = (threshold / (1.0 + threshold) * (len + m) as f64 - 1e-9).ceil() as usize;
        if 1 + (len - p - 1).min(m - q - 1) < needed {
            continue;
        }
        checked = Some(j);
        // The most words the two can share, by their bits, and the
        // similarity that would give, computed as `sorted_jaccard` does.
        let most = ((len + m - (own ^ b).count_ones() as usize) / 2).min(len.min(m));
        if most as f64 / (len + m - most) as f64 <= similarity {
            continue;
        }
        if similar(sets, w, j, similarity) {
            found.push(j);
        }
    }
    found
}

pub(crate) fn likely_duplicates(pb: &Playbook, opts: &Options, out: &mut Vec<Diagnostic>) {
    let entries: Vec<&Entry> = pb.entries.iter().collect();
    let how = Similarity {
        similarity: opts.similarity,
        tag_overlap: opts.tag_overlap,
        untagged: false,
        exact: false,
    };
    for p in similar_pairs(&entries, &how) {
        let (e, other) = (entries[p.later], entries[p.earlier]);
        out.push(
            Diagnostic::new(
                &rules::LIKELY_DUPLICATE,
                span(e),
                format!(
                    "`{}` is likely a duplicate of `{}`: {:.0}% similar words, {:.0}% shared tags",
                    e.id,
                    other.id,
                    p.similarity * 100.0,
                    p.overlap.unwrap_or(0.0) * 100.0
                ),
            )
            .with_related(span(other), "the earlier entry")
            .with_help("merge the two, keeping the older id and adding up the counters (`ace-apply PLAYBOOK --dedup`)"),
        );
    }
}

/// The Jaccard index of two ascending lists without repeats.
fn sorted_jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        return 0.0;
    }
    common as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn jaccard<T: Eq + std::hash::Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
        let union = a.union(b).count();
        if union == 0 {
            return 0.0;
        }
        a.intersection(b).count() as f64 / union as f64
    }

    use proptest::prelude::*;

    /// ACE061 by its definition: every earlier entry in turn, the first
    /// that shares enough tags and words without being the same content.
    fn by_definition(pb: &Playbook, opts: &Options) -> Vec<(String, String)> {
        fn tags(e: &Entry) -> HashSet<&str> {
            e.tags.iter().flatten().map(String::as_str).collect()
        }
        let word_set = |e: &Entry| -> HashSet<String> {
            let mut w = words(&e.content);
            w.extend(e.title.as_deref().map(words).unwrap_or_default());
            w.into_iter().collect()
        };
        let mut found = Vec::new();
        for (i, e) in pb.entries.iter().enumerate() {
            for other in &pb.entries[..i] {
                let (a, b) = (tags(e), tags(other));
                if a.is_empty() || b.is_empty() || jaccard(&a, &b) <= opts.tag_overlap {
                    continue;
                }
                if ace_model::normalize::normalize(&e.content)
                    == ace_model::normalize::normalize(&other.content)
                {
                    continue;
                }
                if jaccard(&word_set(e), &word_set(other)) > opts.similarity {
                    found.push((e.id.clone(), other.id.clone()));
                    break;
                }
            }
        }
        found
    }

    proptest! {
        /// The prefix-filtered search reports exactly the pairs the
        /// definition gives: over a small vocabulary where most entries
        /// share words and tags, and over one of more than 64 words, where
        /// words share the bits of the search's filter.
        #[test]
        fn likely_duplicates_are_those_the_definition_gives(
            entries in prop::collection::vec(
                (
                    prop::collection::vec(0usize..150, 0..60),
                    prop::collection::vec(0usize..3, 0..3),
                ),
                0..24,
            ),
            vocabulary in prop_oneof![Just(6usize), Just(150)],
            similarity in prop_oneof![Just(0.0), Just(0.3), Just(0.5), Just(0.8), Just(1.0)],
        ) {
            const WORDS: [&str; 6] = ["check", "input", "loop", "Retry", "cache", "the"];
            const TAGS: [&str; 3] = ["api", "db", "ci"];
            let word = |k: usize| match k % vocabulary {
                k if k < WORDS.len() => WORDS[k].to_owned(),
                k => format!("w{k}"),
            };
            let pb = Playbook {
                entries: entries
                    .iter()
                    .enumerate()
                    .map(|(i, (w, t))| {
                        let mut e = Entry {
                            id: format!("e-{i}"),
                            content: w.iter().map(|k| word(*k)).collect::<Vec<_>>().join(" "),
                            ..Entry::default()
                        };
                        e.tags = Some(t.iter().map(|k| TAGS[*k].to_owned()).collect());
                        e
                    })
                    .collect(),
                ..Playbook::default()
            };
            let opts = Options {
                similarity,
                ..Options::default()
            };
            let mut out = Vec::new();
            likely_duplicates(&pb, &opts, &mut out);
            let got: Vec<(String, String)> = out
                .iter()
                .map(|d| {
                    let ids: Vec<&str> = d.message.split('`').collect();
                    (ids[1].to_owned(), ids[3].to_owned())
                })
                .collect();
            prop_assert_eq!(got, by_definition(&pb, &opts));
        }
    }

    #[test]
    fn generic_max_words_bounds_every_generic_phrase() {
        let longest = GENERIC.iter().map(|p| word_iter(p).count()).max();
        assert_eq!(longest, Some(GENERIC_MAX_WORDS));
    }
}
