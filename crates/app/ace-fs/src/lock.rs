//! Files held for one read–change–write cycle, so that concurrent
//! writers of one playbook take turns instead of overwriting each other.
//!
//! The lock is on the file itself (symbolic links followed): `flock`
//! through the standard library on Unix, and on Windows `LockFileEx` on
//! one byte past the content (`try_lock` says why). It is not a lock file
//! beside it: nothing is left behind by a killed process, and the system
//! releases the lock with the descriptor.
//! Because a write renames a new file over the old one, a process that
//! waited on the old file holds a lock on a file no longer named; after
//! taking the lock it checks that the path still names the file it locked,
//! and starts again if not.
//!
//! Writers that take no lock (an editor, another tool) are caught by a
//! [`Stamp`]: the file's identity, size and times when it was locked,
//! compared again just before the rename ([`crate::AtomicFile::commit`]).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::target::destination;

/// What tells one version of a file from another without reading it: a
/// rename gives a new inode, an in-place write a new size or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    ctime: (i64, i64),
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stamp {
                dev: meta.dev(),
                ino: meta.ino(),
                len: meta.len(),
                modified: meta.modified().ok(),
                ctime: (meta.ctime(), meta.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            Stamp {
                dev: 0,
                ino: 0,
                len: meta.len(),
                modified: meta.modified().ok(),
            }
        }
    }

    #[cfg(unix)]
    fn same_file(&self, other: &Stamp) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }

    /// Without inode numbers in the standard library, a file replaced
    /// by a rename is told by its size and time.
    #[cfg(not(unix))]
    fn same_file(&self, other: &Stamp) -> bool {
        (self.len, self.modified) == (other.len, other.modified)
    }
}

