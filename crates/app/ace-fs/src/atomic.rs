//! Outputs written under a temporary name and renamed into place.
//!
//! On Linux the output is first written to an unnamed file (`O_TMPFILE`)
//! in the destination's directory, and given a name only once it is
//! complete and synced: a process killed while writing (SIGINT, SIGTERM,
//! SIGKILL, a file-size limit) leaves nothing behind, since the kernel
//! frees an unnamed file with its last descriptor. Elsewhere, or on a file
//! system without `O_TMPFILE`, a named `.ace-*.tmp` file is written and
//! removed on every error.
//!
//! A destination that is a symbolic link is written through: the file the
//! link points to is replaced, and the link stays a link (AGENTS.md and
//! CLAUDE.md are often links to each other).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::lock::{changed, Held, Stamp};
use crate::target::{destination, regular_or_missing};

/// Writes `bytes` to a temporary file beside `path` and renames it over
/// `path`, so a reader never sees half a file and a failure leaves the old
/// file intact. An existing file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8], held: Option<&Held>) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?.expecting(held);
    file.write_all(bytes)?;
    file.commit()
}

/// [`write_atomic`] of the concatenation of `pieces`: a file edited in
/// place of a few spans is written as the runs it keeps and the new text
/// between them, never copied into one text first.
pub fn write_atomic_pieces<'a>(
    path: &Path,
    pieces: impl IntoIterator<Item = &'a str>,
    held: Option<&Held>,
) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?.expecting(held);
    {
        let mut w = io::BufWriter::with_capacity(1 << 16, &mut file);
        for piece in pieces {
            w.write_all(piece.as_bytes())?;
        }
        w.flush()?;
    }
    file.commit()
}

/// Refuses to replace `meta`'s file when it is read-only or has other hard
/// links, unless `force`: a rename would drop the read-only mark the user
/// set, or leave the file's other names with the old text.
fn replaceable(meta: &std::fs::Metadata, force: bool) -> io::Result<()> {
    if force {
        return Ok(());
    }
    if meta.permissions().readonly() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "read-only; nothing written (--force replaces it)",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            let others = meta.nlink() - 1;
            return Err(io::Error::other(format!(
                "has {others} other hard link{}, which a rewrite would leave with the old text; \
                 nothing written (--force replaces this name alone)",
                if others == 1 { "" } else { "s" }
            )));
        }
    }
    Ok(())
}

/// Gives `file` the owner and group of the file it replaces, as far as
/// the process may: root keeps both, the owner keeps the group when it is
/// one of theirs. A file it may not give them to gets the process's own,
/// as any new file does.
#[cfg(unix)]
fn keep_owner(file: &File, meta: &std::fs::Metadata) {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(mine) = file.metadata() else { return };
    if (mine.uid(), mine.gid()) == (meta.uid(), meta.gid()) {
        return;
    }
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is the open descriptor `file` owns; fchown reads no
    // memory of ours.
    unsafe {
        if libc::fchown(fd, meta.uid(), meta.gid()) != 0 {
            libc::fchown(fd, u32::MAX, meta.gid());
        }
    }
}

fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A temporary file that cannot be made is reported by its folder, which
/// the user knows, not by the random name tempfile tried.
fn beside(e: io::Error, dir: &Path) -> io::Error {
    let text = e.to_string();
    let cause = text.split(" at path ").next().unwrap_or(&text);
    io::Error::new(
        e.kind(),
        format!(
            "cannot make a temporary file in `{}` to write it through: {cause}",
            dir.display()
        ),
    )
}

fn temp_names() -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ace-").suffix(".tmp");
    // A temporary file is private (0600) by default; a new output
    // should get what any new file gets, 0666 less the umask, which the
    // system applies when the file is opened with this mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
}

enum Temp {
    /// An `O_TMPFILE` file: no name until [`AtomicFile::commit`].
    #[cfg(target_os = "linux")]
    Unnamed(File),
    Named(tempfile::NamedTempFile),
    /// A character device (`-o /dev/null`, a terminal), as `sort -o`
    /// writes it: there is no file to replace, so the output is held and
    /// sent at [`AtomicFile::commit`], and nothing of an output dropped
    /// uncommitted reaches it.
    Device(File, Vec<u8>),
}

