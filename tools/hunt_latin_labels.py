#!/usr/bin/env python3
"""Correctly labelled Latin-script text must keep its label; text in
another script under a Latin label is a lie to catch.

    tools/hunt_latin_labels.py --bin NEW [--base OLD] [--per 30] [--seed 1]

The sentences are real ones: the translations of the gettext catalogs
installed on the machine (/usr/share/locale/*/LC_MESSAGES/*.mo; Debian has
some 3,700 of them in 100-odd languages). For each Latin-script language
and each of its legacy charsets, messages of one string to ~5 KB are
written under that charset's label (plain, ALL CAPS, with a price list of
symbols, with names, or names and letters alone; three in ten with one
or two octets damaged), from senders of the language's own, `.com` and
non-Latin top-level domains (chardetng's hint). Strings the charset cannot
encode are left out. Vietnamese goes under windows-1258 in its
decomposed form (a combining tone mark after the letter), as that charset
writes it. The non-Latin languages (Cyrillic, Greek, Hebrew, Arabic, Thai,
CJK) are written in their legacy charsets under Latin labels.

Each message goes through `audit --format jsonl`. Reported: correct
texts whose record is not the label's reading (`flip`: verdict
`mislabeled`, or another charset detected), lies read in their true
charset (`caught`) or not, by strength (40 or more non-ASCII characters is
`strong`, as in hunt_charsets.py). With --base, the records that differ
between the two binaries are listed.
"""
import argparse
import collections
import glob
import gettext
import json
import os
import random
import subprocess
import tempfile
import unicodedata

# language -> [(label, python codec)], Latin script, correctly labelled.
WEST = [('iso-8859-1', 'latin_1'), ('windows-1252', 'cp1252'), ('iso-8859-15', 'iso8859_15'), ('macintosh', 'mac_roman')]
CENTRAL = [('iso-8859-2', 'iso8859_2'), ('windows-1250', 'cp1250'), ('iso-8859-16', 'iso8859_16')]
BALTIC = [('iso-8859-4', 'iso8859_4'), ('iso-8859-13', 'iso8859_13'), ('windows-1257', 'cp1257')]
LATIN = {
    'fr': WEST + [('iso-8859-16', 'iso8859_16')], 'de': WEST + CENTRAL, 'es': WEST, 'it': WEST, 'pt': WEST, 'pt_BR': WEST,
    'ca': WEST, 'gl': WEST, 'eu': WEST, 'nl': WEST, 'da': WEST, 'sv': WEST, 'nb': WEST, 'nn': WEST,
    'fi': WEST + [('iso-8859-10', 'iso8859_10')], 'is': WEST + [('iso-8859-10', 'iso8859_10')],
    'fo': WEST + [('iso-8859-10', 'iso8859_10')], 'ga': WEST + [('iso-8859-14', 'iso8859_14')],
    'oc': WEST, 'ast': WEST, 'af': WEST, 'wa': WEST, 'id': WEST, 'ms': WEST, 'br': [('iso-8859-14', 'iso8859_14')] + WEST,
    'cy': [('iso-8859-14', 'iso8859_14')], 'sq': WEST + CENTRAL, 'fur': WEST,
    'cs': CENTRAL, 'sk': CENTRAL, 'pl': CENTRAL, 'hu': CENTRAL, 'sl': CENTRAL, 'hr': CENTRAL, 'bs': CENTRAL,
    'sr@latin': CENTRAL, 'ro': CENTRAL,
    'et': BALTIC + [('iso-8859-15', 'iso8859_15')], 'lt': BALTIC, 'lv': BALTIC,
    'tr': [('iso-8859-9', 'iso8859_9'), ('windows-1254', 'cp1254')], 'crh': [('iso-8859-9', 'iso8859_9'), ('windows-1254', 'cp1254')],
    'eo': [('iso-8859-3', 'iso8859_3')], 'mt': [('iso-8859-3', 'iso8859_3')],
    'vi': [('windows-1258', 'cp1258')],
}
TLD = {'pt_BR': 'br', 'nb': 'no', 'nn': 'no', 'sv': 'se', 'da': 'dk', 'cs': 'cz', 'sr@latin': 'rs', 'et': 'ee', 'ga': 'ie',
       'ca': 'es', 'gl': 'es', 'eu': 'es', 'ast': 'es', 'oc': 'fr', 'br': 'fr', 'af': 'za', 'wa': 'be', 'cy': 'uk', 'sq': 'al',
       'fur': 'it', 'crh': 'ua', 'eo': 'org', 'vi': 'vn', 'sl': 'si', 'bs': 'ba', 'ms': 'my', 'uk': 'ua', 'el': 'gr', 'he': 'il',
       'ar': 'eg', 'fa': 'ir', 'ja': 'jp', 'ko': 'kr', 'zh_CN': 'cn', 'zh_TW': 'tw', 'be': 'by', 'sr': 'rs', 'mk': 'mk'}
