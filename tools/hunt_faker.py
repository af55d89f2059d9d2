#!/usr/bin/env python3
"""Charset decisions on text the project was not tuned on: Faker (names,
addresses, companies, jobs, sentences of many locales) and wordfreq (the
frequent words of ~40 languages, joined into short phrases). Not a test
and not run by CI: a search, by hand. Nothing of either package is kept
in the repository; the texts are made at run time (the regression tests
it led to quote a few short strings, with a note).

    tools/hunt_faker.py --bin NEW [--base OLD] [--seed 1] [--per 8] [--out DIR] [--show 20]

Needs `pip install faker wordfreq`; without them it says so and stops
(exit 0, nothing run). About a minute per seed at --per 8 (some 14,500
messages).

Each message carries one text (truth known) in one shape: a text/plain
body (8bit, quoted-printable, base64), an RFC 2047 Subject (B or Q), an
RFC 2047 From display name, an RFC 2231 filename. Classes:

  correct    the text in charset X labelled X, intact or with one or two
             damaged octets (replaced, dropped, a multi-octet sequence cut).
             The output must be the label's reading (a damaged octet may
             become U+FFFD). Anything else is a false positive.
  lie        the text in X labelled Y (the common real lies).
  unlabelled 8-bit text without a charset parameter, raw 8-bit headers.

Outcomes: `label` (the label's reading, modulo U+FFFD for damage),
`written` (the text as written), `other` (neither), `kept` (the part
kept byte for byte under its label). With --base, both binaries are run
and their tables printed side by side.
"""
import argparse
import base64
import collections
import difflib
import email
import json
import os
import quopri
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import urllib.parse

try:
    from faker import Faker
    import wordfreq
except ImportError:
    print('hunt_faker.py: SKIPPED, it needs faker and wordfreq (pip install faker wordfreq)', file=sys.stderr)
    sys.exit(0)

