//! TRON ("Token Reduced Object Notation") as real vAgenda files write it.
//!
//! The grammar is `grammars/tron.ebnf`: the union of what the TRON spec, the
//! official JavaScript parser and vAgenda's Go fork accept, so that every
//! vAgenda document reads (an implicit root of `key: value` lines *and*
//! multi-line class headers). The result is the same span tree JSON gives
//! ([`ace_jsonspan::Node`]): an instance becomes an object whose keys are
//! its class's properties, numbers keep their lexeme, and every value keeps
//! its byte range for diagnostics and schema-error locations.
//!
//! The parser is hand-written rather than generated with pest: rule C1 (where
//! a newline-separated property list ends) needs two tokens of look-ahead
//! across a line feed, and the errors must say what was expected in words a
//! user understands. The EBNF is normative and the tests check the parser
//! against it production by production.

mod lexer;
mod parser;
mod writer;

pub use parser::{parse, parse_with, Options};
pub use writer::{is_name, write, write_into, Item, Items, Obj, RootStyle, WriteOptions};
