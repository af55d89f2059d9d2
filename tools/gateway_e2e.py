#!/usr/bin/env python3
"""The mail gateway modes in a real Postfix, end to end (issue 16).

    python3 tools/gateway_e2e.py [--messages N] [--binary PATH]

Runs a throwaway Postfix instance (its own config, queue and mail
directories under a temporary folder; SMTP on 127.0.0.1 only, an
unprivileged port) that delivers every message for example.test into one
Maildir, and sends N generated messages (default 1,000: many charsets,
encoded-words, RFC 2231 file names, attachments, damaged and mislabelled
text, UNICODE-1-1-UTF-8, a few over the milter's size limit) from 8
concurrent SMTP clients, in three modes:

- neither: Postfix alone (the throughput baseline);
- milter: `mailcharset milter` as smtpd_milters;
- filter: `mailcharset filter` as an after-queue pipe(8) content filter
  (examples/postfix-content-filter.sh), re-injecting with sendmail.

Then the milter is killed in the middle of a fourth run: Postfix applies
milter_default_action (accept) and nothing is lost. In a fifth it is
restarted the way a service manager does (SIGTERM while eight SMTP sessions
send, then a new milter on the same socket): the stopping milter finishes
every open session, cuts none and exits 0; nothing is lost.

Checks, per mode: every Message-ID delivered exactly once; each text part
reads (Python's email) as the original text (the damaged line of a damaged
message excepted); attachments byte for byte; in the gateway modes, messages
over the size limit arrive byte for byte apart from Postfix's trace fields.
Prints messages per second for each mode. Needs root (Postfix) and installs
postfix with apt-get when it is missing. Exit status 0 when every check
passed.
"""

import argparse
import base64
import email
import email.policy
import os
import random
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from email.message import EmailMessage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACE = {"received", "return-path", "delivered-to", "x-original-to"}
MAX_SIZE = 256 * 1024


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def ensure_postfix():
    if shutil.which("postfix") or os.path.exists("/usr/sbin/postfix"):
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "postfix"], check=True, env=env)


# --- Messages -------------------------------------------------------------

TEXTS = {
    "utf-8": "Grüße aus Zürich — 日本語のテキスト, привет.\n",
    "koi8-r": "Съешь же ещё этих мягких французских булок, да выпей чаю.\n",
    "iso-2022-jp": "会議の資料を送ります。よろしくお願いします。\n",
    "shift_jis": "明日の午後三時から始まります。ありがとうございました。\n",
    "gb2312": "这是一个中文文本，谢谢你的帮助。\n",
    "big5": "這是中文文字，謝謝你的幫助。\n",
    "euc-kr": "안녕하세요 한국어 텍스트입니다.\n",
    "windows-1252": "Voilà déjà l'été, ça va très bien. À bientôt.\n",
}
CODEC = {"utf-8": "utf-8", "koi8-r": "koi8_r", "iso-2022-jp": "iso2022_jp",
         "shift_jis": "shift_jis", "gb2312": "gb2312", "big5": "big5",
         "euc-kr": "euc_kr", "windows-1252": "cp1252"}
# Unicode 1.1 Hangul (U+3400..) for 안녕 (from src/codec/hangul_table.rs,
# generated from the Unicode 1.1 data) and what it becomes.
OLD_HANGUL = "\u394b\u3560"
NEW_HANGUL = "안녕"


def encoded_word(text, charset):
    return "=?%s?B?%s?=" % (charset, base64.b64encode(text.encode(CODEC[charset])).decode())


