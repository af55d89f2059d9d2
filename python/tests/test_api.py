"""The Python API against the CLI (same crate, so the same bytes and records)
and against Python's own `email` package and codecs as oracles.

The CLI is found in $MAILCHARSET_BIN, else target/release or target/debug of
the repository ($CARGO_TARGET_DIR first); without it the CLI comparisons are
skipped (visibly), never passed.
"""

import email
import email.policy
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

import mailcharset

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = sorted((ROOT / "fixtures" / "messages").glob("*.eml"))
MAILBOXES = sorted((ROOT / "fixtures" / "mailbox").glob("*.mbox"))


def _find_cli():
    env = os.environ.get("MAILCHARSET_BIN")
    if env:
        return env
    dirs = [os.environ.get("CARGO_TARGET_DIR"), str(ROOT / "target")]
    for d in filter(None, dirs):
        for profile in ("release", "debug"):
            p = Path(d) / profile / "mailcharset"
            if p.is_file():
                return str(p)
    return None


CLI = _find_cli()
needs_cli = pytest.mark.skipif(CLI is None, reason="mailcharset CLI not built (set MAILCHARSET_BIN)")


def cli(*args, check=True):
    r = subprocess.run([CLI, *args], capture_output=True, cwd=ROOT, timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"{args}: exit {r.returncode}: {r.stderr.decode(errors='replace')}")
    return r


def test_fixtures_present():
    assert len(MESSAGES) >= 20 and MAILBOXES


OPTION_SETS = [
    ({}, []),
    ({"headers": "utf8"}, ["--headers", "utf8"]),
    ({"on_error": "keep"}, ["--on-error", "keep"]),
    ({"eight_bit": True}, ["--8bit"]),
    ({"repair_cesu8": True, "unicode11": "off"}, ["--repair-cesu8", "--unicode11", "off"]),
    ({"convert_attachments": True}, ["--convert-attachments"]),
    ({"keep_dkim_signed": True}, ["--keep-dkim-signed"]),
]


@needs_cli
@pytest.mark.parametrize("kwargs,flags", OPTION_SETS, ids=lambda x: str(x))
def test_normalize_matches_cli(kwargs, flags):
    for f in MESSAGES:
        raw = f.read_bytes()
        want = cli("normalize", *flags, str(f.relative_to(ROOT))).stdout
        got = mailcharset.normalize(raw, **kwargs)
        assert got.bytes == want, f
        assert got.changed == (want != raw), f


@needs_cli
def test_on_error_fail_matches_cli():
    failed = 0
    for f in MESSAGES:
        r = cli("normalize", "--on-error", "fail", str(f.relative_to(ROOT)), check=False)
        if r.returncode == 0:
            assert mailcharset.normalize(f.read_bytes(), on_error="fail").bytes == r.stdout, f
        else:
            failed += 1
            with pytest.raises(mailcharset.NormalizeError) as e:
                mailcharset.normalize(f.read_bytes(), on_error="fail")
            assert isinstance(e.value, mailcharset.Error)
            assert isinstance(e.value.offset, int) and 0 <= e.value.offset < len(f.read_bytes())
            assert "at byte" in str(e.value)
    assert failed > 0, "no fixture fails under --on-error fail; the test checks nothing"


@needs_cli
def test_audit_matches_cli_jsonl():
    for f in MESSAGES:
        name = str(f.relative_to(ROOT))
        want = [json.loads(l) for l in cli("audit", "--format", "jsonl", name).stdout.splitlines()]
        assert mailcharset.audit(f.read_bytes(), input=name) == want, f
        # Byte for byte too: the same serializer.
        assert mailcharset.audit_jsonl(f.read_bytes(), input=name).encode() == cli(
            "audit", "--format", "jsonl", name
        ).stdout