impl Temp {
    fn file(&self) -> &File {
        match self {
            #[cfg(target_os = "linux")]
            Temp::Unnamed(f) => f,
            Temp::Named(t) => t.as_file(),
            Temp::Device(f, _) => f,
        }
    }

    fn file_mut(&mut self) -> &mut File {
        match self {
            #[cfg(target_os = "linux")]
            Temp::Unnamed(f) => f,
            Temp::Named(t) => t.as_file_mut(),
            Temp::Device(f, _) => f,
        }
    }
}

/// `path` opened for writing when it names a character device, through
/// any links the kernel follows (`/dev/stdout` on a terminal); `None` for
/// anything else, which [`regular_or_missing`] then judges. A FIFO stays
/// refused: opening it would wait for a reader.
fn character_device(path: &Path) -> io::Result<Option<File>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device()) {
            return std::fs::OpenOptions::new().write(true).open(path).map(Some);
        }
    }
    let _ = path;
    Ok(None)
}

/// An unnamed file in `dir`; `None` where the system or the file system
/// has none, or a descriptor could not be given a name later (no /proc).
#[cfg(target_os = "linux")]
fn unnamed_in(dir: &Path) -> io::Result<Option<File>> {
    use std::ffi::CString;
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    if !Path::new("/proc/self/fd").is_dir() {
        return Ok(None);
    }
    let c_dir = CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))?;
    // SAFETY: `c_dir` is a NUL-terminated path that outlives the call; the
    // descriptor returned is owned by the `File` made from it and by
    // nothing else.
    let fd = unsafe {
        libc::open(
            c_dir.as_ptr(),
            libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC,
            0o666 as libc::c_uint,
        )
    };
    if fd < 0 {
        let err = io::Error::last_os_error();
        return match err.raw_os_error() {
            // No O_TMPFILE in this kernel or on this file system.
            Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL) => Ok(None),
            _ => Err(err),
        };
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(Some(unsafe { File::from_raw_fd(fd) }))
}

/// Gives the unnamed `file` the name `at` (which must not exist).
#[cfg(target_os = "linux")]
fn link_unnamed(file: &File, at: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))?;
    let to = CString::new(at.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))?;
    // SAFETY: both paths are NUL-terminated and outlive the call, which
    // reads them only.
    let rc = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A file written beside its destination and renamed onto it by
/// [`AtomicFile::commit`]; dropped uncommitted, nothing of it is left and
/// the destination is untouched.
pub struct AtomicFile {
    temp: Temp,
    /// The destination, symbolic links followed.
    path: PathBuf,
    /// Bytes written, and how many of them the system was asked to start
    /// writing to disk ([`AtomicFile::start_writeback`]).
    written: u64,
    handed: u64,
    /// What the destination must still be at the rename: the stamp it had
    /// when it was locked and read ([`AtomicFile::expecting`]).
    expect: Option<Stamp>,
    /// Whether a read-only or hard-linked destination may be replaced,
    /// or one a link leads to outside the repository of the name given.
    force: bool,
    /// That destination, when a link leads there.
    outside: Option<PathBuf>,
}

/// Bytes written between requests to start writing them to disk.
const WRITEBACK: u64 = 8 << 20;

