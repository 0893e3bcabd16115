//! Byte tests over whole strings, written so the compiler vectorises them.

/// Whether every byte of `bytes` passes `ok`. The test runs over chunks
/// of 32 bytes without an early exit inside a chunk, which the compiler
/// turns into vector instructions; a byte at a time with an early exit it
/// does not. The writers and lexers test every string of a file this way
/// (for bytes that need an escape), nearly all of them passing.
#[inline]
pub fn all_bytes(bytes: &[u8], ok: impl Fn(u8) -> bool) -> bool {
    bytes
        .chunks(32)
        .all(|c| c.iter().fold(true, |all, &b| all & ok(b)))
}

/// One past the bracket that closes the JSON array or object opening at
/// `open` (a `{` or `[`), or `None` if the text ends first. Brackets inside
/// strings do not count, and a quote after a backslash does not end one.
/// On JSON this is where its parse closes the value; on other text it is
/// only a guess the parse must check.
///
/// The text is read 64 bytes at a time as bit masks (its quotes, escapes,
/// opening and closing brackets), the strings found by a prefix XOR of
/// the unescaped quotes, as simdjson finds them; only a block where the
/// depth could come back to zero is looked at bracket by bracket. Skipping
/// a skill of a large skillbook so is several times faster than following
/// it a byte at a time, which was a tenth of its read.
pub fn json_close(b: &[u8], open: usize) -> Option<usize> {
    let mut depth: i64 = 0;
    let mut in_string = 0u64;
    let mut escaped_carry = 0u64;
    let mut at = open;
    while at < b.len() {
        let n = (b.len() - at).min(64);
        let m = if n == 64 {
            masks(b[at..at + 64].try_into().ok()?)
        } else {
            let mut block = [b' '; 64];
            block[..n].copy_from_slice(&b[at..]);
            masks(&block)
        };
        // Most blocks have no backslash, nor one carried in.
        let escaped = if m.backslash | escaped_carry == 0 {
            0
        } else {
            escaped(m.backslash, &mut escaped_carry)
        };
        let strings = prefix_xor(m.quote & !escaped) ^ in_string;
        in_string = ((strings as i64) >> 63) as u64;
        let opens = m.open & !strings;
        let closes = m.close & !strings;
        let shut = i64::from(closes.count_ones());
        if depth - shut <= 0 {
            let mut bits = opens | closes;
            while bits != 0 {
                let i = bits.trailing_zeros();
                if opens >> i & 1 == 1 {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth <= 0 {
                        return Some(at + i as usize + 1);
                    }
                }
                bits &= bits - 1;
            }
        } else {
            depth += i64::from(opens.count_ones()) - shut;
        }
        at += 64;
    }
    None
}

/// The bytes of a block that matter to [`json_close`], a bit each.
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
}

#[cfg(target_arch = "x86_64")]
fn masks(block: &[u8; 64]) -> Masks {
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, just checked (the answer is
        // cached after the first time).
        unsafe { masks_avx2(block) }
    } else {
        masks_sse2(block)
    }
}

/// [`masks`] 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn masks_avx2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let quote = _mm256_set1_epi8(b'"' as i8);
    let backslash = _mm256_set1_epi8(b'\\' as i8);
    let case = _mm256_set1_epi8(0x20);
    let open = _mm256_set1_epi8(b'{' as i8);
    let close = _mm256_set1_epi8(b'}' as i8);
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        open: 0,
        close: 0,
    };
    for k in 0..2 {
        // SAFETY: each load reads 32 of the block's 64 bytes.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>()) };
        let folded = _mm256_or_si256(v, case);
        let bits = |x| u64::from(_mm256_movemask_epi8(x) as u32) << (32 * k);
        m.quote |= bits(_mm256_cmpeq_epi8(v, quote));
        m.backslash |= bits(_mm256_cmpeq_epi8(v, backslash));
        m.open |= bits(_mm256_cmpeq_epi8(folded, open));
        m.close |= bits(_mm256_cmpeq_epi8(folded, close));
    }
    m
}