@needs_cli
def test_read_mbox_and_audit_match_cli():
    for f in MAILBOXES:
        name = str(f.relative_to(ROOT))
        want = cli("audit", "--format", "jsonl", name).stdout
        msgs = list(mailcharset.read_mbox(ROOT / name))
        assert msgs and [m.index for m in msgs] == list(range(len(msgs)))
        got = "".join(mailcharset.audit_jsonl(m.bytes, input=name, index=m.index) for m in msgs)
        assert got.encode() == want, f


def test_read_mbox_unquotes_like_python_mailbox():
    """Python's mailbox module splits the same messages but keeps the
    `>From ` quoting; undoing it by the mboxrd rule must give our payloads."""
    import mailbox
    import re

    f = ROOT / "fixtures" / "mailbox" / "mboxrd.mbox"
    ours = [m.bytes for m in mailcharset.read_mbox(f)]
    theirs = [m.as_bytes() for m in mailbox.mbox(str(f))]
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        pa = email.message_from_bytes(a, policy=email.policy.compat32)
        pb = email.message_from_bytes(b, policy=email.policy.compat32)
        assert pa["Message-ID"] == pb["Message-ID"]
        assert pa.get_payload() == re.sub(r"(?m)^>(>*From )", r"\1", pb.get_payload())


def test_read_maildir(tmp_path):
    md = tmp_path / "md"
    for d in ("cur", "new", "tmp"):
        (md / d).mkdir(parents=True)
    (md / "new" / "1.host").write_bytes(b"Subject: a\n\none\n")
    (md / "cur" / "2.host:2,S").write_bytes(b"Subject: b\n\ntwo\n")
    got = sorted(m.bytes for m in mailcharset.read_maildir(md))
    assert got == [b"Subject: a\n\none\n", b"Subject: b\n\ntwo\n"]
    assert all(m.input.startswith(str(md)) for m in mailcharset.read_maildir(md))


def test_reader_errors_are_mailcharset_errors(tmp_path):
    with pytest.raises(mailcharset.MailboxError) as e:
        list(mailcharset.read_mbox(tmp_path / "missing.mbox"))
    assert "missing.mbox" in str(e.value)
    notmbox = tmp_path / "x.eml"
    notmbox.write_bytes(b"Subject: x\n\nbody\n")
    with pytest.raises(mailcharset.MailboxError) as e:
        list(mailcharset.read_mbox(notmbox))
    assert e.value.offset == 0


def _text_parts(raw):
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    out = []
    for part in msg.walk():
        # text/html is left out: normalize rewrites its <meta charset> on purpose.
        if part.get_content_type() == "text/plain":
            out.append(part.get_content())
    return msg, out


def test_normalized_output_reads_the_same_in_python_email():
    """Where normalize converted cleanly (verdict ok), Python's email package
    decoding the original under its label reads the same text as it reads
    from our UTF-8 output; and the output's text parts all say utf-8."""
    checked = 0
    for f in MESSAGES:
        raw = f.read_bytes()
        r = mailcharset.normalize(raw)
        msg, ours = _text_parts(r.bytes)
        for part in msg.walk():
            # An attached file is kept as it came, label and octets
            # (test_attached_file_is_kept_unless_asked below).
            if part.get_content_maintype() == "text" and r.changed and not part.get_filename():
                assert part.get_content_charset() in ("utf-8", "us-ascii", None), f
        bodies = [p for p in r.parts if p.location == "body"]
        if not bodies or any(p.verdict != "ok" or p.action not in ("converted", "unchanged") for p in bodies):
            continue
        try:
            _, theirs = _text_parts(raw)
        except LookupError:
            continue  # a charset Python does not know
        assert [t.replace("\r\n", "\n") for t in ours] == [t.replace("\r\n", "\n") for t in theirs], f
        checked += 1
    assert checked >= 3


