//! Maildirs, folders and single messages: detection, reading order, names
//! and `:2,FLAGS` info kept, byte-exact round trips; Python's
//! `mailbox.Maildir` as the oracle for subdirectories and flags.

use crate::common;

use mailcharset::mailbox::{
    self, InputKind, MaildirSubdir, MessageReader, MessageWriter, OUTPUT_MARKER, Origin,
    OutputKind, RawMessage, WriteMode,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MAILDIR_FILES: &[(&str, &str)] = &[
    ("cur/1000.M1P1.host:2,S", "Subject: seen\n\nbody 1\n"),
    (
        "cur/1001.M2P2.host:2,FRS",
        "Subject: flagged replied seen\n\nbody 2\n",
    ),
    (
        "cur/0999.M0P0.host:2,",
        "Subject: no flags\r\n\r\nbody 0\r\n",
    ),
    ("new/1002.M3P3.host", "Subject: new, no info\n\nbody 3\n"),
];

fn make_maildir(root: &Path) {
    make_maildir_with(root, true);
}

/// `dot_file`: add `cur/.hidden`, which the Maildir spec says readers skip
/// (Python's `mailbox.Maildir` does not, so the oracle test leaves it out).
fn make_maildir_with(root: &Path, dot_file: bool) {
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    for (name, body) in MAILDIR_FILES {
        std::fs::write(root.join(name), body).unwrap();
    }
    // Being delivered, and a dot file: neither is a message.
    std::fs::write(root.join("tmp/1003.M4P4.host"), "Subject: partial").unwrap();
    if dot_file {
        std::fs::write(root.join("cur/.hidden"), "x").unwrap();
    }
}

/// Every regular file under `root`, by relative path.
/// [`tree`] of a directory output, which carries the marker that lets a
/// later run replace it (`mailbox::OUTPUT_MARKER`): present, and left out.
fn output_tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut t = tree(root);
    assert!(
        t.remove(Path::new(OUTPUT_MARKER)).is_some(),
        "{} has no output marker",
        root.display()
    );
    t
}

fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    b"<dir>".to_vec(),
                );
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn read_all(path: &Path) -> Vec<RawMessage> {
    let kind = mailbox::detect(path).unwrap();
    MessageReader::open(path, kind)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn maildir_is_read_in_order_with_names_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("Maildir");
    make_maildir(&md);
    assert_eq!(mailbox::detect(&md).unwrap(), InputKind::Maildir);
    let msgs = read_all(&md);
    let got: Vec<_> = msgs
        .iter()
        .map(|m| match &m.origin {
            Origin::Maildir { subdir, name, .. } => {
                (*subdir, name.clone(), m.origin.maildir_flags())
            }
            o => panic!("{o:?}"),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (MaildirSubdir::Cur, "0999.M0P0.host:2,".into(), Some("")),
            (MaildirSubdir::Cur, "1000.M1P1.host:2,S".into(), Some("S")),
            (
                MaildirSubdir::Cur,
                "1001.M2P2.host:2,FRS".into(),
                Some("FRS")
            ),
            (MaildirSubdir::New, "1002.M3P3.host".into(), None),
        ]
    );
    assert_eq!(msgs[3].bytes, b"Subject: new, no info\n\nbody 3\n");
    assert_eq!(
        msgs.iter().map(|m| m.index).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
}

#[test]
fn maildir_round_trips_names_flags_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("in");
    make_maildir(&md);
    let out = dir.path().join("out");
    let mut w = MessageWriter::create(&out, OutputKind::Maildir, WriteMode::Replace).unwrap();
    for m in read_all(&md) {
        w.write(&m, &m.bytes).unwrap();
    }
    w.finish().unwrap();
    let mut expected = tree(&md);
    expected.remove(Path::new("tmp/1003.M4P4.host"));
    expected.remove(Path::new("cur/.hidden"));
    assert_eq!(output_tree(&out), expected);
    // Nothing left next to the output.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn python_maildir_agrees_on_subdirs_and_flags() {
    if !common::python_has("python_maildir_agrees_on_subdirs_and_flags", "mailbox") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("Maildir");
    make_maildir_with(&md, false);
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import mailbox,sys,json\n\
             md=mailbox.Maildir(sys.argv[1],factory=None,create=False)\n\
             r=[]\n\
             for k in md.keys():\n\
             \x20   m=md.get_message(k)\n\
             \x20   r.append([m.get_subdir(),m.get_flags(),md.get_bytes(k).decode()])\n\
             print(json.dumps(sorted(r)))",
        )
        .arg(&md)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let py: Vec<(String, String, String)> = serde_json::from_slice(&out.stdout).unwrap();
    let mut ours: Vec<(String, String, String)> = read_all(&md)
        .iter()
        .map(|m| {
            let Origin::Maildir { subdir, .. } = &m.origin else {
                panic!()
            };
            (
                subdir.as_str().to_string(),
                m.origin.maildir_flags().unwrap_or("").to_string(),
                String::from_utf8(m.bytes.clone()).unwrap(),
            )
        })
        .collect();
    ours.sort();
    assert_eq!(ours, py);
}

