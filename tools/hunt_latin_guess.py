#!/usr/bin/env python3
"""Latin-script text whose label does not say its charset (no label,
`us-ascii`, or a `utf-8` lie) must be read as written: the charset has to
be guessed, and the guess is where Turkish, Hungarian, Romanian and
Baltic text turns into windows-1252 look-alikes (`Ayþe`, `erõs`).

    tools/hunt_latin_guess.py --bin NEW [--base OLD] [--per 40] [--seed 1]

The sentences are the gettext catalogs on the machine, as in
hunt_latin_labels.py (whose tables and helpers this reuses). Each message
is one text/plain part, 8bit, from a sender of the language's own, `.com`
or a foreign top-level domain, in one of the language's legacy charsets,
under no charset parameter, `us-ascii` or `utf-8`. Sizes: a Subject-like
phrase (one string), 120 characters, 600, 5,000.

The oracle is the text itself: `audit --format jsonl` names the charset
the part was read in (`detected`, else the label); the part is read as
written when Python's codec of that charset gives back the text. Per
language: read as written, read as another text (and in which charset).
With --base, the same messages through a second binary, and the cases
whose outcome differs.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hunt_latin_labels as hl  # noqa: E402

# encoding_rs names -> Python codecs, for every charset a guess can name.
PY = dict(hl.PY)
PY.update({'ISO-8859-3': 'iso8859_3', 'ISO-8859-10': 'iso8859_10', 'ISO-8859-14': 'iso8859_14',
           'windows-1258': 'cp1258', 'macintosh': 'mac_roman', 'UTF-8': 'utf-8', 'us-ascii': 'ascii'})
LABELS = [None, 'us-ascii', 'utf-8']


def outcomes(binp, folder, cases):
    recs = hl.audit(binp, folder)
    out = {}
    for name, c in cases.items():
        rec = recs.get(name, {})
        cs = (rec.get('detected') or {}).get('charset') or rec.get('used') or 'windows-1252'
        try:
            same = c['body'].decode(PY[cs]) == c['text']
        except (KeyError, LookupError, UnicodeDecodeError):
            same = False
        out[name] = ('ok', cs) if same else ('wrong', cs)
    return out


def main():
    a, rng, folder, cats = hl.setup(40, 3, 'latin-guess-')
    cases = {}
    n = 0
    for lang in sorted(hl.LATIN):
        for _label, codec in hl.LATIN[lang]:
            if codec == 'cp1258':
                continue  # decomposed Vietnamese: no detector reads it
            pool = [s for s in hl.encodable(cats.get(lang, []), codec) if not s.isascii()]
            if len(pool) < 20:
                continue
            for _ in range(a.per):
                size = rng.choice(['word', 'short', 'mid', 'long'])
                text = hl.text_of(rng, pool, size)
                body = text.encode(codec)
                if body.isascii():
                    continue
                label = rng.choice(LABELS)
                tld = rng.choice([hl.TLD.get(lang, lang.split('_')[0].split('@')[0]), 'com',
                                  rng.choice(hl.FOREIGN_TLDS)])
                name = f'{n:06d}.eml'
                n += 1
                with open(os.path.join(folder, name), 'wb') as f:
                    f.write(hl.eml(tld, label, body))
                cases[name] = dict(lang=lang, codec=codec, size=size, tld=tld, label=label, body=body, text=text)
    new = outcomes(a.bin, folder, cases)
    base = outcomes(a.base, folder, cases) if a.base else None
    per = collections.defaultdict(collections.Counter)
    wrong_as = collections.defaultdict(collections.Counter)
    shown = collections.Counter()
    for name, c in sorted(cases.items()):
        how, cs = new[name]
        key = f"{c['lang']}/{c['codec']}"
        per[key][how] += 1
        if how == 'wrong':
            wrong_as[key][cs] += 1
            if shown[key] < a.show:
                shown[key] += 1
                print('WRONG', os.path.join(folder, name), key, c['size'], c['tld'], c['label'], 'read as', cs,
                      repr(c['body'].decode(PY.get(cs, 'cp1252'), errors='replace')[:70]))
    total = collections.Counter()
    for key in sorted(per):
        total.update(per[key])
        print(f"{key:24} ok {per[key]['ok']:4}  wrong {per[key]['wrong']:4}  {dict(wrong_as[key])}")
    print(f"total: {sum(total.values())} messages, read as written {total['ok']}, wrong {total['wrong']}")
    if base:
        better = worse = 0
        for name, c in sorted(cases.items()):
            if base[name][0] != new[name][0]:
                if new[name][0] == 'ok':
                    better += 1
                else:
                    worse += 1
                    print('WORSE', os.path.join(folder, name), f"{c['lang']}/{c['codec']}", c['size'], c['tld'],
                          c['label'], base[name][1], '->', new[name][1])
        print(f'against --base: {better} now read as written, {worse} no longer')


if __name__ == '__main__':
    main()
