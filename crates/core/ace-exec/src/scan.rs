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

#[cfg(test)]
mod tests {
    use super::*;

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