FOREIGN_TLDS = ['ru', 'gr', 'jp', 'kr', 'cn', 'tw', 'th', 'il', 'eg', 'ua', 'bg']
# language -> python codecs of its legacy charsets (non-Latin script).
OTHER = {
    'ru': ['cp1251', 'koi8_r', 'iso8859_5', 'cp866', 'mac_cyrillic'], 'uk': ['cp1251', 'koi8_u'], 'bg': ['cp1251', 'iso8859_5'],
    'be': ['cp1251'], 'sr': ['cp1251', 'iso8859_5'], 'mk': ['cp1251'],
    'el': ['cp1253', 'iso8859_7'], 'he': ['cp1255', 'iso8859_8'], 'ar': ['cp1256', 'iso8859_6'], 'fa': ['cp1256'],
    'th': ['cp874'], 'ja': ['cp932', 'euc_jp'], 'ko': ['cp949'], 'zh_CN': ['gbk'], 'zh_TW': ['big5'],
}
LIE_LABELS = ['iso-8859-1', 'iso-8859-1', 'windows-1252', 'iso-8859-15', 'iso-8859-2']
# Cyrillic: each language's charsets, the label of each.
CYRILLIC = {'ru': ['cp1251', 'koi8_r', 'iso8859_5', 'cp866', 'mac_cyrillic'], 'uk': ['cp1251', 'koi8_u'],
            'bg': ['cp1251', 'iso8859_5'], 'be': ['cp1251'], 'sr': ['cp1251', 'iso8859_5'], 'mk': ['cp1251']}
CYR_LABEL = {'cp1251': 'windows-1251', 'koi8_r': 'koi8-r', 'koi8_u': 'koi8-u', 'iso8859_5': 'iso-8859-5',
             'cp866': 'ibm866', 'mac_cyrillic': 'x-mac-cyrillic'}
# Central European languages, their charsets, and the labels their text is
# sent under by a client that does not know them.
CENTRAL_LIES = {l: ['cp1250', 'iso8859_2'] for l in ('pl', 'cs', 'sk', 'hu', 'sl', 'hr', 'bs', 'sr@latin', 'ro', 'sq')}
CENTRAL_LABELS = {'cp1250': ['iso-8859-1', 'iso-8859-1', 'windows-1252', 'iso-8859-15', 'iso-8859-2'],
                  'iso8859_2': ['iso-8859-1', 'iso-8859-1', 'windows-1252', 'iso-8859-15', 'windows-1250']}
READ_AS = {'iso-8859-1': 'cp1252', 'windows-1252': 'cp1252', 'iso-8859-15': 'iso8859_15', 'iso-8859-2': 'iso8859_2',
           'windows-1250': 'cp1250'}
# Words in CamelCase, the closest real text comes to a turned case.
NAMES_CY = ['МосГорТранс', 'ВКонтакте', 'РосНефть', 'ГлавУпДор', 'СберБанк', 'АвтоВАЗ', 'ТрансТелеКом', 'Иван Петров',
            'ООО «РосНефть»', 'ВНИМАНИЕ']
