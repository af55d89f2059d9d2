//! `mailcharset milter` as a process: what it does with the path of its
//! Unix socket, and one message over that socket end to end (the wire
//! format alone is tested in `src/cli/milter/protocol.rs`; a real Postfix
//! and libmilter's miltertest drive it in tools/gateway_e2e.py and
//! tools/miltertest.sh).

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn milter(path: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mailcharset"));
    c.arg("milter")
        .arg("--listen")
        .arg(format!("unix:{}", path.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// Kills the child when the test ends, whatever happens.
struct Running(Child);
impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn connect(path: &std::path::Path, child: &mut Child) -> UnixStream {
    for _ in 0..200 {
        if let Ok(s) = UnixStream::connect(path) {
            return s;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("milter exited early: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("milter did not listen on {}", path.display());
}

fn packet(cmd: u8, data: &[u8]) -> Vec<u8> {
    let mut p = ((data.len() + 1) as u32).to_be_bytes().to_vec();
    p.push(cmd);
    p.extend_from_slice(data);
    p
}

fn read_packet(s: &mut UnixStream) -> (u8, Vec<u8>) {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("reply length");
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).expect("reply body");
    (body[0], body[1..].to_vec())
}

#[test]
fn a_file_at_the_socket_path_is_refused_and_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("precious.txt");
    std::fs::write(&path, b"a user's file").expect("write");
    let out = milter(&path).output().expect("run");
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a socket"));
    assert_eq!(std::fs::read(&path).expect("read"), b"a user's file");
}

#[test]
fn a_socket_someone_listens_on_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("busy.sock");
    let _other = UnixListener::bind(&path).expect("bind");
    let out = milter(&path).output().expect("run");
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("listening"));
}

/// A socket left by a milter that died is replaced, and a message sent
/// over it comes back changed: the Latin-1 encoded-word as UTF-8.
#[test]
fn a_stale_socket_is_replaced_and_a_message_is_normalized() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    drop(UnixListener::bind(&path).expect("bind"));
    assert!(
        path.exists(),
        "the stale socket file stays after the listener"
    );
    let mut child = Running(milter(&path).spawn().expect("spawn"));
    let mut s = connect(&path, &mut child.0);
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    // Version 6, all actions, every protocol flag but SMFIP_HDR_LEADSPC.
    let mut opt = Vec::new();
    for v in [6u32, 0x1FF, 0x0F_FFFF] {
        opt.extend_from_slice(&v.to_be_bytes());
    }
    s.write_all(&packet(b'O', &opt)).expect("optneg");
    let (cmd, data) = read_packet(&mut s);
    assert_eq!(cmd, b'O');
    let asked = u32::from_be_bytes(data[8..12].try_into().expect("flags"));
    assert_ne!(
        asked & 0x80,
        0,
        "over a Unix socket it asks not to answer header fields"
    );
    s.write_all(&packet(b'D', b"Ei\0QID42\0")).expect("macro");
    s.write_all(&packet(b'L', b"Subject\0=?iso-8859-1?Q?Voil=E0?=\0"))
        .expect("header");
    s.write_all(&packet(b'B', b"plain\r\n")).expect("body");
    s.write_all(&packet(b'E', b"")).expect("eom");
    let (cmd, data) = read_packet(&mut s);
    assert_eq!(cmd, b'm', "a changed field, not {:?}", cmd as char);
    assert_eq!(&data[..4], &1u32.to_be_bytes());
    assert_eq!(&data[4..], b"Subject\0=?UTF-8?B?Vm9pbMOg?=\0");
    let (cmd, _) = read_packet(&mut s);
    assert_eq!(cmd, b'a');
    s.write_all(&packet(b'Q', b"")).expect("quit");
    drop(s);
    // The milter logs after it has answered, so the log line may come a
    // moment after the reply: read the log until it names the message (or
    // the milter's stderr closes), and only then stop the milter.
    let stderr = child.0.stderr.take().expect("stderr is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut log = String::new();
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            let Ok(line) = line else { break };
            log.push_str(&line);
            log.push('\n');
            if line.contains("QID42") {
                break;
            }
        }
        let _ = tx.send(log);
    });
    let log = rx
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| "(no log line within 20 s)".to_string());
    drop(child);
    assert!(log.contains("QID42"), "log names the queue id: {log}");
}