# label -> (python codec that writes it, python codec that reads it as
# encoding_rs / WHATWG reads the label).
CS = {
    'iso-8859-1': ('latin_1', 'cp1252'), 'windows-1252': ('cp1252', 'cp1252'), 'iso-8859-15': ('iso8859_15', 'iso8859_15'),
    'iso-8859-2': ('iso8859_2', 'iso8859_2'), 'windows-1250': ('cp1250', 'cp1250'), 'iso-8859-16': ('iso8859_16', 'iso8859_16'),
    'iso-8859-4': ('iso8859_4', 'iso8859_4'), 'iso-8859-13': ('iso8859_13', 'iso8859_13'), 'windows-1257': ('cp1257', 'cp1257'),
    'iso-8859-9': ('iso8859_9', 'cp1254'), 'windows-1254': ('cp1254', 'cp1254'),
    'koi8-r': ('koi8_r', 'koi8_r'), 'koi8-u': ('koi8_u', 'koi8_u'), 'windows-1251': ('cp1251', 'cp1251'),
    'iso-8859-5': ('iso8859_5', 'iso8859_5'), 'ibm866': ('cp866', 'cp866'),
    'iso-8859-7': ('iso8859_7', 'iso8859_7'), 'windows-1253': ('cp1253', 'cp1253'),
    'iso-8859-8': ('iso8859_8', 'iso8859_8'), 'iso-8859-8-i': ('iso8859_8', 'iso8859_8'), 'windows-1255': ('cp1255', 'cp1255'),
    'windows-1256': ('cp1256', 'cp1256'), 'iso-8859-6': ('iso8859_6', 'iso8859_6'),
    'tis-620': ('tis_620', 'cp874'), 'windows-874': ('cp874', 'cp874'),
    'shift_jis': ('shift_jis', 'cp932'), 'euc-jp': ('euc_jp', 'euc_jp'), 'iso-2022-jp': ('iso2022_jp', 'iso2022_jp'),
    'euc-kr': ('euc_kr', 'cp949'), 'ks_c_5601-1987': ('cp949', 'cp949'),
    'gb2312': ('gb2312', 'gbk'), 'gbk': ('gbk', 'gbk'), 'gb18030': ('gb18030', 'gb18030'), 'big5': ('big5', 'big5hkscs'),
    'windows-1258': ('cp1258', 'cp1258'), 'utf-8': ('utf-8', 'utf-8'), 'us-ascii': ('ascii', 'cp1252'),
}
WEST = ['iso-8859-1', 'windows-1252', 'iso-8859-15']
CENTRAL = ['iso-8859-2', 'windows-1250']
BALTIC = ['iso-8859-13', 'windows-1257', 'iso-8859-4']
# Faker locale -> (wordfreq language or None, TLD, legacy charsets).
LANGS = {
    'de_DE': ('de', 'de', WEST), 'fr_FR': ('fr', 'fr', WEST), 'es_ES': ('es', 'es', WEST), 'pt_BR': ('pt', 'br', WEST),
    'pt_PT': ('pt', 'pt', WEST), 'it_IT': ('it', 'it', WEST), 'nl_NL': ('nl', 'nl', WEST), 'da_DK': ('da', 'dk', WEST),
    'sv_SE': ('sv', 'se', WEST), 'no_NO': ('nb', 'no', WEST), 'fi_FI': ('fi', 'fi', WEST), 'is_IS': ('is', 'is', WEST),
    'pl_PL': ('pl', 'pl', CENTRAL), 'cs_CZ': ('cs', 'cz', CENTRAL), 'sk_SK': ('sk', 'sk', CENTRAL),
    'hu_HU': ('hu', 'hu', CENTRAL), 'hr_HR': ('sh', 'hr', CENTRAL), 'sl_SI': ('sl', 'si', CENTRAL),
    'ro_RO': ('ro', 'ro', CENTRAL + ['iso-8859-16']),
    'lt_LT': ('lt', 'lt', BALTIC), 'lv_LV': ('lv', 'lv', BALTIC), 'et_EE': (None, 'ee', ['iso-8859-15', 'iso-8859-13', 'windows-1257']),
    'tr_TR': ('tr', 'tr', ['iso-8859-9', 'windows-1254']),
    'ru_RU': ('ru', 'ru', ['koi8-r', 'windows-1251', 'iso-8859-5', 'ibm866']), 'uk_UA': ('uk', 'ua', ['koi8-u', 'windows-1251']),
    'bg_BG': ('bg', 'bg', ['windows-1251']),
    'el_GR': ('el', 'gr', ['iso-8859-7', 'windows-1253']), 'he_IL': ('he', 'il', ['iso-8859-8', 'iso-8859-8-i', 'windows-1255']),
    'ar_SA': ('ar', 'sa', ['windows-1256', 'iso-8859-6']), 'fa_IR': ('fa', 'ir', ['windows-1256']),
    'th_TH': (None, 'th', ['tis-620', 'windows-874']),
    'ja_JP': ('ja', 'jp', ['shift_jis', 'euc-jp', 'iso-2022-jp']), 'ko_KR': ('ko', 'kr', ['euc-kr', 'ks_c_5601-1987']),
    'zh_CN': ('zh', 'cn', ['gb2312', 'gbk', 'gb18030']), 'zh_TW': (None, 'tw', ['big5']),
    'vi_VN': ('vi', 'vn', ['windows-1258']), 'hy_AM': (None, 'am', []), 'ka_GE': (None, 'ge', []),
}
# The common real lies: written in X (key), labelled one of the values.
LIES = {
    'windows-1252': ['iso-8859-1', 'us-ascii', 'utf-8'], 'iso-8859-15': ['iso-8859-1'],
    'iso-8859-1': ['us-ascii', 'utf-8', 'iso-8859-2'],
    'windows-1250': ['iso-8859-2', 'iso-8859-1', 'us-ascii', 'utf-8'], 'iso-8859-2': ['windows-1250', 'iso-8859-1', 'utf-8'],
    'windows-1257': ['iso-8859-13', 'iso-8859-1', 'utf-8'], 'iso-8859-13': ['iso-8859-1', 'windows-1257'],
    'windows-1254': ['iso-8859-9', 'iso-8859-1', 'utf-8'], 'iso-8859-9': ['iso-8859-1'],
    'windows-1251': ['koi8-r', 'iso-8859-1', 'us-ascii', 'utf-8', 'iso-8859-5'], 'koi8-r': ['windows-1251', 'iso-8859-1', 'utf-8'],
    'koi8-u': ['koi8-r', 'windows-1251'],
    'windows-1253': ['iso-8859-7', 'iso-8859-1', 'utf-8'], 'iso-8859-7': ['windows-1253', 'iso-8859-1'],
    'windows-1255': ['iso-8859-8', 'iso-8859-1', 'utf-8'], 'windows-1256': ['iso-8859-6', 'iso-8859-1', 'utf-8'],
    'windows-874': ['tis-620', 'iso-8859-1', 'utf-8'], 'shift_jis': ['iso-2022-jp', 'euc-jp', 'iso-8859-1', 'utf-8'],
    'euc-jp': ['shift_jis', 'iso-8859-1'], 'cp949': ['euc-kr', 'iso-8859-1', 'utf-8'], 'euc-kr': ['ks_c_5601-1987', 'iso-8859-1', 'utf-8'],
    'gbk': ['gb2312', 'big5', 'iso-8859-1', 'utf-8'], 'gb2312': ['big5', 'iso-8859-1'], 'big5': ['gb2312', 'iso-8859-1', 'utf-8'],
    'utf-8': ['iso-8859-1', 'windows-1252', 'us-ascii', 'iso-8859-2', 'windows-1251', 'koi8-r', 'shift_jis', 'gb2312',
              'euc-kr', 'big5', 'windows-1256', 'iso-8859-7'],
}
WRITE_AS = {'cp949': 'cp949'}  # lie sources that are codecs, not labels


