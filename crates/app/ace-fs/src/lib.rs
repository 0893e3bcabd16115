//! File I/O, which knows no format: input read safely (UTF-8 without NUL
//! bytes, a large regular file mapped rather than copied) and output
//! written atomically (a temporary file renamed into place, symbolic links
//! written through), and standard output that tolerates a closed pipe.

mod atomic;
mod load;
mod lock;
mod target;

pub use atomic::{reader_left_is_ok, write_atomic, write_atomic_pieces, write_stdout, AtomicFile};
pub use load::{load, load_stdin, LoadError, Source, Text};
pub use lock::{append_locked, Held, LockError, Stamp};
pub use target::{absolute, destination};