def test_attached_file_is_kept_unless_asked():
    """A text file the sender attached keeps its octets and its label; the
    letter beside it is converted. With convert_attachments=True both are
    UTF-8, and Python's email package reads the same text from both."""
    raw = (ROOT / "fixtures" / "messages" / "attached-latin1-file.eml").read_bytes()
    orig = email.message_from_bytes(raw, policy=email.policy.default)
    want = [p for p in orig.walk() if p.get_content_maintype() == "text"]
    for convert in (False, True):
        r = mailcharset.normalize(raw, convert_attachments=convert)
        got = [p for p in email.message_from_bytes(r.bytes, policy=email.policy.default).walk()
               if p.get_content_maintype() == "text"]
        assert len(got) == len(want) == 2
        assert [p.get_content() for p in got] == [p.get_content() for p in want]
        letter, csv = got
        assert letter.get_content_charset() == "utf-8"
        if convert:
            assert csv.get_content_charset() == "utf-8"
        else:
            assert csv.get_content_charset() == "iso-8859-1"
            assert csv.get_payload(decode=True) == want[1].get_payload(decode=True)
            assert [p.action for p in r.parts if p.location == "body"] == ["converted", "kept"]


@pytest.mark.parametrize(
    "label,codec",
    [("iso-8859-1", "latin-1"), ("koi8-r", "koi8_r"), ("windows-1251", "cp1251"), ("iso-8859-7", "iso8859_7")],
)
def test_decode_matches_python_codecs(label, codec):
    data = bytes(range(0x20, 0x7F)) + bytes(b for b in range(0xA0, 0x100))
    try:
        want = data.decode(codec)
    except UnicodeDecodeError:
        data = bytes(b for b in data if b < 0x80 or bytes([b]).decode(codec, "ignore"))
        want = data.decode(codec)
    d = mailcharset.decode(data, label)
    assert d.text == want
    assert d.replacements == 0


def test_decode_utf8_like_python():
    good = "café ☃ 𝄞".encode()
    assert mailcharset.decode(good, "utf-8").text == good.decode()
    bad = b"caf\xc3(\xed\xa0\x80x"
    d = mailcharset.decode(bad, "utf-8")
    # Lying label: detection may pick another charset; under strict UTF-8
    # (unicode11 off and no detection fallback) Python's replace is the oracle
    # whenever our result used UTF-8.
    if d.charset == "UTF-8":
        assert d.text == bad.decode("utf-8", "replace")
    assert d.verdict != "ok"


def test_label():
    assert mailcharset.label("latin1")["charset"] == mailcharset.label("ISO-8859-1")["charset"]
    assert mailcharset.label("UTF8")["charset"] == "UTF-8"
    assert mailcharset.label("no-such-charset")["status"] == "unknown"
    assert mailcharset.label("no-such-charset")["charset"] is None


def test_bad_options_raise_value_error():
    with pytest.raises(ValueError):
        mailcharset.normalize(b"Subject: x\n\n", headers="raw")
    with pytest.raises(ValueError):
        mailcharset.normalize(b"Subject: x\n\n", on_error="ignore")


def test_threads_give_the_same_results():
    raws = [f.read_bytes() for f in MESSAGES]
    want = [mailcharset.normalize(r).bytes for r in raws]
    results = {}

    def work(i):
        results[i] = [mailcharset.normalize(r).bytes for r in raws]

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(results[i] == want for i in range(4))


def test_garbage_never_crashes():
    import random

    rng = random.Random(19)
    for _ in range(300):
        raw = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 400)))
        raw = b"Content-Type: text/plain; charset=" + rng.choice([b"utf-8", b"x", b"shift_jis"]) + b"\n\n" + raw
        r = mailcharset.normalize(raw)
        assert isinstance(r.bytes, bytes)
        mailcharset.audit(raw)
        try:
            mailcharset.normalize(raw, on_error="fail")
        except mailcharset.NormalizeError as e:
            assert 0 <= e.offset <= len(raw)