def vi_1258(s):
    """Vietnamese as windows-1258 writes it: tone marks combining."""
    out = []
    for ch in unicodedata.normalize('NFD', s):
        if out and ch in '\u0302\u0306\u031b':
            out[-1] = unicodedata.normalize('NFC', out[-1] + ch)
        else:
            out.append(ch)
    return ''.join(out)


def texts_of(loc, rng, n):
    """n short texts of the locale: Faker fields and wordfreq phrases, each
    with a character beyond ASCII."""
    f = Faker(loc)
    f.seed_instance(rng.randrange(1 << 30))
    wf, _, _ = LANGS[loc]
    words = wordfreq.top_n_list(wf, 800) if wf else []
    words = [w for w in words if not w.isascii()] + [w for w in words if w.isascii()][:200]
    out = []
    tries = 0
    while len(out) < n and tries < n * 40:
        tries += 1
        kind = rng.choice(['name', 'name', 'address', 'company', 'job', 'sentence', 'words', 'words', 'words', 'word'])
        try:
            if kind == 'words' and words:
                t = ' '.join(rng.choice(words) for _ in range(rng.randrange(2, 7)))
                if rng.random() < 0.3:
                    t = t[:1].upper() + t[1:]
            elif kind == 'word' and words:
                t = rng.choice(words[:300])
            elif kind in ('words', 'word'):
                continue
            else:
                t = str(getattr(f, kind)())
        except Exception:
            continue
        t = ' '.join(t.split())
        if t.isascii() or len(t) > 150:
            continue
        out.append((kind, t))
    return out


def encode(text, label):
    """The octets of text in label's charset (None: not encodable)."""
    codec = WRITE_AS.get(label) or CS[label][0]
    if codec == 'cp1258':
        text = vi_1258(text)
    try:
        return text.encode(codec)
    except UnicodeEncodeError:
        return None


def damage(rng, b, label):
    """One or two damaged octets: replaced by a random 8-bit one, dropped,
    or a multi-octet sequence cut (its last octet dropped)."""
    b = bytearray(b)
    kinds = []
    for _ in range(rng.choice([1, 1, 2])):
        hi = [i for i, c in enumerate(b) if c >= 0x80 or (label == 'iso-2022-jp' and c == 0x1b)]
        if not hi:
            break
        kind = rng.choice(['replace', 'drop', 'cut'])
        i = rng.choice(hi)
        if kind == 'replace':
            b[i] = rng.randrange(0x80, 0x100)
        elif kind == 'drop':
            del b[i]
        else:
            j = i
            while j + 1 < len(b) and b[j + 1] >= 0x80 and j - i < 3:
                j += 1
            # Lead octet i, trail up to j: drop the last octet of that run
            # when it is one character of several octets, else the octet.
            del b[j if j > i else i]
        kinds.append(kind)
    return bytes(b), '+'.join(kinds)


def q_encode(b):
    out = []
    for c in b:
        ch = chr(c)
        if c == 0x20:
            out.append('_')
        elif ch.isalnum() and c < 0x80:
            out.append(ch)
        else:
            out.append('=%02X' % c)
    return ''.join(out)


