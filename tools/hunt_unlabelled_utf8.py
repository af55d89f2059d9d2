#!/usr/bin/env python3
"""Unlabelled (or `us-ascii`) UTF-8 with a stray, lost or Latin-1 octet
must stay UTF-8 with U+FFFD at the damage, and short unlabelled legacy
text must not turn into damaged UTF-8.

    tools/hunt_unlabelled_utf8.py --bin NEW [--base OLD] [--per 6] [--seed 1] [--legacy 3000]

Damaged UTF-8: the gettext catalogs on the machine (as hunt_latin_labels.py),
every language, a Subject-sized phrase to 600 characters, encoded as UTF-8,
then one to three of: a multi-octet character replaced by its windows-1252
octet (`latin1`), an octet of one cut (`cut`), an octet 0x80..0xFF inserted
(`stray`). The oracle: `audit --format jsonl` names UTF-8 (detected, or the
reading) for the part.

Short legacy text: one to eight words (CJK: two to ten characters) of
hunt_charsets.py's sentences in each of its legacy charsets, unlabelled,
from the language's domain or `.com`. The oracle: the part is not read as
UTF-8 (a chance pair of octets is no UTF-8 writer's); with --base, every
decision that differs between the two binaries is listed.
"""
import argparse
import collections
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hunt_charsets as H  # noqa: E402
import hunt_latin_labels as hl  # noqa: E402


def damage(rng, body, model, k):
    d = bytearray(body)
    for _ in range(k):
        multi = [i for i, x in enumerate(d) if 0xC2 <= x <= 0xF4]
        if model == 'latin1' and multi:
            i = rng.choice(multi)
            n = 2 if d[i] < 0xE0 else 3 if d[i] < 0xF0 else 4
            try:
                rep = bytes(d[i:i + n]).decode('utf-8').encode('cp1252')
            except (UnicodeDecodeError, UnicodeEncodeError):
                rep = bytes([rng.randrange(0x80, 0x100)])
            d[i:i + n] = rep
        elif model == 'cut' and multi:
            i = rng.choice(multi)
            del d[min(i + 1, len(d) - 1)]
        else:
            d.insert(rng.randrange(len(d) + 1), rng.randrange(0x80, 0x100))
    return bytes(d)


def charsets(binp, folder):
    return {k: (r.get('detected') or {}).get('charset') or r.get('used')
            for k, r in hl.audit(binp, folder).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--base')
    ap.add_argument('--per', type=int, default=6, help='damaged texts per language')
    ap.add_argument('--legacy', type=int, default=3000, help='short legacy texts')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--show', type=int, default=20)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    root = tempfile.mkdtemp(prefix='unlabelled-utf8-')
    damaged, legacy = os.path.join(root, 'damaged'), os.path.join(root, 'legacy')
    os.makedirs(damaged)
    os.makedirs(legacy)

    cats = hl.catalogs()
    cases = {}
    for lang in sorted(cats):
        pool = [s for s in cats[lang] if not s.isascii()]
        if len(pool) < 20:
            continue
        for _ in range(a.per):
            size = rng.choice(['word', 'short', 'short', 'mid'])
            body = hl.text_of(rng, pool, size).encode('utf-8')
            model, k = rng.choice(['latin1', 'cut', 'stray']), rng.choice([1, 1, 2, 3])
            dbody = damage(rng, body, model, k)
            if dbody == body:
                continue
            name = f'{len(cases):06d}.eml'
            tld = rng.choice(['com', hl.TLD.get(lang, lang[:2])])
            with open(os.path.join(damaged, name), 'wb') as f:
                f.write(hl.eml(tld, rng.choice([None, 'us-ascii']), dbody))
            cases[name] = (lang, size, model, k)

    texts = {}
    kinds = [c for c in H.CHARSETS if not c[0].lower().startswith(('utf', 'iso-2022', 'hz'))]
    while len(texts) < a.legacy:
        label, codec, langs, _ = rng.choice(kinds)
        lang = rng.choice(langs)
        words = rng.choice(H.TEXTS[lang]).split()
        n = rng.choice([1, 1, 2, 3, 4, 8])
        at = rng.randrange(max(1, len(words) - n + 1))
        text = ' '.join(words[at:at + n])
        if lang in ('ja', 'zh', 'zht') and rng.random() < 0.6:
            s = rng.choice(H.TEXTS[lang])
            n = rng.choice([2, 3, 4, 6, 10])
            at = rng.randrange(max(1, len(s) - n))
            text = s[at:at + n]
        try:
            body = text.encode(codec)
        except UnicodeEncodeError:
            continue
        if body.isascii():
            continue
        name = f'{len(texts):06d}.eml'
        with open(os.path.join(legacy, name), 'wb') as f:
            f.write(hl.eml(rng.choice([H.TLD[lang], 'com']), rng.choice([None, 'us-ascii']), body))
        texts[name] = (label, lang, text)

    for which, binp in (('new', a.bin), ('base', a.base)):
        if not binp:
            continue
        got = charsets(binp, damaged)
        per = collections.defaultdict(collections.Counter)
        missed = []
        for name, (lang, size, model, k) in sorted(cases.items()):
            ok = got.get(name) == 'UTF-8'
            per[(size, model)][ok] += 1
            if not ok:
                missed.append((name, lang, size, model, k, got.get(name)))
        total = sum(per.values(), collections.Counter())
        print(f'{which}: damaged UTF-8 read as UTF-8: {total[True]} of {len(cases)}')
        for key in sorted(per):
            print(f'    {key[0]:6} {key[1]:7} {per[key][True]:4} of {sum(per[key].values())}')
        for m in missed[:a.show]:
            print('    missed', os.path.join(damaged, m[0]), *m[1:])
        got = charsets(binp, legacy)
        utf8 = [n for n in sorted(texts) if got.get(n) == 'UTF-8']
        print(f'{which}: short legacy texts read as UTF-8: {len(utf8)} of {len(texts)}')
        for n in utf8[:a.show]:
            print('    UTF-8', os.path.join(legacy, n), *texts[n])
        if which == 'new':
            new_legacy = got
    if a.base:
        base = charsets(a.base, legacy)
        diff = [n for n in sorted(texts) if base.get(n) != new_legacy.get(n)]
        print(f'short legacy texts whose reading differs from --base: {len(diff)}')
        for n in diff[:a.show]:
            print('    ', os.path.join(legacy, n), *texts[n], base.get(n), '->', new_legacy.get(n))


if __name__ == '__main__':
    main()
