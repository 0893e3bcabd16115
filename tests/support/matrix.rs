//! The conversion matrix check of `tests/matrix.rs`, over the formats of a
//! registry: a playbook converted to each format must read back, and when
//! the conversion reports that nothing was lost, reading it back must give
//! every field of the original (a value the target derived, such as a
//! vAgenda kind or a skill title, may be added: nothing was lost).

use ace_model::Playbook;
use ace_registry::Registry;

use crate::props::{convert, lost_fields};

/// Converts `pb`, read from `name`, to every format of `registry` (with
/// its companion, if it has one) and reads each output back. Returns how
/// many conversions reported no loss; each of those gave every field back.
pub fn converts_to_every_format(registry: &Registry, name: &str, pb: &Playbook) -> usize {
    let mut lossless = 0;
    for &to in registry.formats() {
        let c = convert(pb, to);
        if c.losses.iter().all(|l| !l.loses()) {
            lossless += 1;
            let lost = lost_fields(pb, &c.back, &c.ids);
            assert!(
                lost.is_empty(),
                "{name} -> {to} reports nothing lost, but reading it back loses {lost:?}"
            );
        }
    }
    lossless
}
