#!/usr/bin/env python3
"""Damage against the mixed-text rules: does a damaged line come out read
in another charset instead of U+FFFD, and does a line that was right go
wrong?

Texts from hunt_charsets.py's pools in eight labels (UTF-8, windows-1251,
KOI8-R, Shift_JIS, GBK, EUC-KR, ISO-8859-7, ISO-8859-1) get one of: one or
three octets replaced (flip, flip3), one lost or inserted, a line end cut
inside a character (hunt_charsets.damage), or one or two ASCII letters
given the high bit (ascii_hi, ascii_hi2). Each message goes through
`BIN_A filter` and `BIN_B filter` (say, the commit before and this one);
the report counts per label and model: cases, outputs that differ, B lost
a line A had right, B gained one. Every differing line is printed.

    python3 tools/hunt_mixed_damage.py BIN_A BIN_B [N] [SEED]
"""
import email
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hunt_charsets as H  # noqa: E402

LABELS = [('utf-8', 'utf-8', ['fr', 'de', 'es', 'ru', 'ja', 'el', 'pl', 'zh', 'ko', 'en']),
          ('windows-1251', 'cp1251', ['ru']), ('koi8-r', 'koi8_r', ['ru']),
          ('shift_jis', 'cp932', ['ja']), ('gbk', 'gbk', ['zh']), ('euc-kr', 'cp949', ['ko']),
          ('iso-8859-7', 'iso8859_7', ['el']), ('iso-8859-1', 'cp1252', ['fr', 'de'])]
MODELS = ['ascii_hi', 'ascii_hi2', 'flip', 'flip3', 'remove', 'insert', 'trunc_line']


def body_of(binp, raw):
    p = subprocess.run([binp, 'filter'], input=raw, capture_output=True, check=False)
    m = email.message_from_bytes(p.stdout)
    return (m.get_payload(decode=True) or b'').decode('utf-8', 'replace')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    a, b = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1500
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 7)
    stats = {}
    for _ in range(n):
        label, codec, langs = rng.choice(LABELS)
        lang = rng.choice([x for x in langs if x in H.TEXTS])
        text = H.para(rng, lang, rng.choice(['short', 'mid', 'mid']))
        body = text.encode(codec, 'replace') + b'\n'
        model = rng.choice(MODELS)
        if model.startswith('ascii_hi'):
            d = bytearray(body)
            letters = [i for i, x in enumerate(d) if 0x61 <= x <= 0x7A]
            if not letters:
                continue
            for _ in range(1 if model == 'ascii_hi' else 2):
                d[rng.choice(letters)] |= 0x80
            dbody = bytes(d)
        else:
            dbody, _ = H.damage(rng, body, model, codec)
        if dbody == body:
            continue
        orig = set((text + '\n').split('\n'))
        raw = (b'From: a@example.com\nSubject: t\nMIME-Version: 1.0\nContent-Type: text/plain; charset='
               + label.encode() + b'\nContent-Transfer-Encoding: 8bit\n\n' + dbody)
        ta, tb = body_of(a, raw), body_of(b, raw)
        s = stats.setdefault((label, model), [0, 0, 0, 0])
        s[0] += 1
        if ta == tb:
            continue
        s[1] += 1
        la, lb = ta.split('\n'), tb.split('\n')
        ok_a, ok_b = set(la) & orig, set(lb) & orig
        s[2] += bool(ok_a - ok_b)
        s[3] += bool(ok_b - ok_a)
        for x, y in zip(la, lb):
            if x != y:
                print('DIFF', label, model, repr(x[:70]), '->', repr(y[:70]), flush=True)
    print('label/model: cases, differ, B lost a right line, B gained a right line')
    for k in sorted(stats):
        print(k, stats[k])


if __name__ == '__main__':
    main()
