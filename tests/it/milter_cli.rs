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
    let data = negotiate(&mut s);
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

/// The milter's stderr, a line at a time, read on its own thread.
fn log_lines(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("stderr is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Reads log lines until one contains `what`; returns every line read.
fn wait_for_line(rx: &std::sync::mpsc::Receiver<String>, what: &str, log: &mut String) -> bool {
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(20)) {
        log.push_str(&line);
        log.push('\n');
        if line.contains(what) {
            return true;
        }
    }
    false
}

fn exit_code_within(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn signal(child: &Child, sig: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill");
}

/// Option negotiation as Postfix does it, over the Unix socket (version
/// 6, all actions, every protocol flag but SMFIP_HDR_LEADSPC); the
/// milter's answer.
fn negotiate(s: &mut UnixStream) -> Vec<u8> {
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut opt = Vec::new();
    for v in [6u32, 0x1FF, 0x0F_FFFF] {
        opt.extend_from_slice(&v.to_be_bytes());
    }
    s.write_all(&packet(b'O', &opt)).expect("optneg");
    let (cmd, data) = read_packet(s);
    assert_eq!(cmd, b'O');
    data
}

/// A milter on a Unix socket in `dir` with `--drain SECS`, one session
/// negotiated with it, and its log.
fn started(
    dir: &std::path::Path,
    drain: &str,
) -> (
    Running,
    std::path::PathBuf,
    UnixStream,
    std::sync::mpsc::Receiver<String>,
) {
    let path = dir.join("milter.sock");
    let mut child = Running(
        milter(&path)
            .arg("--drain")
            .arg(drain)
            .spawn()
            .expect("spawn"),
    );
    let mut s = connect(&path, &mut child.0);
    let rx = log_lines(&mut child.0);
    negotiate(&mut s);
    (child, path, s, rx)
}

/// A service manager's stop (SIGTERM) in the middle of a message: new
/// sessions are refused at once, the message being received is still
/// answered with its changes, and the milter exits 0 when its last session
/// ends, removing its socket.
#[test]
fn a_stop_signal_lets_the_open_session_finish_its_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, path, mut s, rx) = started(dir.path(), "60");
    let mut log = String::new();
    s.write_all(&packet(b'D', b"Ei\0QID77\0")).expect("macro");
    s.write_all(&packet(b'L', b"Subject\0=?iso-8859-1?Q?Voil=E0?=\0"))
        .expect("header");
    signal(&child.0, libc::SIGTERM);
    assert!(
        wait_for_line(&rx, "SIGTERM: no new sessions; waiting for 1", &mut log),
        "the stop is logged with the open session: {log}"
    );
    let start = std::time::Instant::now();
    while UnixStream::connect(&path).is_ok() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "still accepting sessions after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        child.0.try_wait().expect("try_wait"),
        None,
        "the milter waits for the open session: {log}"
    );
    s.write_all(&packet(b'B', b"plain\r\n")).expect("body");
    s.write_all(&packet(b'E', b"")).expect("eom");
    let (cmd, data) = read_packet(&mut s);
    assert_eq!(cmd, b'm', "a changed field, not {:?}", cmd as char);
    assert_eq!(&data[4..], b"Subject\0=?UTF-8?B?Vm9pbMOg?=\0");
    assert_eq!(read_packet(&mut s).0, b'a');
    s.write_all(&packet(b'Q', b"")).expect("quit");
    drop(s);
    assert_eq!(
        exit_code_within(&mut child.0, Duration::from_secs(30)),
        Some(0),
        "exits 0 once the session has ended"
    );
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        log.push_str(&line);
        log.push('\n');
    }
    assert!(log.contains("QID77"), "the message is logged: {log}");
    assert!(
        log.contains("stopped: every session finished"),
        "the stop says nothing was cut: {log}"
    );
    assert!(!path.exists(), "the socket is removed");
}

/// A session still open when `--drain` runs out is cut (the MTA applies
/// its milter_default_action) and the milter says so.
#[test]
fn a_session_open_past_the_drain_is_cut_and_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, _path, _session, rx) = started(dir.path(), "1");
    signal(&child.0, libc::SIGTERM);
    assert_eq!(
        exit_code_within(&mut child.0, Duration::from_secs(30)),
        Some(0)
    );
    let mut log = String::new();
    assert!(
        wait_for_line(&rx, "1 open session(s) cut", &mut log),
        "the cut session is reported: {log}"
    );
}