def make(i, rng):
    """One message: (raw octets, expectation)."""
    mid = "<gw-%d-%d@example.org>" % (i, rng.randrange(1 << 30))
    kind = rng.choice(["clean", "legacy", "legacy", "legacy", "attach", "damaged",
                       "mislabeled", "u11", "rfc2231"] + (["oversize"] if i % 97 == 5 else []))
    cs = rng.choice(list(TEXTS))
    text = TEXTS[cs] * rng.randrange(1, 4)
    exp = {"mid": mid, "kind": kind, "texts": [], "attachments": [], "damaged_line": None}
    head = ("From: Sender <sender@example.org>\r\nTo: box@example.test\r\n"
            "Message-ID: %s\r\nDate: Mon, 23 Nov 2026 01:00:00 +0000\r\n"
            "Subject: %s\r\nMIME-Version: 1.0\r\n" % (mid, encoded_word("Test %d %s" % (i, TEXTS[cs].strip()[:12]), cs)))
    if kind == "clean":
        body = text.encode("utf-8")
        raw = head + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        exp["texts"] = [text]
        return raw.encode() + body.replace(b"\n", b"\r\n"), exp
    if kind in ("legacy", "oversize"):
        body = text.encode(CODEC[cs])
        if kind == "oversize":
            body = body * (MAX_SIZE // len(body) + 10)
            text = text * (MAX_SIZE // len(TEXTS[cs].encode(CODEC[cs])) + 10) if False else None
        raw = head + "Content-Type: text/plain; charset=%s\r\nContent-Transfer-Encoding: base64\r\n\r\n" % cs
        b64 = base64.encodebytes(body).replace(b"\n", b"\r\n")
        if text is not None:
            exp["texts"] = [text]
        return raw.encode() + b64, exp
    if kind == "attach":
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(100, 5000)))
        b = "b-%d" % i
        raw = (head + 'Content-Type: multipart/mixed; boundary="%s"\r\n\r\n--%s\r\n'
               "Content-Type: text/plain; charset=%s\r\nContent-Transfer-Encoding: base64\r\n\r\n" % (b, b, cs))
        raw = raw.encode() + base64.encodebytes(text.encode(CODEC[cs])).replace(b"\n", b"\r\n")
        raw += ("--%s\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n"
                "Content-Disposition: attachment; filename=\"data.bin\"\r\n\r\n" % b).encode()
        raw += base64.encodebytes(data).replace(b"\n", b"\r\n") + ("--%s--\r\n" % b).encode()
        exp["texts"] = [text]
        exp["attachments"] = [data]
        return raw, exp
    if kind == "damaged":
        lines = (TEXTS["utf-8"] * 3).encode().split(b"\n")
        lines[1] = lines[1] + b"\xff"
        raw = head + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        exp["texts"] = [TEXTS["utf-8"] * 3]
        exp["damaged_line"] = 1
        return raw.encode() + b"\r\n".join(lines), exp
    if kind == "mislabeled":
        t = TEXTS["koi8-r"] * 3
        raw = head + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        exp["texts"] = [t]
        exp["mislabeled"] = True
        return raw.encode() + t.encode("cp1251").replace(b"\n", b"\r\n"), exp
    if kind == "u11":
        raw = head + "Content-Type: text/plain; charset=UNICODE-1-1-UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        exp["texts"] = [NEW_HANGUL + " text\n"]
        exp["u11"] = True
        return raw.encode() + (OLD_HANGUL + " text\r\n").encode(), exp
    # rfc2231: a file name in iso-8859-1
    b = "r-%d" % i
    fname = "Frösche und Hasen.txt"
    pct = "".join("%%%02X" % c for c in fname.encode("latin-1"))
    data = b"plain attachment\r\n"
    raw = (head + 'Content-Type: multipart/mixed; boundary="%s"\r\n\r\n--%s\r\n'
           "Content-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n--%s\r\n"
           "Content-Type: text/plain; charset=us-ascii\r\nContent-Disposition: attachment; filename*=iso-8859-1''%s\r\n\r\n"
           % (b, b, "hello", b, pct)).encode() + data + ("--%s--\r\n" % b).encode()
    # The CRLF before a boundary belongs to the boundary (RFC 2046 5.1.1).
    exp["texts"] = ["hello", "plain attachment"]
    exp["filename"] = fname
    return raw, exp


# --- Postfix --------------------------------------------------------------