impl AtomicFile {
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        if let Some(device) = character_device(path)? {
            return Ok(AtomicFile {
                temp: Temp::Device(device, Vec::new()),
                path: path.to_owned(),
                written: 0,
                handed: 0,
                expect: None,
                force: false,
                outside: None,
            });
        }
        // The kernel's answer first: `/dev/stdout` on a pipe is a FIFO,
        // which no link followed here names.
        regular_or_missing(path)?;
        let given = path;
        let path = destination(path)?;
        regular_or_missing(&path)?;
        let outside = crate::target::outside_its_repository(given, &path)?;
        let dir = directory_of(&path);
        #[cfg(target_os = "linux")]
        let unnamed = unnamed_in(dir)
            .map_err(|e| beside(e, dir))?
            .map(Temp::Unnamed);
        #[cfg(not(target_os = "linux"))]
        let unnamed = None;
        let temp = match unnamed {
            Some(t) => t,
            None => Temp::Named(temp_names().tempfile_in(dir).map_err(|e| beside(e, dir))?),
        };
        Ok(AtomicFile {
            temp,
            path,
            written: 0,
            handed: 0,
            expect: None,
            force: false,
            outside,
        })
    }

    /// Refuses the rename if the destination is one of `held`'s files and
    /// is no longer as it was locked: a writer that took no lock changed
    /// it since it was read, and renaming over it would lose that change.
    /// `held`'s [`Held::forcing`] also says whether a read-only or
    /// hard-linked destination may be replaced.
    pub fn expecting(mut self, held: Option<&Held>) -> AtomicFile {
        self.expect = held.and_then(|h| h.stamp(&self.path));
        self.force = held.is_some_and(Held::force);
        self
    }

    /// Whether the output has no name until it is committed (so that no
    /// kill can leave a temporary file behind).
    pub fn is_unnamed(&self) -> bool {
        !matches!(self.temp, Temp::Named(_))
    }

    /// Asks the system to start writing what was written so far to disk,
    /// without waiting. [`AtomicFile::commit`]'s sync then waits for the
    /// last few megabytes only, not for all of a large output at once.
    /// Advisory: a failure is ignored,
    /// and the sync in `commit` is what makes the file durable.
    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let fd = self.temp.file().as_raw_fd();
        let (Ok(from), Ok(len)) = (
            i64::try_from(self.handed),
            i64::try_from(self.written - self.handed),
        ) else {
            return;
        };
        // SAFETY: `fd` is the open descriptor of the file this value owns;
        // the call reads no memory of ours, it only starts I/O on a range.
        unsafe {
            libc::sync_file_range(fd, from, len, libc::SYNC_FILE_RANGE_WRITE);
        }
        self.handed = self.written;
    }

    #[cfg(not(target_os = "linux"))]
    fn start_writeback(&mut self) {}

    pub fn commit(self) -> io::Result<()> {
        if let Temp::Device(mut device, held) = self.temp {
            return device.write_all(&held);
        }
        if let (Some(real), false) = (&self.outside, self.force) {
            return Err(crate::target::refused_outside(real));
        }
        let file = self.temp.file();
        file.sync_all()?;
        // One look at the destination: whether it is still as it was read
        // (when that is asked), whether it may be replaced, and the owner
        // and permissions to keep.
        let current = match regular_or_missing(&self.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Err(e),
            Err(e) if self.expect.is_some() => return Err(e),
            Err(_) => None,
        };
        if let Some(stamp) = self.expect {
            if current.as_ref().map(Stamp::of) != Some(stamp) {
                return Err(changed());
            }
        }
        if let Some(meta) = &current {
            replaceable(meta, self.force)?;
            // The owner first: changing it clears set-ID bits, which the
            // permissions then put back.
            #[cfg(unix)]
            keep_owner(file, meta);
            file.set_permissions(meta.permissions())?;
        }
        match self.temp {
            #[cfg(target_os = "linux")]
            Temp::Unnamed(file) => {
                // linkat cannot replace a file, so the complete file gets a
                // temporary name for the moment before the rename, removed
                // again if the rename fails.
                let named =
                    temp_names().make_in(directory_of(&self.path), |at| link_unnamed(&file, at))?;
                named.persist(&self.path).map_err(|e| e.error)?;
            }
            Temp::Named(t) => {
                t.persist(&self.path).map_err(|e| e.error)?;
            }
            // Written straight, above.
            Temp::Device(..) => {}
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Temp::Device(_, held) = &mut self.temp {
            held.extend_from_slice(buf);
            return Ok(buf.len());
        }
        let n = self.temp.file_mut().write(buf)?;
        self.written += n as u64;
        if self.written - self.handed >= WRITEBACK {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.file_mut().flush()
    }
}

/// Writes `pieces` to standard output; a reader that went away (a closed
/// pipe, `| head`) is not an error.
pub fn write_stdout<'a>(pieces: impl IntoIterator<Item = &'a str>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let written = pieces
        .into_iter()
        .try_for_each(|s| out.write_all(s.as_bytes()))
        .and_then(|()| out.flush());
    reader_left_is_ok(written)
}