/// Why a file could not be held.
#[derive(Debug)]
pub enum LockError {
    /// Another process held it for longer than the wait allowed.
    TimedOut {
        path: PathBuf,
        waited: Duration,
    },
    Io(PathBuf, io::Error),
    /// Not to be written at all, for the reason the error gives.
    Refused(PathBuf, io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::TimedOut { path, waited } => write!(
                f,
                "{}: another process has held the file for {} s; nothing written \
                 (raise --lock-timeout to wait longer)",
                path.display(),
                waited.as_secs()
            ),
            // Not a file to lock at all: said as what it is.
            LockError::Refused(path, e) => write!(f, "{}: {e}", path.display()),
            LockError::Io(path, e) if e.kind() == io::ErrorKind::InvalidInput => {
                write!(f, "{}: {e}", path.display())
            }
            LockError::Io(path, e) => write!(f, "{}: cannot lock: {e}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

impl From<LockError> for ace_model::Error {
    fn from(e: LockError) -> Self {
        let (LockError::TimedOut { path, .. }
        | LockError::Io(path, _)
        | LockError::Refused(path, _)) = &e;
        let path = path.display().to_string();
        let text = e.to_string();
        ace_model::Error::Io {
            message: text[path.len() + 2..].to_owned(),
            path,
        }
    }
}

/// Appends `bytes` to the file `path` names (made if there is none)
/// under its lock, waiting at most `wait`: lines that processes append
/// at once to one log stay whole and apart. A log whose last line was cut
/// off (a writer killed mid-line, a full disk) gets a line end first, so
/// the new line is not glued to the broken one. Anything but a regular
/// file is refused, so a FIFO never blocks the append, and so is a link
/// out of the git repository the log is in, unless `force`.
pub fn append_locked(
    path: &Path,
    bytes: &[u8],
    wait: Duration,
    force: bool,
) -> Result<(), LockError> {
    use std::io::{Read as _, Seek as _, Write as _};
    let err = |e: io::Error| LockError::Io(path.to_owned(), e);
    let at = destination(path).map_err(err)?;
    crate::target::regular_or_missing(&at).map_err(err)?;
    match crate::target::outside_its_repository(path, &at).map_err(err)? {
        Some(real) if !force => {
            return Err(LockError::Refused(
                path.to_owned(),
                crate::target::refused_outside(&real),
            ))
        }
        _ => {}
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        // A FIFO put in its place after the check above opens without
        // waiting for a reader, and is refused below.
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = opts.open(&at).map_err(err)?;
    crate::target::regular_or_missing(&at).map_err(err)?;
    let held = Held::lock(&[&at], wait)?;
    if !file.metadata().map_err(err)?.is_file() {
        return Err(err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file; nothing written",
        )));
    }
    let len = file.metadata().map_err(err)?.len();
    if len > 0 && bytes.first() != Some(&b'\n') {
        let mut last = [0u8];
        file.seek(io::SeekFrom::Start(len - 1)).map_err(err)?;
        file.read_exact(&mut last).map_err(err)?;
        if last[0] != b'\n' {
            file.write_all(b"\n").map_err(err)?;
        }
    }
    file.write_all(bytes).map_err(err)?;
    drop(held);
    Ok(())
}

/// Files locked for one update, in the order given; released when
/// dropped (or when the process ends, however it ends). It also carries
/// what the update may replace: with [`Held::forcing`], a read-only file
/// or one with other hard links ([`crate::AtomicFile::commit`]).
#[derive(Debug, Default)]
pub struct Held {
    files: Vec<(PathBuf, File, Stamp)>,
    force: bool,
}

impl Held {
    /// Locks each existing file of `paths`, in their order (every writer
    /// of a pair locks the main file first, so two writers cannot each
    /// hold one and wait for the other), waiting at most `wait` in all.
    /// A path that names no file is not locked: there is nothing to lose.
    pub fn lock<P: AsRef<Path>>(paths: &[P], wait: Duration) -> Result<Held, LockError> {
        let deadline = Instant::now() + wait;
        let mut held = Held::default();
        for p in paths {
            held.add(p.as_ref(), deadline, wait)?;
        }
        Ok(held)
    }

    /// The same, allowed (`force`) or not to replace a read-only file or
    /// one with other hard links (`--force`).
    pub fn forcing(mut self, force: bool) -> Held {
        self.force = force;
        self
    }

    /// Whether [`Held::forcing`] allowed it.
    pub fn force(&self) -> bool {
        self.force
    }

    /// Locks one more file after those held (a companion, once the main
    /// file has told which), waiting at most `wait`.
    pub fn lock_more(&mut self, path: &Path, wait: Duration) -> Result<(), LockError> {
        self.add(path, Instant::now() + wait, wait)
    }

    /// Locks one more file (after those held), waiting until `deadline`.
    fn add(&mut self, path: &Path, deadline: Instant, wait: Duration) -> Result<(), LockError> {
        let at = destination(path).map_err(|e| LockError::Io(path.to_owned(), e))?;
        if self.files.iter().any(|(p, _, _)| *p == at) {
            return Ok(());
        }
        crate::target::regular_or_missing(&at).map_err(|e| LockError::Io(path.to_owned(), e))?;
        loop {
            let file = match open_for_lock(&at) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(LockError::Io(path.to_owned(), e)),
            };
            let mut pause = Duration::from_millis(2);
            loop {
                match try_lock(&file) {
                    Ok(true) => break,
                    Ok(false) if Instant::now() >= deadline => {
                        return Err(LockError::TimedOut {
                            path: path.to_owned(),
                            waited: wait,
                        })
                    }
                    Ok(false) => {
                        std::thread::sleep(pause);
                        pause = (pause * 2).min(Duration::from_millis(50));
                    }
                    Err(e) => return Err(LockError::Io(path.to_owned(), e)),
                }
            }
            let locked = Stamp::of(
                &file
                    .metadata()
                    .map_err(|e| LockError::Io(path.to_owned(), e))?,
            );
            // The file waited on may have been replaced while waiting:
            // the lock counts only if the path still names it.
            match std::fs::metadata(&at) {
                Ok(now) if Stamp::of(&now).same_file(&locked) => {
                    self.files.push((at, file, locked));
                    return Ok(());
                }
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(LockError::Io(path.to_owned(), e)),
            }
        }
    }

    /// The stamp `path` had when it was locked, if it is held.
    pub fn stamp(&self, path: &Path) -> Option<Stamp> {
        let at = destination(path).ok()?;
        self.files
            .iter()
            .find(|(p, _, _)| *p == at)
            .map(|(_, _, s)| *s)
    }

    /// Fails if any held file is no longer as it was locked: checked
    /// before the first of several files is renamed, so that a pair is
    /// written whole or not at all. The error names the file.
    pub fn unchanged(&self) -> io::Result<()> {
        for (path, _, stamp) in &self.files {
            let same = unchanged(path, *stamp)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            if !same {
                return Err(io::Error::other(format!(
                    "{}: {}",
                    path.display(),
                    changed()
                )));
            }
        }
        Ok(())
    }

    /// The files held, symbolic links followed.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|(p, _, _)| p.as_path())
    }
}