#[test]
fn folder_round_trips_relative_names() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("folder");
    std::fs::create_dir_all(src.join("2024/jan")).unwrap();
    std::fs::write(src.join("b.eml"), "Subject: b\n\nB\n").unwrap();
    std::fs::write(src.join("a.eml"), "Subject: a\n\nA\n").unwrap();
    std::fs::write(src.join("2024/jan/c.eml"), "Subject: c\r\n\r\nC\r\n").unwrap();
    std::fs::write(src.join(".DS_Store"), "junk").unwrap();
    assert_eq!(mailbox::detect(&src).unwrap(), InputKind::Folder);
    let msgs = read_all(&src);
    let rels: Vec<_> = msgs
        .iter()
        .map(|m| match &m.origin {
            Origin::File { relative } => relative.clone(),
            o => panic!("{o:?}"),
        })
        .collect();
    assert_eq!(
        rels,
        vec![
            PathBuf::from("2024/jan/c.eml"),
            PathBuf::from("a.eml"),
            PathBuf::from("b.eml")
        ]
    );
    let out = dir.path().join("out");
    let mut w = MessageWriter::create(&out, OutputKind::Folder, WriteMode::Replace).unwrap();
    for m in &msgs {
        w.write(m, &m.bytes).unwrap();
    }
    w.finish().unwrap();
    let mut expected = tree(&src);
    expected.remove(Path::new(".DS_Store"));
    assert_eq!(output_tree(&out), expected);
}

#[test]
fn single_message_and_streams_are_sniffed() {
    let dir = tempfile::tempdir().unwrap();
    let eml = dir.path().join("one.eml");
    std::fs::write(&eml, "From: a@b\nSubject: x\n\nFrom here on\n").unwrap();
    assert_eq!(mailbox::detect(&eml).unwrap(), InputKind::Eml);
    let msgs = read_all(&eml);
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].bytes, std::fs::read(&eml).unwrap());
    assert_eq!(mailbox::detect(Path::new("-")).unwrap(), InputKind::Stdin);

    let stream = b"From a Thu Jan  1 00:00:00 1970\n\nx\n\nFrom b Thu Jan  1 00:00:00 1970\n\ny\n";
    let r = MessageReader::from_reader(
        Box::new(std::io::Cursor::new(stream.to_vec())),
        "standard input".into(),
        None,
    )
    .unwrap();
    assert!(matches!(r.kind(), InputKind::Mbox(_)));
    assert_eq!(r.count(), 2);
    let r = MessageReader::from_reader(
        Box::new(std::io::Cursor::new(b"Subject: x\n\ny\n".to_vec())),
        "standard input".into(),
        None,
    )
    .unwrap();
    assert_eq!(r.kind(), InputKind::Eml);
    let msgs: Vec<_> = r.collect::<Result<_, _>>().unwrap();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].origin, Origin::Stdin);

    // A pipe that gives one byte per read is still sniffed as an mbox.
    struct Trickle(std::io::Cursor<Vec<u8>>);
    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }
    let r = MessageReader::from_reader(
        Box::new(Trickle(std::io::Cursor::new(stream.to_vec()))),
        "standard input".into(),
        None,
    )
    .unwrap();
    assert!(matches!(r.kind(), InputKind::Mbox(_)));
    let msgs: Vec<_> = r.collect::<Result<_, _>>().unwrap();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[1].bytes, b"\ny\n");
}

#[test]
fn unsafe_relative_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut w = MessageWriter::create(&out, OutputKind::Folder, WriteMode::Replace).unwrap();
    let m = RawMessage {
        bytes: b"x".to_vec(),
        index: 0,
        offset: 0,
        input_len: 1,
        origin: Origin::File {
            relative: PathBuf::from("../escape.eml"),
        },
        times: None,
    };
    let err = w.write(&m, &m.bytes).unwrap_err();
    assert!(err.to_string().contains("unsafe output name"), "{err}");
    drop(w);
    assert!(!dir.path().join("escape.eml").exists());
    assert!(!out.exists());
}