MASTER = """\
127.0.0.1:{smtp} inet n - n - - smtpd {smtpd_opts}
pickup    unix n - n 60 1 pickup
cleanup   unix n - n - 0 cleanup
qmgr      unix n - n 300 1 qmgr
rewrite   unix - - n - - trivial-rewrite
bounce    unix - - n - 0 bounce
defer     unix - - n - 0 bounce
trace     unix - - n - 0 bounce
verify    unix - - n - 1 verify
flush     unix n - n 1000? 0 flush
proxymap  unix - - n - - proxymap
smtp      unix - - n - - smtp
relay     unix - - n - - smtp
showq     unix n - n - - showq
error     unix - - n - - error
retry     unix - - n - - error
discard   unix - - n - - discard
local     unix - n n - - local
virtual   unix - n n - - virtual
lmtp      unix - - n - - lmtp
anvil     unix - - n - 1 anvil
scache    unix - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
mcfilter  unix - n n - 10 pipe flags=Rq user=nobody null_sender= argv={script} -C {etc} ${{sender}} ${{recipient}}
"""

MAIN = """\
compatibility_level = 3.6
queue_directory = {base}/spool
data_directory = {base}/data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
meta_directory = /etc/postfix
shlib_directory = /usr/lib/postfix
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = gw.example.test
mydomain = example.test
mydestination =
mynetworks = 127.0.0.0/8
alias_maps =
alias_database =
local_recipient_maps =
virtual_mailbox_domains = example.test
virtual_mailbox_base = {base}/mail
virtual_mailbox_maps = static:box/
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
virtual_mailbox_limit = 0
message_size_limit = 0
smtpd_recipient_restrictions = permit_mynetworks, reject_unauth_destination
maillog_file = {base}/maillog
maillog_file_prefixes = {base}
milter_protocol = 6
milter_default_action = accept
smtpd_milters = {milters}
default_destination_concurrency_limit = 20
"""


