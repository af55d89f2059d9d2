#!/usr/bin/env python3
"""Writes fixtures/messages/*.eml and fixtures/messages/EXPECT.tsv.

GENERATOR for the team's own sample messages: each known problem has a clean
twin. Bytes are written explicitly (not through Python's email package) so the
fixtures carry exactly the defects they are meant to carry.

The old-Hangul fixtures need Unicode 1.1 code points; they are looked up in
../shared/corpus/unicode-ucd-historic/1.1.0-Update/UnicodeData.txt (only the
few code points used end up in the fixtures, never the file).

Run from the repository root:  python3 tools/gen_fixtures.py
"""
import base64
import os
import quopri
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fixtures", "messages")
UCD11 = os.path.join(ROOT, "..", "shared", "corpus", "unicode-ucd-historic",
                     "1.1.0-Update", "UnicodeData.txt")


def modern_to_old_table():
    """Modern (2.0) syllable -> Unicode 1.1 code point, from jamo decompositions."""
    table = {}
    with open(UCD11, encoding="latin-1") as f:
        for line in f:
            if line.startswith("#") or ";" not in line:
                continue
            fields = line.split(";")
            cp = int(fields[0], 16)
            if not 0x3400 <= cp <= 0x4DFF:
                continue
            jamo = [int(x, 16) for x in fields[5].split()]
            if len(jamo) < 2:
                continue
            l, v = jamo[0], jamo[1]
            t = jamo[2] - 0x11A7 if len(jamo) > 2 else 0
            new = 0xAC00 + ((l - 0x1100) * 21 + (v - 0x1161)) * 28 + t
            table[new] = cp
    # UTC L2/17-080 corrections (the 1.1 decompositions of these were wrong).
    for old, new in ((0x384E, 0xC0A3), (0x40BC, 0xC0A4), (0x436C, 0xCF6A)):
        for k, v in list(table.items()):
            if v == old:
                del table[k]
        table[new] = old
    return table


def to_old_hangul(text, table):
    out = []
    for ch in text:
        if 0xAC00 <= ord(ch) <= 0xD7A3:
            if ord(ch) not in table:
                raise SystemExit(f"syllable {ch} U+{ord(ch):04X} has no 1.1 code point")
            out.append(chr(table[ord(ch)]))
        else:
            out.append(ch)
    return "".join(out)


def hdr(**fields):
    return fields


def message(headers, body, eol=b"\n"):
    """headers: list of (name, bytes-or-str); body: bytes."""
    out = bytearray()
    for name, value in headers:
        if isinstance(value, str):
            value = value.encode("ascii")
        out += name.encode("ascii") + b": " + value + eol
    out += eol
    out += body
    return bytes(out)


def b64(data):
    s = base64.encodebytes(data).replace(b"\n", b"\n")
    return s


def qp(data):
    return quopri.encodestring(data)


def ew(text, charset, enc="B"):
    raw = text.encode(charset)
    if enc == "B":
        return f"=?{charset}?B?{base64.b64encode(raw).decode()}?="
    q = "".join(
        c if (c.isalnum() and c.isascii()) else "_" if c == " " else "".join(f"={b:02X}" for b in c.encode(charset))
        for c in text
    )
    return f"=?{charset}?Q?{q}?="


COMMON = [
    ("From", "Sample Sender <sender@example.org>"),
    ("To", "Recipient <rcpt@example.net>"),
    ("Date", "Tue, 10 Mar 2009 12:00:00 +0000"),
    ("MIME-Version", "1.0"),
]


def common(mid, subject):
    return [("Message-ID", f"<{mid}@fixtures.mailcharset.invalid>")] + COMMON + [("Subject", subject)]


