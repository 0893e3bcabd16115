//! Where a write lands: the file a path names once its symbolic links are
//! followed, and whether that is a file a playbook may be written to.

use std::io;
use std::path::{Path, PathBuf};

/// Links followed before giving up, as the kernel's own limit (`ELOOP`).
const MAX_LINKS: usize = 40;

/// The file `path` names once every symbolic link is followed: the file a
/// write through the link must replace. It need not exist (a new output,
/// or a link to a file not yet made).
pub fn destination(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_owned();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(io::Error::other(format!(
        "{}: more than {MAX_LINKS} levels of symbolic links",
        path.display()
    )))
}

/// Where a write to `path` would land outside the git repository that
/// holds `path`, having followed a symbolic link there (of the file, or of
/// a folder on its way): the file it would replace, as the system names
/// it. `None` for a path in no repository, or one whose file is in it.
///
/// A repository's links are the cloner's to trust or not: an untrusted
/// one's `knowledge/playbook.md` may be a link to `~/.bashrc`, and an apply
/// in place would write an entry's text there.
pub fn outside_its_repository(path: &Path, dest: &Path) -> io::Result<Option<PathBuf>> {
    let cwd = std::env::current_dir()?;
    let lexical = absolute(path);
    let Some(root) = lexical
        .ancestors()
        .skip(1)
        .find(|dir| dir.join(".git").exists())
    else {
        return Ok(None);
    };
    let root = root.canonicalize()?;
    let dest = cwd.join(dest);
    let real = match (dest.parent(), dest.file_name()) {
        (Some(dir), Some(name)) => match dir.canonicalize() {
            Ok(dir) => dir.join(name),
            // A folder not made yet: nothing of it is a link.
            Err(_) => absolute(&dest),
        },
        _ => return Ok(None),
    };
    Ok((!real.starts_with(&root)).then_some(real))
}

/// The refusal of a write through a link that [`outside_its_repository`]
/// found, naming where it leads and the option that allows it.
pub fn refused_outside(real: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "a symbolic link to {}, outside the git repository it is in; \
             nothing written (--force writes through it)",
            real.display()
        ),
    )
}

/// `path` made absolute and tidied (`.` and `..` resolved by name, without
/// touching the file system, so that paths that do not exist still compare).
pub fn absolute(path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What a file that is not a regular file is, in a user's words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Refuses a path that names something other than a regular file (a
/// FIFO, which would hang the read or the lock, a device, a directory): a
/// playbook is rewritten only where a playbook file is. A missing file is
/// fine: it is made.
pub(crate) fn regular_or_missing(path: &Path) -> io::Result<Option<std::fs::Metadata>> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(Some(meta)),
        Ok(meta) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}; only a regular file is rewritten, nothing written",
                kind_of(&meta)
            ),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(named_on_the_way(e, path, |file| {
            format!("`{file}` is a file, not a folder; nothing written")
        })),
    }
}

/// `e` for `path` with the file that stands where a folder must be named
/// (the system's "Not a directory" names no part of the path), in
/// `say(file)`. Other errors are returned as they are.
pub(crate) fn named_on_the_way(
    e: io::Error,
    path: &Path,
    say: impl FnOnce(&str) -> String,
) -> io::Error {
    if e.kind() != io::ErrorKind::NotADirectory {
        return e;
    }
    let file = path
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .find(|a| std::fs::metadata(a).is_ok_and(|m| !m.is_dir()));
    match file {
        Some(file) => io::Error::new(e.kind(), say(&file.display().to_string())),
        None => e,
    }
}
