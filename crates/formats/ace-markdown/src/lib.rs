//! The markdown playbook of the playbook format spec and of the ACE paper's code:
//!
//! ```text
//! ## STRATEGIES & INSIGHTS
//! [str-00001] helpful=5 harmful=0 :: Always verify data types before processing
//! ```
//!
//! The reader accepts every shape seen in real files and reports each
//! deviation as a diagnostic; the writer produces the canonical layout and
//! reports whatever the format cannot hold.

mod format;
mod line;
pub mod ops;
mod reader;
mod splice;
mod writer;

pub use ace_model::ReadOutput;
pub use format::{CuratorOps, Markdown, CURATOR_OPS, FORMAT};
pub use reader::read;
pub use splice::rewrite;
pub use writer::{write, write_into, write_mapped, WriteOutput};
