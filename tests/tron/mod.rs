//! The TRON parser and writer (`ace-tron`) on their own: the grammar's
//! examples, the conformance suite, the writer's styles.

mod conformance;
mod grammar;
mod writer;