# What encoding_rs reads under each label name of the python codecs.
WHATWG = {'latin_1': 'windows-1252', 'cp1252': 'windows-1252', 'iso8859_15': 'ISO-8859-15', 'mac_roman': 'macintosh',
          'iso8859_2': 'ISO-8859-2', 'cp1250': 'windows-1250', 'iso8859_16': 'ISO-8859-16', 'iso8859_4': 'ISO-8859-4',
          'iso8859_13': 'ISO-8859-13', 'cp1257': 'windows-1257', 'iso8859_10': 'ISO-8859-10', 'iso8859_14': 'ISO-8859-14',
          'iso8859_9': 'windows-1254', 'cp1254': 'windows-1254', 'iso8859_3': 'ISO-8859-3', 'cp1258': 'windows-1258'}
SYMBOLS = ['Preis: £5, £10 oder €25 (±2 %)', '25° C, ½ kg, ¼ l, 3× täglich', '© 2009 Firma GmbH ® ™', '§ 4 Abs. 2 — siehe «Anhang»',
           'Total … 1.234,50 € · Rabatt 10 %', '¡Oferta! ¿Sí? 2ª edición, nº 5', '» Weiterleiten «', '• Punkt eins • Punkt zwei',
           '———————————', '¯¯¯¯¯¯¯¯', '°°°', '±±± µ µ µ ¶', 'Température : 12 °C à 18 °C', '«  »  —  –']
# Correct Western text with symbols between letters, the closest it comes
# to Central European text read as Latin-1 (`Wroc³aw`).
HARD = ['Microsoft®Windows', 'Yahoo!®Mail', 'H²O und CO²-Ausstoß', 'x²+y²', 'don´t worry, it´s fine', 'col·lecció',
        'A±B', 'Preis±Rabatt', 'ab¹cd', 'Fußnote¹', 'x³y', '10¼in', '¿Qué?¡Sí!', 'Nº5', 'Ma¿ana', 'SI¿NO', 'p¼q', '5×4']
NAMES = ['Ólöf Þórðardóttir', 'Ærø Ødegård', 'Åsa Öberg', 'Müller-Lüdenscheidt', 'José Núñez', 'François Lévêque', 'Ñuñoa',
         'Łódź', 'Dvořák', 'Čapek', 'Gyűrű Ödön', 'Ürümqi', 'Çağrı Işık', 'Šťastný', 'ÉÈÊË', 'ÀÂÄ', 'ÄÖÜ äöü ß', 'úžší',
         'çığ', 'à', 'é', 'ó', 'ü', 'ô', 'è', 'ñ', 'Â', 'É']


def catalogs():
    texts = collections.defaultdict(set)
    for f in glob.glob('/usr/share/locale/*/LC_MESSAGES/*.mo'):
        lang = f.split('/')[4]
        if lang not in LATIN and lang not in OTHER:
            continue
        try:
            cat = gettext.GNUTranslations(open(f, 'rb'))._catalog
        except Exception:
            continue
        for k, v in cat.items():
            if not isinstance(v, str) or not k or v == k:
                continue
            for s in v.split('\x00'):
                s = ' '.join(s.split())
                if len(s) >= 2:
                    texts[lang].add(s)
    return {k: sorted(v) for k, v in texts.items()}


def vi_1258(s):
    """Vietnamese as windows-1258 writes it: tone marks combining."""
    out = []
    for ch in unicodedata.normalize('NFD', s):
        if out and ch in '\u0302\u0306\u031b':
            out[-1] = unicodedata.normalize('NFC', out[-1] + ch)
        else:
            out.append(ch)
    return ''.join(out)


def encodable(strings, codec):
    out = []
    for s in strings:
        t = vi_1258(s) if codec == 'cp1258' else s
        try:
            t.encode(codec)
        except UnicodeEncodeError:
            continue
        out.append(t)
    return out


def text_of(rng, pool, size):
    if size == 'word':
        return rng.choice(pool)
    target = {'short': 120, 'mid': 600, 'long': 5000}[size]
    out, n = [], 0
    while n < target:
        s = rng.choice(pool)
        out.append(s)
        n += len(s) + 1
    sep = rng.choice(['\n', ' '])
    return sep.join(out)


