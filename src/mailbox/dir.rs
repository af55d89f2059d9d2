//! Readers for Maildirs, folders of message files and single messages.

use super::{MailboxError, MaildirSubdir, Origin, RawMessage};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads a Maildir: `cur/` then `new/`, each in file-name order, then the
/// same for each Maildir++ folder (a `.Name` directory with a `cur/`), in
/// name order; `tmp/` (mail still being delivered) and dot files are
/// skipped. Folder and file names, and so the `:2,FLAGS` info, are kept in
/// [`Origin::Maildir`].
pub struct MaildirReader {
    root: PathBuf,
    folders: Vec<OsString>,
    entries: std::vec::IntoIter<MaildirEntry>,
    total: u64,
    index: usize,
}

/// A message file found when the Maildir was opened: its folder (an index
/// into `folders`, or `None` for the top level), subdirectory, name and
/// size.
type MaildirEntry = (Option<usize>, MaildirSubdir, OsString, u64);

impl MaildirReader {
    pub fn open(root: &Path) -> Result<Self, MailboxError> {
        let folders = maildir_folders(root)?;
        let mut entries = Vec::new();
        let tops = std::iter::once(None).chain((0..folders.len()).map(Some));
        for folder in tops {
            let base = match folder {
                Some(i) => root.join(&folders[i]),
                None => root.to_path_buf(),
            };
            for sub in [MaildirSubdir::Cur, MaildirSubdir::New] {
                let dir = base.join(sub.as_str());
                let mut names = Vec::new();
                let rd = match std::fs::read_dir(&dir) {
                    Ok(rd) => rd,
                    // A folder may lack `new/` (the top level may not).
                    Err(e) if folder.is_some() && e.kind() == std::io::ErrorKind::NotFound => {
                        continue;
                    }
                    Err(e) => return Err(MailboxError::io(&dir, None, e)),
                };
                for ent in rd {
                    let ent = ent.map_err(|e| MailboxError::io(&dir, None, e))?;
                    let name = ent.file_name();
                    if name.as_encoded_bytes().starts_with(b".") {
                        continue;
                    }
                    // Follows a symlinked message file.
                    let meta = std::fs::metadata(ent.path())
                        .map_err(|e| MailboxError::io(ent.path(), None, e))?;
                    if meta.is_file() {
                        names.push((folder, sub, name, meta.len()));
                    }
                }
                names.sort_by(|a, b| a.2.cmp(&b.2));
                entries.extend(names);
            }
        }
        let total = entries.iter().map(|e| e.3).sum();
        Ok(MaildirReader {
            root: root.to_path_buf(),
            folders,
            entries: entries.into_iter(),
            total,
            index: 0,
        })
    }

    /// The Maildir++ folders found, in name order (with or without
    /// messages).
    pub fn folders(&self) -> &[OsString] {
        &self.folders
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        self.total
    }
}

/// The Maildir++ folders of `root`: directories named `.Name` (not `.` or
/// `..`) with a `cur/` inside, in name order. A symbolic link is not a
/// folder (it may point back into the Maildir, or out of it), as a folder
/// reader does not follow linked directories either.
pub(crate) fn maildir_folders(root: &Path) -> Result<Vec<OsString>, MailboxError> {
    let rd = std::fs::read_dir(root).map_err(|e| MailboxError::io(root, None, e))?;
    let mut folders = Vec::new();
    for ent in rd {
        let ent = ent.map_err(|e| MailboxError::io(root, None, e))?;
        let name = ent.file_name();
        let b = name.as_encoded_bytes();
        if !b.starts_with(b".") || b == b"." || b == b".." {
            continue;
        }
        let is_dir = ent.file_type().is_ok_and(|t| t.is_dir());
        if !(is_dir && ent.path().join("cur").is_dir()) {
            continue;
        }
        folders.push(name);
    }
    folders.sort();
    Ok(folders)
}

impl Iterator for MaildirReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (folder, sub, name, _) = self.entries.next()?;
        let folder = folder
            .and_then(|i| self.folders.get(i))
            .cloned()
            .unwrap_or_default();
        let path = self.root.join(&folder).join(sub.as_str()).join(&name);
        let index = self.index;
        self.index += 1;
        Some(read_file(&path).and_then(|bytes| {
            let name = name.into_string().map_err(|n| MailboxError::Unrecognized {
                path: path.clone(),
                reason: format!("Maildir file name is not UTF-8: {}", n.to_string_lossy()),
            })?;
            Ok(RawMessage {
                input_len: bytes.len() as u64,
                bytes,
                index,
                offset: 0,
                origin: Origin::Maildir {
                    folder,
                    subdir: sub,
                    name,
                },
            })
        }))
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, MailboxError> {
    std::fs::read(path).map_err(|e| MailboxError::io(path, Some(0), e))
}

/// Reads a folder of message files recursively, one message per regular
/// file, in order of relative path; dot files and dot directories (and so
/// our own temporary outputs) are skipped.
pub struct FolderReader {
    root: PathBuf,
    entries: std::vec::IntoIter<(PathBuf, u64)>,
    total: u64,
    index: usize,
}

impl FolderReader {
    pub fn open(root: &Path) -> Result<Self, MailboxError> {
        let mut entries = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let dir = root.join(&rel);
            let rd = std::fs::read_dir(&dir).map_err(|e| MailboxError::io(&dir, None, e))?;
            for ent in rd {
                let ent = ent.map_err(|e| MailboxError::io(&dir, None, e))?;
                let name = ent.file_name();
                if name.as_encoded_bytes().starts_with(b".") {
                    continue;
                }
                let ft = ent
                    .file_type()
                    .map_err(|e| MailboxError::io(ent.path(), None, e))?;
                let meta = std::fs::metadata(ent.path())
                    .map_err(|e| MailboxError::io(ent.path(), None, e))?;
                // Symlinked directories are not followed (no cycles);
                // symlinked files are read.
                if meta.is_dir() && !ft.is_symlink() {
                    stack.push(rel.join(&name));
                } else if meta.is_file() {
                    entries.push((rel.join(&name), meta.len()));
                }
            }
        }
        entries.sort();
        let total = entries.iter().map(|e| e.1).sum();
        Ok(FolderReader {
            root: root.to_path_buf(),
            entries: entries.into_iter(),
            total,
            index: 0,
        })
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        self.total
    }
}

impl Iterator for FolderReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (relative, _) = self.entries.next()?;
        let index = self.index;
        self.index += 1;
        Some(
            read_file(&self.root.join(&relative)).map(|bytes| RawMessage {
                input_len: bytes.len() as u64,
                bytes,
                index,
                offset: 0,
                origin: Origin::File { relative },
            }),
        )
    }
}

/// Reads a whole stream or file as one message.
pub struct SingleReader {
    src: Option<Box<dyn Read + Send>>,
    name: PathBuf,
    origin: Origin,
}

impl SingleReader {
    pub fn new(src: Box<dyn Read + Send>, name: impl Into<PathBuf>, origin: Origin) -> Self {
        SingleReader {
            src: Some(src),
            name: name.into(),
            origin,
        }
    }
}

impl Iterator for SingleReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut src = self.src.take()?;
        let mut bytes = Vec::new();
        Some(match src.read_to_end(&mut bytes) {
            Ok(_) => Ok(RawMessage {
                input_len: bytes.len() as u64,
                bytes,
                index: 0,
                offset: 0,
                origin: self.origin.clone(),
            }),
            Err(e) => Err(MailboxError::io(&self.name, Some(bytes.len() as u64), e)),
        })
    }
}
