#!/usr/bin/env python3
"""Hunt for wrong results on mail as real clients and services write it.

    tools/hunt_clients.py [--n 1200] [--seed 1] [--bin PATH] [--out DIR]
                          [--show 1] [--jobs 2] [--keep]

An independent model of real mail, not of the code: each message is
written the way one client or service writes it, with the text as written
(the truth) kept beside it.

- Outlook/Exchange: windows-1252 text (smart quotes, euro) under
  `iso-8859-1` or `Windows-1252`, multipart/alternative with an HTML part
  carrying `<meta http-equiv=Content-Type content="text/html;
  charset=...">`, winmail.dat (application/ms-tnef), Korean under
  `ks_c_5601-1987` with UHC-only Hangul (cp949), Chinese under `gb2312`
  holding GBK-only characters (body and `=?gb2312?B?` subject).
- Japanese: ISO-2022-JP with half-width katakana (`ESC ( I`) and
  CP50220 NEC row 13 (①, ㈱) under the plain label; Shift_JIS mobile mail
  with carrier emoji (private use); EUC-JP list mail with an ASCII footer.
- Chinese: GB18030 four-octet characters under `gb2312`, Big5-HKSCS
  Cantonese under `big5`.
- Russian/Ukrainian: KOI8-R, KOI8-U, windows-1251 under their labels;
  windows-1251 under `koi8-r` and Ukrainian KOI8-U under `koi8-r` (lies).
- Mailing lists: ASCII, UTF-8 or Latin-1 footers appended raw to 8bit
  bodies in another charset, appended after a base64 body, or added as
  a separate part (Mailman); `[list]` tags before encoded-words;
  multipart/digest of messages in their own charsets.
- Mobile/webmail: format=flowed (trailing spaces are soft breaks),
  UTF-8 with a BOM, emoji, UTF-8 under `us-ascii`, 8-bit text without a
  label, `utf8`, `unicode-1-1-utf-8`, `x-user-defined`, `unknown-8bit`,
  `default`.
- Attachments: PDF, zip, docx, PNG, JPEG, TNEF; .ics and .vcf under
  text/* with charsets; CSV in windows-1252; binary under text/plain
  (`.dat`); Notepad UTF-16LE text files.
- Forwards (message/rfc822 with its own charsets), bounces
  (multipart/report with message/delivery-status and text/rfc822-headers
  holding raw 8-bit header fields).
- Damage in transit: one octet replaced, high bit stripped, CRLF to LF
  (whole messages in LF), a line cut or split at 998 octets, a lost QP
  soft break, a base64 line with a lost or foreign character.

Checks per message (oracles: the generator's truth, Python's codecs,
Python's `email` with policy default): `normalize --report` exits 0; the
output parses to the same tree (`structure-changed`); every text leaf
reads as written (`text-changed`), except within a few characters of a
damaged octet (U+FFFD there); a lie is either read as written, or kept as
the label's reading (`info-lie-missed-*`), never a third text
(`lie-third-reading`); binary leaves are byte-identical after transfer
decoding (`binary-changed`); message/delivery-status is copied
(`verbatim-changed`); Subject and From display names read as written
(`header-*`); the output normalizes to itself (`not-idempotent`);
`audit` has a body record for every text leaf and does not call damage
(an invalid sequence under the label) or a caught lie `ok`
(`audit-*`). Documented behaviour (doc/charset-decision.md,
doc/normalize.md) goes to `info-*` buckets. Failing cases are kept under
--out with `cmd.txt`; for each bucket the smallest reproducer is shown.
"""
import argparse
import email.utils
import base64
import email
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

# ---------------------------------------------------------------- texts

EN = ["Hi Bob, here\u2019s the \u201cfinal\u201d draft \u2013 let\u2019s talk tomorrow\u2026",
      "The invoice comes to \u20ac1,250.00 \u2022 due in 30 days.",
      "Please don\u2019t forward this \u2014 it\u2019s \u201cconfidential\u201d.",
      "Thanks,", "Kind regards", "See the attached file for details.",
      "Meeting moved to 3 pm (room 4.12).", "We\u2019ll need \u00bd hour, not more \u2122."]
EN_ASCII = ["Hi all,", "Please find the documents attached.", "Let me know if anything is missing.", "Best regards, Tom"]
FR = ["Bonjour \u00e0 tous,", "Voil\u00e0 le r\u00e9sum\u00e9 de la r\u00e9union de mardi.",
      "\u00c7a va \u00eatre tr\u00e8s int\u00e9ressant \u2014 \u00e0 bient\u00f4t !",
      "Fran\u00e7ois a d\u00e9j\u00e0 envoy\u00e9 les documents.", "Cordialement,",
      "Gr\u00fc\u00dfe aus M\u00fcnchen, die Gr\u00f6\u00dfe ist \u00fcbrigens 42.",
      "El a\u00f1o pr\u00f3ximo, se\u00f1or Mu\u00f1oz."]
RU = ["\u041f\u0440\u0438\u0432\u0435\u0442, \u043a\u043e\u043b\u043b\u0435\u0433\u0438!",
      "\u041e\u0442\u0447\u0451\u0442 \u0437\u0430 \u043d\u0435\u0434\u0435\u043b\u044e \u0433\u043e\u0442\u043e\u0432, \u043f\u043e\u0441\u043c\u043e\u0442\u0440\u0438\u0442\u0435, \u043f\u043e\u0436\u0430\u043b\u0443\u0439\u0441\u0442\u0430.",
      "\u0412\u0441\u0442\u0440\u0435\u0447\u0430 \u0441\u043e\u0441\u0442\u043e\u0438\u0442\u0441\u044f \u0432 \u0447\u0435\u0442\u0432\u0435\u0440\u0433 \u0432 10 \u0443\u0442\u0440\u0430.",
      "\u0421 \u0443\u0432\u0430\u0436\u0435\u043d\u0438\u0435\u043c, \u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432",
      "\u0421\u043f\u0430\u0441\u0438\u0431\u043e \u0437\u0430 \u0431\u044b\u0441\u0442\u0440\u044b\u0439 \u043e\u0442\u0432\u0435\u0442."]
UK = ["\u041f\u0440\u0438\u0432\u0456\u0442, \u0434\u0440\u0443\u0437\u0456!",
      "\u0414\u044f\u043a\u0443\u044e \u0437\u0430 \u0456\u043d\u0444\u043e\u0440\u043c\u0430\u0446\u0456\u044e, \u0432\u0441\u0435 \u0433\u0430\u0440\u0430\u0437\u0434.",
      "\u0407\u0436\u0430\u043a \u0456 \u0454\u043d\u043e\u0442 \u0441\u0438\u0434\u044f\u0442\u044c \u043d\u0430 \u0491\u0430\u043d\u043a\u0443.",
      "\u0417\u0443\u0441\u0442\u0440\u0456\u0447 \u0443 \u043f'\u044f\u0442\u043d\u0438\u0446\u044e, \u043d\u0435 \u0437\u0430\u0431\u0443\u0434\u044c\u0442\u0435 \u0457\u0436\u0443.",
      "\u0417 \u043f\u043e\u0432\u0430\u0433\u043e\u044e, \u041e\u043b\u0435\u043d\u0430 \u0404\u0432\u0442\u0443\u0448\u0435\u043d\u043a\u043e"]
JA = ["\u304a\u4e16\u8a71\u306b\u306a\u3063\u3066\u304a\u308a\u307e\u3059\u3002\u5c71\u7530\u3067\u3059\u3002",
      "\u660e\u65e5\u306e\u4f1a\u8b70\u306e\u4ef6\u3001\u3088\u308d\u3057\u304f\u304a\u9858\u3044\u3057\u307e\u3059\u3002",
      "\u8cc7\u6599\u3092\u6dfb\u4ed8\u3057\u307e\u3057\u305f\u306e\u3067\u3001\u3054\u78ba\u8a8d\u304f\u3060\u3055\u3044\u3002",
      "\u682a\u5f0f\u4f1a\u793e\u30c6\u30b9\u30c8 \u55b6\u696d\u90e8 \u7530\u4e2d\u592a\u90ce",
      "\u4ee5\u4e0a\u3001\u3088\u308d\u3057\u304f\u304a\u9858\u3044\u81f4\u3057\u307e\u3059\u3002"]
JA_KANA = ["\uff76\uff80\uff76\uff85\u3067\u66f8\u304d\u307e\u3057\u305f\u3002\uff7a\uff9d\uff8b\uff9f\uff6d\uff70\uff80\uff70",
           "\uff83\uff7d\uff84 \uff92\uff70\uff99\u3067\u3059\u3002"]
JA_NEC = ["\u2460\u8cc7\u6599\u78ba\u8a8d \u2461\u898b\u7a4d\u3082\u308a \u2462\u767a\u6ce8",
          "\u3231\u30c6\u30b9\u30c8\u5546\u4e8b \u2116123 \u3349\u5358\u4f4d \u2161\u671f"]
EMOJI_SJIS = "\ue63e\ue69c\ue6f0"   # carrier emoji, cp932 F89F.. (private use)
ZH = ["\u60a8\u597d\uff0c\u9644\u4ef6\u662f\u672c\u5468\u7684\u5de5\u4f5c\u62a5\u544a\uff0c\u8bf7\u67e5\u6536\u3002",
      "\u6211\u4eec\u660e\u5929\u4e0b\u5348\u4e09\u70b9\u5f00\u4f1a\uff0c\u8ba8\u8bba\u4e0b\u4e00\u6b65\u7684\u8ba1\u5212\u3002",
      "\u5982\u6709\u95ee\u9898\uff0c\u8bf7\u968f\u65f6\u4e0e\u6211\u8054\u7cfb\u3002\u8c22\u8c22\uff01",
      "\u6b64\u81f4 \u656c\u793c"]
ZH_GBK = ["\u6731\u9555\u57fa\u603b\u7406\u8bf4\u8fc7\u7684\u8bdd\uff0c\u738b\u5586\u548c\u674e\u5803\u90fd\u8bb0\u5f97\u3002",
          "\u5f20\u7287\u7684\u516c\u53f8\u5728\u6607\u5e73\u8def\u3002"]
ZH_4B = ["\u9644\u4ef6\u91cc\u6709\u751f\u50fb\u5b57 \U00020bb7 \u548c \u3400 \u3002"]
HK = ["\u4f62\u54cb\u5643\u5ea6\u98df\u7dca\u5622\uff0c\u6211\u5730\u9072\u5572\u5148\u50b3\u4f60\u3002",
      "\u5514\u8a72\u6652\uff0c\u5572\u6587\u4ef6\u5514\u8a72\u5e6b\u6211\u7747\u4e0b\u3002",
      "\u6211\u5011\u4e0b\u661f\u671f\u518d\u8a0e\u8ad6\u9019\u500b\u554f\u984c\u3002\u8b1d\u8b1d\uff01"]
