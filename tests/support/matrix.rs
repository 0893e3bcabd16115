//! The conversion matrix check of `tests/matrix.rs`, over the formats of a
//! registry: a playbook converted to each format must read back, and when
//! the conversion reports that nothing was lost, reading it back must give
//! the same model (the target's own layout bookkeeping aside, on both
//! sides: a file's own layout is checked byte for byte by each format's
//! tests).

use ace_io::{Format, Registry};
use ace_model::Playbook;

use crate::props::convert;

/// The `extra` key a format keeps its own layout under, if any.
fn layout_key(format: Format) -> Option<&'static str> {
    if format == Format::AGENTS_MD {
        Some(ace_agents::LAYOUT_KEY)
    } else if format == Format::SKILL_JSON {
        Some(ace_skill::LAYOUT_KEY)
    } else if format == Format::VAGENDA_JSON || format == Format::VAGENDA_TRON {
        Some(ace_vagenda::LAYOUT_KEY)
    } else {
        None
    }
}

fn canonical(pb: &Playbook, drop: Option<&str>) -> String {
    let mut pb = pb.clone();
    if let Some(k) = drop {
        pb.extra.shift_remove(k);
    }
    ace_json::write(&pb)
}

/// Converts `pb`, read from `name`, to every format of `registry` (with
/// its companion, if it has one) and reads each output back. Returns how
/// many conversions reported no loss; each of those read back equal.
pub fn converts_to_every_format(registry: &Registry, name: &str, pb: &Playbook) -> usize {
    let mut lossless = 0;
    for &to in registry.formats() {
        let c = convert(pb, to);
        if c.losses.is_empty() {
            lossless += 1;
            assert_eq!(
                canonical(&c.back, layout_key(to)),
                canonical(pb, layout_key(to)),
                "{name} -> {to} reports nothing lost, but reading it back differs"
            );
        }
    }
    lossless
}
