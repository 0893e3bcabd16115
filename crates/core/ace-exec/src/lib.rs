//! How ace-tools' readers and writers use the machine: the ordered work
//! queue and run helpers that spread a playbook over every core (`par`),
//! the output sink that hands text on in blocks (`out`), the bracketed
//! block of JSON and TRON printers (`block`), cache prefetch
//! hints (`prefetch`) and vectorised byte tests (`scan`). None of it is
//! about playbooks, so it is kept apart from the model.

pub mod block;
pub mod out;
pub mod par;
pub mod prefetch;
pub mod scan;

pub use out::Out;