def encoded_words(text, label, rng, enc, dmg):
    """RFC 2047 words of text in label, chunked on character boundaries;
    damage (a function of octets) applied to one chunk."""
    chunks, cur = [], ''
    for ch in text:
        if len((cur + ch).encode('utf-8')) > 30:
            chunks.append(cur)
            cur = ''
        cur += ch
    chunks.append(cur)
    octs = [encode(c, label) for c in chunks]
    if any(o is None for o in octs):
        return None
    if dmg:
        hi = [k for k, o in enumerate(octs) if any(c >= 0x80 or c == 0x1b for c in o)]
        if hi:
            k = rng.choice(hi)
            octs[k] = dmg(octs[k])
    words = []
    for o in octs:
        if enc == 'B':
            words.append(f'=?{label}?B?{base64.b64encode(o).decode()}?=')
        else:
            words.append(f'=?{label}?Q?{q_encode(o)}?=')
    return '\r\n '.join(words), octs


def rfc2231(label, b):
    pct = ''.join(chr(c) if (chr(c).isalnum() and c < 0x80) or chr(c) in '.-_' else '%%%02X' % c for c in b)
    if len(pct) <= 60:
        return f"filename*={label}''{pct}"
    segs, i = [], 0
    while i < len(pct):
        j = min(i + 45, len(pct))
        # Do not split a %XX escape.
        while j < len(pct) and pct[j - 1] == '%' or (j < len(pct) and j >= 2 and pct[j - 2] == '%'):
            j += 1
        segs.append(pct[i:j])
        i = j
    return ';\r\n '.join(f"filename*{k}*={label}''{s}" if k == 0 else f"filename*{k}*={s}" for k, s in enumerate(segs))


def safe_name(t):
    return re.sub(r'[\\/:*?"<>|\x00-\x1f]', '_', t)


HEAD = 'To: b@example.net\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <{n}@x.example.{tld}>\r\nMIME-Version: 1.0\r\n'


def message(n, shape, label, octs_or_text, tld, rng, enc_words=None):
    """The message bytes for one case. For `body-*` octs_or_text are the body
    octets; for `subject`/`from` enc_words is the header value (str or
    raw octets); for `filename` the value."""
    head = HEAD.format(n=n, tld=tld)
    frm = f'From: Sender <s@mail.example.{tld}>\r\n'
    if shape.startswith('body'):
        ct = 'text/plain' if label is None else f'text/plain; charset={label}'
        b = octs_or_text
        cte = shape.split('-')[1]
        if cte == '8bit':
            payload = b
            if all(c < 0x80 for c in b):
                cte = '7bit'
        elif cte == 'qp':
            cte = 'quoted-printable'
            payload = quopri.encodestring(b)
        else:
            cte = 'base64'
            payload = base64.encodebytes(b)
        hdr = (frm + 'Subject: test\r\n' + head + f'Content-Type: {ct}\r\nContent-Transfer-Encoding: {cte}\r\n\r\n').encode()
        return hdr + payload + b'\r\n'
    if shape in ('subject', 'from'):
        v = enc_words if isinstance(enc_words, bytes) else enc_words.encode()
        if shape == 'subject':
            hdr = frm.encode() + b'Subject: ' + v + b'\r\n'
        else:
            hdr = b'From: ' + v + f' <s@mail.example.{tld}>\r\nSubject: test\r\n'.encode()
        return hdr + (head + 'Content-Type: text/plain; charset=us-ascii\r\n\r\nHello.\r\n').encode()
    # filename
    v = enc_words if isinstance(enc_words, bytes) else enc_words.encode()
    return ((frm + 'Subject: file\r\n' + head + 'Content-Type: multipart/mixed; boundary="BB"\r\n\r\n--BB\r\n'
             'Content-Type: text/plain; charset=us-ascii\r\n\r\nSee the file.\r\n--BB\r\n'
             'Content-Type: application/octet-stream\r\nContent-Disposition: attachment; ').encode()
            + v + b'\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECAwQF\r\n--BB--\r\n')


