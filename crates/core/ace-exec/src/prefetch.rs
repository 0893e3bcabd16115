//! Hints that bring memory into the cache before it is read.
//!
//! A writer that visits entries out of the order they sit in memory (the
//! AGENTS.md seed order, sorted by counters) misses the cache on each
//! entry, on its rare fields and on its strings: a million such visits
//! stall for longer than printing takes. Asking for the entries a few
//! places ahead overlaps those misses with the work on the current one.

use ace_model::Entry;

/// Asks for the cache line holding `p`. Only a hint: it reads nothing the
/// program sees, and a dangling or null address is allowed (the processor
/// drops the request instead of faulting).
#[inline(always)]
pub fn line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 loads nothing into a register and raises no fault
    // whatever the address; SSE is part of every x86_64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks for an entry's own fields (the first and last line of it).
#[inline(always)]
pub fn entry(e: *const Entry) {
    line(e);
    line(
        e.cast::<u8>()
            .wrapping_add(std::mem::size_of::<Entry>() - 1),
    );
}

/// Asks for what an entry points to: its ID, content and rare fields. The
/// entry itself should be in the cache already ([`entry`] a few places
/// before), since its pointers are read here.
#[inline(always)]
pub fn entry_parts(e: &Entry) {
    line(e.id.as_ptr());
    line(e.content.as_ptr());
    if let Some(rare) = e.rare.as_deref() {
        line(rare);
    }
}

/// Walks `items` in order, calling `f` on each, with the entry `far`
/// places ahead and the parts of the one `near` places ahead asked for.
#[inline]
pub fn each_ahead<'e>(items: &[&'e Entry], mut f: impl FnMut(&'e Entry)) {
    const FAR: usize = 12;
    const NEAR: usize = 6;
    for (i, e) in items.iter().enumerate() {
        if let Some(ahead) = items.get(i + FAR) {
            entry(*ahead);
        }
        if let Some(ahead) = items.get(i + NEAR) {
            entry_parts(ahead);
        }
        f(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_visited_once_in_order_whatever_the_length() {
        for n in [0, 1, 5, 6, 7, 12, 13, 40] {
            let entries: Vec<Entry> = (0..n)
                .map(|i| {
                    let mut e = Entry::new(format!("e{i}"), "text");
                    if i % 2 == 0 {
                        e.title = Some("rare".into());
                    }
                    e
                })
                .collect();
            let refs: Vec<&Entry> = entries.iter().collect();
            let mut seen = Vec::new();
            each_ahead(&refs, |e| seen.push(e.id.clone()));
            let expected: Vec<String> = (0..n).map(|i| format!("e{i}")).collect();
            assert_eq!(seen, expected, "{n}");
        }
    }

    #[test]
    fn any_address_may_be_asked_for() {
        line(std::ptr::null::<u8>());
        line(usize::MAX as *const u64);
        entry(std::ptr::null());
    }
}
