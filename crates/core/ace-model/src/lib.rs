//! The canonical ACE playbook model.
//!
//! Every format converts into and out of [`Playbook`]; no format crate knows
//! another. The model is a superset of the fields of every ACE variant, keeps
//! "absent" distinct from "zero" or "empty", and carries an order-preserving
//! `extra` map at every level so that fields a format does not understand still
//! survive a round trip through that same format.

pub mod controls;
pub mod delta;
pub mod diag;
pub mod edit;
mod error;
mod extra;
pub mod ids;
pub mod keys;
pub mod loss;
pub mod mapping;
pub mod mint;
mod model;
pub mod normalize;
pub mod rules;
mod severity;
pub mod time;

pub use diag::{Diagnostic, LineCol, LineIndex, Related, Severity, Span};
pub use error::Error;
pub use extra::Extra;
pub use loss::{LossEntry, Losses, WriteReport};
pub use model::*;
/// The key type of [`Extra`].
pub use smol_str::SmolStr;