def gen(seed, per, out):
    rng = random.Random(seed)
    cases = {}
    n = 0

    def put(case, data):
        nonlocal n
        name = f'{n:06d}.eml'
        n += 1
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
        cases[name] = case

    shapes = ['body-8bit', 'body-qp', 'body-b64', 'subject-B', 'subject-Q', 'from-B', 'filename']
    for loc in sorted(LANGS):
        _, ltld, charsets = LANGS[loc]
        pool = texts_of(loc, rng, 400)
        for label in charsets + ['utf-8']:
            for shape in shapes:
                usable = [(k, t) for k, t in pool if encode(t, label) is not None and not encode(t, label).isascii()]
                if len(usable) < 5:
                    continue
                for i in range(per):
                    kind, text = rng.choice(usable)
                    tld = rng.choice([ltld, ltld, 'com', 'net'])
                    dmode = 'none' if i % 3 == 0 else 'dmg'
                    truth_text = vi_1258(text) if label == 'windows-1258' else text
                    case = dict(cls='correct', loc=loc, label=label, written=label, shape=shape, kind=kind, text=truth_text,
                                tld=tld)
                    dkind = 'none'
                    store = {}

                    def dmg(o):
                        d, k = damage(rng, o, label)
                        store['k'] = k
                        return d
                    if shape.startswith('body'):
                        b = encode(text, label)
                        if dmode == 'dmg':
                            b = dmg(b)
                        case['octets'] = b.hex()
                        data = message(n, shape, label, b, tld, rng)
                    elif shape in ('subject-B', 'subject-Q', 'from-B'):
                        r = encoded_words(text, label, rng, shape[-1], dmg if dmode == 'dmg' else None)
                        if r is None:
                            continue
                        v, octs = r
                        case['octets'] = [o.hex() for o in octs]
                        data = message(n, shape.split('-')[0], label, None, tld, rng, v)
                    else:
                        text = safe_name(text)
                        case['text'] = (vi_1258(text) if label == 'windows-1258' else text) + '.txt'
                        b = encode(text + '.txt', label)
                        if b is None:
                            continue
                        if dmode == 'dmg':
                            b = dmg(b)
                        case['octets'] = b.hex()
                        data = message(n, shape, label, None, tld, rng, rfc2231(label, b))
                    case['damage'] = store.get('k', 'none')
                    put(case, data)
        # Lies: text written in X, labelled Y.
        for written in charsets + ['utf-8'] + (['cp949'] if loc == 'ko_KR' else []):
            for label in LIES.get(written, []):
                if written == 'utf-8' and rng.random() < 0.6 and label not in ('iso-8859-1', 'windows-1252', 'us-ascii'):
                    continue
                for shape in ['body-8bit', 'body-qp', 'subject-B', 'filename']:
                    for i in range(max(1, per // 2)):
                        kind, text = rng.choice(pool)
                        if shape == 'filename':
                            text = safe_name(text) + '.txt'
                        b = encode(text, written)
                        if b is None or b.isascii():
                            continue
                        lr = b.decode(CS[label][1], errors='replace')
                        truth = vi_1258(text) if written == 'windows-1258' else text
                        if lr == truth:
                            continue
                        tld = rng.choice([ltld, 'com'])
                        case = dict(cls='lie', loc=loc, label=label, written=written, shape=shape, kind=kind, text=truth,
                                    tld=tld, damage='none', octets=b.hex(), nonascii=sum(1 for c in truth if ord(c) > 127))
                        if shape.startswith('body'):
                            data = message(n, shape, label, b, tld, rng)
                        elif shape == 'subject-B':
                            if len(b) > 45:
                                continue
                            data = message(n, 'subject', label, None, tld, rng, f'=?{label}?B?{base64.b64encode(b).decode()}?=')
                        else:
                            data = message(n, 'filename', label, None, tld, rng, rfc2231(label, b))
                        put(case, data)
        # Unlabelled: 8-bit body without charset, raw 8-bit Subject/From, raw
        # filename="..." with 8-bit.
        for written in charsets + ['utf-8']:
            for shape in ['body-8bit', 'subject-raw', 'from-raw', 'filename-raw']:
                for i in range(max(1, per // 2)):
                    kind, text = rng.choice(pool)
                    if shape == 'filename-raw':
                        text = safe_name(text) + '.txt'
                    b = encode(text, written)
                    if b is None or b.isascii() or written == 'iso-2022-jp':
                        continue
                    if shape != 'body-8bit' and (b'\r' in b or b'\n' in b):
                        continue
                    truth = vi_1258(text) if written == 'windows-1258' else text
                    tld = rng.choice([ltld, 'com'])
                    case = dict(cls='unlabelled', loc=loc, label=None, written=written, shape=shape, kind=kind, text=truth,
                                tld=tld, damage='none', octets=b.hex(), nonascii=sum(1 for c in truth if ord(c) > 127))
                    if shape == 'body-8bit':
                        data = message(n, shape, None, b, tld, rng)
                    elif shape == 'subject-raw':
                        data = message(n, 'subject', None, None, tld, rng, b)
                    elif shape == 'from-raw':
                        data = message(n, 'from', None, None, tld, rng, b'"' + b.replace(b'"', b"'") + b'"')
                        case['text'] = truth.replace('"', "'")
                    else:
                        data = message(n, 'filename', None, None, tld, rng, b'filename="' + b.replace(b'"', b"'") + b'"')
                        case['text'] = truth.replace('"', "'")
                    put(case, data)
    with open(os.path.join(out, 'cases.json'), 'w') as f:
        json.dump(cases, f)
    return cases


# ---- reading the output ----

EW = re.compile(rb'=\?([^?*\s]+)(?:\*[^?]*)?\?([BbQq])\?([^?\s]*)\?=')


def pycodec(cs):
    cs = cs.lower()
    if cs in CS:
        return CS[cs][1]
    return cs


def decode_header(v):
    """An unfolded header value (octets) to text: encoded-words decoded,
    whitespace between adjacent ones dropped, raw octets as UTF-8."""
    out = []
    pos = 0
    last_ew = False
    for m in EW.finditer(v):
        between = v[pos:m.start()]
        if not (last_ew and between.strip() == b''):
            out.append(between.decode('utf-8', errors='replace'))
        cs, e, data = m.group(1).decode(), m.group(2).upper(), m.group(3)
        try:
            if e == b'B' or e == 'B':
                raw = base64.b64decode(data + b'=' * (-len(data) % 4))
            else:
                raw = re.sub(rb'=([0-9A-Fa-f]{2})', lambda x: bytes([int(x.group(1), 16)]), data.replace(b'_', b' '))
            out.append(raw.decode(pycodec(cs), errors='replace'))
        except Exception:
            out.append('\x00BAD')
        pos = m.end()
        last_ew = True
    out.append(v[pos:].decode('utf-8', errors='replace'))
    return ''.join(out)


def headers(data):
    head = data.replace(b'\r\n', b'\n').split(b'\n\n', 1)[0]
    lines = []
    for line in head.split(b'\n'):
        if line[:1] in (b' ', b'\t') and lines:
            lines[-1] += b' ' + line.strip()
        else:
            lines.append(line)
    h = {}
    for line in lines:
        if b':' in line:
            k, v = line.split(b':', 1)
            h.setdefault(k.strip().lower().decode('latin-1'), v.strip())
    return h


def read_output(data, case):
    """What the output says the text is, and whether the part was kept
    under its own label."""
    shape = case['shape']
    if shape.startswith('body'):
        m = email.message_from_bytes(data)
        payload = m.get_payload(decode=True) or b''
        cs = m.get_content_charset()
        kept = cs is not None and cs.lower() not in ('utf-8',) and case['label'] is not None
        if cs is None:
            cs = 'utf-8'
        try:
            t = payload.decode(pycodec(cs), errors='replace')
        except LookupError:
            t = payload.decode('utf-8', errors='replace')
            kept = True
        return t.replace('\r\n', '\n').rstrip('\n'), kept
    h = headers(data)
    if shape.startswith('subject'):
        v = h.get('subject', b'')
        return decode_header(v), False
    if shape.startswith('from'):
        v = h.get('from', b'')
        t = decode_header(v)
        t = re.sub(r'\s*<[^>]*>\s*$', '', t).strip()
        if t.startswith('"') and t.endswith('"'):
            t = t[1:-1]
        return t, False
    part = data.split(b'--BB')[2] if data.count(b'--BB') >= 3 else b''
    h = headers(part.lstrip(b'\r\n'))
    return filename_of(h.get('content-disposition', b'')), False


def filename_of(v):
    """The filename parameter of a Content-Disposition value (octets):
    RFC 2231 (continuations, charset), else quoted or token, raw octets as
    UTF-8, RFC 2047 words inside decoded."""
    params = {}
    for m in re.finditer(rb';\s*([A-Za-z0-9*_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)', v):
        k, val = m.group(1).decode().lower(), m.group(2)
        if val.startswith(b'"'):
            val = re.sub(rb'\\(.)', rb'\1', val[1:-1])
        params[k] = val
    if 'filename*' in params or 'filename*0*' in params or 'filename*0' in params:
        segs, k = [], 0
        if 'filename*' in params:
            segs = [(params['filename*'], True)]
        else:
            while f'filename*{k}*' in params or f'filename*{k}' in params:
                star = f'filename*{k}*' in params
                segs.append((params[f'filename*{k}*' if star else f'filename*{k}'], star))
                k += 1
        first = segs[0][0]
        cs = 'us-ascii'
        if segs[0][1] and first.count(b"'") >= 2:
            cs, _, rest = first.split(b"'", 2)
            cs = cs.decode()
            segs[0] = (rest, True)
        raw = b''.join(re.sub(rb'%([0-9A-Fa-f]{2})', lambda x: bytes([int(x.group(1), 16)]), s) if star else s
                       for s, star in segs)
        try:
            return raw.decode(pycodec(cs), errors='replace')
        except LookupError:
            return raw.decode('utf-8', errors='replace')
    return decode_header(params.get('filename', b''))


def lev(a, b, cap=40):
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


# The binary whose codec (`decode --charset`, no decision) reads a label's
# octets for the truth of damaged texts; set from --base, else --bin.
REF = None
_dec = {}


def codec_read(o, label):
    """The label's reading of octets o: the reference binary's own codec
    (`decode --charset`, encoding_rs's tables and its U+FFFD), not the
    decision."""
    key = (o, label)
    if key not in _dec:
        r = subprocess.run([REF, 'decode', '--charset', label], input=bytes.fromhex(o), capture_output=True)
        _dec[key] = r.stdout.decode('utf-8', errors='replace') if r.returncode == 0 else \
            bytes.fromhex(o).decode(CS[label][1], errors='replace')
    return _dec[key]


def label_reading(case):
    if case['label'] is None:
        return None
    o = case['octets']
    if case['damage'] != 'none':
        return ''.join(codec_read(x, case['label']) for x in (o if isinstance(o, list) else [o]))
    if isinstance(o, list):
        try:
            return ''.join(bytes.fromhex(x).decode(CS[case['label']][1], errors='replace') for x in o)
        except Exception:
            return None
    return bytes.fromhex(o).decode(CS[case['label']][1], errors='replace')


def near(a, b, damaged, text=''):
    """a and b equal but for a few characters at each damaged octet: each
    differing stretch at most 3 characters on either side, at most two
    stretches per damaged octet, and at least half of the text equal."""
    if a == b:
        return True
    if not damaged:
        return False
    nd = damaged.count('+') + 1
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != 'equal']
    if len(ops) > 2 * nd:
        return False
    diff = 0
    allowed = set(text) | {'\ufffd'}
    for _, i1, i2, j1, j2 in ops:
        if i2 - i1 > 3 or j2 - j1 > 3:
            return False
        # What the output has where the two differ: U+FFFD, or characters of
        # the text itself (a codec that resynchronises elsewhere).
        if any(ch not in allowed and not ch.isascii() for ch in a[i1:i2]):
            return False
        diff += max(i2 - i1, j2 - j1)
    return diff * 2 <= max(len(a), len(b))


def classify(case, got):
    text = case['text']
    lr = label_reading(case)
    dmg = case['damage'] if case['damage'] != 'none' else ''
    if lr is not None and (near(got, lr, dmg, text)):
        return 'label'
    if case['label'] and not dmg and got == ''.join(codec_read(x, case['label']) for x in
                                                   (case['octets'] if isinstance(case['octets'], list) else [case['octets']])):
        # encoding_rs's table where Python's differs (Big5 A241 is U+2215).
        return 'label' if case['cls'] == 'correct' else ('written' if got == text else 'label')
    if isinstance(case['octets'], list) and dmg and near(got, codec_read(''.join(case['octets']), case['label']), dmg, text):
        # Adjacent encoded-words of one charset read as one run of octets.
        return 'label'
    if got == text or (dmg and near(got, text, dmg, text)):
        return 'written' if case['cls'] != 'correct' else 'label'
    return 'other'


def run(binp, src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    subprocess.run([binp, 'normalize', '-q', '-j', '2', src, '-o', dst], capture_output=True)
    r = subprocess.run([binp, 'audit', '-j', '2', '--format', 'jsonl', src], capture_output=True)
    recs = collections.defaultdict(list)
    for line in r.stdout.decode().splitlines():
        j = json.loads(line)
        recs[os.path.basename(j['input'])].append(j)
    return recs


LOCS = {'body': 'body', 'subject': 'header:Subject', 'from': 'header:From', 'filename': 'param:filename'}


def evaluate(cases, dst, recs):
    res = {}
    for name, c in cases.items():
        try:
            with open(os.path.join(dst, name), 'rb') as f:
                data = f.read()
        except FileNotFoundError:
            res[name] = ('missing', None, None)
            continue
        got, kept = read_output(data, c)
        out = classify(c, got)
        loc = LOCS[c['shape'].split('-')[0]]
        rec = [r for r in recs.get(name, []) if r.get('location') == loc]
        rec = rec[0] if rec else {}
        res[name] = (out, got, dict(verdict=rec.get('verdict'), detected=(rec.get('detected') or {}).get('charset'),
                                    charset=rec.get('charset'), notes=[f.get('kind') or f.get('note') for f in rec.get('findings', [])][:4]))
    return res


def table(cases, res):
    """Per class: counts of outcomes; per (class, loc, charset, shape) the
    non-label outcomes."""
    t = collections.defaultdict(collections.Counter)
    audit_fp = collections.Counter()
    for name, c in cases.items():
        out, got, rec = res[name]
        cls = c['cls']
        t[cls][out] += 1
        if cls == 'correct' and rec and (rec['detected'] is not None or rec['verdict'] == 'mislabeled'):
            audit_fp[(c['loc'], c['label'], c['shape'])] += 1
    return t, audit_fp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--base')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--per', type=int, default=8)
    ap.add_argument('--out', help='folder for the messages and outputs (default: a new temporary one)')
    ap.add_argument('--show', type=int, default=20)
    ap.add_argument('--json', help='write per-case results here')
    a = ap.parse_args()
    global REF
    REF = a.base or a.bin
    a.out = a.out or tempfile.mkdtemp(prefix='hunt-faker-')
    src = os.path.join(a.out, f'in-{a.seed}')
    if os.path.exists(src):
        shutil.rmtree(src)
    os.makedirs(src)
    cases = gen(a.seed, a.per, src)
    print(f'seed {a.seed}: {len(cases)} messages in {src}', collections.Counter(c['cls'] for c in cases.values()))
    runs = [('new', a.bin)] + ([('base', a.base)] if a.base else [])
    allres = {}
    for which, binp in runs:
        recs = run(binp, src, os.path.join(a.out, f'out-{which}-{a.seed}'))
        res = evaluate(cases, os.path.join(a.out, f'out-{which}-{a.seed}'), recs)
        allres[which] = res
        t, afp = table(cases, res)
        for cls in ('correct', 'lie', 'unlabelled'):
            print(f'[{which}] {cls}: {sum(t[cls].values())}', dict(t[cls]))
        fp = collections.Counter()
        for name, c in cases.items():
            if c['cls'] == 'correct' and res[name][0] != 'label':
                fp[(c['loc'], c['label'], c['shape'], c['damage'] != 'none')] += 1
        print(f'[{which}] correct-label false positives (normalize) by loc/label/shape/damaged:')
        for k, v in sorted(fp.items()):
            print('   ', k, v)
        print(f'[{which}] correct-label audit records with detected/mislabeled:', sum(afp.values()))
        for k, v in sorted(afp.items()):
            print('   ', k, v)
        lies = collections.defaultdict(collections.Counter)
        for name, c in cases.items():
            if c['cls'] == 'lie':
                lies[(c['written'], c['label'])][res[name][0]] += 1
        print(f'[{which}] lies written->label: written/label/other')
        for k, v in sorted(lies.items()):
            print(f'    {k[0]:>14} as {k[1]:<16}', f"{v['written']}/{v['label']}/{v['other']}")
        un = collections.defaultdict(collections.Counter)
        for name, c in cases.items():
            if c['cls'] == 'unlabelled':
                un[(c['written'], c['shape'])][res[name][0]] += 1
        print(f'[{which}] unlabelled written/shape: written/other')
        for k, v in sorted(un.items()):
            print(f'    {k[0]:>14} {k[1]:<13}', f"{v['written']}/{v['other']}")
    shown = 0
    for name, c in sorted(cases.items()):
        if c['cls'] == 'correct' and allres['new'][name][0] != 'label' and shown < a.show:
            shown += 1
            print('FP', name, c['loc'], c['label'], c['shape'], c['damage'], repr(c['text']), '->', repr(allres['new'][name][1]),
                  allres['new'][name][2])
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({w: {k: [v[0], v[1], v[2]] for k, v in r.items()} for w, r in allres.items()}, f)


if __name__ == '__main__':
    main()