/// [`masks`] 16 bytes at a time, with what every x86_64 processor has.
#[cfg(target_arch = "x86_64")]
fn masks_sse2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86_64 target, and each load reads 16
    // of the block's 64 bytes.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        // `{` and `[` differ only in 0x20, as `}` and `]` do.
        let case = _mm_set1_epi8(0x20);
        let open = _mm_set1_epi8(b'{' as i8);
        let close = _mm_set1_epi8(b'}' as i8);
        let mut m = Masks {
            quote: 0,
            backslash: 0,
            open: 0,
            close: 0,
        };
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            let folded = _mm_or_si128(v, case);
            let bits = |x| u64::from(_mm_movemask_epi8(x) as u16) << (16 * k);
            m.quote |= bits(_mm_cmpeq_epi8(v, quote));
            m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
            m.open |= bits(_mm_cmpeq_epi8(folded, open));
            m.close |= bits(_mm_cmpeq_epi8(folded, close));
        }
        m
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; 64]) -> Masks {
    scalar_masks(block)
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn scalar_masks(block: &[u8; 64]) -> Masks {
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        open: 0,
        close: 0,
    };
    for (i, &c) in block.iter().enumerate() {
        m.quote |= u64::from(c == b'"') << i;
        m.backslash |= u64::from(c == b'\\') << i;
        m.open |= u64::from(c == b'{' || c == b'[') << i;
        m.close |= u64::from(c == b'}' || c == b']') << i;
    }
    m
}

/// The bytes a backslash escapes, given the backslashes of a block;
/// `carry`: whether the block before ended in an unfinished escape (and
/// then whether this one does). simdjson's branchless method: in a run of
/// backslashes every other one escapes the next byte.
fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN & !follows;
    let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    let invert = even_runs << 1;
    (EVEN ^ invert) & follows
}

/// Each bit the XOR of itself and every bit below: set inside strings
/// (from the opening quote up to, not including, the closing one).
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Where the first byte of `b` that a JSON string cannot hold as it is
/// stands: `"`, `\\` or a control character below U+0020. The JSON
/// printer escapes it, the parser ends the string or decodes the escape
/// there, or refuses the control character.
#[inline]
pub fn json_escape(b: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut at = 0;
        while let Some(block) = b.get(at..at + 16) {
            let dirty = sse2::escapes(block.try_into().expect("16 bytes"));
            if dirty != 0 {
                return Some(at + dirty.trailing_zeros() as usize);
            }
            at += 16;
        }
        let rest = b.len() - at;
        if rest == 0 {
            return None;
        }
        // The last bytes: in one more test of the 16 that end the text
        // when there are that many (those already tested masked off);
        // else in two overlapping words, or one at a time below eight (a
        // padded copy of them stalled on the load after the copy).
        if b.len() >= 16 {
            let end: &[u8; 16] = b[b.len() - 16..].try_into().expect("16 bytes");
            let dirty = sse2::escapes(end) >> (16 - rest);
            return (dirty != 0).then(|| at + dirty.trailing_zeros() as usize);
        }
        if rest >= 8 {
            let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"));
            if !needs_escape(word(at)) && !needs_escape(word(b.len() - 8)) {
                return None;
            }
        }
        b[at..]
            .iter()
            .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
            .map(|i| at + i)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut at = 0;
        while let Some(word) = b.get(at..at + 8) {
            if needs_escape(u64::from_le_bytes(word.try_into().expect("eight bytes"))) {
                break;
            }
            at += 8;
        }
        b[at..]
            .iter()
            .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
            .map(|i| at + i)
    }
}

/// How a JSON string writes byte `c`, one [`json_escape`] stops at (`"`,
/// `\\`, a control character), as serde_json writes it: a short escape
/// where there is one, else `\u00XX` in lower case; `buf` holds the long
/// form.
pub fn json_escaped(c: u8, buf: &mut [u8; 6]) -> &str {
    match c {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'\n' => "\\n",
        b'\t' => "\\t",
        b'\r' => "\\r",
        0x08 => "\\b",
        0x0c => "\\f",
        c => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            *buf = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 0xf)],
            ];
            std::str::from_utf8(buf).expect("ASCII")
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// A bit for each byte of `block` that JSON escapes.
    #[inline]
    pub(super) fn escapes(block: &[u8; 16]) -> u32 {
        // SAFETY: SSE2 is part of x86_64; the load reads the 16 bytes of
        // `block`, unaligned.
        unsafe {
            let x = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            // Unsigned x <= 0x1f.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        }
    }
}