def main():
    os.makedirs(OUT, exist_ok=True)
    msgs = {}   # name -> bytes
    expect = []  # (file, location, label, verdict, finding kinds)

    def add(name, data, *rows):
        msgs[name] = data
        for r in rows:
            expect.append((name,) + r)

    de = "Grüße aus Köln – schöne Straße, 10 € bitte.\n"
    ru = "Съешь же ещё этих мягких французских булок, да выпей чаю.\n"
    ja = "日本語の電子メールです。文字化けしていませんか？\n"
    ko = "한국어 전자 우편입니다. 안녕하세요.\n"
    zh_tw = "這是一封繁體中文的電子郵件。\n"
    zh_cn = "这是一封简体中文的电子邮件。\n"
    el = "Καλημέρα κόσμε\n"

    # --- clean messages -------------------------------------------------
    add("clean-ascii.eml", message(common("clean-ascii", "Plain ASCII") + [
        ("Content-Type", "text/plain; charset=us-ascii"),
        ("Content-Transfer-Encoding", "7bit")],
        b"Nothing to see here.\nJust ASCII text.\n"),
        ("body", "us-ascii", "ok", ""))
    add("clean-utf8.eml", message(common("clean-utf8", ew("Grüße – Καλημέρα", "UTF-8", "Q")) + [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit")],
        (de + el).encode("utf-8")),
        ("body", "utf-8", "ok", ""), ("header:Subject", "UTF-8", "ok", ""))
    add("latin1-qp.eml", message(common("latin1-qp", ew("Grüße aus Köln", "iso-8859-1", "Q")) + [
        ("Content-Type", "text/plain; charset=iso-8859-1"),
        ("Content-Transfer-Encoding", "quoted-printable")],
        qp(de.replace("–", "-").replace("€", "EUR").encode("iso-8859-1"))),
        ("body", "iso-8859-1", "ok", ""), ("header:Subject", "iso-8859-1", "ok", ""))
    add("koi8r-base64.eml", message(
        [("Message-ID", "<koi8r@fixtures.mailcharset.invalid>"),
         ("From", f"{ew('Иван Петров', 'koi8-r')} <ivan@example.ru>")] + COMMON[1:] +
        [("Subject", ew("Проверка связи", "koi8-r")),
         ("Content-Type", "text/plain; charset=koi8-r"),
         ("Content-Transfer-Encoding", "base64")],
        b64(ru.encode("koi8-r"))),
        ("body", "koi8-r", "ok", ""), ("header:Subject", "koi8-r", "ok", ""))
    add("shift-jis.eml", message(common("sjis", ew("日本語の件名", "shift_jis")) + [
        ("Content-Type", "text/plain; charset=Shift_JIS"),
        ("Content-Transfer-Encoding", "8bit")],
        ja.encode("shift_jis")),
        ("body", "Shift_JIS", "ok", ""))
    add("iso-2022-jp.eml", message(common("iso2022jp", ew("日本語の件名", "iso-2022-jp")) + [
        ("Content-Type", "text/plain; charset=ISO-2022-JP"),
        ("Content-Transfer-Encoding", "7bit")],
        ja.encode("iso-2022-jp")),
        ("body", "ISO-2022-JP", "ok", ""), ("header:Subject", "iso-2022-jp", "ok", ""))
    add("euc-kr.eml", message(common("euckr", ew("한국어 제목", "euc-kr")) + [
        ("Content-Type", "text/plain; charset=ks_c_5601-1987"),
        ("Content-Transfer-Encoding", "base64")],
        b64(ko.encode("euc-kr"))),
        ("body", "ks_c_5601-1987", "ok", ""))
    add("big5.eml", message(common("big5", "Big5 message") + [
        ("Content-Type", "text/plain; charset=big5"),
        ("Content-Transfer-Encoding", "8bit")],
        zh_tw.encode("big5")),
        ("body", "big5", "ok", ""))
    add("gb2312.eml", message(common("gb2312", ew("简体中文", "gb2312")) + [
        ("Content-Type", "text/plain; charset=gb2312"),
        ("Content-Transfer-Encoding", "base64")],
        b64(zh_cn.encode("gb2312"))),
        ("body", "gb2312", "ok", ""))
    add("utf7.eml", message(common("utf7", ew("Grüße", "utf-7")) + [
        ("Content-Type", "text/plain; charset=utf-7"),
        ("Content-Transfer-Encoding", "7bit")],
        (de.replace("€", "EUR") + el).encode("utf-7")),
        ("body", "utf-7", "ok", ""))
    add("utf16-bom.eml", message(common("utf16", "UTF-16 with a BOM") + [
        ("Content-Type", "text/plain; charset=utf-16"),
        ("Content-Transfer-Encoding", "base64")],
        b64(ko.encode("utf-16"))),
        ("body", "utf-16", "ok", ""))

    # --- twins: a problem and its clean counterpart ----------------------
    add("c1-in-latin1.eml", message(common("c1", "Smart quotes") + [
        ("Content-Type", "text/plain; charset=iso-8859-1"),
        ("Content-Transfer-Encoding", "8bit")],
        "\u201cQuoted\u201d \u2013 it\u2019s windows-1252 really.\n".encode("cp1252")),
        ("body", "iso-8859-1", "suspicious", "c1-in-latin1"))
    add("c1-in-latin1.clean.eml", message(common("c1-clean", "Smart quotes") + [
        ("Content-Type", "text/plain; charset=windows-1252"),
        ("Content-Transfer-Encoding", "8bit")],
        "\u201cQuoted\u201d \u2013 it\u2019s windows-1252 really.\n".encode("cp1252")),
        ("body", "windows-1252", "ok", ""))

    add("mislabeled-1252-as-utf8.eml", message(common("mislabeled", "Labelled UTF-8") + [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit")],
        ("Ceci n’est pas de l’UTF-8 : café, crème brûlée, déjà vu, à bientôt, "
         "où est la gare ? Très élégant, naïve façade.\n").encode("cp1252")),
        ("body", "utf-8", "mislabeled", "mislabeled"))
    add("mislabeled-1252-as-utf8.clean.eml", message(common("mislabeled-clean", "Labelled UTF-8") + [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit")],
        ("Ceci est de l’UTF-8 : café, crème brûlée, déjà vu, à bientôt, "
         "où est la gare ? Très élégant, naïve façade.\n").encode("utf-8")),
        ("body", "utf-8", "ok", ""))

    add("eight-bit-no-label.eml", message(common("nolabel", "No charset") + [
        ("Content-Type", "text/plain"),
        ("Content-Transfer-Encoding", "8bit")],
        "Überraschung: 8-bit text without a label.\n".encode("utf-8")),
        ("body", "", "suspicious", "eight-bit-in-ascii missing-label"))
    add("eight-bit-no-label.clean.eml", message(common("nolabel-clean", "No charset") + [
        ("Content-Type", "text/plain"),
        ("Content-Transfer-Encoding", "7bit")],
        b"Plain 7-bit text without a label is fine.\n"),
        ("body", "", "ok", ""))

    add("unknown-label.eml", message(common("unknown", "Unknown label") + [
        ("Content-Type", "text/plain; charset=x-no-such-charset"),
        ("Content-Transfer-Encoding", "8bit")],
        "Grüße\n".encode("latin-1")),
        ("body", "x-no-such-charset", "unknown-label", "unknown-label"))

    add("overlong-filename.eml", message(common("overlong", "Report attached") + [
        ("Content-Type", "multipart/mixed; boundary=\"b1\"")],
        b"This is a multi-part message.\n--b1\n"
        b"Content-Type: text/plain; charset=utf-8\n\nSee attachment.\n--b1\n"
        b"Content-Type: application/octet-stream\n"
        b"Content-Disposition: attachment; filename*=utf-8''..%2F%C0%AE%2E%2Fetc%2Fpasswd\n"
        b"Content-Transfer-Encoding: base64\n\nAAECAwQF\n--b1--\n"),
        ("param:filename", "utf-8", "invalid", "overlong"))
    add("overlong-filename.clean.eml", message(common("overlong-clean", "Report attached") + [
        ("Content-Type", "multipart/mixed; boundary=\"b1\"")],
        b"This is a multi-part message.\n--b1\n"
        b"Content-Type: text/plain; charset=utf-8\n\nSee attachment.\n--b1\n"
        b"Content-Type: application/octet-stream\n"
        b"Content-Disposition: attachment; filename*=utf-8''r%C3%A9sum%C3%A9.pdf\n"
        b"Content-Transfer-Encoding: base64\n\nAAECAwQF\n--b1--\n"),
        ("param:filename", "utf-8", "ok", ""))

    add("overlong-nul.eml", message(common("nul", "Overlong NUL") + [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit")],
        b"before\xc0\x80after\n"),
        ("body", "utf-8", "invalid", "overlong nul"))

    emoji = "Party \U0001F389 time \U0001F600\n"
    cesu = bytearray()
    for ch in emoji:
        if ord(ch) > 0xFFFF:
            for unit in (ch.encode("utf-16-be")[0:2], ch.encode("utf-16-be")[2:4]):
                u = int.from_bytes(unit, "big")
                cesu += bytes([0xE0 | (u >> 12), 0x80 | ((u >> 6) & 0x3F), 0x80 | (u & 0x3F)])
        else:
            cesu += ch.encode("utf-8")
    add("cesu8.eml", message(common("cesu8", "Emoji") + [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit")], bytes(cesu)),
        ("body", "utf-8", "invalid", "surrogate-pair"))
    add("cesu8.clean.eml", message(common("cesu8-clean", "Emoji") + [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit")], emoji.encode("utf-8")),
        ("body", "utf-8", "ok", ""))

    if os.path.exists(UCD11):
        table = modern_to_old_table()
        old = to_old_hangul(ko, table)
        add("unicode11-hangul.eml", message(common("u11", "Old Korean") + [
            ("Content-Type", "text/plain; charset=UNICODE-1-1-UTF-8"),
            ("Content-Transfer-Encoding", "8bit")], old.encode("utf-8")),
            ("body", "UNICODE-1-1-UTF-8", "suspicious", "old-hangul"))
        add("unicode11-hangul.clean.eml", message(common("u11-clean", "Old Korean") + [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Transfer-Encoding", "8bit")], ko.encode("utf-8")),
            ("body", "utf-8", "ok", ""))
        add("unicode11-mixed.eml", message(common("u11-mixed", "Old and new Korean") + [
            ("Content-Type", "text/plain; charset=UNICODE-1-1-UTF-8"),
            ("Content-Transfer-Encoding", "8bit")], (old + ko).encode("utf-8")),
            ("body", "UNICODE-1-1-UTF-8", "mislabeled", "mislabeled"))
        add("possible-old-hangul.eml", message(common("u11-unlabelled", "Korean?") + [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Transfer-Encoding", "base64")], b64(old.encode("utf-8"))),
            ("body", "utf-8", "suspicious", "possible-old-hangul"))
    else:
        print("note: Unicode 1.1 data absent; old-Hangul fixtures not regenerated", file=sys.stderr)

    # --- structure --------------------------------------------------------
    html = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            '</head><body><p>Gr\u00fc\u00dfe aus K\u00f6ln</p></body></html>\n')
    add("multipart-alternative.eml", message(common("alt", ew("Café menu", "windows-1252", "Q")) + [
        ("Content-Type", "multipart/alternative; boundary=\"=_alt_42\"")],
        b"--=_alt_42\nContent-Type: text/plain; charset=windows-1252\n"
        b"Content-Transfer-Encoding: quoted-printable\n\n"
        + qp("Caf\u00e9 \u2013 cr\u00e8me br\u00fbl\u00e9e \u20ac5\n".encode("cp1252")) +
        b"--=_alt_42\nContent-Type: text/html; charset=iso-8859-1\n"
        b"Content-Transfer-Encoding: 8bit\n\n" + html.encode("latin-1") +
        b"--=_alt_42--\n"),
        ("body", "windows-1252", "ok", ""))
    add("multipart-signed.eml", message(common("signed", "Signed") + [
        ("Content-Type", "multipart/signed; micalg=pgp-sha256; protocol=\"application/pgp-signature\"; boundary=\"sig\"")],
        b"--sig\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\n"
        + "Sign\u00e9 et scell\u00e9.\n".encode("latin-1") +
        b"--sig\nContent-Type: application/pgp-signature\n\n-----BEGIN PGP SIGNATURE-----\n"
        b"iQEzBAEBCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmAAAAA=\n-----END PGP SIGNATURE-----\n--sig--\n"),
        ("body", "iso-8859-1", "ok", ""))
    # An attached text file is kept byte for byte (a spreadsheet reads the
    # CSV in its code page, not the MIME label); the letter is converted.
    # `--convert-attachments` converts both.
    add("attached-latin1-file.eml", message(common("attached-file", "Liste") + [
        ("Content-Type", "multipart/mixed; boundary=\"f\"")],
        b"--f\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\n"
        + "Bonjour, voici la liste des inscrits à la journée.\n".encode("latin-1") +
        b"--f\nContent-Type: text/csv; charset=iso-8859-1; name=\"inscrits.csv\"\n"
        b"Content-Disposition: attachment; filename=\"inscrits.csv\"\nContent-Transfer-Encoding: 8bit\n\n"
        + "nom;ville\nMüller;Köln\nLefèvre;Orléans\n".encode("latin-1") + b"--f--\n"),
        ("body", "iso-8859-1", "ok", ""))
    inner = message([("Message-ID", "<inner@fixtures.mailcharset.invalid>"),
                     ("From", "Inner <inner@example.ru>"),
                     ("Subject", ew("Вложенное письмо", "koi8-r")),
                     ("MIME-Version", "1.0"),
                     ("Content-Type", "text/plain; charset=koi8-r"),
                     ("Content-Transfer-Encoding", "8bit")], ru.encode("koi8-r"))
    add("nested-rfc822.eml", message(common("nested", "Fwd: nested") + [
        ("Content-Type", "multipart/mixed; boundary=\"outer\"")],
        b"--outer\nContent-Type: text/plain; charset=us-ascii\n\nForwarded message below.\n"
        b"--outer\nContent-Type: message/rfc822\n\n" + inner + b"--outer--\n"),
        ("body", "koi8-r", "ok", ""))
    add("rfc2231-continuations.eml", message(common("rfc2231", "Continuations") + [
        ("Content-Type", "multipart/mixed; boundary=\"c\"")],
        b"--c\nContent-Type: text/plain; charset=us-ascii\n\nSee file.\n--c\n"
        b"Content-Type: application/pdf\n"
        b"Content-Disposition: attachment;\n filename*0*=utf-8'fr'r%C3%A9sum%C3;\n filename*1*=%A9%20final.pdf\n"
        b"Content-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n--c--\n"),
        ("param:filename", "utf-8", "ok", ""))
    add("encoded-words-split.eml", message(
        [("Message-ID", "<split@fixtures.mailcharset.invalid>")] + COMMON +
        [("Subject", "=?UTF-8?B?" + base64.b64encode("日本"[:1].encode() + "本".encode()[:1]).decode() + "?= =?UTF-8?B?"
          + base64.b64encode("本".encode()[1:]).decode() + "?="),
         ("Content-Type", "text/plain; charset=us-ascii")], b"Subject splits a character across two words.\n"),
        ("header:Subject", "UTF-8", "ok", ""))
    add("raw-8bit-header.eml", message(
        [("Message-ID", "<raw8@fixtures.mailcharset.invalid>")] + COMMON +
        [("Subject", "Grüße ohne Kodierung".encode("latin-1")),
         ("Comments", "Grüße in UTF-8".encode("utf-8")),
         ("Content-Type", "text/plain; charset=us-ascii")], b"Raw 8-bit header fields.\n"),
        ("header:Subject", "", "suspicious", "raw-8bit-header"))
    add("malformed-encoded-word.eml", message(
        [("Message-ID", "<malformed-ew@fixtures.mailcharset.invalid>")] + COMMON +
        [("Subject", "=?utf-8?B?R3LDvMOfZQ?= and =?utf-8?Q?broken_word"),
         ("Content-Type", "text/plain; charset=us-ascii")], b"Bad encoded-words.\n"),
        ("header:Subject", "utf-8", "suspicious", "malformed-encoded-word"))

    for name, data in msgs.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    with open(os.path.join(OUT, "EXPECT.tsv"), "w", encoding="utf-8") as f:
        f.write("# GENERATED by tools/gen_fixtures.py - do not edit\n")
        f.write("# file\tlocation\tlabel\tverdict\tfinding kinds (space separated)\n")
        for row in expect:
            f.write("\t".join(row) + "\n")
    print(f"wrote {len(msgs)} messages to {OUT}")


if __name__ == "__main__":
    main()