/// A second signal does not wait for the drain.
#[test]
fn a_second_signal_stops_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, _path, _session, rx) = started(dir.path(), "600");
    let mut log = String::new();
    signal(&child.0, libc::SIGINT);
    assert!(
        wait_for_line(&rx, "SIGINT: no new sessions", &mut log),
        "{log}"
    );
    signal(&child.0, libc::SIGINT);
    assert_eq!(
        exit_code_within(&mut child.0, Duration::from_secs(30)),
        Some(0),
        "{log}"
    );
    assert!(
        wait_for_line(&rx, "SIGINT again: stopping now; 1 open", &mut log),
        "{log}"
    );
}

/// One message through an open session: its queue id in the `i` macro,
/// a Subject in ISO-8859-1, the replies read to the final accept.
fn one_message(s: &mut UnixStream, queue_id: &str) {
    s.write_all(&packet(b'D', format!("Ei\0{queue_id}\0").as_bytes()))
        .expect("macro");
    s.write_all(&packet(b'L', b"Subject\0=?iso-8859-1?Q?Voil=E0?=\0"))
        .expect("header");
    s.write_all(&packet(b'B', b"plain\r\n")).expect("body");
    s.write_all(&packet(b'E', b"")).expect("eom");
    assert_eq!(read_packet(s).0, b'm');
    assert_eq!(read_packet(s).0, b'a');
}

/// SIGHUP (logrotate's postrotate, a service manager's reload) reopens
/// the `--report` file at its path: after the file is moved away, the
/// next message's line goes to a new file, not on into the rotated one.
/// SIGHUP's default action used to end the milter. Without `--report` it
/// is logged and ignored.
#[test]
fn sighup_reopens_the_report_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let report = dir.path().join("report.jsonl");
    let rotated = dir.path().join("report.jsonl.1");
    let mut child = Running(
        milter(&path)
            .arg("--report")
            .arg(&report)
            .spawn()
            .expect("spawn"),
    );
    let mut s = connect(&path, &mut child.0);
    let rx = log_lines(&mut child.0);
    let mut log = String::new();
    negotiate(&mut s);
    one_message(&mut s, "QID1");
    assert!(wait_for_line(&rx, "QID1", &mut log), "{log}");
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&report).is_ok_and(|r| r.contains("QID1")) {
        assert!(start.elapsed() < Duration::from_secs(20), "no report line");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::rename(&report, &rotated).expect("rotate");
    signal(&child.0, libc::SIGHUP);
    assert!(wait_for_line(&rx, "SIGHUP: ", &mut log), "{log}");
    assert!(log.contains("reopened"), "{log}");
    one_message(&mut s, "QID2");
    assert!(wait_for_line(&rx, "QID2", &mut log), "{log}");
    // The report line is written just after the log line.
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_default();
    let start = std::time::Instant::now();
    while !read(&report).contains("QID2") && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (old, new) = (read(&rotated), read(&report));
    assert!(old.contains("\"QID1\"") && !old.contains("QID2"), "{old}");
    assert!(new.contains("\"QID2\"") && !new.contains("QID1"), "{new}");
    assert_eq!(child.0.try_wait().expect("try_wait"), None, "still running");

    // Without --report: logged, ignored, still answering.
    let other = dir.path().join("b");
    std::fs::create_dir(&other).expect("mkdir");
    let (mut child, _path, mut s, rx) = started(&other, "5");
    let mut log = String::new();
    signal(&child.0, libc::SIGHUP);
    assert!(wait_for_line(&rx, "SIGHUP: no --report", &mut log), "{log}");
    one_message(&mut s, "QID3");
    assert_eq!(child.0.try_wait().expect("try_wait"), None, "still running");
}

/// `--on-failure tempfail` defers only what a retry may not meet. A
/// message over `--max-message-size` is over it on every retry: it is
/// accepted unchanged, and the log says so (it was deferred, 4xx on every
/// retry until the sender's queue gave up and bounced it).
#[test]
fn tempfail_lets_a_message_over_the_limit_through() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let mut child = Running(
        milter(&path)
            .args(["--max-message-size", "1K", "--on-failure", "tempfail"])
            .spawn()
            .expect("spawn"),
    );
    let mut s = connect(&path, &mut child.0);
    let rx = log_lines(&mut child.0);
    negotiate(&mut s);
    s.write_all(&packet(b'D', b"Ei\0QIDBIG\0")).expect("macro");
    s.write_all(&packet(
        b'L',
        b"Content-Type\0text/plain; charset=iso-8859-1\0",
    ))
    .expect("header");
    s.write_all(&packet(b'B', &b"caf\xe9 ".repeat(400)))
        .expect("body");
    s.write_all(&packet(b'E', b"")).expect("eom");
    let (cmd, _) = read_packet(&mut s);
    assert_eq!(cmd, b'a', "accepted, not {:?}", cmd as char);
    let mut log = String::new();
    assert!(wait_for_line(&rx, "QIDBIG", &mut log), "{log}");
    assert!(
        log.contains("over --max-message-size") && log.contains("not deferred"),
        "{log}"
    );
}

