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

#[cfg(test)]
mod tests {
    use super::*;

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
