//! Property tests over generated playbooks, for every format F:
//!
//! - what F reports as not lost comes back from `read_F(write_F(m))`, and
//!   every field that does not come back is named in the loss report: the
//!   report is exactly the difference;
//! - for every pair X, Y: X -> Y -> X keeps every field of X's reading that
//!   Y reported no loss for.
//!
//! The generator covers unicode and multi-line content, empty sections,
//! absent against zero counters, IDs of every shape in the wild, and sizes
//! from nothing to a few hundred entries.

use ace_registry::Registry;
use ace_tests::props::{self, playbook};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn the_loss_report_is_exactly_the_difference(pb in playbook()) {
        props::the_loss_report_is_exactly_the_difference(Registry::builtin(), &pb)?;
    }

    #[test]
    fn a_trip_through_another_format_keeps_what_both_hold(pb in playbook()) {
        props::a_trip_through_another_format_keeps_what_both_hold(Registry::builtin(), &pb)?;
    }
}

#[test]
fn extreme_sizes_round_trip() {
    props::extreme_sizes_round_trip(Registry::builtin());
}