/// The end of the body (`E`) may carry the body's last chunk, as
/// libmilter's st_bodyend reads it and Sendmail sent it. The milter
/// dropped it: the body it sent back with `replbody` lacked the tail, and
/// the MTA delivered the message cut short. Now the message the MTA
/// delivers after the milter's edits is whole, and byte for byte what
/// `mailcharset filter` writes for the message the MTA had.
#[test]
fn the_last_body_chunk_sent_with_end_of_body_is_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let mut child = Running(milter(&path).spawn().expect("spawn"));
    let mut s = connect(&path, &mut child.0);
    negotiate(&mut s);
    // Values without their leading space: SMFIP_HDR_LEADSPC is not
    // offered, so the MTA writes `Name: value`.
    let headers: &[(&[u8], &[u8])] = &[
        (b"From", b"a@example.org"),
        (b"Subject", b"=?iso-8859-1?Q?Voil=E0?="),
        (b"Content-Type", b"text/plain; charset=iso-8859-1"),
    ];
    let (body, tail) = (
        &b"Caf\xe9 first line\r\n"[..],
        &b"the LAST line, cr\xe8me br\xfbl\xe9e, sent with end-of-body\r\n"[..],
    );
    s.write_all(&packet(b'D', b"Ei\0QIDEOB\0")).expect("macro");
    for (n, v) in headers {
        s.write_all(&packet(b'L', &[*n, b"\0", *v, b"\0"].concat()))
            .expect("header");
    }
    s.write_all(&packet(b'N', b"")).expect("eoh");
    s.write_all(&packet(b'B', body)).expect("body");
    s.write_all(&packet(b'E', tail))
        .expect("eom with the last chunk");
    let mut fields: Vec<(Vec<u8>, Vec<u8>)> = headers
        .iter()
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect();
    let mut new_body: Option<Vec<u8>> = None;
    let nul_pair = |d: &[u8]| {
        let mut it = d.splitn(3, |&b| b == 0);
        let n = it.next().unwrap_or_default().to_vec();
        (n, it.next().unwrap_or_default().to_vec())
    };
    loop {
        let (cmd, data) = read_packet(&mut s);
        match cmd {
            b'm' => {
                let index = u32::from_be_bytes(data[..4].try_into().expect("index")) as usize;
                let (name, value) = nul_pair(&data[4..]);
                let f = fields
                    .iter_mut()
                    .filter(|f| f.0.eq_ignore_ascii_case(&name))
                    .nth(index - 1)
                    .expect("chgheader names a field the MTA has");
                f.1 = value;
            }
            b'h' => fields.push(nul_pair(&data)),
            b'b' => new_body
                .get_or_insert_with(Vec::new)
                .extend_from_slice(&data),
            b'a' | b'c' => break,
            other => panic!("unexpected reply {:?}", other as char),
        }
    }
    s.write_all(&packet(b'Q', b"")).expect("quit");
    let message = |fields: &[(Vec<u8>, Vec<u8>)], body: &[u8]| {
        let mut m = Vec::new();
        for (n, v) in fields {
            m.extend_from_slice(n);
            m.extend_from_slice(b": ");
            m.extend_from_slice(&crate::common::to_crlf(v));
            m.extend_from_slice(b"\r\n");
        }
        m.extend_from_slice(b"\r\n");
        m.extend_from_slice(body);
        m
    };
    let whole = [body, tail].concat();
    let new_body = new_body.expect("the body is converted");
    let had = message(
        &headers
            .iter()
            .map(|(n, v)| (n.to_vec(), v.to_vec()))
            .collect::<Vec<_>>(),
        &whole,
    );
    let delivered = message(&fields, &new_body);
    let mut f = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .arg("filter")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run filter");
    f.stdin
        .take()
        .expect("stdin")
        .write_all(&had)
        .expect("write");
    let filtered = f.wait_with_output().expect("filter").stdout;
    assert_eq!(
        String::from_utf8_lossy(&delivered),
        String::from_utf8_lossy(&filtered)
    );
    let text = String::from_utf8_lossy(&new_body);
    assert!(
        text.contains("LAST line") || text.contains("TEFTVCBsaW5l"),
        "the tail is in the new body: {text}"
    );
}