/// `written`, a write to standard output, with a reader that went away (a
/// closed pipe, `| head`) taken as no error.
pub fn reader_left_is_ok<T>(written: io::Result<T>) -> io::Result<()> {
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        write_atomic(&path, b"one", None).unwrap();
        write_atomic(&path, b"two", None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(names_in(dir.path()), ["out.md"], "no temporary file left");
    }

    /// procfs takes neither an unnamed nor a named file: the error names
    /// the folder, not the random name that was tried.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_that_takes_no_new_file_is_named() {
        let Err(e) = AtomicFile::create(Path::new("/proc/version")) else {
            panic!("a file was made in /proc");
        };
        let text = e.to_string();
        assert!(text.contains("temporary file in `/proc`"), "{text}");
        assert!(!text.contains(".ace-"), "{text}");
    }

    /// Until it is committed, the output has no name in the directory on
    /// Linux, so a kill at any moment leaves nothing behind.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_output_being_written_has_no_name() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AtomicFile::create(&dir.path().join("out.md")).unwrap();
        file.write_all(b"half").unwrap();
        assert!(file.is_unnamed());
        assert_eq!(names_in(dir.path()), Vec::<String>::new());
        file.commit().unwrap();
        assert_eq!(names_in(dir.path()), ["out.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        let target = dir.path().join("real/AGENTS.md");
        std::fs::write(&target, "old").unwrap();
        // A relative link, to a link, as CLAUDE.md -> AGENTS.md chains go.
        std::os::unix::fs::symlink("real/AGENTS.md", dir.path().join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink("AGENTS.md", dir.path().join("CLAUDE.md")).unwrap();
        write_atomic(&dir.path().join("CLAUDE.md"), b"new", None).unwrap();
        for link in ["AGENTS.md", "CLAUDE.md"] {
            let meta = std::fs::symlink_metadata(dir.path().join(link)).unwrap();
            assert!(meta.file_type().is_symlink(), "{link} is still a link");
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A dangling link makes the file it names.
        std::os::unix::fs::symlink("real/new.md", dir.path().join("dangling.md")).unwrap();
        write_atomic(&dir.path().join("dangling.md"), b"made", None).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("real/new.md")).unwrap(),
            "made"
        );
        std::os::unix::fs::symlink("loop.md", dir.path().join("loop.md")).unwrap();
        assert!(write_atomic(&dir.path().join("loop.md"), b"x", None).is_err());
    }

    /// An output of several writeback ranges, written in uneven pieces, is
    /// the file committed, byte for byte; uncommitted, nothing is left.
    #[test]
    fn a_large_output_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let bytes: Vec<u8> = (0..3 * WRITEBACK + 12_345)
            .map(|i| b'a' + (i % 26) as u8)
            .collect();
        let mut file = AtomicFile::create(&path).unwrap();
        let mut at = 0;
        for piece in [1, 1 << 16, 7 << 20, 13, 11 << 20].iter().cycle() {
            let end = (at + piece).min(bytes.len());
            file.write_all(&bytes[at..end]).unwrap();
            at = end;
            if at == bytes.len() {
                break;
            }
        }
        assert_eq!(file.written, bytes.len() as u64);
        // All but the last range was handed on as it was written.
        #[cfg(target_os = "linux")]
        assert!(file.handed >= 2 * WRITEBACK && file.written - file.handed < WRITEBACK);
        file.commit().unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
        let mut dropped = AtomicFile::create(&dir.path().join("gone.json")).unwrap();
        dropped.write_all(&bytes).unwrap();
        drop(dropped);
        assert_eq!(names_in(dir.path()), ["big.json"]);
    }
}
