//! The curator spec's content normalisation and deduplication hash.

/// `content.trim().toLowerCase().replace(/\s+/g, ' ')`, as the curator does it.
pub fn normalize(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    for word in content.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        if word.is_ascii() {
            // Most content is ASCII; lowering it in place avoids the
            // per-char Unicode tables.
            let start = out.len();
            out.push_str(word);
            out[start..].make_ascii_lowercase();
        } else {
            for c in word.chars() {
                out.extend(c.to_lowercase());
            }
        }
    }
    out
}

/// `${section}::${normalize(content)}`: the curator spec calls this the hash; it is
/// the key under which two bullets count as duplicates.
pub fn dedup_key(section: &str, content: &str) -> String {
    key_of_normalized(section, &normalize(content))
}

/// [`dedup_key`] for content already normalised.
pub fn key_of_normalized(section: &str, normalized: &str) -> String {
    format!("{section}::{normalized}")
}

/// A stable section key for a display title, as the paper's code derives it:
/// lower case, `&` read as `and`, every other run of non-alphanumerics one `_`.
pub fn section_key(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    let mut pending_sep = false;
    for c in title.trim().chars() {
        if c == '&' {
            if !out.is_empty() {
                out.push('_');
            }
            out.push_str("and");
            pending_sep = true;
        } else if c.is_alphanumeric() {
            if pending_sep && !out.is_empty() {
                out.push('_');
            }
            pending_sep = false;
            out.extend(c.to_lowercase());
        } else {
            pending_sep = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_trims_lowercases_and_collapses() {
        assert_eq!(normalize("  Use  RG\tfor\n search "), "use rg for search");
        assert_eq!(normalize(""), "");
        assert_eq!(normalize("Straße ÉTÉ  Σ x"), "straße été σ x");
        assert_eq!(dedup_key("build", " A  b"), "build::a b");
    }

    #[test]
    fn section_keys() {
        assert_eq!(
            section_key("STRATEGIES & INSIGHTS"),
            "strategies_and_insights"
        );
        assert_eq!(
            section_key("TROUBLESHOOTING AND PITFALLS:"),
            "troubleshooting_and_pitfalls"
        );
        assert_eq!(
            section_key("APIs TO USE FOR SPECIFIC INFORMATION"),
            "apis_to_use_for_specific_information"
        );
        assert_eq!(
            section_key("Build & Test Patterns"),
            "build_and_test_patterns"
        );
        assert_eq!(section_key("안전 규칙"), "안전_규칙");
        assert_eq!(section_key("&"), "and");
        assert_eq!(section_key(":::"), "");
    }
}