def eml(tld, label, body):
    """A one-part text/plain message, 8bit, under `label` (None: no charset
    parameter), from a sender of `tld`."""
    ct = 'text/plain' if label is None else f'text/plain; charset="{label}"'
    h = (f'From: Someone <a@mail.example.{tld}>\nTo: b@example.net\nSubject: test\n'
         f'Message-ID: <x@mail.example.{tld}>\nMIME-Version: 1.0\n'
         f'Content-Type: {ct}\nContent-Transfer-Encoding: 8bit\n\n')
    return h.encode() + body + b'\n'


def audit(binp, folder):
    r = subprocess.run([binp, 'audit', '-j', '2', '--format', 'jsonl', folder], capture_output=True)
    recs = {}
    for line in r.stdout.decode().splitlines():
        j = json.loads(line)
        if j.get('location') == 'body':
            recs[os.path.basename(j['input'])] = j
    return recs


# encoding_rs names of the charsets a lie may be read in -> python codecs.
PY = {'windows-1251': 'cp1251', 'KOI8-R': 'koi8_r', 'KOI8-U': 'koi8_u', 'ISO-8859-5': 'iso8859_5', 'IBM866': 'cp866',
      'x-mac-cyrillic': 'mac_cyrillic', 'windows-1253': 'cp1253', 'ISO-8859-7': 'iso8859_7', 'windows-1255': 'cp1255',
      'ISO-8859-8': 'iso8859_8', 'windows-1256': 'cp1256', 'ISO-8859-6': 'iso8859_6', 'windows-874': 'cp874',
      'Shift_JIS': 'cp932', 'EUC-JP': 'euc_jp', 'EUC-KR': 'cp949', 'GBK': 'gbk', 'gb18030': 'gb18030', 'Big5': 'big5hkscs',
      'UTF-8': 'utf-8', 'windows-1252': 'cp1252', 'windows-1250': 'cp1250', 'ISO-8859-2': 'iso8859_2',
      'ISO-8859-16': 'iso8859_16', 'ISO-8859-15': 'iso8859_15', 'windows-1257': 'cp1257', 'ISO-8859-13': 'iso8859_13',
      'ISO-8859-4': 'iso8859_4', 'windows-1254': 'cp1254'}


def body_of(out, name):
    with open(os.path.join(out, name), 'rb') as f:
        return f.read().split(b'\n\n', 1)[1][:-1]


def report(cases, out, recs, which, show):
    """Per section (Latin labels, Cyrillic labels): flips of correct
    texts; lies caught (read as their text), read as a third text, or
    missed."""
    for section in ('latin', 'cyrillic', 'central', 'arabic'):
        report_section({k: v for k, v in cases.items() if v.get('section', 'latin') == section},
                       out, recs, f'{which} {section}', show)


def report_section(cases, out, recs, which, show):
    flips = collections.Counter()
    correct = collections.Counter()
    damaged = [0, 0]
    lies = collections.defaultdict(collections.Counter)
    per = collections.defaultdict(collections.Counter)
    shown = 0
    for name, c in sorted(cases.items()):
        r = recs.get(name, {})
        det = (r.get('detected') or {}).get('charset')
        if c['kind'] == 'correct':
            correct[c['label']] += 1
            damaged[0] += c['damaged'] > 0
            if r.get('verdict') == 'mislabeled' or det is not None:
                damaged[1] += c['damaged'] > 0
                flips[c['label']] += 1
                if shown < show:
                    shown += 1
                    print('FLIP', name, c, r.get('verdict'), det, [f.get('note') for f in r.get('findings', [])])
            continue
        if r.get('verdict') != 'mislabeled':
            how = 'missed'
        else:
            body = body_of(out, name)
            try:
                # Python's mac_cyrillic is the table before the euro sign
                # (0xA2, 0xB6, 0xFF differ from encoding_rs's).
                fix = str.maketrans('¢∂¤', 'Ґґ€')
                same = body.decode(PY.get(det, 'x')).translate(fix) == body.decode(c['codec']).translate(fix)
            except (LookupError, UnicodeDecodeError):
                same = False
            how = 'caught' if same else 'third'
        lies[c['strength']][how] += 1
        if c['strength'] == 'strong':
            per[f"{c['codec']}-as-{c['label']}" if c.get('section', 'latin') != 'latin' else c['codec']][how] += 1
    print(f'[{which}] correct texts: {sum(correct.values())}, flipped: {sum(flips.values())}', dict(flips))
    print(f'[{which}]   per label:', dict(sorted(correct.items())))
    print(f'[{which}]   of those damaged (1-2 octets): {damaged[0]}, flipped: {damaged[1]}')
    for k in ('strong', 'mid', 'thin'):
        v = lies[k]
        print(f'[{which}] lies, {k}: {sum(v.values())}: caught {v["caught"]}, '
              f'third reading {v["third"]}, missed {v["missed"]}')
    print(f'[{which}]   strong, per true charset (caught/third/missed):',
          {k: f'{v["caught"]}/{v["third"]}/{v["missed"]}' for k, v in sorted(per.items())})