#[test]
fn directory_outputs_replace_and_work_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("Maildir");
    make_maildir(&md);
    let upper = |m: &RawMessage| m.bytes.to_ascii_uppercase();

    // Replace an existing output twice: the second run's tree wins, whole.
    let out = dir.path().join("out");
    for pass in 0..2 {
        let mut w = MessageWriter::create(&out, OutputKind::Maildir, WriteMode::Replace).unwrap();
        for m in read_all(&md) {
            let b = if pass == 0 {
                m.bytes.clone()
            } else {
                upper(&m)
            };
            w.write(&m, &b).unwrap();
        }
        w.finish().unwrap();
    }
    let t = tree(&out);
    assert_eq!(
        t[Path::new("new/1002.M3P3.host")],
        b"SUBJECT: NEW, NO INFO\n\nBODY 3\n"
    );

    // In place: each changed message file is replaced on its own; the
    // delivery in tmp/ and the dot file are left alone; no backup is left.
    let before = tree(&md);
    // A killed in-place run left the temporary of the file it was
    // replacing; this run clears it.
    let stale = md.join("cur/.1001.M2P2.host:2,FRS.x1y2z3.mailcharset-tmp");
    std::fs::write(&stale, b"half").unwrap();
    common::backdate(&stale);
    let mut w = MessageWriter::create(&md, OutputKind::Maildir, WriteMode::InPlace).unwrap();
    assert!(!stale.exists());
    for m in read_all(&md) {
        w.write(&m, &upper(&m)).unwrap();
    }
    w.finish().unwrap();
    let after = tree(&md);
    assert_eq!(
        after[Path::new("cur/1001.M2P2.host:2,FRS")],
        b"SUBJECT: FLAGGED REPLIED SEEN\n\nBODY 2\n"
    );
    assert_eq!(after[Path::new("cur/.hidden")], b"x");
    assert_eq!(after[Path::new("tmp/1003.M4P4.host")], b"Subject: partial");
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "same names, nothing added or lost"
    );
    assert_eq!(common::entry_names(dir.path()), ["Maildir", "out"]);
}

#[cfg(unix)]
#[test]
fn folder_symlinked_directories_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("folder");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(src.join("sub/a.eml"), "Subject: a\n\nA\n").unwrap();
    // A cycle, and a symlinked message file.
    std::os::unix::fs::symlink(&src, src.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(src.join("sub/a.eml"), src.join("link.eml")).unwrap();
    let msgs = read_all(&src);
    let rels: Vec<_> = msgs
        .iter()
        .map(|m| match &m.origin {
            Origin::File { relative } => relative.clone(),
            o => panic!("{o:?}"),
        })
        .collect();
    assert_eq!(
        rels,
        vec![PathBuf::from("link.eml"), PathBuf::from("sub/a.eml")]
    );
    assert_eq!(msgs[0].bytes, msgs[1].bytes);
}

#[test]
fn in_place_does_not_resurrect_a_message_moved_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("Maildir");
    make_maildir(&md);
    let msgs = read_all(&md);
    // A mail reader moves the new message to cur/ with the Seen flag.
    std::fs::rename(
        md.join("new/1002.M3P3.host"),
        md.join("cur/1002.M3P3.host:2,S"),
    )
    .unwrap();
    let mut w = MessageWriter::create(&md, OutputKind::Maildir, WriteMode::InPlace).unwrap();
    for m in &msgs {
        w.write(m, &m.bytes.to_ascii_uppercase()).unwrap();
    }
    w.finish().unwrap();
    let t = tree(&md);
    assert!(
        !t.contains_key(Path::new("new/1002.M3P3.host")),
        "not resurrected"
    );
    assert_eq!(
        t[Path::new("cur/1002.M3P3.host:2,S")],
        b"Subject: new, no info\n\nbody 3\n",
        "the moved file is as the reader left it"
    );
    assert_eq!(
        t[Path::new("cur/1000.M1P1.host:2,S")],
        b"SUBJECT: SEEN\n\nBODY 1\n"
    );
}