KO = ["\uc548\ub155\ud558\uc138\uc694. \ud68c\uc758 \uc790\ub8cc \ubcf4\ub0b4\ub4dc\ub9bd\ub2c8\ub2e4.",
      "\ud655\uc778 \ubd80\ud0c1\ub4dc\ub9ac\uba70, \uad81\uae08\ud55c \uc810\uc740 \uc5f0\ub77d \uc8fc\uc138\uc694.",
      "\uac10\uc0ac\ud569\ub2c8\ub2e4. \uae40\ucca0\uc218 \ub4dc\ub9bc"]
KO_UHC = ["\ub620\ubc29\uac01\ud558 \ud58f\ud58f \ubdc1 \uc330\uc544 \uc5d0\uc5d0\uc5d0"]
EMOJI = ["Sounds good \U0001f44d see you there \U0001f600", "Congrats!! \U0001f389\U0001f389 \u2764\ufe0f"]

FOOTER_ASCII = ("_______________________________________________\n"
                "users mailing list\nusers@lists.example.org\n"
                "https://lists.example.org/mailman/listinfo/users")
FOOTER_UTF8 = "--\nListe de diffusion \u00ab utilisateurs \u00bb \u2014 d\u00e9sinscription : https://liste.example.fr/"
FOOTER_LATIN = "--\nD\u00e9sinscription de la liste \u00e0 l'adresse : https://liste.example.fr/"
GG_FOOTER = ("-- \nYou received this message because you are subscribed to the Google Groups \"dev\" group.\n"
             "To unsubscribe from this group and stop receiving emails from it, send an email to dev+unsubscribe@googlegroups.com.")


def para(rng, pool, k=None):
    k = k or rng.randint(2, 5)
    return '\n'.join(rng.choice(pool) for _ in range(k))


# ---------------------------------------------------------------- codecs


def sjis_to_jis(b):
    s1, s2 = b[0], b[1]
    if s1 >= 0xE0:
        s1 -= 0x40
    j1 = (s1 - 0x81) * 2 + 0x21
    if s2 >= 0x9F:
        j1 += 1
        j2 = s2 - 0x9F + 0x21
    else:
        if s2 >= 0x80:
            s2 -= 1
        j2 = s2 - 0x40 + 0x21
    return bytes([j1, j2])


def iso2022jp(text):
    """ISO-2022-JP as Japanese mailers write it: JIS X 0208 with NEC row 13
    (CP50220/50221), half-width katakana through ESC ( I, ASCII at every
    line end."""
    out = bytearray()
    mode = 'a'
    for c in text:
        o = ord(c)
        if o < 0x80:
            if mode != 'a':
                out += b'\x1b(B'
                mode = 'a'
            out.append(o)
        elif 0xFF61 <= o <= 0xFF9F:
            if mode != 'k':
                out += b'\x1b(I'
                mode = 'k'
            out.append(o - 0xFF61 + 0x21)
        else:
            sj = c.encode('cp932')
            assert len(sj) == 2 and sj[0] <= 0xEF, c
            if mode != 'j':
                out += b'\x1b$B'
                mode = 'j'
            out += sjis_to_jis(sj)
    if mode != 'a':
        out += b'\x1b(B'
    return bytes(out)


def encode(text, codec):
    if codec == 'iso2022jp':
        return b'\n'.join(iso2022jp(line) for line in text.split('\n'))
    if codec == 'utf-8-bom':
        return b'\xef\xbb\xbf' + text.encode('utf-8')
    if codec == 'utf-16-bom':
        return b'\xff\xfe' + text.encode('utf-16-le')
    return text.encode(codec)


# How Python decodes what a WHATWG decoder reads under a label (for the
# label's reading of a lie and for damaged octets).
LABEL_CODEC = {'iso-8859-1': 'cp1252', 'windows-1252': 'cp1252', 'us-ascii': 'cp1252', 'ks_c_5601-1987': 'cp949',
               'euc-kr': 'cp949', 'gb2312': 'gb18030', 'gbk': 'gb18030', 'big5': 'big5hkscs', 'shift_jis': 'cp932',
               'koi8-r': 'koi8_r', 'koi8-u': 'koi8_u', 'windows-1251': 'cp1251', 'euc-jp': 'euc_jp',
               'utf-8': 'utf-8', 'utf8': 'utf-8', 'iso-2022-jp': 'iso2022_jp_ext', 'iso-8859-15': 'iso8859_15'}


def label_reading(data, label):
    c = LABEL_CODEC.get((label or '').lower())
    if c is None:
        return None
    return data.decode(c, errors='replace')


def encodable(text, codec):
    try:
        encode(text, codec)
        return True
    except (UnicodeEncodeError, AssertionError):
        return False


def valid_under(data, codec):
    if codec == 'iso2022jp':
        return True
    if codec == 'cp1252':   # WHATWG's windows-1252 has C1 controls where Python's has holes
        return True
    codec = {'gbk': 'gb18030'}.get(codec, codec)   # WHATWG's GBK decoder is GB18030's
    try:
        data.decode({'utf-8-bom': 'utf-8', 'utf-16-bom': 'utf-16'}.get(codec, codec))
        return True
    except UnicodeDecodeError:
        return False


# ---------------------------------------------------------------- binaries