/// Whether `path` still has `stamp` (a missing file has not).
fn unchanged(path: &Path, stamp: Stamp) -> io::Result<bool> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Stamp::of(&meta) == stamp),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// The error a write gives when its destination changed since it was
/// locked and read: someone wrote it without taking the lock. Callers
/// name the file, as with any I/O error.
pub(crate) fn changed() -> io::Error {
    io::Error::other("changed by another program since it was read; nothing written (run again)")
}

/// Opens a file to lock it without waiting on it: a FIFO put in the
/// file's place since it was looked at opens at once and is then found not
/// to be the file locked.
fn open_for_lock(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Takes an exclusive advisory lock without blocking; `false` if another
/// descriptor holds one. File systems without locks (some network mounts)
/// count as locked: the stamp check before the rename still holds there.
///
/// The standard library's whole-file lock is `flock` on Unix (Linux and
/// macOS alike): advisory, so readers that take no lock read on.
#[cfg(not(windows))]
fn try_lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => match e.kind() {
            io::ErrorKind::Interrupted => Ok(false),
            io::ErrorKind::Unsupported => Ok(true),
            #[cfg(unix)]
            _ if matches!(e.raw_os_error(), Some(libc::ENOLCK | libc::EOPNOTSUPP)) => Ok(true),
            _ => Err(e),
        },
    }
}