/// A milter packet over the milter's limit (1 MiB; Postfix and Sendmail
/// send at most 64 KiB of body at a time, but a client of its own may send
/// a whole field in one) ends the session: the MTA applies its
/// `milter_default_action`. It did so without a word in the log, where
/// every message let go has its line. Now the line names the queue id and
/// the size.
#[test]
fn a_packet_over_the_limit_is_logged_when_it_ends_the_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_child, _path, mut s, rx) = started(dir.path(), "5");
    s.write_all(&packet(b'D', b"Ei\0QIDHUGE\0")).expect("macro");
    let mut field = b"X-Big\0".to_vec();
    field.extend(std::iter::repeat_n(b'a', 2 * 1024 * 1024));
    field.push(0);
    // The milter closes the connection after the length: the rest of the
    // write may fail (EPIPE), as the MTA's did.
    let _ = s.write_all(&packet(b'L', &field));
    let mut log = String::new();
    assert!(wait_for_line(&rx, "QIDHUGE", &mut log), "{log}");
    assert!(
        log.contains("2097160 octets, over the limit of 1048576")
            && log.contains("milter_default_action"),
        "{log}"
    );
}

/// A session that ends in the middle of a message (the MTA closes the
/// connection, or it times out, after the header fields) lets the MTA
/// apply its `milter_default_action`: the message goes unfiltered or is
/// deferred. The log said nothing of it; now a line names the queue id.
/// A session closed between messages stays silent.
#[test]
fn a_session_cut_mid_message_is_logged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_child, _path, mut s, rx) = started(dir.path(), "5");
    s.write_all(&packet(b'D', b"Ei\0QIDCUT\0")).expect("macro");
    s.write_all(&packet(b'L', b"Subject\0cut short\0"))
        .expect("header");
    drop(s);
    let mut log = String::new();
    assert!(wait_for_line(&rx, "QIDCUT", &mut log), "{log}");
    assert!(
        log.contains("session ended in the middle of a message")
            && log.contains("milter_default_action"),
        "{log}"
    );
}

/// A connection the milter cannot start a thread for (the system out of
/// memory or of threads; here every session thread asks for a stack
/// larger than the address space, `RUST_MIN_STACK`) is closed, and the
/// MTA applies its milter_default_action to that session; the milter
/// goes on taking connections and stops cleanly. `std::thread::spawn`
/// panicked in the thread taking connections: the milter exited (101) at
/// the first such connection, every open session with it.
#[test]
fn a_session_without_a_thread_is_closed_and_the_milter_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let mut child = Running(
        milter(&path)
            .env("RUST_MIN_STACK", (1u64 << 48).to_string())
            .arg("--drain")
            .arg("60")
            .spawn()
            .expect("spawn"),
    );
    let mut first = Some(connect(&path, &mut child.0));
    let rx = log_lines(&mut child.0);
    let mut log = String::new();
    for k in 0..3 {
        let mut s = match first.take() {
            Some(s) => s,
            None => UnixStream::connect(&path).expect("the milter still listens"),
        };
        s.set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let mut opt = Vec::new();
        for v in [6u32, 0x1FF, 0x0F_FFFF] {
            opt.extend_from_slice(&v.to_be_bytes());
        }
        let _ = s.write_all(&packet(b'O', &opt));
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        assert!(rest.is_empty(), "session {k} was answered: {rest:?}");
        assert!(
            wait_for_line(&rx, "cannot start a thread", &mut log),
            "session {k}: {log}"
        );
        assert!(
            matches!(child.0.try_wait(), Ok(None)),
            "session {k}: the milter is gone: {:?}\n{log}",
            child.0.try_wait()
        );
    }
    assert!(log.contains("milter_default_action"), "{log}");
    // The refused sessions are not waited for: a stop ends at once.
    signal(&child.0, libc::SIGTERM);
    assert_eq!(
        exit_code_within(&mut child.0, Duration::from_secs(20)),
        Some(0)
    );
    assert!(
        wait_for_line(&rx, "every session finished", &mut log),
        "{log}"
    );
}