MAGIC = {
    'pdf': (b'%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'application/pdf', 'report.pdf'),
    'zip': (b'PK\x03\x04\x14\x00\x00\x00\x08\x00', 'application/zip', 'files.zip'),
    'docx': (b'PK\x03\x04\x14\x00\x06\x00\x08\x00', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
             'Angebot.docx'),
    'png': (b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR', 'image/png', 'image001.png'),
    'jpeg': (b'\xff\xd8\xff\xe0\x00\x10JFIF\x00', 'image/jpeg', 'IMG_0042.JPG'),
    'tnef': (b'\x78\x9f\x3e\x22\x01\x00\x01\x06\x90\x08\x00', 'application/ms-tnef', 'winmail.dat'),
    'xls': (b'\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00', 'application/vnd.ms-excel', 'Liste.xls'),
}


def blob(rng, kind, n=None):
    head = MAGIC[kind][0]
    n = n or rng.randint(200, 3000)
    body = zlib.compress(bytes(rng.getrandbits(8) for _ in range(n)), 1)
    return head + body


def b64(data, width=76):
    s = base64.b64encode(data)
    return b'\n'.join(s[i:i + width] for i in range(0, len(s), width)) + b'\n'


def qp(data):
    return quopri.encodestring(data)


# ---------------------------------------------------------------- tree


class Leaf:
    def __init__(self, **kw):
        self.kind = 'text'        # text | binary | verbatim
        self.text = None          # truth (str) for text
        self.data = None          # truth (bytes) for binary
        self.expect = None        # the label's reading of the (damaged) octets, when damaged
        self.damaged = False      # octets damaged in transit
        self.invalid = False      # damage that is an invalid sequence under the label
        self.lie = None           # kind of lie, when the label is wrong
        self.lie_doc = False      # doc/charset-decision.md says this lie is read right
        self.label = None
        self.guess = False        # no label / a label naming no charset: detection
        self.tdamage = False      # transfer coding damaged
        self.b64foot = False
        self.footer_lines = ()    # lines in another charset (mixed)
        self.footer_alt = None    # their reading under the label
        self.html = False
        self.vcard = False
        self.flowed = None
        self.ctype = 'text/plain'
        self.desc = ''
        self.pid = None
        self.__dict__.update(kw)


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.leaves = []
        self.subjects = []     # truth per message, in order
        self.froms = []
        self.verbatim = []
        self.tags = []

    # -- headers

    def ew(self, text, label, codec, mode=None, split_char=False):
        """Encoded-words as a client writes them."""
        rng = self.rng
        mode = mode or rng.choice('BBQ')
        data = encode(text, codec)
        chunks = []
        if split_char and len(data) > 6:
            cut = rng.randint(1, len(data) - 1)
            chunks = [data[:cut], data[cut:]]
        else:
            # split at character boundaries, ~30 octets a word
            cur = b''
            for ch in text:
                e = encode(ch, codec) if codec not in ('iso2022jp', 'utf-8-bom') else None
                if e is None:
                    cur = data
                    break
                if len(cur) + len(e) > 30 and cur:
                    chunks.append(cur)
                    cur = b''
                cur += e
            if cur:
                chunks.append(cur)
        words = []
        for c in chunks:
            if mode == 'B':
                words.append(b'=?' + label.encode() + b'?B?' + base64.b64encode(c) + b'?=')
            else:
                q = b''.join(bytes([x]) if (0x30 <= x <= 0x39 or 0x41 <= x <= 0x5a or 0x61 <= x <= 0x7a) else
                             (b'_' if x == 0x20 else b'=%02X' % x) for x in c)
                words.append(b'=?' + label.encode() + b'?Q?' + q + b'?=')
        return b'\n '.join(words)

    def subject(self, lang_text, label, codec, prefix='', **kw):
        self.subjects.append(prefix + lang_text)
        return prefix.encode() + self.ew(lang_text, label, codec, **kw)

    def from_field(self, name, label, codec, addr='someone@example.com'):
        name = re.split('[,\uff0c\u3002\u3001.!]', name)[0][:14].strip() if name else name
        self.froms.append(name)
        if not name:
            return addr.encode()
        if all(ord(c) < 128 for c in name):
            return b'"' + name.encode() + b'" <' + addr.encode() + b'>'
        return self.ew(name, label, codec) + b' <' + addr.encode() + b'>'

    # -- text leaves

    def text_leaf(self, text, label, codec, cte=None, ctype='text/plain', extra_params='', lie=None, lie_doc=False,
                  guess=False, damage=None, name=None, desc='', **kw):
        rng = self.rng
        data = encode(text, codec)
        leaf = Leaf(text=text, label=label, lie=lie, lie_doc=lie_doc, guess=guess, ctype=ctype, desc=desc, **kw)
        if damage:
            data = self.damage_octets(leaf, data, damage, codec)
        eightbit = any(b >= 0x80 for b in data)
        cte = cte or (rng.choice(['8bit', 'quoted-printable', 'base64']) if eightbit else rng.choice(['7bit', 'quoted-printable']))
        if cte == '7bit' and eightbit:
            cte = '8bit'
        if cte == 'base64':
            body = b64(data)
        elif cte == 'quoted-printable':
            body = qp(data)
        else:
            body = data if data.endswith(b'\n') else data + b'\n'
        if damage == 'qp-soft' and cte == 'quoted-printable':
            body = self.damage_qp(leaf, body, codec)
        if damage == 'b64-line' and cte == 'base64':
            body = self.damage_b64(leaf, body)
        if damage == 'cut998':
            pass
        ct = ctype.encode()
        if label is not None:
            q = rng.choice(['"', '', '']) if label else ''
            sep = rng.choice([b'; charset=', b'; charset=', b'; charset=', b';charset=', b';\n\tcharset=', b'; Charset=',
                              b'; CHARSET=', b' ; charset = '])
            ct += sep + q.encode() + label.encode() + q.encode()
            if rng.random() < 0.05:
                ct += b';'          # a trailing semicolon
        ct += extra_params.encode()
        if name:
            ct += b';\n\tname="' + name.encode() + b'"'
        headers = [(b'Content-Type', ct), (b'Content-Transfer-Encoding', cte.encode())]
        if name:
            headers.append((b'Content-Disposition', b'attachment;\n\tfilename="' + name.encode() + b'"'))
        leaf.cte = cte
        leaf.name = name
        leaf.raw_octets = data
        self.leaves.append(leaf)
        return dict(headers=headers, body=body, leaf=leaf)

    def damage_octets(self, leaf, data, how, codec):
        rng = self.rng
        hi = [i for i, b in enumerate(data) if b >= 0x80]
        if how == 'flip' and hi:
            i = rng.choice(hi)
            new = rng.choice([x for x in range(0x80, 0x100) if x != data[i]])
            data = data[:i] + bytes([new]) + data[i + 1:]
        elif how == 'strip' and hi:
            data = bytes(b & 0x7F for b in data)
        elif how in ('cut998', 'split998'):
            lines = data.split(b'\n')
            k = rng.randrange(len(lines))
            long_line = lines[k]
            while len(long_line) < 1100:
                long_line += b' ' + encode(rng.choice(self.pool_for(codec)), codec)
            if how == 'cut998':
                long_line = long_line[:998]
            else:
                long_line = long_line[:998] + b'\n' + long_line[998:]
            lines[k] = long_line
            data = b'\n'.join(lines)
            # the truth is the text as it would have read before the cut
        else:
            return data
        leaf.damaged = True
        leaf.damage = how
        leaf.expect = label_reading(data, leaf.label) if codec not in ('iso2022jp',) else None
        leaf.invalid = not valid_under(data, codec)
        return data

    def pool_for(self, codec):
        return {'cp1252': EN + FR, 'koi8_r': RU, 'koi8_u': UK, 'cp1251': RU + UK, 'cp932': JA, 'euc_jp': JA,
                'gbk': ZH + ZH_GBK, 'gb18030': ZH, 'big5hkscs': HK, 'cp949': KO, 'utf-8': FR + RU + JA}.get(codec, EN)

    def damage_qp(self, leaf, body, codec):
        lines = body.split(b'\n')
        soft = [i for i, l in enumerate(lines) if l.endswith(b'=')]
        if not soft:
            return body
        i = self.rng.choice(soft)
        lines[i] = lines[i][:-1]
        body = b'\n'.join(lines)
        data = quopri.decodestring(body)
        leaf.damaged = True
        leaf.damage = 'qp-soft'
        leaf.expect = label_reading(data, leaf.label)
        leaf.invalid = leaf.expect is not None and '\ufffd' in leaf.expect
        return body

    def damage_b64(self, leaf, body):
        lines = body.split(b'\n')
        cand = [i for i, l in enumerate(lines) if len(l) > 10]
        if not cand:
            return body
        i = self.rng.choice(cand)
        j = self.rng.randrange(len(lines[i]))
        if self.rng.random() < 0.5:
            lines[i] = lines[i][:j] + lines[i][j + 1:]          # a character lost
        else:
            lines[i] = lines[i][:j] + b'!' + lines[i][j + 1:]   # replaced by a foreign one
        leaf.tdamage = True
        leaf.damaged = True
        leaf.damage = 'b64-line'
        leaf.b64line = i
        return b'\n'.join(lines)

    def binary_leaf(self, kind=None, as_text=None, name=None):
        rng = self.rng
        kind = kind or rng.choice(list(MAGIC))
        data = blob(rng, kind)
        _, ctype, fname = MAGIC[kind]
        name = name or fname
        ct = ctype.encode()
        if as_text:
            ct = b'text/plain; charset=' + as_text.encode()
        ct += b';\n\tname="' + name.encode() + b'"'
        leaf = Leaf(kind='binary', data=data, desc=f'binary:{kind}' + (f':as-text-{as_text}' if as_text else ''))
        self.leaves.append(leaf)
        return dict(headers=[(b'Content-Type', ct), (b'Content-Transfer-Encoding', b'base64'),
                             (b'Content-Disposition', b'attachment; filename="' + name.encode() + b'"')],
                    body=b64(data), leaf=leaf)

    def raw_binary_text(self):
        """A `.dat` sent as text/plain: small binaries, some with NULs."""
        rng = self.rng
        n = rng.randint(16, 600)
        data = bytes(rng.getrandbits(8) for _ in range(n))
        if rng.random() < 0.6:
            data = data[:5] + b'\x00\x00' + data[7:]
        label = rng.choice(['us-ascii', 'iso-8859-1', 'utf-8', 'windows-1252', None])
        ct = b'text/plain' + (b'; charset=' + label.encode() if label else b'') + b'; name="data.dat"'
        leaf = Leaf(kind='binary', data=data, desc='binary:dat-as-text', short=b'\x00' not in data)
        self.leaves.append(leaf)
        return dict(headers=[(b'Content-Type', ct), (b'Content-Transfer-Encoding', b'base64'),
                             (b'Content-Disposition', b'attachment; filename="data.dat"')], body=b64(data), leaf=leaf)

    def multipart(self, sub, kids, extra=b''):
        b = ('----=_NextPart_%03d_%04X_%08X.%08X' % (self.rng.randrange(1000), self.rng.getrandbits(16),
                                                       self.rng.getrandbits(32), self.rng.getrandbits(32))).encode()
        return dict(headers=[(b'Content-Type', b'multipart/' + sub.encode() + b';\n\tboundary="' + b + b'"' + extra)],
                    boundary=b, kids=kids, preamble=b'This is a multi-part message in MIME format.\n' if sub == 'mixed' else b'')

    def rfc822(self, msg, name=None, digest=False):
        h = [] if digest else [(b'Content-Type', b'message/rfc822' + (b'; name="' + name.encode() + b'"' if name else b''))]
        return dict(headers=h, msg=msg)

    # -- the message

    def message(self, top_headers, body_node):
        return dict(headers=top_headers + body_node['headers'], **{k: v for k, v in body_node.items() if k != 'headers'})


def serialize(node):
    out = bytearray()
    for k, v in node['headers']:
        out += k + b': ' + v + b'\n'
    out += b'\n'
    if 'kids' in node:
        out += node['preamble']
        for kid in node['kids']:
            out += b'--' + node['boundary'] + b'\n' + serialize(kid)
            if not out.endswith(b'\n'):
                out += b'\n'
        out += b'--' + node['boundary'] + b'--\n'
    elif 'msg' in node:
        out += serialize(node['msg'])
    else:
        out += node['body']
    return bytes(out)


# ---------------------------------------------------------------- clients


def date_id(rng, dom):
    return [(b'Date', b'Tue, 24 Nov 2026 09:%02d:%02d +0100' % (rng.randrange(60), rng.randrange(60))),
            (b'Message-ID', b'<%08x.%04x@%s>' % (rng.getrandbits(32), rng.getrandbits(16), dom.encode()))]


def top(g, subj, frm, dom, mime=True):
    rng = g.rng
    h = [(b'From', frm), (b'To', b'team@example.com'), (b'Subject', subj)] + date_id(rng, dom)
    if mime:
        h.append((b'MIME-Version', b'1.0'))
    return h


def outlook_html(text, meta_label):
    paras = ''.join(f'<p class=MsoNormal>{l}<o:p></o:p></p>\n' for l in text.split('\n'))
    return ('<html xmlns:o="urn:schemas-microsoft-com:office:office">\n<head>\n'
            f'<meta http-equiv=Content-Type content="text/html; charset={meta_label}">\n'
            '<meta name=Generator content="Microsoft Word 15 (filtered medium)">\n</head>\n'
            f'<body lang=EN-US link="#0563C1">\n<div class=WordSection1>\n{paras}</div>\n</body>\n</html>')


# Each client: (name, label, codec, pool, subject pool)
OUTLOOK_CS = [('iso-8859-1', 'cp1252', EN + FR, 'western'), ('Windows-1252', 'cp1252', EN + FR, 'western'),
              ('ks_c_5601-1987', 'cp949', KO + KO_UHC, 'korean'), ('gb2312', 'gbk', ZH + ZH_GBK, 'gbk'),
              ('gb2312', 'gb18030', ZH + ZH_4B, 'gb18030'), ('big5', 'big5hkscs', HK, 'hkscs'),
              ('koi8-r', 'koi8_r', RU, 'russian'), ('windows-1251', 'cp1251', RU + UK, 'cyrillic'),
              ('shift_jis', 'cp932', JA + JA_NEC, 'sjis-nec'), ('koi8-u', 'koi8_u', UK, 'ukrainian')]


def damage_choice(rng):
    r = rng.random()
    if r < 0.70:
        return None
    return rng.choice(['flip', 'flip', 'flip', 'strip', 'cut998', 'split998', 'qp-soft', 'b64-line'])


def c_outlook(g, dom):
    rng = g.rng
    label, codec, pool, what = rng.choice(OUTLOOK_CS)
    text = para(rng, pool)
    dmg = damage_choice(rng)
    cte = 'quoted-printable' if dmg == 'qp-soft' else ('base64' if dmg == 'b64-line' else
                                                       rng.choice(['quoted-printable', 'base64', '8bit']))
    plain = g.text_leaf(text, label, codec, cte=cte, damage=dmg, desc=f'outlook:{what}:plain' + (f':{dmg}' if dmg else ''))
    html = outlook_html(text, rng.choice([label, label.lower()]))
    if rng.random() < 0.3:
        # one long line, as Word's HTML often is: up to 990 octets in its charset
        one = html.replace('\n', ' ')
        while len(encode(one, codec)) < 900:
            one = one.replace('</div>', '<p class=MsoNormal>' + rng.choice(pool) + '</p></div>')
        while len(encode(one, codec)) > 990:
            one = one[:one.index('<p class=MsoNormal>')] + one[one.index('</p>') + 4:]
        html = one
    hleaf = g.text_leaf(html, label if rng.random() < 0.8 else None, codec, cte=rng.choice(['quoted-printable', 'base64']),
                        ctype='text/html', html=True, desc=f'outlook:{what}:html')
    alt = g.multipart('alternative', [plain, hleaf])
    subj = g.subject(rng.choice(pool)[:40], label, codec, prefix=rng.choice(['', 'RE: ', 'FW: ', 'AW: ']))
    frm = g.from_field(rng.choice(pool).split(',')[0][:20], label, codec, 'sender@' + dom)
    kids = [alt]
    r = rng.random()
    if r < 0.3:
        kids.append(g.binary_leaf('tnef'))
    elif r < 0.6:
        kids.append(g.binary_leaf(rng.choice(['pdf', 'docx', 'xls', 'png'])))
    if len(kids) == 1:
        return g.message(top(g, subj, frm, dom), alt)
    return g.message(top(g, subj, frm, dom), g.multipart('mixed', kids))


def c_japanese(g, dom):
    rng = g.rng
    kind = rng.choice(['jis-kana', 'jis-nec', 'jis-plain', 'sjis-mobile', 'eucjp-list', 'sjis-as-jis', 'eucjp-as-jis',
                       'cp932-label', 'jis-no-reset', 'jis-esc-stripped', 'sjis-raw-subject'])
    dmg = None
    if kind.startswith('jis'):
        pool = JA + (JA_KANA if kind == 'jis-kana' else JA_NEC if kind == 'jis-nec' else [])
        text = para(rng, pool, rng.randint(3, 6))
        if kind != 'jis-plain' and not any(l in text for l in JA_KANA + JA_NEC):
            text += '\n' + rng.choice(JA_KANA if kind == 'jis-kana' else JA_NEC)
        leaf = g.text_leaf(text, rng.choice(['ISO-2022-JP', 'iso-2022-jp']), 'iso2022jp', cte='7bit', desc=f'ja:{kind}')
        subj = g.subject(rng.choice(pool)[:20], 'ISO-2022-JP', 'iso2022jp', mode='B')
        frm = g.from_field('\u7530\u4e2d\u592a\u90ce', 'ISO-2022-JP', 'iso2022jp', 'tanaka@' + dom)
        node = leaf
    elif kind == 'sjis-mobile':
        text = para(rng, JA, 2) + '\n' + EMOJI_SJIS[:rng.randint(1, 3)] + '\n' + rng.choice(JA)
        dmg = damage_choice(rng)
        if dmg in ('qp-soft', 'b64-line', 'strip'):
            dmg = 'flip'
        leaf = g.text_leaf(text, 'Shift_JIS', 'cp932', cte=rng.choice(['8bit', 'base64']), damage=dmg,
                           desc='ja:sjis-mobile' + (f':{dmg}' if dmg else ''))
        subj = g.subject(JA[0][:10], 'Shift_JIS', 'cp932', mode='B')
        frm = g.from_field('', None, None, 'user@docomo.ne.jp')
        node = leaf
    elif kind == 'eucjp-list':
        text = para(rng, JA, 3) + '\n' + FOOTER_ASCII
        dmg = rng.choice([None, None, 'flip'])
        leaf = g.text_leaf(text, 'EUC-JP', 'euc_jp', cte='8bit', damage=dmg, desc='ja:eucjp-list' + (f':{dmg}' if dmg else ''))
        subj = g.subject(JA[1][:15], 'ISO-2022-JP', 'iso2022jp', prefix='[users:01234] ', mode='B')
        frm = g.from_field('', None, None, 'member@' + dom)
        node = leaf
    elif kind == 'cp932-label':
        text = para(rng, JA + JA_NEC, 3)
        leaf = g.text_leaf(text, rng.choice(['cp932', 'CP932', 'Windows-31J', 'MS932']), 'cp932', desc=f'ja:{kind}')
        subj = g.subject(JA[0][:12], 'Shift_JIS', 'cp932', mode='B')
        frm = g.from_field('', None, None, 'user@' + dom)
        node = leaf
    elif kind in ('jis-no-reset', 'jis-esc-stripped'):
        text = para(rng, JA, rng.randint(3, 5))
        leaf = g.text_leaf(text, 'ISO-2022-JP', 'iso2022jp', cte='7bit', desc=f'ja:{kind}')
        if kind == 'jis-no-reset':
            # a mailer that leaves JIS X 0208 on at the line end, and says
            # ESC $ B again on the next line
            leaf['body'] = leaf['body'].replace(b'\x1b(B\n\x1b$B', b'\n\x1b$B')
            lines = leaf['body'].split(b'\n')
            leaf['leaf'].damaged = leaf['body'] != encode(text, 'iso2022jp') + b'\n'
        else:
            # a 7-bit gateway that drops ESC: what is left is ASCII
            leaf['body'] = leaf['body'].replace(b'\x1b', b'')
            leaf['leaf'].damaged = True
            leaf['leaf'].damage = 'strip'
        leaf['leaf'].expect = None
        subj = g.subject(JA[2][:15], 'ISO-2022-JP', 'iso2022jp', mode='B')
        frm = g.from_field('', None, None, 'user@' + dom)
        node = leaf
    elif kind == 'sjis-raw-subject':
        text = para(rng, JA, 2)
        leaf = g.text_leaf(text, 'Shift_JIS', 'cp932', cte='8bit', desc=f'ja:{kind}')
        t = rng.choice(JA)[:16]
        g.subjects.append(t)
        g.raw8_subject = True
        subj = t.encode('cp932')
        frm = g.from_field('', None, None, 'user@' + dom)
        node = leaf
    else:   # a common lie: Shift_JIS or EUC-JP octets under ISO-2022-JP
        codec = 'cp932' if kind == 'sjis-as-jis' else 'euc_jp'
        text = para(rng, JA, rng.randint(2, 4))
        leaf = g.text_leaf(text, 'ISO-2022-JP', codec, cte='8bit', lie=kind, lie_doc=True, desc=f'ja:{kind}')
        subj = g.subject(JA[2][:15], 'ISO-2022-JP', 'iso2022jp', mode='B')
        frm = g.from_field('', None, None, 'user@' + dom)
        node = leaf
    return g.message(top(g, subj, frm, dom), node)


def c_cyrillic(g, dom):
    rng = g.rng
    kind = rng.choice(['koi8r', 'koi8u', 'cp1251', 'cp1251-as-koi8r', 'koi8u-as-koi8r', 'koi8r-as-cp1251'])
    dmg = damage_choice(rng)
    if rng.random() < 0.15:
        # The Bat! and old Outlook Express: the Subject raw in the body's charset
        label, codec, pool = rng.choice([('koi8-r', 'koi8_r', RU), ('windows-1251', 'cp1251', RU + UK)])
        text = para(rng, pool, 3)
        leaf = g.text_leaf(text, label, codec, cte='8bit', desc=f'cyr:raw-subject-{label}')
        t = rng.choice(pool)[:30]
        g.subjects.append(t)
        g.raw8_subject = True
        frm = g.from_field('', None, None, 'user@' + dom)
        return g.message(top(g, t.encode(codec), frm, dom), leaf)
    spec = {'koi8r': ('koi8-r', 'koi8_r', RU, None), 'koi8u': ('koi8-u', 'koi8_u', UK, None),
            'cp1251': ('windows-1251', 'cp1251', RU + UK, None), 'cp1251-as-koi8r': ('koi8-r', 'cp1251', RU, 'cp1251-as-koi8r'),
            'koi8u-as-koi8r': ('koi8-r', 'koi8_u', UK, 'koi8u-as-koi8r'), 'koi8r-as-cp1251': ('windows-1251', 'koi8_r', RU, 'koi8r-as-cp1251')}
    label, codec, pool, lie = spec[kind]
    text = para(rng, pool, rng.randint(3, 6))
    if lie:
        dmg = None
    cte = 'quoted-printable' if dmg == 'qp-soft' else 'base64' if dmg == 'b64-line' else None
    leaf = g.text_leaf(text, label, codec, cte=cte, damage=dmg, lie=lie, desc=f'cyr:{kind}' + (f':{dmg}' if dmg else ''))
    slabel, scodec = (label, codec) if not lie else (label, 'koi8_r' if label == 'koi8-r' else 'cp1251')
    if lie:
        slabel, scodec = {'koi8_r': ('koi8-r', 'koi8_r'), 'koi8_u': ('koi8-u', 'koi8_u'), 'cp1251': ('windows-1251', 'cp1251')}[codec]
    subj = g.subject(rng.choice(pool)[:30], slabel, scodec, prefix=rng.choice(['', 'Re: ', '[dev] ']))
    frm = g.from_field(rng.choice(['\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432', 'Olena']), slabel, scodec,
                       'user@' + dom)
    return g.message(top(g, subj, frm, dom), leaf)


def c_list(g, dom):
    """Mailman / Google Groups: a footer added to what the member sent."""
    rng = g.rng
    kind = rng.choice(['ascii-footer', 'utf8-footer-in-latin1', 'latin1-footer-in-utf8', 'footer-after-b64',
                       'footer-part', 'gg-footer', 'digest'])
    if kind == 'digest':
        return c_digest(g, dom)
    label, codec, pool, what = rng.choice(OUTLOOK_CS + [('utf-8', 'utf-8', FR + RU + JA, 'utf8'), ('EUC-JP', 'euc_jp', JA, 'eucjp')])
    text = para(rng, pool)
    desc = f'list:{kind}:{what}'
    subj_tag = rng.choice(['[users] ', 'Re: [users] ', '[users] Re: '])
    if kind in ('ascii-footer', 'gg-footer'):
        foot = FOOTER_ASCII if kind == 'ascii-footer' else GG_FOOTER
        node = g.text_leaf(text + '\n' + foot, label, codec, cte=rng.choice(['8bit', 'quoted-printable', 'base64']), desc=desc)
    elif kind == 'utf8-footer-in-latin1':
        label, codec = rng.choice([('iso-8859-1', 'cp1252'), ('iso-8859-15', 'iso8859_15')])
        pool = [l for l in FR if encodable(l, codec)]
        text = para(rng, pool)
        body = encode(text, codec) + b'\n' + FOOTER_UTF8.encode('utf-8')
        node = g.text_leaf(text, label, codec, cte='8bit', desc=desc + ':latin1')
        node['leaf'].text = text + '\n' + FOOTER_UTF8
        node['body'] = body + b'\n'
        node['leaf'].footer_lines = tuple(FOOTER_UTF8.split('\n'))
        node['leaf'].footer_alt = FOOTER_UTF8.encode('utf-8').decode('cp1252', 'replace')
    elif kind == 'latin1-footer-in-utf8':
        label, codec, pool = 'utf-8', 'utf-8', FR + RU + JA
        text = para(rng, pool)
        body = text.encode('utf-8') + b'\n' + FOOTER_LATIN.encode('cp1252')
        node = g.text_leaf(text, 'utf-8', 'utf-8', cte='8bit', desc=f'list:{kind}')
        node['leaf'].text = text + '\n' + FOOTER_LATIN
        node['body'] = body + b'\n'
        node['leaf'].footer_lines = tuple(FOOTER_LATIN.split('\n'))
        node['leaf'].invalid = True
    elif kind == 'footer-after-b64':
        node = g.text_leaf(text, label, codec, cte='base64', desc=desc)
        node['body'] = node['body'] + FOOTER_ASCII.encode() + b'\n'
        node['leaf'].b64foot = True
        node['leaf'].tdamage = True
    elif kind == 'footer-part':
        first = g.text_leaf(text, label, codec, desc=desc)
        foot = g.text_leaf(FOOTER_ASCII, 'us-ascii', 'ascii', cte='7bit', desc='list:footer')
        foot['headers'].append((b'Content-Disposition', b'inline'))
        node = g.multipart('mixed', [first, foot])
    else:
        raise AssertionError(kind)
    slabel, scodec = (label, codec) if codec not in ('euc_jp',) else ('ISO-2022-JP', 'iso2022jp')
    subj = g.subject(rng.choice(pool)[:30], slabel, scodec, prefix=subj_tag, split_char=rng.random() < 0.1 and codec in ('gbk', 'cp949', 'utf-8'))
    frm = g.from_field(rng.choice(['Jos\u00e9 Garc\u00eda via users', 'list member']), 'iso-8859-1', 'cp1252', 'users@lists.' + dom)
    h = top(g, subj, frm, dom) + [(b'List-Id', b'<users.lists.' + dom.encode() + b'>'), (b'Precedence', b'list')]
    return g.message(h, node)


def inner_message(g, dom, depth=0):
    rng = g.rng
    label, codec, pool, what = rng.choice(OUTLOOK_CS + [('utf-8', 'utf-8', FR + RU + JA + EMOJI, 'utf8')])
    text = para(rng, pool)
    leaf = g.text_leaf(text, label, codec, desc=f'inner:{what}')
    slabel, scodec = (label, codec)
    subj = g.subject(rng.choice(pool)[:30], slabel, scodec)
    frm = g.from_field(rng.choice(pool).split(',')[0][:12], slabel, scodec, 'x@' + dom)
    return g.message(top(g, subj, frm, dom, mime=rng.random() < 0.8), leaf)


def inner_outlook(g, dom):
    rng = g.rng
    label, codec, pool, what = rng.choice(OUTLOOK_CS)
    text = para(rng, pool)
    plain = g.text_leaf(text, label, codec, desc=f'inner-alt:{what}:plain')
    html = g.text_leaf(outlook_html(text, label), label, codec, ctype='text/html', html=True, desc=f'inner-alt:{what}:html')
    subj = g.subject(rng.choice(pool)[:30], label, codec)
    frm = g.from_field(rng.choice(pool)[:12], label, codec, 'x@' + dom)
    return g.message(top(g, subj, frm, dom), g.multipart('alternative', [plain, html]))


def c_digest(g, dom):
    rng = g.rng
    intro = g.text_leaf('Today\'s Topics:\n\n   1. Re: status (Bob)\n   2. question (Ann)', 'us-ascii', 'ascii', cte='7bit',
                        desc='digest:toc')
    msgs = [g.rfc822(inner_message(g, dom), digest=True) for _ in range(rng.randint(2, 4))]
    dig = g.multipart('digest', msgs)
    node = g.multipart('mixed', [intro, dig])
    subj = g.subject('users Digest, Vol 12, Issue 3', 'us-ascii', 'ascii', mode='Q') if False else None
    g.subjects.insert(0, 'users Digest, Vol 12, Issue 3')
    g.froms.insert(0, '')
    h = top(g, b'users Digest, Vol 12, Issue 3', b'users-request@lists.' + dom.encode(), dom)
    return g.message(h, node)


def c_forward(g, dom):
    rng = g.rng
    label, codec, pool, what = rng.choice(OUTLOOK_CS + [('utf-8', 'utf-8', FR + EMOJI, 'utf8')])
    text = para(rng, pool, 2)
    subj = g.subject('Fwd: ' + rng.choice(pool)[:20], label, codec)
    frm = g.from_field(rng.choice(['Anna M\u00fcller', 'Bob']), 'iso-8859-1', 'cp1252', 'a@' + dom)
    first = g.text_leaf(text, label, codec, desc=f'fwd:{what}')
    inner = inner_message(g, dom) if rng.random() < 0.5 else inner_outlook(g, dom)
    node = g.multipart('mixed', [first, g.rfc822(inner, name=rng.choice([None, 'Forwarded.eml']))])
    return g.message(top(g, subj, frm, dom), node)


def c_bounce(g, dom):
    rng = g.rng
    expl = g.text_leaf('This is the mail system at host mx.example.com.\n\nI\'m sorry to have to inform you that your message\n'
                       'could not be delivered to one or more recipients.', 'us-ascii', 'ascii', cte='7bit', desc='bounce:notice')
    ds = (b'Reporting-MTA: dns; mx.example.com\nArrival-Date: Tue, 24 Nov 2026 09:00:00 +0100\n\n'
          b'Final-Recipient: rfc822; nobody@example.net\nAction: failed\nStatus: 5.1.1\n'
          b'Diagnostic-Code: smtp; 550 5.1.1 user unknown\n')
    dsl = Leaf(kind='verbatim', data=ds, desc='bounce:delivery-status')
    g.leaves.append(dsl)
    dsn = dict(headers=[(b'Content-Type', b'message/delivery-status')], body=ds, leaf=dsl)
    # the returned header, raw 8-bit as the original sender wrote it
    label, codec, pool, what = rng.choice([('koi8-r', 'koi8_r', RU, 'koi8r'), ('utf-8', 'utf-8', FR + JA, 'utf8'),
                                           ('windows-1252', 'cp1252', FR, 'cp1252'), ('gbk', 'gbk', ZH, 'gbk')])
    s = rng.choice(pool)[:30]
    hdr = ('From: sender@example.com\nTo: nobody@example.net\nSubject: ' + s + '\nDate: Mon, 23 Nov 2026 10:00:00 +0100\n'
           'Message-ID: <x1@example.com>')
    rh = g.text_leaf(hdr, None, codec, cte=rng.choice(['8bit', '7bit']), ctype='text/rfc822-headers', guess=codec != 'utf-8',
                     desc=f'bounce:rfc822-headers:{what}')
    # no charset parameter at all
    rh['headers'][0] = (b'Content-Type', b'text/rfc822-headers')
    node = g.multipart('report', [expl, dsn, rh], extra=b'; report-type=delivery-status')
    g.subjects.append('Undelivered Mail Returned to Sender')
    g.froms.append(None)
    h = top(g, b'Undelivered Mail Returned to Sender', b'MAILER-DAEMON@mx.example.com (Mail Delivery System)', dom)
    return g.message(h, node)


def c_mobile(g, dom):
    rng = g.rng
    kind = rng.choice(['flowed', 'bom', 'emoji', 'utf8-as-ascii', 'no-label-8bit', 'no-ct-8bit', 'utf8-alias', 'uni11',
                       'x-user-defined', 'unknown-8bit', 'default', 'utf8-as-latin1', 'cp1252-as-ascii'])
    desc = f'mobile:{kind}'
    lie = None
    lie_doc = False
    guess = False
    extra = ''
    cte = None
    text = para(rng, FR + RU + JA + EMOJI)
    label, codec = 'utf-8', 'utf-8'
    if kind == 'flowed':
        label, codec = rng.choice([('iso-8859-1', 'cp1252'), ('utf-8', 'utf-8'), ('koi8-r', 'koi8_r'), ('windows-1251', 'cp1251')])
        pool = {'cp1252': FR, 'utf-8': FR + RU, 'koi8_r': RU, 'cp1251': RU}[codec]
        words = ' '.join(rng.choice(pool) for _ in range(6)).split(' ')
        lines, cur = [], ''
        for w in words:
            if len(cur) + len(w) > 60 and cur:
                lines.append(cur + ' ')      # soft break: a trailing space
                cur = ''
            cur += (w if not cur else ' ' + w)
        lines.append(cur)
        text = '\n'.join(lines) + '\n\n> ' + rng.choice(pool)
        extra = '; format=flowed' + rng.choice(['', '; delsp=no'])
        cte = rng.choice(['8bit', 'quoted-printable'])
    elif kind == 'bom':
        text = '\ufeff' + text
    elif kind == 'emoji':
        text = para(rng, EMOJI + FR)
    elif kind == 'utf8-as-ascii':
        label, lie, lie_doc = 'us-ascii', 'utf8-as-ascii', True
        text = para(rng, FR + RU)
    elif kind == 'utf8-as-latin1':
        label, lie, lie_doc = rng.choice(['iso-8859-1', 'windows-1252']), 'utf8-as-latin1', True
        text = para(rng, FR + RU + JA, 3)
    elif kind == 'cp1252-as-ascii':
        label, codec, lie, lie_doc = 'us-ascii', 'cp1252', 'cp1252-as-ascii', True
        text = para(rng, FR + EN, 3)
    elif kind in ('no-label-8bit', 'no-ct-8bit'):
        label = None
        codec = rng.choice(['utf-8', 'cp1252'])
        text = para(rng, FR + (RU if codec == 'utf-8' else EN), 3)
        guess = codec != 'utf-8'
    elif kind == 'utf8-alias':
        label = rng.choice(['utf8', 'UTF8', 'utf-8 ', 'x-unicode20utf8'])
        if label == 'x-unicode20utf8':
            guess = True
    elif kind == 'uni11':
        label = 'unicode-1-1-utf-8'
    elif kind in ('x-user-defined', 'unknown-8bit', 'default'):
        label = kind
        codec = rng.choice(['utf-8', 'cp1252'])
        text = para(rng, FR + (RU if codec == 'utf-8' else EN), 3)
        guess = True
        desc += ':' + codec
    node = g.text_leaf(text, label, codec, cte=cte, extra_params=extra, lie=lie, lie_doc=lie_doc, guess=guess, desc=desc,
                       flowed=extra or None)
    if kind == 'no-ct-8bit':
        node['headers'] = [(b'Content-Transfer-Encoding', b'8bit')]
        node['body'] = encode(text, codec) + b'\n'
    subj = g.subject(rng.choice(FR + RU + EMOJI)[:30], 'UTF-8', 'utf-8')
    frm = g.from_field(rng.choice(['Zo\u00eb', '\u5c71\u7530', '']), 'UTF-8', 'utf-8', 'me@' + dom)
    r = rng.random()
    if r < 0.2:
        node = g.multipart('mixed', [node, g.binary_leaf('jpeg')])
    return g.message(top(g, subj, frm, dom, mime=kind != 'no-ct-8bit' or rng.random() < 0.5), node)


VCARD = "BEGIN:VCARD\nVERSION:2.1\nN;CHARSET=Windows-1252:M\u00fcller;J\u00fcrgen\nFN;CHARSET=Windows-1252:J\u00fcrgen M\u00fcller\nORG:Stra\u00dfenbau GmbH\nEND:VCARD"
ICS = ("BEGIN:VCALENDAR\nPRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN\nVERSION:2.0\nMETHOD:REQUEST\n"
       "BEGIN:VEVENT\nSUMMARY;LANGUAGE=de:Besprechung \u00fcber das Angebot\nLOCATION:B\u00fcro 3\nEND:VEVENT\nEND:VCALENDAR")
CSV = "Name;Stadt;Betrag\nM\u00fcller;K\u00f6ln;1.234,50 \u20ac\nGarc\u00eda;M\u00e1laga;99,00 \u20ac\nO\u2019Brien;Dublin;12,00 \u20ac"


def c_attachments(g, dom):
    rng = g.rng
    kids = [g.text_leaf(para(rng, EN_ASCII), 'us-ascii', 'ascii', cte='7bit', desc='att:body')]
    for _ in range(rng.randint(1, 3)):
        k = rng.choice(['vcf', 'ics', 'csv', 'csv-nolabel', 'dat', 'bin-as-text', 'binary', 'utf16-txt', 'txt-sjis'])
        if k == 'vcf':
            kids.append(g.text_leaf(VCARD, 'windows-1252', 'cp1252', ctype='text/x-vcard', name='Mueller.vcf', vcard=True,
                                    desc='att:vcf'))
        elif k == 'ics':
            lab, cod = rng.choice([('utf-8', 'utf-8'), ('windows-1252', 'cp1252'), ('iso-8859-1', 'cp1252')])
            kids.append(g.text_leaf(ICS, lab, cod, ctype='text/calendar', extra_params='; method=REQUEST', name='invite.ics',
                                    desc=f'att:ics:{lab}'))
        elif k == 'csv':
            kids.append(g.text_leaf(CSV, 'windows-1252', 'cp1252', ctype='text/csv', name='export.csv', desc='att:csv'))
        elif k == 'csv-nolabel':
            kids.append(g.text_leaf(CSV, None, 'cp1252', ctype='text/csv', name='export.csv', guess=True, desc='att:csv-nolabel'))
        elif k == 'dat':
            kids.append(g.raw_binary_text())
        elif k == 'bin-as-text':
            kids.append(g.binary_leaf(rng.choice(list(MAGIC)), as_text=rng.choice(['us-ascii', 'iso-8859-1', 'utf-8'])))
        elif k == 'binary':
            kids.append(g.binary_leaf())
        elif k == 'utf16-txt':
            text = para(rng, FR + RU + JA, 3)
            lab = rng.choice([None, 'utf-16', 'UTF-16LE'])
            node = g.text_leaf(text.replace('\n', '\r\n'), lab, 'utf-16-bom' if lab != 'UTF-16LE' else 'utf-16-le', cte='base64',
                               name='notes.txt', desc=f'att:utf16:{lab}', guess=False)
            kids.append(node)
        elif k == 'txt-sjis':
            kids.append(g.text_leaf(para(rng, JA + JA_NEC), 'shift_jis', 'cp932', cte='base64', name='memo.txt', desc='att:sjis-txt'))
    subj = g.subject('Unterlagen f\u00fcr Montag', 'iso-8859-1', 'cp1252')
    frm = g.from_field('J\u00fcrgen M\u00fcller', 'iso-8859-1', 'cp1252', 'jm@' + dom)
    return g.message(top(g, subj, frm, dom), g.multipart('mixed', kids))


FILENAMES = ['M\u00fcller Angebot 2026.pdf', 'R\u00e9sum\u00e9 \u2013 final.docx', '\u041e\u0442\u0447\u0451\u0442.xls',
             '\u4f1a\u8b70\u8cc7\u6599\u2460.pdf', '\ud68c\uc758\uc790\ub8cc \ub620.zip', '\u6731\u9555\u57fa\u62a5\u544a.pdf',
             'photo \U0001f600.jpg', 'plain-name.pdf']


def pct_encode(data):
    return ''.join(chr(b) if (0x30 <= b <= 0x39 or 0x41 <= b <= 0x5a or 0x61 <= b <= 0x7a or b in b'.-_') else '%%%02X' % b
                   for b in data)


def c_headers(g, dom):
    """File names and subjects as clients write them."""
    rng = g.rng
    kids = [g.text_leaf(para(rng, EN_ASCII), 'us-ascii', 'ascii', cte='7bit', desc='hdr:body')]
    for _ in range(rng.randint(1, 3)):
        fname = rng.choice(FILENAMES)
        style = rng.choice(['outlook-ew', 'rfc2231', 'rfc2231-cont', 'raw-utf8', 'jis-ew', 'ks-ew', 'gb-ew', 'raw-latin1',
                            'rfc2231-legacy'])
        cs = {'outlook-ew': ('iso-8859-1', 'cp1252'), 'ks-ew': ('ks_c_5601-1987', 'cp949'), 'gb-ew': ('gb2312', 'gbk'),
              'jis-ew': ('ISO-2022-JP', 'iso2022jp'), 'raw-latin1': (None, 'cp1252')}.get(style, ('utf-8', 'utf-8'))
        if style == 'rfc2231-legacy':
            # Thunderbird writes the file name in the message's charset
            cs = rng.choice([('ISO-8859-1', 'cp1252'), ('Shift_JIS', 'cp932'), ('ks_c_5601-1987', 'cp949'), ('GB2312', 'gbk'),
                             ('KOI8-R', 'koi8_r'), ('windows-1251', 'cp1251'), ('Big5', 'big5hkscs')])
            style = 'rfc2231'
        if not encodable(fname, cs[1]):
            cs = ('utf-8', 'utf-8')
            if style in ('outlook-ew', 'ks-ew', 'gb-ew', 'jis-ew'):
                style = 'outlook-ew'
            elif style == 'raw-latin1':
                style = 'raw-utf8'
        kind = rng.choice(['pdf', 'zip', 'png', 'docx'])
        node = g.binary_leaf(kind)
        data = encode(fname, cs[1])
        if style in ('outlook-ew', 'ks-ew', 'gb-ew', 'jis-ew'):
            ew = g.ew(fname, cs[0], cs[1]).replace(b'\n ', b' ' if rng.random() < 0.5 else b'')
            val = b'"' + ew + b'"'
            ct_name, cd_name = b'name=' + val, b'filename=' + val
        elif style == 'rfc2231':
            v = (cs[0] + "''" + pct_encode(data)).encode()
            ct_name, cd_name = b'name*=' + v, b'filename*=' + v
        elif style == 'rfc2231-cont':
            enc = pct_encode(data)
            parts, i = [], 0
            while i < len(enc):
                j = min(len(enc), i + 20)
                while j < len(enc) and (enc[j - 1] == '%' or enc[j - 2] == '%'):
                    j += 1
                parts.append(enc[i:j])
                i = j
            cd = [f"filename*0*={cs[0]}''{parts[0]}"] + [f'filename*{k}*={x}' for k, x in enumerate(parts[1:], 1)]
            cd_name = ';\n '.join(cd).encode()
            ct_name = cd_name.replace(b'filename', b'name')
        else:   # raw octets in the quoted string
            ct_name, cd_name = b'name="' + data + b'"', b'filename="' + data + b'"'
            if style == 'raw-latin1':
                node['leaf'].fname_guess = True
        node['headers'] = [(b'Content-Type', MAGIC[kind][1].encode() + b';\n\t' + ct_name),
                           (b'Content-Transfer-Encoding', b'base64'),
                           (b'Content-Disposition', b'attachment;\n\t' + cd_name)]
        node['leaf'].filename = fname
        node['leaf'].desc += f':fn-{style}'
        kids.append(node)
    # subjects: several charsets in one field, tags glued, raw UTF-8
    style = rng.choice(['two-charsets', 'glued-tag', 'long-q', 'raw-utf8', 'plain-ew'])
    if style == 'two-charsets':
        a, b = rng.choice(RU), rng.choice(FR)
        g.subjects.append('Re: ' + a[:20] + b[:20])
        subj = b'Re: ' + g.ew(a[:20], 'koi8-r', 'koi8_r') + b'\n ' + g.ew(b[:20], 'utf-8', 'utf-8')
    elif style == 'glued-tag':
        t = rng.choice(ZH + ZH_GBK)[:20]
        g.subjects.append('RE:' + t)
        subj = b'RE:' + g.ew(t, 'gb2312', 'gbk')
    elif style == 'long-q':
        t = ' '.join(rng.choice(FR) for _ in range(3))
        g.subjects.append(t)
        subj = g.ew(t, 'iso-8859-1', 'cp1252', mode='Q')
    elif style == 'raw-utf8':
        t = rng.choice(FR + RU + JA)
        g.subjects.append(t)
        subj = t.encode('utf-8')
    else:
        t = rng.choice(KO + KO_UHC)
        g.subjects.append(t)
        subj = g.ew(t, 'ks_c_5601-1987', 'cp949')
    for l in kids:
        l['leaf'].desc += f':subj-{style}'
    g.froms.append('M\u00fcller, Hans')
    frm = b'"' + g.ew('M\u00fcller, Hans', 'iso-8859-1', 'cp1252', mode='Q') + b'" <hm@' + dom.encode() + b'>' \
        if rng.random() < 0.3 else g.ew('M\u00fcller, Hans', 'iso-8859-1', 'cp1252', mode='Q').replace(b'_', b'=20') \
        + b' <hm@' + dom.encode() + b'>'
    h = top(g, subj, frm, dom)
    h.insert(2, (b'Cc', g.ew('\u7530\u4e2d', 'ISO-2022-JP', 'iso2022jp', mode='B') + b' <tanaka@example.co.jp>, '
                 + g.ew('\u041f\u0451\u0442\u0440', 'koi8-r', 'koi8_r') + b' <p@example.ru>'))
    return g.message(h, g.multipart('mixed', kids))


def c_signed(g, dom):
    rng = g.rng
    label, codec, pool, what = rng.choice(OUTLOOK_CS)
    inner = g.text_leaf(para(rng, pool), label, codec, desc=f'signed:{what}')
    inner['leaf'].signed = True
    body = g.multipart('mixed', [inner, g.binary_leaf('pdf')]) if rng.random() < 0.5 else inner
    sig = dict(headers=[(b'Content-Type', b'application/pgp-signature; name="signature.asc"'),
                        (b'Content-Description', b'OpenPGP digital signature')],
               body=b'-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE' + base64.b64encode(bytes(rng.getrandbits(8) for _ in range(60)))
               + b'\n-----END PGP SIGNATURE-----\n', leaf=Leaf(kind='verbatim', data=b'', desc='signed:sig'))
    g.leaves.append(sig['leaf'])
    sig['leaf'].data = sig['body']
    node = g.multipart('signed', [body, sig], extra=b'; micalg=pgp-sha256;\n\tprotocol="application/pgp-signature"')
    g.signed_region = serialize(body)
    subj = g.subject(rng.choice(pool)[:30], label, codec)
    frm = g.from_field(rng.choice(pool)[:12], label, codec, 'signer@' + dom)
    return g.message(top(g, subj, frm, dom), node)


CLIENTS = [(c_signed, 1), (c_headers, 4), (c_outlook, 5), (c_japanese, 3), (c_cyrillic, 3), (c_list, 4), (c_forward, 2), (c_bounce, 1), (c_mobile, 4),
           (c_attachments, 3)]
DOMAINS = ['example.com', 'example.de', 'example.fr', 'example.ru', 'example.com.ua', 'example.co.jp', 'example.cn',
           'example.com.hk', 'example.co.kr', 'example.com.tw']


CLIENT_DOMAINS = {'japanese': ['example.co.jp', 'example.ne.jp', 'example.com', 'example.jp'],
                  'cyrillic': ['example.ru', 'example.com.ua', 'example.com', 'example.su']}


def make_message(rng):
    g = Gen(rng)
    fn = rng.choices([c for c, _ in CLIENTS], [w for _, w in CLIENTS])[0]
    name = fn.__name__[2:]
    home = CLIENT_DOMAINS.get(name, DOMAINS)
    if rng.random() < 0.1:
        dom = rng.choice(DOMAINS)
        g.tld_note = ':any-tld'
    else:
        dom = rng.choice(home)
        g.tld_note = ''
    root = fn(g, dom)
    for l in g.leaves:
        l.desc += g.tld_note
    raw = serialize(root)
    crlf = rng.random() < 0.6       # CRLF to LF happens: 4 in 10 are LF
    if crlf:
        raw = raw.replace(b'\n', b'\r\n')
    return raw, g, fn.__name__[2:]


# ---------------------------------------------------------------- checks


def leaves_of(m):
    out = []

    def walk(p):
        if p.get_content_type() == 'message/delivery-status':
            out.append(p)
        elif p.is_multipart():
            for s in p.get_payload():
                walk(s)
        else:
            out.append(p)
    walk(m)
    return out


def shape(m, depth=0):
    out = [(depth, m.get_content_type())]
    if m.get_content_type() == 'message/delivery-status':
        return out
    if m.is_multipart():
        for s in m.get_payload():
            out += shape(s, depth + 1)
    return out


def messages_of(m):
    out = [m]
    for p in m.walk():
        if p.get_content_type() == 'message/rfc822' and p.is_multipart():
            out += p.get_payload()
    return out


def walk_all(m):
    out = []

    def walk(p):
        out.append(p)
        if p.get_content_type() == 'message/delivery-status':
            return
        if p.is_multipart():
            for s in p.get_payload():
                walk(s)
    walk(m)
    return out


def nl(s):
    return s.replace('\r\n', '\n').replace('\r', '\n').rstrip('\n')


def out_text(p):
    data = p.get_payload(decode=True) or b''
    cs = (p.get_content_charset() or '').strip().lower()
    if cs in ('utf-8', 'utf8', ''):
        return data.decode('utf-8', errors='replace'), data
    c = LABEL_CODEC.get(cs)
    try:
        return data.decode(c or cs, errors='replace'), data
    except LookupError:
        return data.decode('utf-8', errors='replace'), data


def meta_norm(s):
    s = re.sub(r'charset=["\']?[\w.:-]+', 'charset=X', s, flags=re.I)
    return s


def local_diff(a, b):
    """a (expected) and b (got) differ only in a short span where b has
    U+FFFD."""
    if a == b:
        return True
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    ma, mb = a[i:len(a) - j], b[i:len(b) - j]
    return len(ma) <= 4 and len(mb) <= 8 and ('\ufffd' in mb or '\ufffd' in ma) and \
        all(c == '\ufffd' or c in ma for c in mb)


def lines_equal(want, got, damaged):
    if want == got:
        return True
    if not damaged:
        return False
    w, o = want.split('\n'), got.split('\n')
    if len(w) != len(o):
        return False
    return all(local_diff(a, b) for a, b in zip(w, o))


def first_diff(want, got):
    w, o = want.split('\n'), got.split('\n')
    i = next((k for k, (a, b) in enumerate(zip(w, o)) if a != b), min(len(w), len(o)))
    return f'line {i}/{len(w)}->{len(o)}: {(w[i] if i < len(w) else "<end>")[:60]!r} -> {(o[i] if i < len(o) else "<end>")[:60]!r}'


def check_text(leaf, pin, pout, rep):
    fails = []
    if getattr(leaf, 'signed', False):
        return fails   # the signed region is compared byte for byte
    rin = pin.get_payload(decode=False)
    rout = pout.get_payload(decode=False)
    used = (rep or {}).get('charset')
    action = (rep or {}).get('action')
    tag = f'{leaf.desc} pid={leaf.pid} used={used} action={action}'
    if leaf.flowed and action == 'converted':
        if pout.get_param('format') != 'flowed':
            fails.append(('flowed-param-lost', tag))
    if leaf.tdamage and rin == rout:
        return fails   # kept as it was (doc/normalize.md, damaged transfer coding)
    if rin == rout and action == 'kept':
        # byte for byte: nothing of the text changed, it was not converted
        # (an attached file is kept so by default: doc/normalize.md)
        if getattr(leaf, 'name', None):
            return fails + [('info-file-kept', tag)]
        notes = (rep or {}).get('findings') or [{}]
        return fails + [('info-text-kept', f'{tag} {notes[0].get("note", "")[:60]}')]
    got, _ = out_text(pout)
    got = nl(got)
    truth = nl(leaf.text)
    if leaf.html or leaf.vcard:
        truth, got = meta_norm(truth), meta_norm(got)
        if leaf.vcard:
            truth = truth.replace('CHARSET=X', 'CHARSET=Windows-1252')
            got = re.sub(r'CHARSET=[\w-]+', 'CHARSET=Windows-1252', got)
    if getattr(leaf, 'b64foot', False) or getattr(leaf, 'damage', None) == 'b64-line':
        # a transfer coding damaged and decoded anyway: the lines before
        # the damage must read as written
        w, o = truth.split('\n'), got.split('\n')
        k = 0
        while k < min(len(w), len(o)) and w[k] == o[k]:
            k += 1
        if k < 1 and len(w) > 1:
            fails.append(('b64-damage-text-lost', f'{tag} {first_diff(truth, got)}'))
        return fails
    if lines_equal(truth, got, False):
        return fails
    if got.lstrip('\ufeff') == truth.lstrip('\ufeff'):
        return fails + [('info-bom-written-as-utf8-bom', tag)]
    if leaf.damaged:
        exp = nl(leaf.expect) if leaf.expect is not None else truth
        if leaf.damage == 'split998' or leaf.damage == 'qp-soft':
            if lines_equal(exp, got, True):
                return fails
        elif leaf.damage == 'cut998':
            if lines_equal(exp, got, True):
                return fails
        elif leaf.damage == 'strip':
            # 7-bit gateway: the text is ASCII now, nothing to recover
            if lines_equal(exp, got, True) or all(ord(c) < 128 for c in got):
                return fails
        elif lines_equal(truth, got, True) or lines_equal(exp, got, True):
            return fails
        if leaf.damage != 'strip' and used and leaf.label and leaf.label != 'utf-8' and used.lower() != leaf.label.lower().strip() \
                and not (leaf.label.lower() in ('iso-8859-1',) and used.lower() == 'windows-1252'):
            return fails + [(f'damaged-read-as-other-charset', f'{tag} {first_diff(truth, got)}')]
        w, o = exp.split('\n'), got.split('\n')
        if len(w) == len(o) and sum(1 for a, b in zip(w, o) if not local_diff(a, b)) == 1:
            # one line read differently from Python's decoder past the damage:
            # where a multi-octet decoder picks up again (WHATWG's rules)
            return fails + [('info-damage-spread-in-line', f'{tag} {first_diff(exp, got)}')]
        return fails + [(f'damaged-text-changed', f'{tag} {first_diff(exp, got)}')]
    if leaf.footer_lines:
        w, o = truth.split('\n'), got.split('\n')
        if len(w) == len(o):
            bad = [k for k, (a, b) in enumerate(zip(w, o)) if a != b]
            if all(w[k] in leaf.footer_lines for k in bad):
                return fails + [('info-mixed-footer-kept-as-label', f'{tag} {first_diff(truth, got)}')]
        return fails + [('mixed-footer-body-changed', f'{tag} {first_diff(truth, got)}')]
    if leaf.lie:
        lab = nl(label_reading(leaf.raw_octets, leaf.label) or '')
        if leaf.html:
            lab = meta_norm(lab)
        if got == lab or lines_equal(lab, got, True):
            return fails + [(('lie-missed-' if leaf.lie_doc else 'info-lie-missed-') + leaf.lie, f'{tag}')]
        return fails + [('lie-third-reading', f'{tag} {first_diff(truth, got)}')]
    if leaf.label == 'x-user-defined' and any('\uf780' <= c <= '\uf7ff' for c in got):
        # doc/charset-aliases.md: read by detection in mail, never as
        # WHATWG's private use U+F780..
        return fails + [('x-user-defined-private-use', f'{tag} {first_diff(truth, got)}')]
    if leaf.guess:
        return fails + [('info-unlabelled-guess', f'{tag} {first_diff(truth, got)}')]
    return fails + [('text-changed', f'{tag} {first_diff(truth, got)}')]


def run(binp, args, cwd, stdin=None, timeout=60):
    try:
        p = subprocess.run([binp] + args, cwd=cwd, input=stdin, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b''


def part_ids(m):
    """IMAP part numbers of the leaves, as the report names them."""
    ids = []

    def walk(p, pref):
        ct = p.get_content_type()
        if ct == 'message/delivery-status':
            ids.append(pref or '1')
        elif p.is_multipart() and ct.startswith('multipart/'):
            for i, s in enumerate(p.get_payload(), 1):
                walk(s, f'{pref}.{i}' if pref else str(i))
        elif p.is_multipart():          # message/rfc822
            inner = p.get_payload()[0]
            if inner.is_multipart():
                walk(inner, pref)
            else:
                ids.append(f'{pref}.1')
        else:
            ids.append(pref or '1')
    walk(m, '')
    return ids


def run_case(binp, case):
    d = case['dir']
    g = case['gen']
    path = os.path.join(d, 'in.eml')
    outp = os.path.join(d, 'out.eml')
    rep = os.path.join(d, 'report.jsonl')
    fails = []
    rc, _, se = run(binp, ['normalize', '-q', '--report', rep, '-o', outp, path], d)
    if rc != 0:
        return [(f'normalize-exit-{rc}', se.decode('utf-8', 'replace').strip()[-120:])]
    raw, out = case['raw'], open(outp, 'rb').read()
    report = [json.loads(x) for x in open(rep, 'rb').read().splitlines() if x.strip()]
    if len(report) != 1:
        fails.append(('report-lines', f'{len(report)}'))
    rparts = report[0].get('parts', []) if report else []
    body_rep = {p['part']: p for p in rparts if p.get('location') == 'body'}
    rc2, again, _ = run(binp, ['normalize', '-q', '-'], d, stdin=out)
    if rc2 != 0:
        fails.append((f'renormalize-exit-{rc2}', ''))
    elif again != out:
        fails.append(('not-idempotent', f'{len(out)} -> {len(again)} octets'))
    long_in = max((len(l) for l in raw.split(b'\n')), default=0)
    long_out = max((len(l.rstrip(b'\r')) for l in out.split(b'\n')), default=0)
    if long_out > 998 and long_in <= 998:
        fails.append(('line-over-998-written', f'{long_in} -> {long_out} octets'))
    sr = getattr(g, 'signed_region', None)
    if sr is not None:
        sr2 = sr.replace(b'\n', b'\r\n') if b'\r\n' in raw else sr
        if sr2 in raw and sr2 not in out:
            fails.append(('signed-region-changed', ''))
    pol = email.policy.default
    mi = email.message_from_bytes(raw, policy=pol)
    mo = email.message_from_bytes(out, policy=pol)
    if shape(mi) != shape(mo):
        fails.append(('structure-changed', f'{shape(mi)[:8]} -> {shape(mo)[:8]}'))
        return fails
    li, lo = leaves_of(mi), leaves_of(mo)
    if len(li) != len(g.leaves):
        return fails + [('info-oracle-reads-input-otherwise', f'{len(g.leaves)} leaves, python {len(li)}')]
    ids = part_ids(mi)
    for leaf, pin, pout, pid in zip(g.leaves, li, lo, ids):
        leaf.pid = pid
        if leaf.kind == 'verbatim':
            if leaf.data not in out.replace(b'\r\n', b'\n'):
                fails.append(('verbatim-changed', leaf.desc))
            continue
        if leaf.kind == 'binary':
            a = pin.get_payload(decode=True)
            b = pout.get_payload(decode=True)
            if a != leaf.data:
                fails.append(('info-oracle-binary-input', leaf.desc))
            elif b != leaf.data:
                short = getattr(leaf, 'short', False)
                fails.append(('info-short-binary-reads-as-text' if short else 'binary-changed',
                              f'{leaf.desc} pid={pid} {len(a)} -> {len(b or b"")} octets'))
            fn = getattr(leaf, 'filename', None)
            if fn is not None:
                try:
                    got_fn = pout.get_filename()
                except Exception as e:  # noqa: BLE001
                    got_fn = f'<error {e}>'
                try:
                    in_fn = pin.get_filename()
                except Exception as e:  # noqa: BLE001
                    in_fn = f'<error {e}>'
                if got_fn != fn:
                    b = 'info-filename-raw-guess' if getattr(leaf, 'fname_guess', False) else \
                        'info-oracle-filename' if got_fn == in_fn else 'filename-wrong'
                    fails.append((b, f'{leaf.desc} pid={pid} {fn!r} -> {got_fn!r}'))
                try:
                    ct_name = pout.get_param('name')
                    ct_name = email.utils.collapse_rfc2231_value(ct_name) if ct_name is not None else None
                except Exception:  # noqa: BLE001
                    ct_name = None
                if ct_name is not None and ct_name != fn and got_fn == fn:
                    fails.append(('info-ct-name-differs', f'{leaf.desc} pid={pid} {fn!r} -> {ct_name!r}'))
            continue
        fails += check_text(leaf, pin, pout, body_rep.get(pid))
    # every field kept, addresses unchanged
    ign = {'content-transfer-encoding', 'content-type'}
    for m_in, m_out in zip(walk_all(mi), walk_all(mo)):
        ki = [k.lower() for k in m_in.keys() if k.lower() not in ign]
        ko = [k.lower() for k in m_out.keys() if k.lower() not in ign]
        if ki != ko:
            # a message without MIME-Version gets one with its Content-Type
            # (doc/normalize.md, regression_non_mime_message_gets_mime_version)
            b = 'info-mime-version-added' if [k for k in ko if k != 'mime-version'] == ki else 'header-fields-changed'
            fails.append((b, f'{ki} -> {ko}'))
        for f in ('from', 'to', 'cc'):
            try:
                ai = [a.addr_spec for a in m_in[f].addresses] if m_in[f] is not None else None
                ao = [a.addr_spec for a in m_out[f].addresses] if m_out[f] is not None else None
            except Exception as e:  # noqa: BLE001
                ai, ao = 'err', f'{e}'
            if ai != ao:
                fails.append(('address-changed', f'{f}: {ai} -> {ao}'))
    # Cc display names
    for m_in, m_out in zip(messages_of(mi), messages_of(mo)):
        if m_out['cc'] is not None:
            got_n = [a.display_name for a in m_out['cc'].addresses]
            in_n = [a.display_name for a in m_in['cc'].addresses]
            want_n = ['\u7530\u4e2d', '\u041f\u0451\u0442\u0440']
            if got_n != want_n:
                fails.append(('info-oracle-header-cc' if got_n == in_n else 'header-cc-wrong', f'{want_n} -> {got_n}'))
    # headers
    def heads(msg, kind, field):
        got = []
        for m in messages_of(msg):
            v = m.get(field)
            if v is None:
                got.append(None)
                continue
            s = str(v)
            if kind == 'from':
                try:
                    s = v.addresses[0].display_name if v.addresses else ''
                except Exception:  # noqa: BLE001
                    s = '<unparsed>'
            got.append(' '.join(s.split()))
        return got
    for kind, want, field in (('subject', g.subjects, 'subject'), ('from', g.froms, 'from')):
        got = heads(mo, kind, field)
        gin = heads(mi, kind, field)
        for w, v, vin in zip(want, got, gin):
            if w is None:
                continue
            if v != ' '.join(w.split()):
                b = 'info-oracle-header-' + kind if v == vin else f'header-{kind}-wrong'
                if kind == 'subject' and getattr(g, 'raw8_subject', False):
                    b = 'info-subject-raw8-guess'   # raw legacy octets in a header: detection
                fails.append((b, f'{w!r} -> {v!r}'))
    # audit
    rc3, ao, ae = run(binp, ['audit', '--format', 'jsonl', path], d)
    if rc3 != 0:
        fails.append((f'audit-exit-{rc3}', ae.decode('utf-8', 'replace').strip()[-100:]))
        return fails
    recs = [json.loads(x) for x in ao.splitlines() if x.strip()]
    bodies = {r['part']: r for r in recs if r.get('location') == 'body'}
    for leaf in g.leaves:
        if leaf.kind != 'text':
            continue
        r = bodies.get(leaf.pid)
        if r is None:
            fails.append(('audit-text-leaf-missing', f'{leaf.desc} pid={leaf.pid} have={sorted(bodies)}'))
            continue
        if leaf.pid not in body_rep and not getattr(leaf, 'signed', False):
            fails.append(('report-text-leaf-missing', f'{leaf.desc} pid={leaf.pid}'))
        v = r.get('verdict')
        if leaf.invalid and v == 'ok':
            fails.append(('audit-damage-ok', f'{leaf.desc} pid={leaf.pid} charset={r.get("charset")}'))
        if leaf.tdamage and not any(f.get('kind') == 'malformed' for f in r.get('findings', [])):
            fails.append(('audit-transfer-damage-unreported', f'{leaf.desc} pid={leaf.pid} verdict={v}'))
        if leaf.lie and v == 'ok' and r.get('charset', '').lower() != (leaf.label or '').lower():
            fails.append(('audit-lie-ok', f'{leaf.desc} pid={leaf.pid} charset={r.get("charset")}'))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=1200)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--bin', default=os.path.join(os.environ.get('CARGO_TARGET_DIR', 'target'), 'release', 'mailcharset'))
    ap.add_argument('--out', default=None)
    ap.add_argument('--show', type=int, default=1)
    ap.add_argument('--keep', action='store_true')
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args()
    binp = os.path.abspath(a.bin)
    if not os.access(binp, os.X_OK):
        sys.exit(f'{binp}: no binary (cargo build --release, or --bin PATH)')
    rng = random.Random(a.seed)
    base = a.out or tempfile.mkdtemp(prefix='hunt-clients-')
    os.makedirs(base, exist_ok=True)
    cases = []
    for i in range(a.n):
        raw, g, client = make_message(rng)
        d = os.path.join(base, f's{a.seed}c{i:05d}')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'in.eml'), 'wb') as f:
            f.write(raw)
        cases.append(dict(dir=d, raw=raw, gen=g, client=client))

    def one(c):
        try:
            return run_case(binp, c)
        except Exception as e:  # noqa: BLE001
            import traceback
            return [('hunter-error', f'{type(e).__name__}: {e} {traceback.format_exc().splitlines()[-3].strip()}')]

    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(one, cases))
    buckets = defaultdict(list)
    for c, fails in zip(cases, results):
        for b, dd in fails:
            buckets[b].append((c, dd))
        if fails:
            with open(os.path.join(c['dir'], 'cmd.txt'), 'w') as f:
                f.write(f'{binp} normalize --report report.jsonl -o out.eml in.eml\n'
                        + '\n'.join(f'{b}: {dd}' for b, dd in fails) + '\n')
        elif not a.keep:
            shutil.rmtree(c['dir'], ignore_errors=True)
    print(f'cases: {len(cases)}  leaves: {sum(len(c["gen"].leaves) for c in cases)}  seed: {a.seed}  out: {base}')
    for b in sorted(buckets, key=lambda b: (b.startswith('info'), b)):
        items = buckets[b]
        descs = defaultdict(int)
        for c, dd in items:
            descs[dd.split(' ')[0]] += 1
        print(f'\n== {b}: {len(items)}')
        print('   ', dict(sorted(descs.items(), key=lambda x: -x[1])[:6]))
        for c, dd in sorted(items, key=lambda x: len(x[0]['raw']))[:a.show]:
            print('   ', os.path.join(c['dir'], 'in.eml'), f'({len(c["raw"])} octets)', dd[:240])
    with open(os.path.join(base, 'buckets.json'), 'w') as f:
        json.dump({b: [c['dir'] for c, _ in v] for b, v in buckets.items()}, f, indent=1)
    real = sum(len(v) for b, v in buckets.items() if not b.startswith('info'))
    print(f'\n{real} failures outside info-* buckets')


if __name__ == '__main__':
    main()
