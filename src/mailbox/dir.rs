//! Readers for Maildirs, folders of message files and single messages.

use super::{MailboxError, MaildirSubdir, Origin, RawMessage};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads a Maildir: `cur/` then `new/`, each in file-name order; `tmp/` (mail
/// still being delivered) and dot files are skipped. Names, and so the
/// `:2,FLAGS` info, are kept in [`Origin::Maildir`].
pub struct MaildirReader {
    root: PathBuf,
    entries: std::vec::IntoIter<(MaildirSubdir, OsString, u64)>,
    total: u64,
    index: usize,
}

impl MaildirReader {
    pub fn open(root: &Path) -> Result<Self, MailboxError> {
        let mut entries = Vec::new();
        for sub in [MaildirSubdir::Cur, MaildirSubdir::New] {
            let dir = root.join(sub.as_str());
            let mut names = Vec::new();
            let rd = std::fs::read_dir(&dir).map_err(|e| MailboxError::io(&dir, None, e))?;
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
                    names.push((sub, name, meta.len()));
                }
            }
            names.sort_by(|a, b| a.1.cmp(&b.1));
            entries.extend(names);
        }
        let total = entries.iter().map(|e| e.2).sum();
        Ok(MaildirReader {
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

impl Iterator for MaildirReader {
    type Item = Result<RawMessage, MailboxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (sub, name, _) = self.entries.next()?;
        let path = self.root.join(sub.as_str()).join(&name);
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
                origin: Origin::Maildir { subdir: sub, name },
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