/// Whether any byte of `w` is `"`, `\` or below 0x20. Exact: a byte's
/// test borrows from no other (each is done on seven bits, the eighth
/// checked apart).
fn needs_escape(w: u64) -> bool {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const fn each(b: u8) -> u64 {
        0x0101_0101_0101_0101 * b as u64
    }
    let low = w & LOW7;
    // Bit 7 of each byte set where the low seven bits are >= 0x20, or
    // differ from the quote, or from the backslash.
    let at_least_space = low + each(0x80 - 0x20);
    let not_quote = (low ^ each(b'"')) + LOW7;
    let not_backslash = (low ^ each(b'\\')) + LOW7;
    // A byte with bit 7 set is none of the three.
    let fine = (at_least_space & not_quote & not_backslash) | w;
    fine & HIGH != HIGH
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`json_escape`] against a byte-at-a-time search, at every length
    /// up to 70 and every place of one byte of each kind.
    fn json_escape_finds_the_first_byte_a_string_cannot_hold() {
        let naive = |b: &[u8]| b.iter().position(|&c| c < 0x20 || c == b'"' || c == b'\\');
        for len in 0..70 {
            for at in 0..len.max(1) {
                for c in [0u8, 0x1f, b'"', b'\\', 0x20, 0x7f, 0x80, 0xff, b'a'] {
                    let mut b = vec![b'x'; len];
                    if at < len {
                        b[at] = c;
                    }
                    assert_eq!(json_escape(&b), naive(&b), "{c} at {at} of {len}");
                }
            }
        }
    }

    /// The word test of targets without SSE2, against each byte's.
    #[test]
    fn the_word_test_finds_exactly_the_bytes_json_escapes() {
        json_escape_finds_the_first_byte_a_string_cannot_hold();
        for at in 0..8 {
            for c in 0..=255u8 {
                let mut w = [b'a'; 8];
                w[at] = c;
                let want = c < 0x20 || c == b'"' || c == b'\\';
                assert_eq!(needs_escape(u64::from_le_bytes(w)), want, "{c} at {at}");
            }
        }
    }

    /// What [`json_close`] answers, a byte at a time.
    fn naive_close(b: &[u8], open: usize) -> Option<usize> {
        let mut depth = 0i64;
        let mut string = false;
        let mut escape = false;
        for (i, &c) in b.iter().enumerate().skip(open) {
            if std::mem::take(&mut escape) {
                // An escaped quote is text; an escaped bracket still counts
                // (only invalid JSON has a backslash outside a string).
                if matches!(c, b'"' | b'\\') {
                    continue;
                }
            }
            match c {
                b'\\' => escape = true,
                b'"' => string = !string,
                b'{' | b'[' if !string => depth += 1,
                b'}' | b']' if !string => {
                    depth -= 1;
                    if depth <= 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    #[test]
    fn the_masks_are_the_bytes() {
        let block: [u8; 64] = std::array::from_fn(|i| b"\"\\{[}]a "[i % 8] ^ (i as u8 & 0x40));
        let want = scalar_masks(&block);
        let want = (want.quote, want.backslash, want.open, want.close);
        let mut got = vec![masks(&block)];
        #[cfg(target_arch = "x86_64")]
        got.push(masks_sse2(&block));
        for m in got {
            assert_eq!((m.quote, m.backslash, m.open, m.close), want);
        }
    }

    #[test]
    fn brackets_in_strings_and_escapes_across_blocks() {
        for pad in 0..130 {
            let text = format!(
                "{{\"k\": [{}\"a\\\\\", \"]}}\\\" {{\", {{\"x\": \"\\\\\\\"]\"}}], \"z\": 1}} tail",
                " ".repeat(pad)
            );
            let b = text.as_bytes();
            assert_eq!(json_close(b, 0), naive_close(b, 0), "{pad}");
            assert_eq!(json_close(b, 0), Some(text.len() - 5), "{pad}");
            let cut = &b[..text.len() - 7];
            assert_eq!(json_close(cut, 0), None, "{pad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn json_close_agrees_with_a_byte_at_a_time(
            body in proptest::collection::vec(
                proptest::sample::select(b"\"\\{}[]a  \n".to_vec()), 0..300),
            open in proptest::sample::select(b"{[".to_vec()),
            lead in 0usize..70,
        ) {
            let mut b = vec![b' '; lead];
            b.push(open);
            b.extend(&body);
            proptest::prop_assert_eq!(json_close(&b, lead), naive_close(&b, lead));
        }
    }

    #[test]
    fn a_failing_byte_is_found_anywhere() {
        for len in [0, 1, 31, 32, 33, 64, 65, 100] {
            let plain = vec![b'a'; len];
            assert!(all_bytes(&plain, |b| b != b'"'), "{len}");
            for at in 0..len {
                let mut bad = plain.clone();
                bad[at] = b'"';
                assert!(!all_bytes(&bad, |b| b != b'"'), "{len} {at}");
            }
        }
    }
}