@needs_cli
def test_audit_without_input_is_named_like_stdin():
    f = MESSAGES[0]
    r = subprocess.run([CLI, "audit", "--format", "jsonl", "-"], input=f.read_bytes(), capture_output=True, timeout=60)
    assert r.returncode == 0
    assert mailcharset.audit_jsonl(f.read_bytes()).encode() == r.stdout


@needs_cli
def test_read_path_folder_names_match_cli_audit(tmp_path):
    d = tmp_path / "folder"
    (d / "sub").mkdir(parents=True)
    for i, f in enumerate(MESSAGES[:6]):
        (d / ("sub" if i % 2 else "") / f.name).write_bytes(f.read_bytes())
    want = cli("audit", "--format", "jsonl", str(d)).stdout
    got = "".join(mailcharset.audit_jsonl(m.bytes, input=m.input, index=m.index) for m in mailcharset.read_path(d))
    assert got.encode() == want


def _dkim():
    """dkimpy, the DKIM oracle (python/ci.sh installs it); skipped without
    it, which MAILCHARSET_REQUIRE_ORACLES=1 (CI) turns into a failure."""
    try:
        import dkim
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
    except ImportError:
        if os.environ.get("MAILCHARSET_REQUIRE_ORACLES") == "1":
            pytest.fail("dkimpy is required (MAILCHARSET_REQUIRE_ORACLES=1)")
        pytest.skip("dkimpy not installed")
    return dkim, serialization, rsa


def test_keep_dkim_signed_keeps_the_signature_valid():
    """A DKIM-signed ISO-8859-1 letter, signed and verified by dkimpy with a
    key made here: normalized, the signature fails (why the option exists);
    with keep_dkim_signed it is left as it came and still verifies, and the
    report lists the body and Subject as kept."""
    import base64

    dkim, serialization, rsa = _dkim()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    record = b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)

    def dns(name, timeout=5):
        return record if name == b"sel._domainkey.example.org." else None

    msg = (
        b"From: a@example.org\r\nTo: b@example.org\r\n"
        b"Subject: =?iso-8859-1?q?Gr=FC=DFe?=\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=iso-8859-1\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\nGr\xfc\xdfe aus K\xf6ln\r\n"
    )
    signed = dkim.sign(
        msg, b"sel", b"example.org", pem,
        include_headers=[b"from", b"to", b"subject", b"content-type", b"mime-version"],
    ) + msg
    assert dkim.verify(signed, dnsfunc=dns)
    plain = mailcharset.normalize(signed)
    assert plain.changed and not plain.dkim_signed
    assert not dkim.verify(plain.bytes, dnsfunc=dns)
    kept = mailcharset.normalize(signed, keep_dkim_signed=True)
    assert kept.bytes == signed and not kept.changed and kept.dkim_signed
    assert dkim.verify(kept.bytes, dnsfunc=dns)
    assert {(p.location, p.action) for p in kept.parts} >= {("body", "kept"), ("header:Subject", "kept")}


@needs_cli
def test_looks_like_message_is_the_clis_rule(tmp_path):
    # The CLI passes over what the rule says is not mail, and only that.
    samples = {
        "msg.eml": b"Subject: x\n\nbody\n",
        "envelope.eml": b"\n\nFrom a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\nb\n",
        "bom.eml": b"\xef\xbb\xbfSubject: x\n\nb\n",
        "notes.txt": b"remember the milk\n",
        "table.tsv": b"file\tlocation\tlabel\n",
        "photo.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        "empty.eml": b"",
        "8bit-name.eml": b"X-Caf\xc3\xa9: oui\nFrom: a@b.c\n\nx",
        "8bit-first.eml": b"\xc3\x9cber: x\n",
    }
    for name, data in samples.items():
        p = tmp_path / name
        p.write_bytes(data)
        r = subprocess.run([CLI, "audit", "--format", "jsonl", str(p)], capture_output=True, timeout=60)
        skipped = b"does not start like a message" in r.stderr
        assert mailcharset.looks_like_message(data) == (not skipped), name