/// Maildir++: Python's `mailbox.Maildir` builds a tree with folders (one
/// nested, one empty); we read the same messages with their folders, and
/// `mailcharset normalize` writes a Maildir in which Python finds the same
/// folders, names, flags and (for ASCII mail) bytes, and the Latin-1
/// message converted.
#[test]
fn maildir_plus_plus_folders_survive_normalize() {
    let test = "maildir_plus_plus_folders_survive_normalize";
    if !common::python_has(test, "mailbox") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("Maildir");
    let out = dir.path().join("Out");
    // Builds the tree (argv[1]) or lists one (argv[1] with "list").
    let script = "import mailbox,sys,json\n\
         md=mailbox.Maildir(sys.argv[1],factory=None,create=True)\n\
         def add(box,text,sub,flags):\n\
         \x20   m=mailbox.MaildirMessage(text)\n\
         \x20   m.set_subdir(sub); m.set_flags(flags); box.add(m)\n\
         if len(sys.argv)<3:\n\
         \x20   add(md,b'Subject: inbox\\n\\nhello\\n','new','')\n\
         \x20   add(md,b'Subject: seen\\n\\nread\\n','cur','S')\n\
         \x20   s=md.add_folder('Sent')\n\
         \x20   add(s,b'Subject: sent\\n\\nbye\\n','cur','RS')\n\
         \x20   add(s,b'Subject: latin\\nMIME-Version: 1.0\\nContent-Type: text/plain; charset=iso-8859-1\\n\\ncaf\\xe9\\n','cur','S')\n\
         \x20   add(md.add_folder('Lists.mips'),b'Subject: list\\n\\nmips\\n','new','')\n\
         \x20   md.add_folder('Empty')\n\
         r=[]\n\
         for f in [None]+sorted(md.list_folders()):\n\
         \x20   box=md if f is None else md.get_folder(f)\n\
         \x20   for k in box.keys():\n\
         \x20       m=box.get_message(k)\n\
         \x20       r.append(['' if f is None else '.'+f,m.get_subdir(),m.get_flags(),box.get_bytes(k).decode('latin-1')])\n\
         print(json.dumps([sorted(md.list_folders()),sorted(r)]))";
    let python = |root: &Path, list: bool| -> (Vec<String>, Vec<[String; 4]>) {
        let mut c = std::process::Command::new("python3");
        c.arg("-c").arg(script).arg(root);
        if list {
            c.arg("list");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (folders, py) = python(&md, false);
    assert_eq!(folders, ["Empty", "Lists.mips", "Sent"]);

    let reader = MessageReader::open(&md, InputKind::Maildir).unwrap();
    assert_eq!(reader.maildir_folders(), [".Empty", ".Lists.mips", ".Sent"]);
    let mut ours: Vec<[String; 4]> = reader
        .map(|m| {
            let m = m.unwrap();
            let Origin::Maildir { folder, subdir, .. } = &m.origin else {
                panic!("{:?}", m.origin)
            };
            [
                folder.to_string_lossy().into_owned(),
                subdir.as_str().to_string(),
                m.origin.maildir_flags().unwrap_or("").to_string(),
                m.bytes.iter().map(|&b| char::from(b)).collect(),
            ]
        })
        .collect();
    ours.sort();
    assert_eq!(ours, py);

    let status = std::process::Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .args(["normalize", "-q"])
        .arg(&md)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let (out_folders, out_py) = python(&out, true);
    assert_eq!(out_folders, folders);
    assert_eq!(out_py.len(), py.len());
    for (a, b) in py.iter().zip(&out_py) {
        assert_eq!(a[..3], b[..3]);
        if a[3].contains("latin") {
            assert!(b[3].contains("charset=utf-8"), "{}", b[3]);
            // "café\n" in UTF-8, base64 (8-bit output is not the default).
            assert!(b[3].contains("Y2Fmw6kK"), "{}", b[3]);
        } else {
            assert_eq!(a[3], b[3]);
        }
    }
    // Same message file names, and each folder keeps its marker.
    let names = |root: &Path| -> Vec<PathBuf> {
        tree(root)
            .into_iter()
            .filter(|(p, v)| {
                v != b"<dir>" && !p.starts_with("tmp") && p != Path::new(OUTPUT_MARKER)
            })
            .map(|(p, _)| p)
            .collect()
    };
    assert_eq!(names(&out), names(&md));
    assert!(out.join(".Empty/maildirfolder").is_file());

    // A folder name from elsewhere is one `.Name` component (Maildir++) or
    // a relative path of plain names (LAYOUT=fs), never a way out of the
    // output or into cur/new/tmp.
    let mut w = MessageWriter::create(
        &dir.path().join("Other"),
        OutputKind::Maildir,
        WriteMode::Replace,
    )
    .unwrap();
    for bad in [
        "..", ".", "../.x", ".a/b", "/.abs", "cur", "a/tmp", "a/../b", "a/.b",
    ] {
        assert!(w.add_maildir_folder(bad).is_err(), "{bad}");
    }
    w.add_maildir_folder(".Good").unwrap();
    w.add_maildir_folder("Lists/mips").unwrap();
    w.finish().unwrap();
    assert!(dir.path().join("Other/.Good/maildirfolder").is_file());
    assert!(dir.path().join("Other/Lists/mips/cur").is_dir());
    assert!(!dir.path().join("Other/Lists/mips/maildirfolder").exists());
}

/// The temporary tree of a Maildir output removed during the run (by hand,
/// or by a run that wrongly took it for a dead one): the next write fails
/// instead of starting a new, partial tree that `finish` would put in place.
#[test]
fn a_removed_temporary_tree_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("Maildir");
    make_maildir(&src);
    let msgs = read_all(&src);
    let out = dir.path().join("Out");
    let mut w = MessageWriter::create(&out, OutputKind::Maildir, WriteMode::Replace).unwrap();
    w.write(&msgs[0], &msgs[0].bytes).unwrap();
    for t in common::temporaries(dir.path()) {
        std::fs::remove_dir_all(t).unwrap();
    }
    let err = w.write(&msgs[1], &msgs[1].bytes).unwrap_err();
    assert!(err.to_string().contains("was removed"), "{err}");
    assert!(w.add_maildir_folder(".Sent").is_err());
    assert!(w.finish().is_err());
    assert!(!out.exists());
}

/// Maildir++ folders as they come: a name that is not UTF-8 is a folder
/// like any other (read, and written under the same name); a symbolic link
/// named like a folder is not followed (`.Self -> .` would read every
/// message twice, a link out of the Maildir would be changed in place); a
/// folder without `new/` is read.
#[cfg(unix)]
#[test]
fn maildir_plus_plus_odd_folders() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("Maildir");
    make_maildir(&md);
    let latin = std::ffi::OsStr::from_bytes(b".Caf\xe9");
    std::fs::create_dir_all(md.join(latin).join("cur")).unwrap();
    std::fs::write(
        md.join(latin).join("cur/1.x:2,S"),
        "Subject: latin folder\n\nx\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(".", md.join(".Self")).unwrap();
    let outside = dir.path().join("outside");
    make_maildir(&outside);
    std::os::unix::fs::symlink(&outside, md.join(".Link")).unwrap();

    let reader = MessageReader::open(&md, InputKind::Maildir).unwrap();
    assert_eq!(reader.maildir_folders(), [latin]);
    let msgs: Vec<RawMessage> = reader.collect::<Result<_, _>>().unwrap();
    assert_eq!(msgs.len(), MAILDIR_FILES.len() + 1);

    let out = dir.path().join("Out");
    let mut w = MessageWriter::create(&out, OutputKind::Maildir, WriteMode::Replace).unwrap();
    for m in &msgs {
        w.write(m, &m.bytes).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(
        std::fs::read(out.join(latin).join("cur/1.x:2,S")).unwrap(),
        b"Subject: latin folder\n\nx\n"
    );
    assert!(out.join(latin).join("maildirfolder").is_file());
    assert!(!out.join(".Self").exists() && !out.join(".Link").exists());

    // As a folder, the folder loses its dot (a dot directory would be
    // skipped when the folder is read back), whatever its name.
    let folder = dir.path().join("AsFolder");
    let mut w = MessageWriter::create(&folder, OutputKind::Folder, WriteMode::Replace).unwrap();
    for m in &msgs {
        w.write(m, &m.bytes).unwrap();
    }
    w.finish().unwrap();
    let plain = std::ffi::OsStr::from_bytes(b"Caf\xe9");
    assert!(folder.join(plain).join("cur/1.x:2,S").is_file());
    let back = MessageReader::open(&folder, InputKind::Folder).unwrap();
    assert_eq!(back.count(), msgs.len());

    // A directory output that is a symbolic link stays one: its target is
    // what gets replaced.
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut w = MessageWriter::create(&link, OutputKind::Maildir, WriteMode::Replace).unwrap();
    w.write(&msgs[0], &msgs[0].bytes).unwrap();
    w.finish().unwrap();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(read_all(&target).len(), 1);
}
