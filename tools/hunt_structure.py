#!/usr/bin/env python3
"""Hunt for MIME structure and transfer codings lost or changed, from outside.

    tools/hunt_structure.py [--n 1500] [--seed 1] [--bin PATH] [--out DIR]
                            [--show 2] [--keep] [--jobs 2] [--by-shape]

A seeded generator writes single messages whose truth it knows, a model
of real mail rather than textbook cases: multipart/mixed, alternative
(text + html), related (html + image), nested two to four deep,
message/rfc822 parts with their own header, charsets and codings,
multipart/digest (whose parts default to message/rfc822), multipart/report
(text, message/delivery-status, text/rfc822-headers or the message);
text parts in many charsets and every transfer coding (7bit, 8bit,
quoted-printable wrapped or not, base64 wrapped or on one line), CRLF and
LF; binary attachments with real magic numbers (PDF, PNG, JPEG, ZIP, gzip,
docx, GIF) as base64, some under text/plain or application/octet-stream
with a charset, some with RFC 2231 `filename*=` names; and the damage
seen in the wild: no close delimiter, transport padding after a
delimiter, the boundary text inside a body line, a preamble and epilogue
with (8-bit) text, multipart without a boundary, a duplicate
Content-Type, base64 with garbage characters, missing padding or cut
short, quoted-printable with `=ZZ`, lower-case hex or `=` at the end,
8-bit octets under 7bit, raw 8-bit header values (UTF-8 and Latin-1),
very long lines, NUL octets, uuencoded blocks in text/plain,
`x-uuencode` and unknown transfer codings, an empty part, a part without
a header; a text part, or a message, whose body follows its header fields
(some, or none after the delimiter) without the empty line
(`no-separator`: Python's `email` and mailcharset start the body at the
first line that is not a field; the generator keeps a first or second text
line that either would take for a field out), and a Subject wrapped
without white space between fields (`broken-fold`: a header line for
mailcharset, doc/message-tree.md; Python, which would start the body
there, reads a copy of input and output with that line indented).

Damage to the structure itself, each noted under its shape's name:
a multipart header that runs into its first delimiter, with no empty line
or a line of white space (`swallowed-delimiter`), with a delimiter line
above its Content-Type as well (`delimiter-around-ct`; Python starts the
body at that line and reads a copy without it); boundaries with every
character RFC 2046 allows, quoted (`boundary-odd-chars`), a boundary
parameter with white space at its end that the delimiter lines lack
(`boundary-param-space`), a boundary that is a proper prefix of the
enclosing one (`boundary-prefix-of-parent`; `boundary-prefix` is the
other way round), the enclosing boundary reused (`boundary-reused`: every
reader ends the inner multipart at once, its parts become the outer one's
and what follows its close delimiter an epilogue; judged by Python's
reading); comments folded into a Content-Type (`ct-comment`) and a
Content-Transfer-Encoding value on a continuation line
(`cte-continuation`), both of which Python's compat32 misreads (it reads
copies with the comments taken out and the field on one line); a field
over 998 octets, a References line or a parameter before the boundary
(`long-field`); message/global, encapsulated or under base64/QP
(`message-global`); CR-only line ends (`cr-only`), CRLF for the header or
for some lines only (`mixed-eol`), a message without its final line end
(`no-final-eol`); binary data under text/csv, text/x-log or text/html
(with `as-text`); an attached message (in a digest or not) whose first
line is white space or an indented field (`message-continuation-first`).

Every leaf the generator writes carries its truth under a tag
(`X-Hunt-Leaf: N` in its header; a part without a header has none and is
known by its place). Oracles: the generator's truth and Python's `email`
(compat32). Per case, `mailcharset normalize --report` and `audit --format
jsonl` run over the file, and `filter` over one case in four:

- the leaves (Python's walk, a tagged part counting as one leaf) of the
  output are those of the input, in order (`leaves-changed`); when
  Python's reading of the input is not the generator's, the case is
  judged by content alone (`info-oracle-reads-input-otherwise`);
- a text leaf's text (after transfer decoding, under its label) is the
  truth, U+FFFD only where the generator damaged it (`text-changed`;
  `charset:*` when the report says another charset was used: the charset
  decision's ground, hunt_charsets.py's); a text whose transfer coding was
  damaged may instead be kept byte for byte (doc/normalize.md);
- a binary leaf is byte-identical after transfer decoding, and its
  encoded body too (`binary-changed`); a leaf with an unknown transfer
  coding, with NUL octets, or the body of a multipart without a boundary
  is kept byte for byte (`opaque-changed`); preamble and epilogue too;
- Subject, From display names (top and encapsulated) and file names read
  the same (`header-*`; raw 8-bit legacy octets are a guess: `info-`);
- the output re-parses, normalizing it again gives the same bytes
  (`not-idempotent`), the report has one body entry per text leaf, the
  audit one `body` record per text leaf, damaged text not `ok`;
- a part written without its empty line has it in the output (Python
  finds one `MissingHeaderBodySeparatorDefect` fewer for each,
  `output-missing-separator`; not under a signature), and its report entry
  and audit record carry the `malformed` finding that says so
  (`report-nosep-unreported`, `audit-nosep-unreported`);
- `filter` exits 0 and writes what normalize wrote;
- one case in four runs with options (`--8bit`, `--headers utf8`,
  `--on-error keep`), normalize, the second normalize and filter alike.

`info-*` buckets are documented behaviour or the oracle's own reading:
`info-oracle-*` (Python strips the white space at the end of a boundary
and then misses `--b --`; it does not read a comment in
Content-Transfer-Encoding), `info-unlabelled-guess` (8-bit text without a
label, read by detection), `info-*-raw8-guess` (raw legacy octets in a
header field or a file name), `info-*-signed-kept` (under multipart/signed nothing
changes), `info-short-binary-reads-as-text` (a few octets with no NUL, no
controls and no magic number under a text label are text by the binary
rule of doc/charset-decision.md). `charset:*` buckets are the charset
decision's (hunt_charsets.py's ground). Failing cases are kept under
--out with the command that ran (`cmd.txt`).

`python3 tools/hunt_structure.py --n 1500 --seed 1` takes about 25 s on
the project's 2-core machine.
"""
import argparse
import base64
import email
import email.errors
import email.header
import email.policy
import json
import os
import quopri
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in tools/
import hunt_charsets as hc  # noqa: E402  (sentences, charsets, damage models)

# Charsets whose mid and long texts the decision reads right (hunt_charsets
# clean buckets at 0): the structure is under test here, not the decision.
TEXT_CS = [c for c in hc.CHARSETS if c[0] in (
    'utf-8', 'iso-8859-1', 'windows-1252', 'iso-8859-15', 'iso-8859-2', 'windows-1250', 'koi8-r', 'windows-1251',
    'iso-8859-5', 'iso-8859-7', 'shift_jis', 'euc-jp', 'iso-2022-jp', 'euc-kr', 'big5', 'gb2312', 'gbk',
    'iso-8859-9', 'windows-1256', 'iso-8859-8')]
DAMAGEABLE = [c for c in hc.CHARSETS if c[0] in ('utf-8', 'shift_jis', 'euc-kr', 'gbk', 'big5', 'euc-jp')]
ASCII_LINES = ["Hi all,", "see the numbers below.", "Ticket #4711 is closed.", "", "-- ", "Regards, Bob",
               "http://example.com/a?b=c", "OK.", "> quoted reply line", "Tel. +1 555 0100", "x = y + 1;"]