def setup(per, show, prefix):
    """The command line both Latin hunters take (--bin, --base, --per,
    --seed, --out, --show), the random source of the seed, the folder the
    messages go to, and the catalogs."""
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--base')
    ap.add_argument('--per', type=int, default=per, help='messages per language and charset')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out')
    ap.add_argument('--show', type=int, default=show)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(out, exist_ok=True)
    return a, random.Random(a.seed), out, catalogs()


def main():
    a, rng, out, cats = setup(30, 10, 'latin-')
    cases = {}
    n = 0
    for lang in sorted(LATIN):
        for label, codec in LATIN[lang]:
            pool = encodable(cats.get(lang, []), codec)
            if len(pool) < 20:
                continue
            for _ in range(a.per):
                size = rng.choice(['word', 'short', 'short', 'mid', 'mid', 'long'])
                text = text_of(rng, pool, size)
                variant = rng.choice(['plain', 'plain', 'plain', 'caps', 'symbols', 'names', 'list', 'hard'])
                if variant == 'list':
                    # Names and letters alone, a line each: the shape of
                    # mojibake at its closest.
                    extra = encodable(NAMES, codec)
                    text = '\n'.join(rng.choice(extra) for _ in range(rng.randrange(1, 9)))
                elif variant == 'caps':
                    text = text.upper()
                elif variant in ('symbols', 'names', 'hard'):
                    extra = encodable({'symbols': SYMBOLS, 'names': NAMES, 'hard': HARD}[variant], codec)
                    lines = text.split('\n')
                    for _ in range(rng.randrange(1, 6) if extra else 0):
                        lines.insert(rng.randrange(len(lines) + 1), rng.choice(extra))
                    text = '\n'.join(lines)
                try:
                    body = (vi_1258(text) if codec == 'cp1258' else text).encode(codec)
                except UnicodeEncodeError:
                    continue
                damaged = 0
                if rng.random() < 0.3:
                    # One or two octets damaged: replaced by, or a stray, 8-bit octet.
                    b = bytearray(body)
                    damaged = rng.randrange(1, 3)
                    for _ in range(damaged):
                        i = rng.randrange(len(b) + 1)
                        if i < len(b) and rng.random() < 0.5:
                            b[i] = rng.randrange(0x80, 0x100)
                        else:
                            b.insert(i, rng.randrange(0x80, 0x100))
                    body = bytes(b)
                tld = rng.choice([TLD.get(lang, lang.split('_')[0]), 'com', rng.choice(FOREIGN_TLDS)])
                name = f'{n:06d}.eml'
                n += 1
                with open(os.path.join(out, name), 'wb') as f:
                    f.write(eml(tld, label, body))
                nonascii = sum(1 for c in text if ord(c) > 127)
                cases[name] = dict(kind='correct', lang=lang, label=label, codec=codec, variant=variant, size=size,
                                   nonascii=nonascii, tld=tld, damaged=damaged)
    for lang in sorted(OTHER):
        for codec in OTHER[lang]:
            pool = encodable(cats.get(lang, []), codec)
            if len(pool) < 20:
                continue
            for _ in range(a.per):
                size = rng.choice(['word', 'short', 'mid', 'long'])
                text = text_of(rng, pool, size)
                body = text.encode(codec)
                label = rng.choice(LIE_LABELS)
                tld = rng.choice([TLD.get(lang, lang.split('_')[0]), 'com'])
                name = f'{n:06d}.eml'
                n += 1
                with open(os.path.join(out, name), 'wb') as f:
                    f.write(eml(tld, label, body))
                nonascii = sum(1 for c in text if ord(c) > 127)
                cases[name] = dict(kind='lie', lang=lang, label=label, codec=codec, size=size, nonascii=nonascii,
                                   strength='strong' if nonascii >= 40 else ('thin' if nonascii < 6 else 'mid'), tld=tld)
    # Cyrillic under its own label, and under another Cyrillic label.
    for lang in sorted(CYRILLIC):
        for codec in CYRILLIC[lang]:
            pool = encodable(cats.get(lang, []), codec)
            if len(pool) < 20:
                continue
            for k in range(2 * a.per):
                size = rng.choice(['word', 'short', 'mid', 'long'])
                text = text_of(rng, pool, size)
                lie = k % 2 == 1
                variant = 'plain' if lie else rng.choice(['plain', 'plain', 'caps', 'names', 'list'])
                if variant == 'caps':
                    text = text.upper()
                elif variant == 'names':
                    lines = text.split('\n')
                    for _ in range(rng.randrange(1, 6)):
                        lines.insert(rng.randrange(len(lines) + 1), rng.choice(NAMES_CY))
                    text = '\n'.join(lines)
                elif variant == 'list':
                    text = '\n'.join(rng.choice(NAMES_CY) for _ in range(rng.randrange(1, 9)))
                try:
                    body = text.encode(codec)
                except UnicodeEncodeError:
                    continue
                label = CYR_LABEL[codec]
                damaged = 0
                if lie:
                    label = rng.choice([l for c, l in CYR_LABEL.items() if c != codec])
                    reading = body.decode(PY.get({'koi8-r': 'KOI8-R', 'koi8-u': 'KOI8-U', 'iso-8859-5': 'ISO-8859-5',
                                                  'ibm866': 'IBM866', 'x-mac-cyrillic': 'x-mac-cyrillic',
                                                  'windows-1251': 'windows-1251'}[label]), errors='replace')
                    if reading == text:
                        continue
                elif rng.random() < 0.3:
                    b = bytearray(body)
                    damaged = rng.randrange(1, 3)
                    for _ in range(damaged):
                        i = rng.randrange(len(b) + 1)
                        if i < len(b) and rng.random() < 0.5:
                            b[i] = rng.randrange(0x80, 0x100)
                        else:
                            b.insert(i, rng.randrange(0x80, 0x100))
                    body = bytes(b)
                tld = rng.choice([TLD.get(lang, lang), 'com', rng.choice(FOREIGN_TLDS)])
                name = f'{n:06d}.eml'
                n += 1
                with open(os.path.join(out, name), 'wb') as f:
                    f.write(eml(tld, label, body))
                nonascii = sum(1 for c in text if ord(c) > 127)
                cases[name] = dict(kind='lie' if lie else 'correct', section='cyrillic', lang=lang, label=label,
                                   codec=codec, variant=variant, size=size, nonascii=nonascii, tld=tld, damaged=damaged,
                                   strength='strong' if nonascii >= 40 else ('thin' if nonascii < 6 else 'mid'))
    # Central European text under a Western label, and windows-1250 and
    # ISO-8859-2 under each other's label: lies. Plain, ALL CAPS, with names.
    for lang in CENTRAL_LIES:
        for codec in CENTRAL_LIES[lang]:
            pool = encodable(cats.get(lang, []), codec)
            if len(pool) < 20:
                continue
            for _ in range(a.per):
                size = rng.choice(['word', 'short', 'mid', 'long'])
                text = text_of(rng, pool, size)
                variant = rng.choice(['plain', 'plain', 'caps', 'names'])
                if variant == 'caps':
                    text = text.upper()
                elif variant == 'names':
                    lines = text.split('\n')
                    for _ in range(rng.randrange(1, 6)):
                        lines.insert(rng.randrange(len(lines) + 1), rng.choice(NAMES))
                    text = '\n'.join(lines)
                try:
                    body = text.encode(codec)
                except UnicodeEncodeError:
                    continue
                label = rng.choice(CENTRAL_LABELS[codec])
                if body.decode(READ_AS[label], errors='replace') == text:
                    continue
                tld = rng.choice([TLD.get(lang, lang.split('_')[0].split('@')[0]), 'com', rng.choice(FOREIGN_TLDS)])
                name = f'{n:06d}.eml'
                n += 1
                with open(os.path.join(out, name), 'wb') as f:
                    f.write(eml(tld, label, body))
                nonascii = sum(1 for c in text if ord(c) > 127)
                cases[name] = dict(kind='lie', section='central', lang=lang, label=label, codec=codec, variant=variant,
                                   size=size, nonascii=nonascii, tld=tld, damaged=0,
                                   strength='strong' if nonascii >= 40 else ('thin' if nonascii < 6 else 'mid'))
    # Arabic and Persian: correct under ISO-8859-6 and windows-1256 (three
    # in ten with one to three damaged octets), and windows-1256 under
    # ISO-8859-6, a lie.
    for lang in ('ar', 'fa'):
        for codec, label, lie in (('iso8859_6', 'iso-8859-6', False), ('cp1256', 'windows-1256', False),
                                  ('cp1256', 'iso-8859-6', True)):
            pool = encodable(cats.get(lang, []), codec)
            if len(pool) < 20:
                continue
            for _ in range(a.per if lie else 2 * a.per):
                size = rng.choice(['word', 'short', 'mid', 'long'])
                text = text_of(rng, pool, size)
                if not lie and rng.random() < 0.2:
                    lines = text.split('\n')
                    for _ in range(rng.randrange(1, 4)):
                        lines.insert(rng.randrange(len(lines) + 1), rng.choice(SYMBOLS + ['Price: 25 USD', 'Tel. 0123']))
                    text = '\n'.join(lines)
                try:
                    body = text.encode(codec)
                except UnicodeEncodeError:
                    continue
                damaged = 0
                if not lie and rng.random() < 0.3:
                    b = bytearray(body)
                    # One to three octets; one in four of those four to eight.
                    damaged = rng.randrange(1, 4) if rng.random() < 0.75 else rng.randrange(4, 9)
                    for _ in range(damaged):
                        i = rng.randrange(len(b) + 1)
                        if i < len(b) and rng.random() < 0.5:
                            b[i] = rng.randrange(0x80, 0x100)
                        else:
                            b.insert(i, rng.randrange(0x80, 0x100))
                    body = bytes(b)
                tld = rng.choice([TLD.get(lang, lang), 'com'])
                name = f'{n:06d}.eml'
                n += 1
                with open(os.path.join(out, name), 'wb') as f:
                    f.write(eml(tld, label, body))
                nonascii = sum(1 for c in text if ord(c) > 127)
                cases[name] = dict(kind='lie' if lie else 'correct', section='arabic', lang=lang, label=label,
                                   codec=codec, size=size, nonascii=nonascii, tld=tld, damaged=damaged,
                                   strength='strong' if nonascii >= 40 else ('thin' if nonascii < 6 else 'mid'))
    with open(os.path.join(out, 'cases.json'), 'w') as f:
        json.dump(cases, f)
    new = audit(a.bin, out)
    base = audit(a.base, out) if a.base else None
    report(cases, out, new, 'new', a.show)
    if base is not None:
        report(cases, out, base, 'base', 0)
        diff = [nm for nm in sorted(cases) if (new.get(nm, {}).get('verdict'), new.get(nm, {}).get('detected')) !=
                (base.get(nm, {}).get('verdict'), base.get(nm, {}).get('detected'))]
        kinds = collections.Counter(cases[nm]['kind'] for nm in diff)
        print('records that differ from --base:', len(diff), dict(kinds))
        for nm in diff:
            if cases[nm]['kind'] == 'correct':
                print('  CORRECT CHANGED', nm, cases[nm], base.get(nm, {}).get('verdict'), '->', new.get(nm, {}).get('verdict'))
    print('out:', out)


if __name__ == '__main__':
    main()