/// On Windows a lock is mandatory for the bytes it covers, and the
/// standard library's lock covers the whole file: the holder itself could
/// then not read the file through its other handles, nor could anyone
/// else. So one byte far past any playbook's end is locked instead (as
/// SQLite locks its pending byte): writers exclude each other there, and
/// every byte of content stays readable to all.
#[cfg(windows)]
fn try_lock(file: &File) -> io::Result<bool> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Foundation::{ERROR_LOCK_VIOLATION, ERROR_NOT_SUPPORTED};
    use windows_sys::Win32::Storage::FileSystem::{
        LockFileEx, LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY,
    };
    use windows_sys::Win32::System::IO::OVERLAPPED;
    const LOCK_BYTE: u64 = 1 << 62;
    // SAFETY: OVERLAPPED is plain data; all-zero is its documented start.
    let mut at: OVERLAPPED = unsafe { std::mem::zeroed() };
    at.Anonymous.Anonymous.Offset = LOCK_BYTE as u32;
    at.Anonymous.Anonymous.OffsetHigh = (LOCK_BYTE >> 32) as u32;
    // SAFETY: the handle is open and owned by `file` for the call, and
    // `at` outlives it (the handle is synchronous: the call completes).
    let ok = unsafe {
        LockFileEx(
            file.as_raw_handle() as _,
            LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY,
            0,
            1,
            0,
            &mut at,
        )
    };
    if ok != 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error().map(|c| c as u32) {
        Some(ERROR_LOCK_VIOLATION) => Ok(false),
        Some(ERROR_NOT_SUPPORTED) => Ok(true),
        _ => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_after_a_cut_line_starts_a_line_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("r.jsonl");
        std::fs::write(&log, "{\"a\": 1}\n{\"b\": ").unwrap();
        append_locked(&log, b"{\"c\": 3}\n", Duration::from_secs(1), false).unwrap();
        append_locked(&log, b"{\"d\": 4}\n", Duration::from_secs(1), false).unwrap();
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "{\"a\": 1}\n{\"b\": \n{\"c\": 3}\n{\"d\": 4}\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_append_through_a_link_out_of_the_repository_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let outside = dir.path().join("profile");
        std::fs::write(&outside, "kept\n").unwrap();
        let log = repo.join("r.jsonl");
        std::os::unix::fs::symlink(&outside, &log).unwrap();
        let err = append_locked(&log, b"{}\n", Duration::from_secs(1), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("outside the git repository"), "{err}");
        assert!(!err.contains("cannot lock"), "{err}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kept\n");
        append_locked(&log, b"{}\n", Duration::from_secs(1), true).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "kept\n{}\n");
    }

    #[test]
    fn a_second_holder_waits_and_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pb.md");
        std::fs::write(&path, "x").unwrap();
        let first = Held::lock(&[&path], Duration::from_secs(1)).unwrap();
        assert!(first.stamp(&path).is_some());
        let err = Held::lock(&[&path], Duration::from_millis(50)).unwrap_err();
        assert!(matches!(err, LockError::TimedOut { .. }), "{err}");
        drop(first);
        Held::lock(&[&path], Duration::from_millis(50)).unwrap();
    }

    /// A waiter whose file is renamed over takes the lock of the new file,
    /// not of the one it waited on.
    #[cfg(unix)]
    #[test]
    fn a_file_replaced_while_waiting_is_locked_anew() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pb.md");
        std::fs::write(&path, "old").unwrap();
        let first = Held::lock(&[&path], Duration::from_secs(1)).unwrap();
        let old = first.stamp(&path).unwrap();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || Held::lock(&[&path], Duration::from_secs(5)).unwrap())
        };
        std::thread::sleep(Duration::from_millis(30));
        crate::write_atomic(&path, b"new", None).unwrap();
        drop(first);
        let second = waiter.join().unwrap();
        let new = second.stamp(&path).unwrap();
        assert!(!new.same_file(&old));
        assert!(new.same_file(&Stamp::of(&std::fs::metadata(&path).unwrap())));
    }

    #[test]
    fn a_missing_file_is_not_locked() {
        let dir = tempfile::tempdir().unwrap();
        let held = Held::lock(&[dir.path().join("none")], Duration::ZERO).unwrap();
        assert_eq!(held.paths().count(), 0);
    }

    /// A file changed by a writer that takes no lock, between the read and
    /// the rename, is not overwritten: the update stops and says so.
    #[test]
    fn a_file_changed_behind_the_lock_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let pb = dir.path().join("playbook.md");
        std::fs::write(
            &pb,
            "[str-00001] helpful=0 harmful=0 :: Always verify data types\n",
        )
        .unwrap();
        let held = crate::Held::lock(&[&pb], std::time::Duration::from_secs(5)).unwrap();
        std::fs::write(
            &pb,
            "## STRATEGIES & INSIGHTS\n[str-00001] helpful=9 harmful=0 :: edited by hand\n",
        )
        .unwrap();
        let err = crate::write_atomic(&pb, b"lost", Some(&held)).unwrap_err();
        assert!(
            err.to_string().contains("changed by another program"),
            "{err}"
        );
        assert!(std::fs::read_to_string(&pb)
            .unwrap()
            .contains("edited by hand"));
    }
}