class Postfix:
    def __init__(self, base, mode, milter, binary):
        self.base = base
        self.etc = os.path.join(base, "etc")
        self.smtp = free_port()
        os.makedirs(self.etc)
        for d in ("spool", "data", "mail"):
            os.makedirs(os.path.join(base, d))
        os.chown(os.path.join(base, "mail"), 65534, 65534)
        os.chown(os.path.join(base, "data"), *owner("postfix"))
        script = os.path.join(base, "content-filter.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\nMAILCHARSET=%s MAILCHARSET_OPTS='--max-message-size %d' exec %s \"$@\"\n"
                    % (binary, MAX_SIZE, os.path.join(ROOT, "examples", "postfix-content-filter.sh")))
        os.chmod(script, 0o755)
        smtpd_opts = "-o content_filter=mcfilter:dummy" if mode == "filter" else ""
        with open(os.path.join(self.etc, "master.cf"), "w") as f:
            f.write(MASTER.format(smtp=self.smtp, smtpd_opts=smtpd_opts, script=script, etc=self.etc))
        milters = milter or ""
        with open(os.path.join(self.etc, "main.cf"), "w") as f:
            f.write(MAIN.format(base=base, milters=milters))
        os.chmod(base, 0o755)
        subprocess.run(["postfix", "-c", self.etc, "set-permissions"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Postfix logs to syslog until its own log daemon runs: a pseudo
        # terminal makes it say on stderr why it would not start.
        started = subprocess.run(["script", "-qc", "postfix -c %s start" % self.etc, "/dev/null"],
                                 capture_output=True, text=True)
        if started.returncode != 0:
            raise SystemExit("postfix did not start: %s" % started.stdout.strip()[-500:])
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.smtp), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("postfix did not start: see %s/maillog" % base)

    def stop(self):
        subprocess.run(["postfix", "-c", self.etc, "stop"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def delivered(self):
        box = os.path.join(self.base, "mail", "box")
        out = []
        for sub in ("new", "cur"):
            d = os.path.join(box, sub)
            if os.path.isdir(d):
                out.extend(os.path.join(d, n) for n in os.listdir(d))
        return out


def owner(user):
    import pwd
    p = pwd.getpwnam(user)
    return p.pw_uid, p.pw_gid


def send_all(port, messages, clients=8):
    """Sends every message from `clients` concurrent SMTP sessions."""
    queue = list(enumerate(messages))
    lock = threading.Lock()
    errors = []

    def worker():
        s = smtplib.SMTP("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                if not queue:
                    break
                _, (raw, _) = queue.pop()
            try:
                s.sendmail("sender@example.org", ["box@example.test"], raw)
            except smtplib.SMTPException as e:
                errors.append(repr(e))
        s.quit()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def wait_for(pf, n, limit=600):
    for _ in range(limit * 10):
        if len(pf.delivered()) >= n:
            return True
        time.sleep(0.1)
    return False


# --- Checks ---------------------------------------------------------------

def body_lines(t):
    return t.replace("\r\n", "\n").split("\n")


def check(mode, pf, messages):
    """Returns a list of failures."""
    fails = []
    by_mid = {}
    for path in pf.delivered():
        raw = open(path, "rb").read()
        m = email.message_from_bytes(raw, policy=email.policy.default)
        mid = m["message-id"]
        by_mid.setdefault(mid, []).append(raw)
    for raw_in, exp in messages:
        got = by_mid.get(exp["mid"], [])
        if len(got) != 1:
            fails.append("%s: %s delivered %d times" % (mode, exp["mid"], len(got)))
            continue
        out = got[0]
        gateway = mode in ("milter", "milter-unix", "filter")
        # Over the size limit: passed on unchanged by the milter and by the
        # filter (which gets the same --max-message-size).
        if exp["kind"] == "oversize" and gateway:
            hdr_end = out.find(b"\n\n")
            kept = [l for l in out[:hdr_end].split(b"\n")]
            # Drop Postfix's trace fields (and their folded lines).
            lines, skip = [], False
            for l in kept:
                if l[:1] in (b" ", b"\t"):
                    if not skip:
                        lines.append(l)
                    continue
                skip = l.split(b":", 1)[0].lower().decode("latin-1") in TRACE
                if not skip:
                    lines.append(l)
            again = b"\n".join(lines) + out[hdr_end:]
            if again != raw_in.replace(b"\r\n", b"\n"):
                fails.append("%s: %s (over the limit) changed" % (mode, exp["mid"]))
            continue
        m = email.message_from_bytes(out, policy=email.policy.default)
        texts = []
        attachments = []
        for part in m.walk():
            if part.is_multipart():
                continue
            if part.get_content_maintype() == "text":
                try:
                    texts.append(part.get_content())
                except Exception as e:  # noqa: BLE001 - a reader failing is a finding
                    texts.append("<%r>" % e)
                if exp.get("filename") and part.get_filename() and gateway and part.get_filename() != exp["filename"]:
                    fails.append("%s: %s file name %r" % (mode, exp["mid"], part.get_filename()))
            else:
                attachments.append(part.get_payload(decode=True))
        if not gateway:
            continue  # Postfix alone: delivery and throughput only
        want = exp["texts"]
        if len(texts) != len(want):
            fails.append("%s: %s has %d text parts, expected %d" % (mode, exp["mid"], len(texts), len(want)))
            continue
        for t, w in zip(texts, want):
            if exp["damaged_line"] is not None:
                tl, wl = body_lines(t), body_lines(w)
                bad = [k for k, (a, b) in enumerate(zip(tl, wl)) if a != b and k != exp["damaged_line"]]
                if bad or len(tl) != len(wl):
                    fails.append("%s: %s undamaged lines changed: %r" % (mode, exp["mid"], t[:80]))
            elif t.replace("\r\n", "\n") != w:
                fails.append("%s: %s text %r, expected %r" % (mode, exp["mid"], t[:60], w[:60]))
        if attachments != exp["attachments"]:
            fails.append("%s: %s attachments differ" % (mode, exp["mid"]))
    return fails


def wait_for_milter(listen):
    kind, _, where = listen.partition(":")
    for _ in range(100):
        try:
            if kind == "inet":
                host, _, port = where.rpartition(":")
                socket.create_connection((host, int(port)), 0.2).close()
            else:
                s = socket.socket(socket.AF_UNIX)
                s.connect(where)
                s.close()
                # smtpd runs as the postfix user: the socket must be
                # writable for it (a real setup runs the milter as postfix
                # or puts both in one group).
                os.chmod(where, 0o666)
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("gateway_e2e: the milter did not listen on %s" % listen)


def run_mode(mode, messages, binary, base_dir):
    os.makedirs(base_dir, exist_ok=True)
    os.chmod(base_dir, 0o755)
    milter = None
    listen = None
    if mode in ("milter", "killed"):
        listen = "inet:127.0.0.1:%d" % free_port()
    elif mode in ("milter-unix", "restarted"):
        listen = "unix:%s" % os.path.join(base_dir, "milter.sock")
    if listen:
        milter = subprocess.Popen([binary, "milter", "--listen", listen,
                                   "--max-message-size", str(MAX_SIZE)],
                                  stderr=open(os.path.join(base_dir, "milter-%s.log" % mode), "w"))
        wait_for_milter(listen)
    pf = Postfix(os.path.join(base_dir, mode), mode, listen, binary)
    try:
        start = time.time()
        restart_fails = []
        if mode == "killed":
            half = len(messages) // 2
            errors = send_all(pf.smtp, messages[:half])
            milter.send_signal(signal.SIGKILL)
            milter.wait()
            errors += send_all(pf.smtp, messages[half:])
        elif mode == "restarted":
            # A service manager's restart while mail flows: SIGTERM while
            # 8 SMTP sessions are sending the second third, then a new
            # milter on the same socket for the last third. The stopping
            # milter finishes its open sessions (no message cut), exits 0;
            # sessions in between get milter_default_action (accept).
            third = len(messages) // 3
            errors = send_all(pf.smtp, messages[:third])
            out = []
            sender = threading.Thread(
                target=lambda: out.extend(send_all(pf.smtp, messages[third:2 * third])))
            sender.start()
            first_log = os.path.join(base_dir, "milter-%s.log" % mode)
            # Signal once the second third is flowing: a few of its
            # messages logged.
            for _ in range(600):
                with open(first_log, errors="replace") as f:
                    if sum(1 for l in f if re.match(r"mailcharset milter: [0-9A-F]{6,} ", l)) >= third + 3:
                        break
                time.sleep(0.01)
            milter.send_signal(signal.SIGTERM)
            try:
                rc = milter.wait(timeout=90)
            except subprocess.TimeoutExpired:
                rc = None
            with open(first_log, errors="replace") as f:
                log = f.read()
            if rc != 0:
                restart_fails.append("restarted: the milter exited %r after SIGTERM" % rc)
            if "stopped: every session finished" not in log:
                restart_fails.append("restarted: sessions cut at the stop (see %s)" % first_log)
            if not re.search(r"SIGTERM: no new sessions; waiting for [1-9]", log):
                restart_fails.append("restarted: no session was open at the SIGTERM (see %s)"
                                     % first_log)
            milter = subprocess.Popen([binary, "milter", "--listen", listen,
                                       "--max-message-size", str(MAX_SIZE)],
                                      stderr=open(os.path.join(base_dir, "milter-restarted-2.log"), "w"))
            wait_for_milter(listen)
            sender.join()
            errors += out
            errors += send_all(pf.smtp, messages[2 * third:])
        else:
            errors = send_all(pf.smtp, messages)
        ok = wait_for(pf, len(messages))
        elapsed = time.time() - start
        fails = ["%s: SMTP error %s" % (mode, e) for e in errors[:5]]
        if not ok:
            fails.append("%s: only %d of %d delivered (see %s/maillog)"
                         % (mode, len(pf.delivered()), len(messages), pf.base))
        fails += check(mode, pf, messages) + restart_fails
        if mode in ("milter", "milter-unix"):
            # One log line per message, naming Postfix's queue id.
            milter.terminate()
            milter.wait()
            with open(os.path.join(base_dir, "milter-%s.log" % mode), errors="replace") as f:
                lines = [l for l in f if re.match(r"mailcharset milter: [0-9A-F]{6,} ", l)]
            if len(lines) != len(messages):
                fails.append("%s: %d log lines with a queue id for %d messages"
                             % (mode, len(lines), len(messages)))
        return len(messages) / elapsed, fails
    finally:
        pf.stop()
        if milter and milter.poll() is None:
            milter.terminate()
            milter.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "mailcharset"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run the throughput modes this many times, interleaved; the best "
                         "rate of each is reported (the machine's noise is large)")
    ap.add_argument("--modes", default="neither,milter,milter-unix,filter,killed,restarted",
                    help="which runs to make (comma-separated; the default is all six)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("gateway_e2e: needs root (it runs a Postfix instance)")
    ensure_postfix()
    rng = random.Random(20261123)
    messages = [make(i, rng) for i in range(args.messages)]
    base_dir = tempfile.mkdtemp(prefix="mailcharset-gw-")
    os.chmod(base_dir, 0o755)
    # The content filter re-injects with `sendmail -C` as an unprivileged
    # user: Postfix allows that only for configuration directories the
    # default main.cf lists. Added for the run, the file restored after.
    # A run stopped by SIGTERM (a CI timeout) still restores main.cf.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("gateway_e2e: terminated"))
    default_cf = "/etc/postfix/main.cf"
    saved = open(default_cf).read() if os.path.exists(default_cf) else None
    if saved is not None:
        # Lines a killed earlier run left behind.
        saved = "".join(l for l in saved.splitlines(True)
                        if not l.startswith("alternate_config_directories = " + tempfile.gettempdir()
                                            + "/mailcharset-gw-"))
    with open(default_cf, "w") as f:
        f.write((saved or "") + "\nalternate_config_directories = %s\n"
                % " ".join("%s/%d/filter/etc" % (base_dir, r) for r in range(args.rounds)))
    results = {}
    fails = []
    try:
        modes = args.modes.split(",")
        for r in range(args.rounds):
            for mode in [m for m in ("neither", "milter", "milter-unix", "filter") if m in modes]:
                rate, f = run_mode(mode, messages, args.binary, os.path.join(base_dir, str(r)))
                results[mode] = max(rate, results.get(mode, 0))
                fails += f
                print("%-11s %7.1f messages/s  (%d checks failed)" % (mode, rate, len(f)), flush=True)
        if "killed" in modes:
            killed = messages[: min(200, len(messages))]
            _, f = run_mode("killed", killed, args.binary, os.path.join(base_dir, "k"))
            fails += f
            print("milter killed mid-run: %d messages, %d checks failed" % (len(killed), len(f)), flush=True)
        if "restarted" in modes:
            restarted = messages[: min(600, len(messages))]
            _, f = run_mode("restarted", restarted, args.binary, os.path.join(base_dir, "r"))
            fails += f
            print("milter restarted (SIGTERM) mid-run: %d messages, %d checks failed"
                  % (len(restarted), len(f)), flush=True)
    finally:
        if saved is None:
            os.remove(default_cf)
        else:
            with open(default_cf, "w") as f:
                f.write(saved)
        if args.keep:
            print("kept", base_dir)
        else:
            shutil.rmtree(base_dir, ignore_errors=True)
    if results.get("neither"):
        for mode in ("milter", "milter-unix", "filter"):
            if mode in results:
                print("%s at %.2fx of Postfix alone" % (mode, results[mode] / results["neither"]))
    for f in fails[:40]:
        print("FAIL", f)
    print("%d passed, %d failed" % (1 if not fails else 0, 1 if fails else 0))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