/// A peer that stops reading the replies (a wedged MTA, a client of its
/// own) is dropped after `--timeout` seconds, as a silent one is, and the
/// log says which message: only reads timed out, and the session sat in
/// its write for ever, holding its thread and its message; a stop then
/// waited out the whole `--drain` and cut it.
#[test]
fn a_peer_that_does_not_read_the_replies_is_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let mut child = Running(
        milter(&path)
            .args(["--timeout", "1", "--drain", "60"])
            .spawn()
            .expect("spawn"),
    );
    let mut s = connect(&path, &mut child.0);
    let rx = log_lines(&mut child.0);
    negotiate(&mut s);
    s.write_all(&packet(b'D', b"Ei\0QIDWEDGED\0"))
        .expect("macro");
    s.write_all(&packet(
        b'L',
        b"Content-Type\0 text/plain; charset=iso-8859-1\0",
    ))
    .expect("header");
    // A body whose replacement is far larger than the socket's buffers.
    let body = b"caf\xe9 au lait, s'il vous pla\xeet\r\n".repeat(60_000);
    for chunk in body.chunks(65_535) {
        s.write_all(&packet(b'B', chunk)).expect("body");
    }
    s.write_all(&packet(b'E', b"")).expect("end of message");
    // Never read: the milter's replies fill the socket and stop.
    let mut log = String::new();
    assert!(
        wait_for_line(&rx, "QIDWEDGED: cannot send the replies", &mut log),
        "{log}"
    );
    assert!(log.contains("milter_default_action"), "{log}");
    signal(&child.0, libc::SIGTERM);
    assert_eq!(
        exit_code_within(&mut child.0, Duration::from_secs(20)),
        Some(0)
    );
    assert!(
        wait_for_line(&rx, "every session finished", &mut log),
        "{log}"
    );
    drop(s);
}

/// `--max-sessions`: a connection beyond the limit is not answered until
/// a session ends (it waits in the socket's queue; the MTA's own timeouts
/// decide how long), then it is served as any other. Without a limit every
/// session held a thread and up to `--max-message-size` of message, however
/// many connections came.
#[test]
fn a_connection_over_max_sessions_waits_for_a_session_to_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let mut child = Running(
        milter(&path)
            .args(["--max-sessions", "1", "--drain", "60"])
            .spawn()
            .expect("spawn"),
    );
    let mut first = connect(&path, &mut child.0);
    let rx = log_lines(&mut child.0);
    negotiate(&mut first);
    let mut second = UnixStream::connect(&path).expect("queued by the kernel");
    let mut opt = Vec::new();
    for v in [6u32, 0x1FF, 0x0F_FFFF] {
        opt.extend_from_slice(&v.to_be_bytes());
    }
    second.write_all(&packet(b'O', &opt)).expect("optneg");
    let mut log = String::new();
    assert!(
        wait_for_line(&rx, "1 session(s) open (--max-sessions)", &mut log),
        "{log}"
    );
    second
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("timeout");
    let mut byte = [0u8; 1];
    assert!(
        second.read(&mut byte).is_err(),
        "the second session was answered while the first was open"
    );
    one_message(&mut first, "QIDFIRST");
    first.write_all(&packet(b'Q', b"")).expect("quit");
    drop(first);
    second
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let (cmd, _) = read_packet(&mut second);
    assert_eq!(cmd, b'O', "served once the first session ended");
    one_message(&mut second, "QIDSECOND");
    assert!(wait_for_line(&rx, "QIDSECOND", &mut log), "{log}");
}

/// A stop signal while a connection waits at `--max-sessions`: the waiting
/// connection is never served (the MTA applies its milter_default_action),
/// the open session still finishes, and the milter exits 0.
#[test]
fn a_stop_signal_ends_the_wait_at_max_sessions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("milter.sock");
    let mut child = Running(
        milter(&path)
            .args(["--max-sessions", "1", "--drain", "60"])
            .spawn()
            .expect("spawn"),
    );
    let mut first = connect(&path, &mut child.0);
    let rx = log_lines(&mut child.0);
    negotiate(&mut first);
    let mut second = UnixStream::connect(&path).expect("queued by the kernel");
    let mut log = String::new();
    assert!(
        wait_for_line(&rx, "1 session(s) open (--max-sessions)", &mut log),
        "{log}"
    );
    signal(&child.0, libc::SIGTERM);
    assert!(
        wait_for_line(&rx, "SIGTERM: no new sessions; waiting for 1", &mut log),
        "{log}"
    );
    second
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut rest = Vec::new();
    let _ = second.read_to_end(&mut rest);
    assert!(
        rest.is_empty(),
        "the waiting connection was served: {rest:?}"
    );
    one_message(&mut first, "QIDLAST");
    first.write_all(&packet(b'Q', b"")).expect("quit");
    drop(first);
    assert_eq!(
        exit_code_within(&mut child.0, Duration::from_secs(30)),
        Some(0),
        "{log}"
    );
    assert!(
        wait_for_line(&rx, "every session finished", &mut log),
        "{log}"
    );
}