MAGIC = {
    'pdf': (b'%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'application/pdf', 'report.pdf'),
    'png': (b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR', 'image/png', 'chart.png'),
    'jpeg': (b'\xff\xd8\xff\xe0\x00\x10JFIF\x00', 'image/jpeg', 'photo.jpg'),
    'zip': (b'PK\x03\x04\x14\x00\x00\x00\x08\x00', 'application/zip', 'files.zip'),
    'gzip': (b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03', 'application/gzip', 'log.gz'),
    'docx': (b'PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00[Content_Types].xml',
             'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'letter.docx'),
    'gif': (b'GIF89a\x01\x00\x01\x00', 'image/gif', 'dot.gif'),
}
NAMES = ['r\u00e9sum\u00e9.pdf', 'Gr\u00fc\u00dfe aus K\u00f6ln.docx', '\u041e\u0442\u0447\u0451\u0442.pdf',
         '\u4f1a\u8b70\u8cc7\u6599.zip', 'na\u00efve caf\u00e9.png', 'plain name.gz', 'x.jpg']


class Leaf:
    """A leaf's truth. kind: 'text' (text, codec, damaged lines?), 'binary'
    (data), 'opaque' (kept byte for byte), 'kept' (text kept byte for
    byte: NUL), 'status' (message/delivery-status)."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.tag = None
        self.pid = None
        self.text = None
        self.codec = None
        self.data = None
        self.damaged = False       # charset damage: U+FFFD allowed on damaged lines
        self.transfer_damaged = False  # may be kept byte for byte
        self.alt_texts = []        # other acceptable truths (transfer damage read otherwise)
        self.filename = None
        self.body = None           # the encoded body as written
        self.desc = ''
        self.__dict__.update(kw)


class NoSep(list):
    """Header lines of an entity written without the empty line before
    its body (the body follows the last field, or the delimiter)."""


# A line Python's `email` takes for a header line (feedparser's headerRE),
# or mailcharset does (a field with white space before its colon, a
# quoted `>From ` envelope): a text starting so is not read as text by
# one of them; the generator keeps such lines out of a body written
# without the empty line.
HEADERISH = re.compile(rb'^(From |[\x21-\x39\x3b-\x7e]*:|[\t ]|[\x21-\x39\x3b-\x7e]+[\t ]*:|>+From )')


def starts_plainly(body):
    """Whether a body written right after the fields (no empty line) is
    read as a body from its first line by Python and by mailcharset: its
    first line is not empty and not header-like, and neither is its
    second (a line that is not a field between fields is a broken fold
    for mailcharset, doc/message-tree.md)."""
    lines = re.split(rb'\r?\n|\r', body)
    if not lines or not lines[0] or body.startswith(b'\xef\xbb\xbf'):
        return False
    return not any(HEADERISH.match(x) for x in lines[:2])


class Gen:
    def __init__(self, rng, crlf):
        self.rng = rng
        self.leaves = []
        self.verbatim = []   # (what, bytes) that must be in the output as they are
        self.headers = []    # (kind, truth, exact) for Subject/From display names
        self.damage = []
        self.crlf = crlf
        self.ntag = 0
        self.bnds = []       # boundaries of the multiparts being written (for body lines that hold them)
        self.py_repair = []  # (bytes, bytes) replaced in input and output before Python reads them

    # ------------------------------------------------------------ helpers
    def tag(self, leaf):
        self.ntag += 1
        leaf.tag = str(self.ntag)
        self.leaves.append(leaf)
        return b'X-Hunt-Leaf: ' + leaf.tag.encode()

    def note(self, d):
        self.damage.append(d)

    def repair(self, f):
        """A function Python's copies of input and output go through."""
        if f not in self.py_repair:
            self.py_repair.append(f)

    def text_of(self, lang=None, size=None):
        rng = self.rng
        label, codec, langs, _ = rng.choice(TEXT_CS)
        lang = lang or rng.choice(langs)
        size = size or rng.choice(['mid', 'mid', 'long', 'short'])
        if size == 'short' and label not in ('utf-8',):
            size = 'mid'
        return label, codec, hc.para(rng, lang, size) + '\n'

    # ------------------------------------------------------------ leaves
    def leaf_text(self, pid):
        rng = self.rng
        label, codec, text = self.text_of()
        r = rng.random()
        extra = []
        desc = 'text ' + label
        if r < 0.06:
            # A uuencoded block inside the text (old mailers, Usenet).
            blk = uu_block(rng)
            lines = text.split('\n')
            at = rng.randrange(len(lines))
            text = '\n'.join(lines[:at] + blk.split('\n') + lines[at:])
            desc += ' +uuencode'
        elif r < 0.10:
            text = text.rstrip('\n') + '\n' + (text.split('\n')[0] + ' ') * rng.randrange(60, 400) + '\n'
            desc += ' +longline'
        elif r < 0.16 and self.bnds:
            # Lines that hold an enclosing boundary, not at the start of a line
            # or followed by more text: content (RFC 2046 5.1.1).
            b = rng.choice(self.bnds)
            text += 'see --%s for the rest\n--%sx is not a delimiter\n--%s-- nor this\n' % (b, b, b)
            desc += ' +bndtext'
            self.note('boundary-in-text')
        raw = text.encode(codec)
        cte = rng.choice(['8bit', 'quoted-printable', 'quoted-printable', 'base64', 'base64', None, '7bit'])
        if label == 'iso-2022-jp':
            cte = rng.choice(['7bit', 'base64', None])
        if cte in ('7bit', None) and not raw.isascii():
            self.note('8bit-in-7bit')
            desc += ' 8bit-under-' + (cte or 'none')
        leaf = Leaf('text', text=text, codec=hc.READ.get(label, codec), desc=desc)
        body = self.encode_body(leaf, raw, cte)
        ct = 'text/plain; charset=%s' % rng.choice([label, '"%s"' % label, label.upper(), "'%s'" % label,
                                                   '"%s" (from the mailer)' % label])
        if rng.random() < 0.05:
            ct = 'text/plain;\n\tcharset = "%s"' % label
        elif rng.random() < 0.03:
            # a comment before the parameter, folded (RFC 2045 5.1 allows
            # comments between tokens; Python's compat32 takes the comment
            # for part of the name and misses the charset: it reads a
            # copy with the comment taken out)
            ct = 'text/plain; (%s)\n\tcharset="%s"' % (rng.choice(['from the mailer', 'x', 'c;d=e']), label)
            self.repair(strip_ct_comments)
            self.note('ct-comment')
        if rng.random() < 0.2:
            ct += '; format=flowed' if rng.random() < 0.5 else '; delsp=no'
        h = [b'Content-Type: ' + ct.encode()]
        if rng.random() < 0.05:
            # A duplicate Content-Type: the first one counts (doc/mime-differences.md).
            h.append(b'Content-Type: text/plain; charset=utf-8')
            self.note('duplicate-ct')
            leaf.desc += ' dupct'
        if cte:
            spell = cte
            if rng.random() < 0.15:
                spell = rng.choice([cte.upper(), cte.title(), cte + ' ', ' ' + cte, cte + ' (converted)'])
            if rng.random() < 0.04:
                # the value on a continuation line (Python's compat32 keeps
                # the line end in the value and does not decode: it reads a
                # copy with the field on one line)
                fold = rng.choice([b'\n ', b'\n\t', b' \n  '])
                h.append(b'Content-Transfer-Encoding:' + fold + spell.encode())
                self.repair(unfold_cte)
                self.note('cte-continuation')
            else:
                h.append(b'Content-Transfer-Encoding: ' + spell.encode())
            if rng.random() < 0.04:
                # a second, different one: the first counts (as Python's get())
                h.append(b'Content-Transfer-Encoding: ' + rng.choice([b'8bit', b'base64', b'quoted-printable']))
                self.note('duplicate-cte')
        if rng.random() < 0.1:
            h = [x.lower() if x.startswith(b'Content-T') and b':' in x else x for x in h]
            h = [x.split(b':', 1)[0].lower() + b':' + x.split(b':', 1)[1] for x in h]
        h += extra
        return self.finish(leaf, pid, h, body)

    def encode_body(self, leaf, raw, cte):
        """Encodes a text's octets, with transfer damage now and then."""
        rng = self.rng
        if cte == 'quoted-printable':
            body = quopri.encodestring(raw)
            d = rng.random()
            if d < 0.12:
                # lower-case hex: decoded all the same
                body = re.sub(rb'=([0-9A-F]{2})', lambda m: b'=' + m.group(1).lower(), body)
                leaf.desc += ' qp-lowerhex'
            elif d < 0.22:
                # a bad escape, on a line of its own: kept as written by every reader
                enc = [quopri.encodestring(x) for x in raw.split(b'\n')]
                at = rng.randrange(len(enc))
                enc.insert(at, b'=ZZ and =G1 stay as written')
                body = b'\n'.join(enc)
                tl = leaf.text.split('\n')
                leaf.text = '\n'.join(tl[:at] + ['=ZZ and =G1 stay as written'] + tl[at:])
                leaf.transfer_damaged = True
                leaf.transfer_finding = True
                leaf.desc += ' qp-badescape'
                self.note('qp-badescape')
            elif d < 0.3:
                # `=` at the very end: a soft break (the last line end is the delimiter's)
                body = body.rstrip(b'\n') + b'='
                leaf.text = leaf.text.rstrip('\n')
                leaf.desc += ' qp-eq-end'
                self.note('qp-eq-end')
            elif d < 0.36:
                # unwrapped: one long line per text line, no soft breaks
                body = b'\n'.join(quopri.encodestring(x).replace(b'=\n', b'') for x in raw.split(b'\n'))
                leaf.desc += ' qp-unwrapped'
            return body
        if cte == 'base64':
            d = rng.random()
            if d < 0.15:
                body = base64.b64encode(raw) + b'\n'
                leaf.desc += ' b64-oneline'
                return body
            body = base64.encodebytes(raw)
            if rng.random() < 0.08:
                # lines with trailing white space, or CRLF lines in an LF message
                body = body.replace(b'\n', rng.choice([b' \n', b'\r\n', b'\t\n']))
                leaf.desc += ' b64-linewhite'
                self.note('b64-linewhite')
            return self.damage_b64(leaf, body, raw, text=True)
        return raw

    def damage_b64(self, leaf, body, raw, text):
        rng = self.rng
        d = rng.random()
        if d < 0.08:
            # garbage characters: skipped by every decoder
            b = bytearray(body)
            for _ in range(rng.randrange(1, 4)):
                at = rng.randrange(len(b) + 1)
                b[at:at] = rng.choice([b'!', b'*', b'.', b'#', b'\xa0'])
            body = bytes(b)
            leaf.transfer_damaged = True
            leaf.transfer_finding = True
            leaf.desc += ' b64-garbage'
            self.note('b64-garbage')
        elif d < 0.14 and body.rstrip(b'\n').endswith(b'='):
            body = body.rstrip(b'\n').rstrip(b'=') + b'\n'
            leaf.transfer_damaged = True
            leaf.transfer_finding = True
            leaf.desc += ' b64-nopad'
            self.note('b64-nopad')
        elif d < 0.19 and len(body) > 20:
            # cut short (a truncated download): what decodes is a prefix
            s = re.sub(rb'\s', b'', body)
            n = rng.randrange(8, len(s))
            cut = s[:n]
            k = (n // 4) * 3 + {0: 0, 1: 0, 2: 1, 3: 2}[n % 4]
            pre = raw[:k]
            lines = [cut[i:i + 76] for i in range(0, len(cut), 76)]
            body = b'\n'.join(lines) + b'\n'
            leaf.transfer_damaged = True
            leaf.transfer_finding = n % 4 != 0  # cut at a quantum's end: nothing to see
            leaf.desc += ' b64-truncated'
            self.note('b64-truncated')
            if text:
                leaf.text = pre.decode(leaf.codec, errors='replace')
                leaf.damaged = '\ufffd' in leaf.text
                leaf.cut = True
            else:
                leaf.data = pre
        return body

    def leaf_html(self, pid, text=None):
        rng = self.rng
        label, codec, t = self.text_of(size='short' if rng.random() < 0.3 else 'mid')
        if label == 'iso-2022-jp':
            label, codec = 'utf-8', 'utf-8'
        html = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=%s"></head><body>\n<p>%s</p>\n</body></html>\n' % (
            label, '<br>\n'.join(t.rstrip('\n').split('\n')))
        raw = html.encode(codec)
        cte = rng.choice(['8bit', 'quoted-printable', 'quoted-printable', 'base64'])
        leaf = Leaf('text', text=html, codec=hc.READ.get(label, codec), desc='html ' + label, html=True)
        body = self.encode_body(leaf, raw, cte)
        ct = 'text/html' + ('; charset="%s"' % label if rng.random() < 0.7 else '')
        h = [b'Content-Type: ' + ct.encode(), b'Content-Transfer-Encoding: ' + cte.encode()]
        return self.finish(leaf, pid, h, body)

    def leaf_damaged(self, pid):
        rng = self.rng
        label, codec, langs, _ = rng.choice(DAMAGEABLE)
        lang = rng.choice([x for x in langs if x != 'en'] or langs)
        text = hc.para(rng, lang, rng.choice(['mid', 'long'])) + '\n'
        raw, _ = hc.damage(rng, text.encode(codec), rng.choice(['flip', 'remove', 'insert']), codec)
        codec = hc.READ.get(label, codec)
        text = raw.decode(codec, errors='replace')
        # A flipped octet may spell another character: not damage then.
        leaf = Leaf('text', text=text, codec=codec, damaged='\ufffd' in text, desc='damaged ' + label)
        cte = rng.choice(['8bit', 'quoted-printable', 'base64'])
        body = self.encode_body(leaf, raw, cte)
        h = [b'Content-Type: text/plain; charset=' + label.encode(), b'Content-Transfer-Encoding: ' + cte.encode()]
        return self.finish(leaf, pid, h, body)

    def leaf_binary(self, pid):
        rng = self.rng
        kind = rng.choice(sorted(MAGIC) + ['nomagic', 'deflate'])
        magic, mime, fname = MAGIC.get(kind, (b'', 'application/octet-stream', 'data.bin'))
        n = rng.choice([0, 3, 57, 200, 1000, 6000, 40000])
        data = magic + rng.randbytes(n)
        if kind in ('nomagic', 'deflate'):
            # no magic number: random octets, raw deflate; 200 octets and more
            # (a few random octets are text as well as anything)
            n = max(n, 200)
            data = rng.randbytes(n) if kind == 'nomagic' else zlib.compress(rng.randbytes(n // 3) + b'abc' * n)[2:]
        if kind == 'gzip' and rng.random() < 0.5:
            data = magic + zlib.compress(b'log line\n' * 200)
        r = rng.random()
        desc = 'binary ' + kind
        if r < 0.15:
            ct = '%s; charset=%s' % (rng.choice(['text/plain'] * 3 + ['text/csv', 'text/x-log', 'text/html']),
                                     rng.choice(['utf-8', 'iso-8859-1', 'us-ascii']))
            desc += ' as-text'
        elif r < 0.35:
            ct = 'application/octet-stream; charset=%s' % rng.choice(['utf-8', 'iso-8859-1', 'binary'])
            desc += ' octet+charset'
        elif r < 0.45:
            ct = 'application/octet-stream'
        else:
            ct = mime
        leaf = Leaf('binary', data=data, desc=desc)
        h = []
        name = None
        if rng.random() < 0.6:
            name = rng.choice(NAMES + [fname, fname])
            disp, plain = filename_param(rng, name, raw_ok=True)
            if self.nraw8(disp):
                self.note('raw-8bit-filename')
            ct += plain
            h.append(b'Content-Disposition: ' + rng.choice([b'attachment', b'inline']) + disp)
            leaf.filename = name
            leaf.filename_guess = legacy8(disp)
        h.insert(0, b'Content-Type: ' + ct.encode('utf-8', 'surrogateescape'))
        h.append(b'Content-Transfer-Encoding: ' + rng.choice([b'base64', b'BASE64', b'Base64']))
        body = base64.encodebytes(data) if rng.random() < 0.9 else base64.b64encode(data) + b'\n'
        body = self.damage_b64(leaf, body, data, text=False)
        if not data and rng.random() < 0.5:
            body = b''
        return self.finish(leaf, pid, h, body)

    def leaf_raw_binary(self, pid):
        """Raw 8-bit binary (NUL octets) under a text label: kept byte for byte."""
        rng = self.rng
        kind = rng.choice(sorted(MAGIC))
        data = bytearray(MAGIC[kind][0] + rng.randbytes(rng.choice([40, 300, 3000])))
        data = bytes(data).replace(b'\n--', b'\n-x').replace(b'\r--', b'\r-x')
        if data.startswith(b'--'):
            data = b'x' + data
        data += b'\n'
        ct = rng.choice([b'text/plain; charset=iso-8859-1', b'text/plain', b'application/octet-stream'])
        leaf = Leaf('opaque', desc='rawbinary ' + kind)
        h = [b'Content-Type: ' + ct, b'Content-Transfer-Encoding: ' + rng.choice([b'8bit', b'binary', b'7bit'])]
        return self.finish(leaf, pid, h, data)

    def leaf_nul(self, pid):
        rng = self.rng
        label, codec, text = self.text_of(size='mid')
        if label in ('utf-8', 'iso-2022-jp'):
            label, codec = 'iso-8859-1', 'cp1252'
            text = hc.para(rng, 'fr', 'mid') + '\n'
        raw = bytearray(text.encode(codec))
        raw[rng.randrange(len(raw) // 2):0] = b'\x00'
        leaf = Leaf('opaque', desc='nul ' + label)
        h = [b'Content-Type: text/plain; charset=' + label.encode()]
        return self.finish(leaf, pid, h, bytes(raw))

    def leaf_unknown_cte(self, pid):
        rng = self.rng
        cte = rng.choice([b'x-uuencode', b'uuencode', b'x-uue', b'x-gzip64', b'8bits', b'x-binhex'])
        label, codec, text = self.text_of()
        if cte in (b'x-uuencode', b'uuencode', b'x-uue'):
            body = uu_block(rng, name='data.bin').encode() + '\n'.encode()
        else:
            body = text.encode(codec)
        leaf = Leaf('opaque', desc='cte ' + cte.decode())
        ct = rng.choice([b'text/plain; charset=' + label.encode(), b'application/octet-stream'])
        h = [b'Content-Type: ' + ct, b'Content-Transfer-Encoding: ' + cte]
        self.note('unknown-cte')
        return self.finish(leaf, pid, h, body)

    def leaf_empty(self, pid):
        rng = self.rng
        leaf = Leaf('text', text='', codec='ascii', desc='empty')
        h = rng.choice([[b'Content-Type: text/plain; charset=iso-8859-1'],
                        [b'Content-Type: text/plain; charset=utf-8', b'Content-Transfer-Encoding: base64'],
                        [b'Content-Type: text/plain']])
        self.note('empty-part')
        return self.finish(leaf, pid, h, b'')

    def leaf_noheader(self, pid):
        """A part with no header at all: text/plain; charset=us-ascii by
        default; 8-bit text in it is a guess (info when read otherwise)."""
        rng = self.rng
        if rng.random() < 0.6:
            text = '\n'.join(rng.choice(ASCII_LINES) for _ in range(rng.randrange(1, 6))) + '\n'
            leaf = Leaf('text', text=text, codec='ascii', desc='noheader ascii')
            raw = text.encode()
        else:
            text = hc.para(rng, rng.choice(['fr', 'de']), 'mid') + '\n'
            leaf = Leaf('text', text=text, codec='cp1252', desc='noheader latin1', guess=True)
            raw = text.encode('cp1252')
        self.note('no-header')
        leaf.pid = pid
        leaf.body = raw
        self.leaves.append(leaf)
        leaf.tag = None
        return [], raw, [None]

    def leaf_nosep(self, pid):
        """A text part whose body follows its fields (none, or some)
        directly, without the empty line: hand-written or broken mail.
        Python's `email` and mailcharset read the body from the first line
        that is not a field; normalize writes the empty line, converts
        the text like any other and reports a `malformed` finding."""
        rng = self.rng
        fields = rng.random() < 0.6
        for _ in range(20):
            if fields:
                label, codec, text = self.text_of(size=rng.choice(['short', 'mid']))
            elif rng.random() < 0.5:
                label, codec = None, 'ascii'
                text = '\n'.join(rng.choice(ASCII_LINES) for _ in range(rng.randrange(1, 6))) + '\n'
            else:
                label, codec = None, 'cp1252'
                text = hc.para(rng, rng.choice(['fr', 'de']), 'mid') + '\n'
            raw = text.encode(codec)
            cte = rng.choice([None, '8bit', 'quoted-printable', 'base64']) if fields else None
            if label == 'iso-2022-jp':
                cte = rng.choice([None, '7bit', 'base64'])
            leaf = Leaf('text', text=text, codec=hc.READ.get(label, codec) if label else codec,
                        desc='nosep ' + (label or codec), nosep=True)
            body = self.encode_body(leaf, raw, cte) if cte else raw
            if starts_plainly(body):
                break
        else:
            # (the generator's own bug if ever reached)
            raise RuntimeError('no body that starts plainly')
        self.note('no-separator')
        if not fields:
            leaf.desc += ' nofields'
            leaf.guess = not raw.isascii()
            leaf.pid = pid
            leaf.body = body
            self.leaves.append(leaf)
            return NoSep(), body, [None]
        h = [b'Content-Type: text/plain; charset=' + label.encode()]
        if cte:
            h.append(b'Content-Transfer-Encoding: ' + cte.encode())
        h, body, view = self.finish(leaf, pid, h, body)
        return NoSep(h), body, view

    def finish(self, leaf, pid, h, body):
        leaf.pid = pid
        leaf.body = body
        h = h + [self.tag(leaf)]
        names = [x.split(b':', 1)[0].strip().lower() for x in h]
        if self.rng.random() < 0.2 and len(set(names)) == len(names):
            self.rng.shuffle(h)  # (a duplicate field's order says which one counts)
        return h, body, [leaf.tag]

    def status(self, pid):
        """message/delivery-status: field groups, kept as they are."""
        body = (b'Reporting-MTA: dns; mx.example.org\nArrival-Date: Tue, 10 Mar 2009 12:00:00 +0000\n\n'
                b'Final-Recipient: rfc822; j\xc3\xbcrgen@example.de\nAction: failed\nStatus: 5.1.1\n'
                b'Diagnostic-Code: smtp; 550 5.1.1 <j\xfcrgen@example.de>: user unknown\n')
        leaf = Leaf('opaque', desc='delivery-status')
        return self.finish(leaf, pid, [b'Content-Type: message/delivery-status'], body)

    def rfc822_headers(self, pid):
        rng = self.rng
        subj, _, _ = self.subject()
        label = rng.choice([None, 'us-ascii', 'utf-8'])
        body = (b'From: ' + self.display_name(record=False) + b' <sender@example.org>\nTo: x@example.net\n'
                b'Subject: ' + subj + b'\nMessage-ID: <orig@example.org>\n')
        if label is None or not body.isascii():
            # the octets as written: read back exactly when ASCII or UTF-8
            pass
        try:
            text = body.decode('utf-8')
            codec = 'utf-8'
        except UnicodeDecodeError:
            text = body.decode('cp1252', errors='replace')
            codec = 'cp1252'
        leaf = Leaf('text', text=text, codec=codec, desc='rfc822-headers', guess=codec != 'utf-8' or label == 'us-ascii')
        ct = b'text/rfc822-headers' + (b'; charset=' + label.encode() if label else b'')
        return self.finish(leaf, pid, [b'Content-Type: ' + ct], body)

    # ------------------------------------------------------------ headers
    def subject(self):
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            s = rng.choice(['Meeting notes', 'Re: your order', 'Invoice 4711', 'Undelivered Mail'])
            return s.encode(), s, 'exact'
        label, codec, langs, _ = rng.choice([c for c in TEXT_CS if c[0] != 'iso-2022-jp'])
        word = hc.WORDS[rng.choice(langs)]
        if r < 0.75:
            return hc.ew(word.encode(codec), label, rng.choice('BQ')), word, 'exact'
        if r < 0.88:
            self.note('raw-utf8-header')
            return word.encode('utf-8'), word, 'exact'
        if r < 0.93:
            # a long Subject: raw UTF-8, or encoded-words in a legacy charset, folded or not
            w = ' '.join(hc.WORDS[rng.choice(['fr', 'de', 'ru', 'pl', 'el'])] for _ in range(rng.randrange(20, 120)))
            self.note('long-subject')
            if rng.random() < 0.5:
                return w.encode('utf-8'), w, 'exact'
            words = w.split(' ')
            ews = [hc.ew((x + ' ').encode('utf-8'), 'utf-8', 'B') for x in words[:-1]] + [hc.ew(words[-1].encode('utf-8'), 'utf-8', 'Q')]
            return b'\n '.join(ews), w, 'exact'
        self.note('raw-8bit-header')
        w = rng.choice(['R\u00e9union de caf\u00e9', 'Gr\u00fc\u00dfe aus K\u00f6ln', '\u00c0 bient\u00f4t'])
        return w.encode('cp1252'), w, 'raw8'

    def display_name(self, record=True):
        rng = self.rng
        opts = [(b'Bob', 'Bob', 'exact'), (b'"Smith, Ann"', 'Smith, Ann', 'exact'),
                (b'=?utf-8?q?J=C3=BCrgen?=', 'J\u00fcrgen', 'exact'),
                (b'=?iso-8859-1?Q?Ren=E9_L=E9vesque?=', 'Ren\u00e9 L\u00e9vesque', 'exact'),
                ('J\u00fcrgen M\u00fcller'.encode(), 'J\u00fcrgen M\u00fcller', 'exact'),
                ('Ren\u00e9 L\u00e9vesque'.encode('cp1252'), 'Ren\u00e9 L\u00e9vesque', 'raw8'),
                ('\u0418\u0432\u0430\u043d'.encode('koi8_r'), '\u0418\u0432\u0430\u043d', 'raw8')]
        raw, truth, check = rng.choice(opts)
        if record:
            self.headers.append(('from', truth, check))
        return raw

    def message_header(self, inner=False):
        rng = self.rng
        subj, st, sc = self.subject()
        self.headers.append(('subject', st, sc))
        h = [b'From: ' + self.display_name() + b' <sender@example.org>', b'To: rcpt@example.net',
             b'Subject: ' + subj, b'Date: Tue, 10 Mar 2009 12:00:00 +0000',
             b'Message-ID: <%d.%s@hunt.example>' % (rng.randrange(10**9), b'inner' if inner else b'top')]
        if rng.random() < 0.9:
            h.append(b'MIME-Version: 1.0')
        return h

    # ------------------------------------------------------------ structure
    def leaf(self, pid):
        rng = self.rng
        f = rng.choices([self.leaf_text, self.leaf_html, self.leaf_damaged, self.leaf_binary, self.leaf_raw_binary,
                         self.leaf_nul, self.leaf_unknown_cte, self.leaf_empty, self.leaf_qp_raw, self.leaf_utf16,
                         self.leaf_text_attachment, self.leaf_header_only, self.leaf_nosep],
                        [40, 8, 5, 20, 3, 2, 3, 2, 3, 2, 4, 1, 4])[0]
        return f(pid)

    def leaf_qp_raw(self, pid):
        """8-bit text sent unencoded under `quoted-printable` (a mailer
        that labels everything QP): read as QP by every reader; an `=` and
        two hex digits in the text decode (RFC 2045 6.7 rules, as written
        down in src/message/transfer.rs)."""
        rng = self.rng
        text = hc.para(self.rng, rng.choice(['fr', 'de', 'es']), 'mid') + '\n'
        text += rng.choice(['x = y + 1;  \n', 'http://example.com/?a=1&b=C3 ok\n', 'a==b, c=\n', '1 + 1 =2\n'])
        raw = text.encode('cp1252')
        leaf = Leaf('text', text=qp_truth(raw).decode('cp1252'), codec='cp1252', desc='qp-raw latin1',
                    transfer_damaged=True)
        self.note('qp-raw-8bit')
        h = [b'Content-Type: text/plain; charset=iso-8859-1', b'Content-Transfer-Encoding: quoted-printable']
        return self.finish(leaf, pid, h, raw)

    def leaf_utf16(self, pid):
        rng = self.rng
        text = hc.para(rng, rng.choice(['ru', 'ja', 'de', 'el']), 'mid') + '\n'
        label, codec = rng.choice([('utf-16', 'utf-16'), ('utf-16le', 'utf-16-le'), ('utf-16be', 'utf-16-be')])
        raw = text.encode(codec)
        leaf = Leaf('text', text=text, codec=codec, desc='text ' + label)
        body = base64.encodebytes(raw)
        h = [b'Content-Type: text/plain; charset=' + label.encode(), b'Content-Transfer-Encoding: base64']
        return self.finish(leaf, pid, h, body)

    def leaf_text_attachment(self, pid):
        """A text attachment (.txt, .csv) with a name: its text is converted
        like any text (doc/normalize.md), its name must read the same."""
        rng = self.rng
        label, codec, text = self.text_of()
        raw = text.encode(codec)
        cte = rng.choice(['8bit', 'quoted-printable', 'base64'])
        if label == 'iso-2022-jp':
            cte = '7bit'
        leaf = Leaf('text', text=text, codec=hc.READ.get(label, codec), desc='text-attachment ' + label)
        body = self.encode_body(leaf, raw, cte)
        name = rng.choice(['notes.txt', 'Gr\u00fc\u00dfe.txt', 'donn\u00e9es.csv', '\u8868.csv', 'caf\u00e9 menu.txt'])
        disp, plain = filename_param(rng, name, raw_ok=True)
        if self.nraw8(disp) or self.nraw8(plain.encode('utf-8', 'surrogateescape')):
            self.note('raw-8bit-filename')
        ct = 'text/plain; charset=%s' % label
        h = [b'Content-Type: ' + ct.encode() + plain.encode('utf-8', 'surrogateescape'),
             b'Content-Disposition: attachment' + disp, b'Content-Transfer-Encoding: ' + cte.encode()]
        leaf.filename = name
        leaf.filename_guess = legacy8(disp)
        return self.finish(leaf, pid, h, body)

    @staticmethod
    def nraw8(b):
        return any(x >= 0x80 for x in b)

    def leaf_header_only(self, pid):
        """A part that is a header and nothing else: no empty line, no body
        (the next delimiter follows the last field)."""
        leaf = Leaf('text', text='', codec='ascii', desc='header-only', no_separator=True)
        self.note('header-only-part')
        return self.finish(leaf, pid, [b'Content-Type: text/plain; charset=iso-8859-1'], b'')

    def entity(self, pid, depth, in_digest=False):
        """Returns (header lines, body, python view: list of tags/None)."""
        rng = self.rng
        r = rng.random()
        if in_digest:
            return self.rfc822(pid, depth, implicit=rng.random() < 0.8)
        if depth < 4 and r < 0.30:
            return self.multipart(pid, depth)
        if depth < 3 and r < 0.38:
            return self.rfc822(pid, depth)
        if r < 0.40:
            return self.rfc822_encoded(pid)
        return self.leaf(pid)

    def rfc822_encoded(self, pid):
        """message/rfc822 under base64 or quoted-printable (RFC 2046 5.2.1
        forbids it, mailers do it): a leaf kept as it is."""
        rng = self.rng
        label, codec, text = self.text_of()
        inner = (b'From: a@example.org\nSubject: inner\nContent-Type: text/plain; charset=' + label.encode() +
                 b'\nContent-Transfer-Encoding: 8bit\n\n' + text.encode(codec))
        cte = rng.choice(['base64', 'quoted-printable'])
        body = base64.encodebytes(inner) if cte == 'base64' else quopri.encodestring(inner)
        leaf = Leaf('opaque', desc='rfc822-' + cte)
        self.note('rfc822-encoded')
        mt = b'message/rfc822'
        if rng.random() < 0.25:
            mt = b'message/global'
            self.note('message-global')
        return self.finish(leaf, pid, [b'Content-Type: ' + mt, b'Content-Transfer-Encoding: ' + cte.encode()], body)

    def multipart(self, pid, depth, sub=None):
        rng = self.rng
        sub = sub or rng.choice(['mixed', 'mixed', 'mixed', 'alternative', 'related', 'digest', 'report', 'signed'])
        bnd = rng.choice(['b1_', '----=_NextPart_000_', '=_alt_', 'Apple-Mail=_', '_002_', 'simple boundary ']) + \
            '%x' % rng.randrange(16**10)
        if rng.random() < 0.05:
            # every character RFC 2046 5.1.1 allows (bchars), quoted
            bnd = rng.choice(["=_?", "'(", "+,", "./:", "a b"]) + '%x' % rng.randrange(16**6) + \
                rng.choice(["'()+_,-./:=?", "?=:", ")(", "/+,.", "="])
            self.note('boundary-odd-chars')
        r = rng.random()
        if self.bnds and r < 0.15:
            # the enclosing boundary and a suffix: a line of this one starts
            # like a delimiter of that one (content for it, RFC 2046 5.1.1)
            bnd = self.bnds[-1].rstrip() + rng.choice(['_inner', '-2', '.alt', '=_x'])
            self.note('boundary-prefix')
        elif self.bnds and r < 0.20 and len(self.bnds[-1].rstrip()) > 4:
            # a proper prefix of the enclosing boundary: that one's lines
            # start like this one's delimiters (they are not inside its body)
            bnd = self.bnds[-1].rstrip()[:-rng.randrange(1, 4)]
            self.note('boundary-prefix-of-parent')
        elif self.bnds and r < 0.215:
            # the enclosing boundary reused: its delimiters are the
            # enclosing multipart's to every reader (this one has an empty
            # body, its parts are that one's, its close delimiter closes that
            # one and what follows is an epilogue, kept as written); the
            # truth is not the generator's: judged by Python's reading
            bnd = self.bnds[-1]
            self.note('boundary-reused')
        kids = []
        damage = None
        if rng.random() < 0.25:
            damage = rng.choice(['noclose', 'padding', 'preamble', 'epilogue', 'nobnd', 'bndtrail'])
        if damage == 'bndtrail':
            bnd = bnd.rstrip() + ' '
        # white space at the end of the parameter only: the delimiter lines
        # have none (Python strips it from the parameter)
        param_ws = rng.choice([' ', '  ', '\t']) if damage is None and rng.random() < 0.03 else ''
        if param_ws:
            self.note('boundary-param-space')
        self.bnds.append(bnd)
        nleaves, nheaders = len(self.leaves), len(self.headers)

        def kid_id(n):
            kid_start.append(len(self.leaves))
            return str(n) if pid == '' else f'{pid}.{n}'
        kid_start = []
        if sub == 'alternative':
            kids.append(self.leaf_text(kid_id(1)))
            kids.append(self.leaf_html(kid_id(2)))
        elif sub == 'related':
            kids.append(self.leaf_html(kid_id(1)))
            for n in range(rng.randrange(1, 3)):
                h, b, v = self.leaf_binary(kid_id(2 + n))
                h.append(b'Content-ID: <img%d@hunt>' % n)
                kids.append((h, b, v))
        elif sub == 'signed':
            # Under a signature nothing changes, headers included (doc/normalize.md).
            n0, h0 = len(self.leaves), len(self.headers)
            kids.append(self.entity(kid_id(1), depth + 1))
            self.headers[h0:] = [(k, t, 'signed') for k, t, _ in self.headers[h0:]]
            sig = Leaf('opaque', desc='pgp-signature')
            kids.append(self.finish(sig, kid_id(2), [b'Content-Type: application/pgp-signature; name="signature.asc"'],
                                    b'-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n'))
            for x in self.leaves[n0:]:
                x.orig_kind = x.kind
                x.kind = 'opaque'
                x.signed = True
            self.note('signed')
        elif sub == 'digest':
            for n in range(rng.randrange(1, 4)):
                kids.append(self.entity(kid_id(n + 1), depth + 1, in_digest=True))
        elif sub == 'report':
            kids.append(self.leaf_text(kid_id(1)))
            kids.append(self.status(kid_id(2)))
            if rng.random() < 0.5:
                kids.append(self.rfc822_headers(kid_id(3)))
            else:
                kids.append(self.rfc822(kid_id(3), depth + 1))
        else:
            n = rng.randrange(1, 5)
            for k in range(n):
                if rng.random() < 0.04 and k > 0:
                    kids.append(self.leaf_noheader(kid_id(k + 1)))
                else:
                    kids.append(self.entity(kid_id(k + 1), depth + 1))
        pb = bnd + param_ws
        ct = 'multipart/%s; boundary="%s"' % (sub, pb)
        if sub == 'report':
            ct = 'multipart/report; report-type=delivery-status; boundary="%s"' % pb
        if sub == 'related':
            ct = 'multipart/related; type="text/html"; boundary="%s"' % pb
        if sub == 'signed':
            ct = 'multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"; boundary="%s"' % pb
        r = rng.random()
        if r < 0.03:
            # comments between the parameters, folded (RFC 2045 5.1);
            # Python's compat32 keeps a comment in the value and misses
            # the boundary: it reads a copy without them
            plain = ct
            ct = ct.replace('; boundary=', '; (%s)\n\tboundary=' % rng.choice(['sent by x', 'a;b', 'MIME'])) + \
                rng.choice([' (end)', ' (a "quoted" comment)'])
            self.repair(strip_ct_comments)
            self.note('ct-comment')
        elif r < 0.05:
            # a parameter that makes the field longer than 998 octets, one
            # line, before the boundary
            ct = ct.replace('; boundary=', '; x-trace="%s"; boundary=' % ('%x' % rng.randrange(16**40) * 30))
            self.note('long-field')
        self.bnds.pop()
        if damage == 'nobnd':
            ct = 'multipart/%s' % sub
        # bndtrail: a boundary parameter that ends in white space; the delimiters carry it
        if damage:
            self.note('mp-' + damage)
        pad = rng.choice([b' ', b'\t', b'  \t']) if damage == 'padding' else b''
        body = b''
        if damage == 'preamble' or rng.random() < 0.3:
            pre = b'This is a multi-part message in MIME format.\n'
            if damage == 'preamble':
                pre += b'Caf\xe9 pr\xe9ambule, --not a delimiter\n\n'
            body += pre
            self.verbatim.append(('preamble', pre))
        if damage == 'bndtrail' and kids:
            # Python strips the white space at the end of a boundary and
            # then misses the close delimiter `--b --`: the last part runs
            # to the end for it. Its leaves are judged against the input's
            # reading when they differ from the truth.
            for x in self.leaves[kid_start[-1]:]:
                x.oracle_unsure = True
        view = []
        B = bnd.encode()
        for h, b, v in kids:
            sep = b'' if isinstance(h, NoSep) or (b == b'' and any(x == b'X-Hunt-Leaf: ' + (l.tag or '').encode() for x in h
                                           for l in self.leaves[-3:] if getattr(l, 'no_separator', False))) else b'\n'
            body += b'--' + B + pad + b'\n' + b''.join(x + b'\n' for x in h) + sep + b
            if b and not b.endswith(b'\n'):
                body += b'\n'
            elif not b and sep:
                body += b'\n'
            view += v
        if damage != 'noclose':
            body += b'--' + B + b'--' + pad + b'\n'
            if damage == 'epilogue' or rng.random() < 0.1:
                epi = b'\nepilogue text \xe9t\xe9 here\n' if damage == 'epilogue' else b'\n'
                body += epi
                if damage == 'epilogue':
                    self.verbatim.append(('epilogue', epi))
        h = [b'Content-Type: ' + ct.encode()]
        if rng.random() < 0.08:
            # RFC 2045 6.4 allows only 7bit, 8bit, binary on a multipart; mailers write the others
            h.append(b'Content-Transfer-Encoding: ' + rng.choice([b'7bit', b'8bit', b'quoted-printable', b'base64']))
            self.note('multipart-cte')
        if damage == 'nobnd':
            # one leaf whose body is kept as written; the leaves inside are not leaves
            # The leaves written inside are not leaves: the body is one,
            # kept as it is.
            del self.leaves[nleaves:]
            del self.headers[nheaders:]
            leaf = Leaf('opaque', desc='multipart-without-boundary')
            leaf.pid = pid
            leaf.body = body
            h.append(self.tag(leaf))
            return h, body, [leaf.tag]
        return h, body, view

    def join_entity(self, h, mh, body):
        """A message: its header lines h, then its content's mh, the empty
        line and body. Now and then a multipart's header runs into its
        first delimiter (`swallowed-delimiter`: no empty line, or a line of
        white space, which folds), with a delimiter line above its
        Content-Type as well (`delimiter-around-ct`: mailcharset keeps that
        line in the header as a nameless line, doc/message-tree.md; Python,
        which starts the body there, reads a copy without it)."""
        rng = self.rng
        ct = mh[0] if mh and not isinstance(mh, NoSep) else b''
        m = re.match(rb'Content-Type: multipart/[^\n]*boundary="([^"]*)"', ct)
        if m and not any(x.startswith(b'X-Hunt-Leaf') for x in mh) and rng.random() < 0.06:
            b = m.group(1).rstrip()
            delim = b'--' + b + b'\n'
            # (a boundary with a colon makes the delimiter line a header
            # line to Python: doc/message-tree.md)
            if body.startswith(delim) and b':' not in b:
                gap = rng.choice([b'', b'', b' \n'])
                self.note('swallowed-delimiter')
                lines = h + mh
                if rng.random() < 0.5 and h and ct + b'\n' + body not in body and not body.count(delim + ct):
                    lines = h + [delim.rstrip(b'\n')] + mh
                    self.py_repair.append((b'\n' + delim + ct + b'\n', b'\n' + ct + b'\n'))
                    self.note('delimiter-around-ct')
                return b''.join(x + b'\n' for x in lines) + gap + body
        return b''.join(x + b'\n' for x in h + mh) + (b'' if isinstance(mh, NoSep) else b'\n') + body

    def rfc822(self, pid, depth, implicit=False):
        rng = self.rng
        h = self.message_header(inner=True)
        # An encapsulated message's parts: N.1, N.2 (a multipart), or N.1.
        if depth < 3 and rng.random() < 0.5:
            mh, body, view = self.multipart(pid, depth + 1)
        else:
            mh, body, view = self.leaf(f'{pid}.1')
        inner = self.join_entity(h, mh, body)
        if rng.random() < 0.04:
            # a line of white space (or an indented field) before the
            # message's first field: a continuation before any field, the
            # fields after it the header (as Python reads it)
            inner = rng.choice([b' \n', b'\t\n', b'  \n', b' X-Indented: 1\n']) + inner
            self.note('message-continuation-first')
        outer = [] if implicit else [b'Content-Type: message/rfc822']
        if not implicit and rng.random() < 0.15:
            # RFC 6532 3.7: an attached message whose header may hold UTF-8
            outer = [b'Content-Type: message/global']
            self.note('message-global')
        if implicit:
            self.note('digest-implicit')
        return outer, inner, view


CT_FIELD = re.compile(rb'(?i)(?<![^\r\n])Content-Type:(?:[^\r\n]*)(?:(?:\r\n|\n|\r)[ \t][^\r\n]*)*')


def strip_ct_comments(raw):
    """Comments taken out of every Content-Type field (outside quoted
    strings): Python's compat32 keeps them in parameter names and values."""
    def strip(m):
        out, depth, quoted, esc = bytearray(), 0, False, False
        for c in m.group(0):
            if esc:
                esc = False
            elif c == 0x5c:
                esc = True
            elif c == 0x22 and depth == 0:
                quoted = not quoted
            elif c == 0x28 and not quoted:
                depth += 1
                continue
            elif c == 0x29 and depth and not quoted:
                depth -= 1
                continue
            if depth == 0:
                out.append(c)
        return bytes(out)
    return CT_FIELD.sub(strip, raw)


def unfold_cte(raw):
    """Content-Transfer-Encoding values on continuation lines put on the
    field's line: Python's compat32 keeps the line end and does not decode."""
    return re.sub(rb'(?i)(?<![^\r\n])(Content-Transfer-Encoding:)[ \t]*(?:\r\n|\n|\r)[ \t]+', rb'\1 ', raw)


def uu_block(rng, name='attach.bin'):
    data = rng.randbytes(rng.randrange(10, 200))
    lines = ['begin 644 ' + name]
    import binascii
    for i in range(0, len(data), 45):
        lines.append(binascii.b2a_uu(data[i:i + 45], backtick=True).decode().rstrip('\n'))
    lines += ['`', 'end']
    return '\n'.join(lines)


def pct(b):
    return ''.join(chr(x) if (0x30 <= x <= 0x39 or 0x41 <= x <= 0x5a or 0x61 <= x <= 0x7a or x in b'.-_')
                   else '%%%02X' % x for x in b)


def qp_truth(raw):
    """Quoted-printable decoding as RFC 2045 6.7 and src/message/transfer.rs
    write it down: trailing white space deleted, `=XX` (either case) an
    octet, `=` at a line end a soft break, any other `=` kept."""
    out = bytearray()
    lines = raw.split(b'\n')
    for k, line in enumerate(lines):
        cr = line.endswith(b'\r')
        line = line.rstrip(b'\r').rstrip(b' \t')
        soft = line.endswith(b'=')
        if soft:
            line = line[:-1]
        i = 0
        while i < len(line):
            c = line[i]
            if c == 0x3d and re.match(rb'[0-9A-Fa-f]{2}', line[i + 1:i + 3]):
                out.append(int(line[i + 1:i + 3], 16))
                i += 3
                continue
            out.append(c)
            i += 1
        if k < len(lines) - 1 and not soft:
            out += b'\r\n' if cr else b'\n'
    return bytes(out)


def filename_param(rng, name, raw_ok=False):
    """(Content-Disposition parameters, Content-Type name parameter)."""
    if raw_ok and not name.isascii() and rng.random() < 0.5:
        # raw 8-bit (UTF-8 or Latin-1) or an encoded-word in a quoted value,
        # as real mailers write them
        r = rng.random()
        try:
            latin = name.encode('iso-8859-1')
        except UnicodeEncodeError:
            latin = None
        if r < 0.35:
            v = name.encode('utf-8')
        elif r < 0.6 and latin is not None:
            v = latin
        else:
            v = hc.ew(name.encode('utf-8') if latin is None else latin, 'utf-8' if latin is None else 'iso-8859-1',
                      rng.choice('BQ'))
        return b'; filename="' + v + b'"', '; name="%s"' % v.decode('utf-8', 'surrogateescape')
    if name.isascii() and ' ' not in name and rng.random() < 0.5:
        return b'; filename=' + name.encode(), ''
    if name.isascii():
        return b'; filename="' + name.encode() + b'"', '; name="%s"' % name
    r = rng.random()
    try:
        latin = name.encode('iso-8859-1')
    except UnicodeEncodeError:
        latin = None
    if latin is not None and r < 0.4:
        return b"; filename*=iso-8859-1''" + pct(latin).encode(), ''
    v = pct(name.encode('utf-8'))
    if r < 0.7 or len(v) < 12:
        return b"; filename*=UTF-8''" + v.encode(), ''
    # continuations: filename*0*=utf-8''..; filename*1*=...
    k = len(v) // 2
    while v[k - 1] == '%' or v[k - 2] == '%':
        k += 1
    return (b"; filename*0*=utf-8''" + v[:k].encode() + b';\n\tfilename*1*=' + v[k:].encode(), '')


def make_message(rng):
    crlf = rng.random() < 0.3
    g = Gen(rng, crlf)
    h = g.message_header()
    r = rng.random()
    if r < 0.75:
        sub = rng.choice([None, None, None, 'alternative', 'related', 'digest', 'report'])
        mh, body, view = g.multipart('', 0, sub)
    elif r < 0.85:
        mh, body, view = g.rfc822('1', 0)
        mh = [b'Content-Type: message/rfc822']
    elif r < 0.93:
        mh, body, view = g.leaf('1')
    else:
        mh, body, view = g.leaf_nosep('1')
    if not isinstance(mh, NoSep) and rng.random() < 0.05:
        # A broken fold: the Subject wrapped without white space. Between
        # fields of a header that ends with its empty line, the line is
        # kept in the header (doc/message-tree.md); Python takes it for
        # the body, so it reads the message with the fold repaired.
        stray = rng.choice([b'and the rest of the subject', b'(second line of a long subject)',
                            b'continued here, 2nd half'])
        at = next(i for i, x in enumerate(h) if x.startswith(b'Subject: '))
        h.insert(at + 1, stray)
        g.py_repair.append((b'\n' + stray, b'\n ' + stray))
        kind, truth, chk = next(x for x in g.headers if x[0] == 'subject')
        g.headers[g.headers.index((kind, truth, chk))] = (kind, truth + ' ' + stray.decode(), chk)
        g.note('broken-fold')
    if rng.random() < 0.03:
        # A header field over RFC 5322's 998 octets on one line (a long
        # References, a mailer's X- field): the fields after it are read.
        long = b' '.join(b'<%d.%x@lists.example.org>' % (k, rng.randrange(16**8)) for k in range(rng.randrange(40, 90)))
        h.insert(rng.randrange(len(h) + 1), rng.choice([b'References: ', b'X-Long-Trace: ']) + long)
        g.note('long-field')
    raw = g.join_entity(h, mh, body)
    eol = None
    r = rng.random()
    if r < 0.02 and not g.py_repair:
        # Line ends mixed: a gateway that wrote CRLF for some lines only
        # (the header, or lines here and there).
        lines = raw.split(b'\n')
        if rng.random() < 0.5:
            end = raw.find(b'\n\n')
            head = raw[:end].count(b'\n') + 1 if end >= 0 else 0
            raw = b''.join(x + (b'\r\n' if k < head else b'\n') for k, x in enumerate(lines[:-1])) + lines[-1]
        else:
            raw = b''.join(x + (b'\r\n' if rng.random() < 0.3 else b'\n') for x in lines[:-1]) + lines[-1]
        g.note('mixed-eol')
    elif r < 0.03:
        eol = b'\r'  # old Mac OS: CR only
        g.note('cr-only')
    elif crlf:
        eol = b'\r\n'
    if eol:
        raw = re.sub(rb'\r?\n', eol, raw)
        g.py_repair = [r if callable(r) else (re.sub(rb'\r?\n', eol, r[0]), re.sub(rb'\r?\n', eol, r[1]))
                       for r in g.py_repair]
    if rng.random() < 0.04 and raw.endswith(b'\n') and not raw.endswith(b'\n\n'):
        # the message ends without its final line end (a cut file, a
        # mailer's last line)
        raw = raw[:-2] if raw.endswith(b'\r\n') else raw[:-1]
        g.note('no-final-eol')
    return raw, g, view


# ---------------------------------------------------------------- checking
def hunt_view(msg):
    """Python's leaves, a tagged part counting as one (not descended)."""
    out = []

    def walk(p):
        t = p.get('X-Hunt-Leaf')
        if t is not None:
            out.append((t.strip(), p))
            return
        if p.is_multipart():
            for s in p.get_payload():
                walk(s)
        else:
            out.append((None, p))
    walk(msg)
    return out


def raw_payload(p):
    """The body as written (compat32's get_payload() would decode 8-bit
    octets through the charset)."""
    v = p._payload
    if isinstance(v, list):
        return None
    return v.encode('ascii', 'surrogateescape') if isinstance(v, str) else v


def raw_header(m, name):
    """The first field of a name as written (8-bit octets as surrogates)."""
    for k, v in m._headers:
        if k.lower() == name:
            return v
    return None


def nl(s):
    return s.replace('\r\n', '\n').replace('\r', '\n').rstrip('\n')


def py_codec(label):
    if not label:
        return 'cp1252'
    label = label.lower()
    return hc.READ.get(label, {'us-ascii': 'cp1252', 'ascii': 'cp1252'}.get(label, label))


def decoded_text(p):
    payload = p.get_payload(decode=True) or b''
    cs = p.get_content_charset()
    if cs is None and p.get_content_type() == 'text/html':
        m = re.search(rb'<meta[^>]*charset=["\']?([\w.:-]+)', payload[:1024], re.I)
        cs = m.group(1).decode('ascii') if m else None
    try:
        return payload.decode(py_codec(cs), errors='replace'), payload
    except LookupError:
        return payload.decode('utf-8', errors='replace'), payload


def html_norm(s):
    return re.sub(r'charset=["\']?[\w.:-]+', 'charset=X', s, flags=re.I)


def lines_match(truth, got, damaged):
    if truth == got:
        return True
    if not damaged:
        return False
    t, o = truth.split('\n'), got.split('\n')
    if len(t) != len(o):
        return False
    return all(a == b or ('\ufffd' in a and '\ufffd' in b) or ('\ufffd' in a and len(b) >= len(a) - 4) for a, b in zip(t, o))


def header_text(v):
    if v is None:
        return None
    v = re.sub(r'(?:\r\n|\n|\r)[ \t]', ' ', str(v))
    if any(0xdc80 <= ord(c) <= 0xdcff for c in v):  # raw 8-bit in compat32
        return v.encode('ascii', 'surrogateescape').decode('utf-8', errors='replace')
    try:
        return str(email.header.make_header(email.header.decode_header(v)))
    except Exception as e:  # noqa: BLE001
        return f'<undecodable {e}>'


def display_name(v):
    t = header_text(v) or ''
    t = re.sub(r'\s*<[^>]*>\s*$', '', t).strip()
    if t.startswith('"') and t.endswith('"'):
        t = t[1:-1]
    return t


def ancestors(root, target):
    """The parts between root and target (a tagged one is a leaf: what is
    inside it is not the generator's)."""
    path = []

    def walk(p):
        if p is target:
            return True
        if p.is_multipart():
            path.append(p)
            for s in p.get_payload():
                if walk(s):
                    return True
            path.pop()
        return False
    walk(root)
    return path


def all_messages(msg):
    """The message and each encapsulated one, in order."""
    out = [msg]
    for p in msg.walk():
        if p.get_content_type() in ('message/rfc822', 'message/global') and p.is_multipart() and p.get('X-Hunt-Leaf') is None \
                and not any(a.get('X-Hunt-Leaf') is not None for a in ancestors(msg, p)):
            for s in p.get_payload():
                out.append(s)
    return out


def filename_of(p):
    """The file name as a reader shows it: RFC 2231 decoded, encoded-words
    decoded, raw 8-bit octets read as UTF-8 (RFC 6532)."""
    raw = raw_header(p, 'content-disposition') or ''
    if re.search(r'filename\*', raw, re.I) or not re.search('[\udc80-\udcff]', raw):
        fn = p.get_filename()
    else:
        m = re.search(r'filename="([^"]*)"', raw, re.I) or re.search(r'filename=([^;\s]*)', raw, re.I)
        fn = m.group(1).encode('ascii', 'surrogateescape').decode('utf-8', errors='replace') if m else None
    if fn and '=?' in fn:
        fn = header_text(fn)
    return fn


def legacy8(b):
    """Raw 8-bit octets that are not UTF-8 (a legacy charset's): a guess
    to any reader (doc/charset-decision.md: the charset of the message's
    text, else detection)."""
    try:
        b.decode('utf-8')
        return False
    except UnicodeDecodeError:
        return True


def check_filename(leaf, pout):
    if leaf.filename is None:
        return []
    fn = filename_of(pout)
    if fn != leaf.filename:
        b = 'info-filename-raw8-guess' if getattr(leaf, 'filename_guess', False) else 'header-filename-wrong'
        return [(b, f'{leaf.desc}: {leaf.filename!r} -> {fn!r}')]
    return []


def reads_as_text(data):
    if not data or b'\x00' in data or any(data.startswith(m) for m, _, _ in MAGIC.values()):
        return False
    ctl = sum(1 for x in data if x < 0x20 and x not in (9, 10, 12, 13, 27, 14, 15))
    return ctl * 100 < len(data)


def check_leaf(leaf, pin, pout, report_cs):
    """One generated leaf against its output part. [(bucket, detail)]."""
    fails = []
    rin, rout = raw_payload(pin), raw_payload(pout)
    if leaf.kind == 'opaque':
        if rin is not None and rin != rout:
            fails.append(('opaque-changed', f'{leaf.desc}: {len(rin)} -> {len(rout or b"")} octets'))
        return fails
    if leaf.kind == 'binary':
        got = pout.get_payload(decode=True) or b''
        if rin != rout and 'as-text' in leaf.desc and reads_as_text(leaf.data):
            # No NUL, controls under 1%, no magic number: text by the
            # documented binary rule (doc/charset-decision.md, "Binary is not
            # text"); a few octets of a cut deflate stream are.
            fails.append(('info-short-binary-reads-as-text', f'{leaf.desc}: {len(leaf.data)} octets'))
        elif rin != rout:
            fails.append(('binary-changed', f'{leaf.desc}: encoded body {len(rin or b"")} -> {len(rout or b"")} octets'))
        elif got != (pin.get_payload(decode=True) or b''):
            fails.append(('binary-changed', f'{leaf.desc}: decoded differs'))
        fails += check_filename(leaf, pout)
        return fails
    # text
    fails += check_filename(leaf, pout)
    if leaf.transfer_damaged and rin == rout:
        return fails  # kept as it was (doc/normalize.md: damaged transfer coding)
    text, _ = decoded_text(pout)
    truth = nl(leaf.text)
    got = nl(text)
    if getattr(leaf, 'html', False):
        truth, got = html_norm(truth), html_norm(got)
    if lines_match(truth, got, leaf.damaged):
        return fails
    if getattr(leaf, 'cut', False) and got.rstrip('\ufffd') == truth.rstrip('\ufffd')[:len(got.rstrip('\ufffd'))] \
            and len(truth) - len(got) <= 2:
        return fails
    if getattr(leaf, 'guess', False):
        return [('info-unlabelled-guess', f'{leaf.desc} charset={report_cs}')]
    # Python's own reading of the input is not the truth (a boundary with
    # white space at its end, ...): the output must read as the input does.
    tin = nl(decoded_text(pin)[0])
    if getattr(leaf, 'html', False):
        tin = html_norm(tin)
    if not lines_match(truth, tin, leaf.damaged) and lines_match(tin, got, leaf.damaged):
        return [('info-oracle-reads-input-otherwise', f'{leaf.desc} pid={leaf.pid}')]
    if getattr(leaf, 'oracle_unsure', False):
        return [('info-oracle-boundary-trailing-space', f'{leaf.desc} pid={leaf.pid}')]
    t, o = truth.split('\n'), got.split('\n')
    i = next((k for k, (a, b) in enumerate(zip(t, o)) if a != b), min(len(t), len(o)))
    detail = (f'{leaf.desc} pid={leaf.pid} used={report_cs}: line {i}/{len(t)}->{len(o)} '
              f'{(t[i] if i < len(t) else "<end>")[:50]!r} -> {(o[i] if i < len(o) else "<end>")[:50]!r}')
    want = (leaf.codec or '').replace('_', '-').lower()
    fam = {'cp1252': 'windows-1252', 'cp932': 'shift_jis', 'cp949': 'euc-kr', 'gb18030': 'gb18030', 'big5hkscs': 'big5',
           'koi8-r': 'koi8-r', 'euc-jp': 'euc-jp', 'iso2022-jp': 'iso-2022-jp', 'utf-8': 'utf-8', 'ascii': None}
    w = fam.get(want, want)
    if report_cs and w and report_cs.lower().replace('_', '-') not in (w, w.replace('iso8859-', 'iso-8859-')) \
            and not (w == 'windows-1252' and report_cs.lower() in ('iso-8859-1', 'us-ascii')) \
            and not (w == 'gb18030' and report_cs.lower() in ('gbk', 'gb2312')) \
            and not (w == 'euc-kr' and report_cs.lower() in ('ks_c_5601-1987',)):
        return [('charset:other-reading', detail)]
    return [('text-changed', detail)]


# Options a case may run with (one case in four); filter runs with the
# same, so it gets only those it has.
OPTION_SETS = [['--headers', 'utf8'], ['--8bit'], ['--on-error', 'keep'], ['--8bit', '--headers', 'utf8']]


def run(binp, args, cwd, stdin=None, timeout=60):
    try:
        p = subprocess.run([binp] + args, cwd=cwd, input=stdin, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b''


def run_case(binp, case):
    d = case['dir']
    g = case['gen']
    path = os.path.join(d, 'in.eml')
    outp = os.path.join(d, 'out.eml')
    rep = os.path.join(d, 'report.jsonl')
    fails = []
    opts = case['opts']
    rc, _, se = run(binp, ['normalize', '-q', *opts, '--report', rep, '-o', outp, path], d)
    if rc != 0:
        return [(f'normalize-exit-{rc}', se.decode('utf-8', 'replace').strip()[-120:])]
    out = open(outp, 'rb').read()
    raw = case['raw']
    try:
        report = [json.loads(x) for x in open(rep, 'rb').read().splitlines() if x.strip()]
    except ValueError as e:
        report = []
        fails.append(('report-not-json', str(e)[:80]))
    if len(report) != 1:
        fails.append(('report-lines', f'{len(report)} lines'))
    rparts = report[0].get('parts', []) if report else []
    body_cs = {p['part']: p.get('charset') for p in rparts if p.get('location') == 'body'}
    body_rep = {p['part']: p for p in rparts if p.get('location') == 'body'}
    # idempotence
    rc2, again, _ = run(binp, ['normalize', '-q', *opts, '-'], d, stdin=out)
    if rc2 != 0:
        fails.append((f'renormalize-exit-{rc2}', ''))
    elif again != out:
        fails.append(('not-idempotent', f'{len(out)} -> {len(again)} octets'))
    # verbatim pieces
    for what, b in g.verbatim:
        b2 = re.sub(rb'\r?\n', b'\r\n', b) if g.crlf else b
        if b2 in raw and b2 not in out:
            fails.append((f'{what}-changed', repr(b[:40])))
    # Python's reading
    raw_py, out_py = raw, out
    for r in g.py_repair:
        if callable(r):
            raw_py, out_py = r(raw_py), r(out_py)
        else:
            raw_py, out_py = raw_py.replace(r[0], r[1]), out_py.replace(r[0], r[1])
    try:
        mi = email.message_from_bytes(raw_py)
        mo = email.message_from_bytes(out_py)
    except Exception as e:  # noqa: BLE001
        return fails + [('oracle-parse-error', str(e)[:80])]
    # Normalize writes the empty line of every part that had none, but
    # under a signature. (Python finds the defect elsewhere too: in the
    # base64 text of an encoded message/rfc822, kept as it is.)
    def nosep_defects(m):
        return sum(isinstance(d, email.errors.MissingHeaderBodySeparatorDefect) for p in m.walk() for d in p.defects)
    # (with a boundary reused, which parts are parts is Python's reading:
    # one written may be in an epilogue)
    written = 0 if 'boundary-reused' in g.damage else \
        sum(1 for l in g.leaves if getattr(l, 'nosep', False) and not getattr(l, 'signed', False))
    if written and nosep_defects(mo) > nosep_defects(mi) - written:
        fails.append(('output-missing-separator', f'{nosep_defects(mi)} -> {nosep_defects(mo)} headers without '
                      f'their empty line, {written} written by normalize'))
    vi, vo = hunt_view(mi), hunt_view(mo)
    exp = case['view']
    ti, to = [t for t, _ in vi], [t for t, _ in vo]
    if ti != to:
        fails.append(('leaves-changed', f'{ti[:10]} -> {to[:10]}'))
    elif ti != exp:
        fails.append(('info-oracle-reads-input-otherwise', f'{exp[:10]} vs python {ti[:10]}'))
        # judged by content: every tagged leaf Python sees, by its tag
        byt = {l.tag: l for l in g.leaves if l.tag is not None}
        for (t, pin), (_, pout) in zip(vi, vo):
            if t in byt and getattr(byt[t], 'signed', False) \
                    and not any(a.get_content_type() == 'multipart/signed' for a in ancestors(mi, pin)):
                # written under a signature the reader does not see (its
                # delimiters taken by an enclosing multipart that reuses its
                # boundary): a part like any other to every reader
                fails.append(('info-signed-not-seen', byt[t].desc))
            elif t in byt and byt[t].kind in ('binary', 'opaque'):
                for b, dd in check_leaf(byt[t], pin, pout, None):
                    fails.append((b, dd))
            elif t is None or t not in byt:
                a, b = raw_payload(pin), raw_payload(pout)
                if a != b and nl(decoded_text(pin)[0]) != nl(decoded_text(pout)[0]):
                    fails.append(('info-untagged-part-changed', pin.get_content_type()))
    else:
        leaves = {l.tag: l for l in g.leaves if l.tag is not None}
        untagged = [l for l in g.leaves if l.tag is None]
        k = 0
        for (t, pin), (_, pout) in zip(vi, vo):
            if t is None:
                if k < len(untagged):
                    leaf = untagged[k]
                    k += 1
                    fails += check_leaf(leaf, pin, pout, body_cs.get(leaf.pid))
                continue
            leaf = leaves.get(t)
            if leaf is None:
                continue
            fails += check_leaf(leaf, pin, pout, body_cs.get(leaf.pid))
        # the report: one body entry per text leaf
        for leaf in g.leaves:
            e = body_rep.get(leaf.pid)
            if e is not None and getattr(leaf, 'nosep', False) \
                    and not any(f.get('kind') == 'malformed' and 'no empty line' in f.get('note', '')
                                for f in e.get('findings', [])):
                fails.append(('report-nosep-unreported', f'{leaf.desc} pid={leaf.pid} action={e.get("action")}'))
            e = body_rep.get(leaf.pid)
            if e is not None and getattr(leaf, 'transfer_finding', False) and leaf.kind == 'text' \
                    and not any(f.get('kind') == 'malformed' for f in e.get('findings', [])):
                fails.append(('report-transfer-damage-unreported', f'{leaf.desc} pid={leaf.pid} action={e.get("action")}'))
            if leaf.kind == 'text' and leaf.pid not in body_cs and not getattr(leaf, 'signed', False):
                fails.append(('report-text-leaf-missing', f'{leaf.desc} pid={leaf.pid} have={sorted(body_cs)[:8]}'))
    # headers: Subject and From display names of each message, in order
    want = g.headers
    msgs = all_messages(mo)
    subj = [('subject', header_text(raw_header(m, 'subject'))) for m in msgs]
    frm = [('from', display_name(raw_header(m, 'from'))) for m in msgs]
    got = {'subject': [s for _, s in subj], 'from': [f for _, f in frm]}
    wants = {'subject': [w for w in want if w[0] == 'subject'], 'from': [w for w in want if w[0] == 'from']}
    if ti == exp == to:
        for kind in ('subject', 'from'):
            for (_, truth, chk), val in zip(wants[kind], got[kind]):
                if val is None or ' '.join(val.split()) != ' '.join(truth.split()):
                    b = {'raw8': f'info-{kind}-raw8-guess', 'signed': f'info-{kind}-signed-kept'}.get(chk, f'header-{kind}-wrong')
                    fails.append((b, f'{truth!r} -> {val!r}'))
    # audit
    rc3, ao, ae = run(binp, ['audit', '--format', 'jsonl', path], d)
    if rc3 != 0:
        fails.append((f'audit-exit-{rc3}', ae.decode('utf-8', 'replace').strip()[-100:]))
    else:
        try:
            recs = [json.loads(x) for x in ao.splitlines() if x.strip()]
        except ValueError as e:
            recs = []
            fails.append(('audit-not-json', str(e)[:80]))
        bodies = {r['part']: r for r in recs if r.get('location') == 'body'}
        if ti == exp:
            for leaf in g.leaves:
                if getattr(leaf, 'orig_kind', leaf.kind) != 'text':
                    continue
                r = bodies.get(leaf.pid)
                if r is None:
                    fails.append(('audit-text-leaf-missing', f'{leaf.desc} pid={leaf.pid} have={sorted(bodies)[:8]}'))
                elif leaf.damaged and r.get('verdict') == 'ok':
                    # (WHATWG's Big5 and Python's big5hkscs differ on some
                    # pairs: the charset decision's ground)
                    fails.append(('charset:audit-damage-verdict-ok', f'{leaf.desc} pid={leaf.pid}'))
                elif getattr(leaf, 'transfer_finding', False) and leaf.kind == 'text' \
                        and not any(f.get('kind') == 'malformed' for f in r.get('findings', [])):
                    fails.append(('audit-transfer-damage-unreported', f'{leaf.desc} pid={leaf.pid} verdict={r.get("verdict")}'))
                if r is not None and getattr(leaf, 'nosep', False) \
                        and not any(f.get('kind') == 'malformed' and 'no empty line' in f.get('note', '')
                                    for f in r.get('findings', [])):
                    fails.append(('audit-nosep-unreported', f'{leaf.desc} pid={leaf.pid} verdict={r.get("verdict")}'))
    # the gateway filter: exit 0, never refused, the same bytes as normalize
    if case['filter'] and not any(o in ('--8bit', '--on-error') for o in case['opts']):
        rc4, fo, fe = run(binp, ['filter', *opts], d, stdin=raw)
        if rc4 != 0:
            fails.append((f'filter-exit-{rc4}', fe.decode('utf-8', 'replace').strip()[-100:]))
        elif fo != out:
            fails.append(('filter-differs-from-normalize', fe.decode('utf-8', 'replace').strip()[:100]))
        elif len(fe.strip().splitlines()) != 1:
            fails.append(('filter-stderr-not-one-line', fe.decode('utf-8', 'replace')[:100]))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=1500)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--strict', action='store_true', help='exit 1 when a failure is outside the info-* and charset:* buckets (CI)')
    ap.add_argument('--bin', default=os.path.join(os.environ.get('CARGO_TARGET_DIR', 'target'), 'release', 'mailcharset'))
    ap.add_argument('--out', default=None)
    ap.add_argument('--show', type=int, default=2)
    ap.add_argument('--keep', action='store_true', help='keep passing cases too')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--by-shape', action='store_true', help='cases and failing cases (outside info-*/charset:*) per damage shape')
    a = ap.parse_args()
    binp = os.path.abspath(a.bin)
    if not os.access(binp, os.X_OK):
        sys.exit(f'{binp}: no binary (cargo build --release, or --bin PATH)')
    rng = random.Random(a.seed)
    # Absolute: the cases run with their own working directories.
    base = os.path.abspath(a.out) if a.out else tempfile.mkdtemp(prefix='hunt-struct-')
    os.makedirs(base, exist_ok=True)
    cases = []
    for i in range(a.n):
        raw, g, view = make_message(rng)
        d = os.path.join(base, f's{a.seed}c{i:05d}')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'in.eml'), 'wb') as f:
            f.write(raw)
        desc = ','.join(sorted(set(g.damage))) or 'clean'
        opts = rng.choice(OPTION_SETS)
        cases.append(dict(dir=d, raw=raw, gen=g, view=view, desc=desc, filter=rng.random() < 0.25 or opts[:1] == ['--headers'],
                          opts=opts if rng.random() < 0.25 else []))

    def one(c):
        try:
            return run_case(binp, c)
        except Exception as e:  # noqa: BLE001 (a hunter bug, reported as such)
            import traceback
            return [('hunter-error', f'{type(e).__name__}: {e} {traceback.format_exc().splitlines()[-3].strip()}')]

    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(one, cases))
    buckets = defaultdict(list)
    for c, fails in zip(cases, results):
        real = [f for f in fails if not f[0].startswith('info') and not f[0].startswith('charset:')]
        for b, dd in fails:
            buckets[b].append((c, dd))
        if real:
            with open(os.path.join(c['dir'], 'cmd.txt'), 'w') as f:
                f.write(f'{binp} normalize {" ".join(c["opts"])} --report report.jsonl -o out.eml in.eml\n'
                        + '\n'.join(f'{b}: {dd}' for b, dd in fails) + '\n')
        elif not a.keep:
            shutil.rmtree(c['dir'], ignore_errors=True)
    nleaves = sum(len(c['gen'].leaves) for c in cases)
    print(f'cases: {len(cases)}  leaves: {nleaves}  seed: {a.seed}  out: {base}')
    order = lambda b: (b.startswith('info') or b.startswith('charset:'), b)  # noqa: E731
    for b in sorted(buckets, key=order):
        items = buckets[b]
        print(f'\n== {b}: {len(items)}')
        descs = defaultdict(int)
        for c, _ in items:
            descs[c['desc']] += 1
        print('   ', dict(sorted(descs.items(), key=lambda x: -x[1])[:5]))
        for c, dd in items[:a.show]:
            print('   ', c['dir'], dd[:220])
    with open(os.path.join(base, 'buckets.json'), 'w') as f:
        json.dump({b: [c['dir'] for c, _ in v] for b, v in buckets.items()}, f, indent=1)
    real = sum(len(v) for b, v in buckets.items() if not (b.startswith('info') or b.startswith('charset:')))
    if a.by_shape:
        shapes = defaultdict(lambda: [0, 0])
        for c, fails in zip(cases, results):
            bad = any(not (b.startswith('info') or b.startswith('charset:')) for b, _ in fails)
            for d in set(c['gen'].damage) or {'clean'}:
                shapes[d][0] += 1
                shapes[d][1] += bad
        print('\nshape: cases, failing')
        for d in sorted(shapes):
            print(f'    {d}: {shapes[d][0]}, {shapes[d][1]}')
    print(f'\n{real} failures outside info-*/charset:* buckets')
    if a.strict and real:
        sys.exit(1)


if __name__ == '__main__':
    main()
