//! Outputs written under a temporary name and renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to a temporary file beside `path` and renames it over
/// `path`, so a reader never sees half a file and a failure leaves the old
/// file intact. An existing file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// A file written under a temporary name beside its destination and renamed
/// onto it by [`AtomicFile::commit`]; dropped uncommitted, it is removed
/// and the destination is untouched.
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    /// Bytes written, and how many of them the system was asked to start
    /// writing to disk ([`AtomicFile::start_writeback`]).
    written: u64,
    handed: u64,
}

/// Bytes written between requests to start writing them to disk.
const WRITEBACK: u64 = 8 << 20;

impl AtomicFile {
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
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
        let tmp = builder.tempfile_in(dir)?;
        Ok(AtomicFile {
            tmp,
            path: path.to_owned(),
            written: 0,
            handed: 0,
        })
    }

    /// Asks the system to start writing what was written so far to disk,
    /// without waiting. [`AtomicFile::commit`]'s sync then waits for the
    /// last few megabytes only, not for all of a large output at once.
    /// Advisory: a failure is ignored,
    /// and the sync in `commit` is what makes the file durable.
    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let fd = self.tmp.as_file().as_raw_fd();
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

    pub fn commit(self) -> std::io::Result<()> {
        self.tmp.as_file().sync_all()?;
        if let Ok(meta) = std::fs::metadata(&self.path) {
            self.tmp.as_file().set_permissions(meta.permissions())?;
        }
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.tmp.write(buf)?;
        self.written += n as u64;
        if self.written - self.handed >= WRITEBACK {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
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
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }
}
