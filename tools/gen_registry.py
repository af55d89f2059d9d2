#!/usr/bin/env python3
"""Generates src/charset/registry.rs and doc/charset-aliases.md.

Sources (read-only, never copied into the repository):
  ../shared/corpus/iana-charsets/character-sets.xml   IANA Character Sets (2022-07-14)
  ../shared/corpus/whatwg-encoding/encodings.json     WHATWG Encoding Standard labels
  tools/mail-aliases.tsv                              our mail-world alias decisions

Usage: python3 tools/gen_registry.py [CORPUS_DIR]   (GEN_OUT_DIR=dir to write elsewhere)
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "corpus")
# GEN_OUT_DIR: write the outputs there (flat) instead of into the repository
# (tests/it/charset_generated.rs uses it to check the shipped files are current).
OUT = os.environ.get("GEN_OUT_DIR")


def out_path(*rel):
    return os.path.join(OUT, rel[-1]) if OUT else os.path.join(ROOT, *rel)
NS = "{http://www.iana.org/assignments}"

# Decoders WHATWG does not give (or gives wrongly for mail), by IANA MIBenum.
MAIL_DECODERS = {
    3: ("Ascii", None),  # US-ASCII: 8-bit octets -> UTF-8 if valid, else detection
    4: ("Superset", "windows-1252"),  # ISO-8859-1: read with windows-1252, report C1
    12: ("Superset", "windows-1254"),  # ISO-8859-9
    2259: ("Superset", "windows-874"),  # TIS-620 / ISO-8859-11
    106: ("Utf8", None),
    1015: ("Utf16", None),  # UTF-16: BOM decides, else little-endian (WHATWG)
    1000: ("Utf16", None),  # ISO-10646-UCS-2 (csUnicode): WHATWG reads it as UTF-16LE
    1012: ("Utf7", None),
    103: ("Utf7", None),  # UNICODE-1-1-UTF-7 (RFC 1642): same decoding as RFC 2152
    1017: ("Utf32", None),
    1001: ("Utf32", None),  # ISO-10646-UCS-4
    1018: ("Utf32Be", None),
    1019: ("Utf32Le", None),
    40: ("Iso2022Jp2", None),  # ISO-2022-JP-2 (RFC 1554): our decoder over encoding_rs tables
    2260: ("Legacy", "ISO-2022-JP"),  # CP50220
    2108: ("Legacy", "EUC-JP"),  # CP51932
    2079: ("Detect", None),  # UNKNOWN-8BIT
    37: ("Iso2022Kr", None),  # ISO-2022-KR (RFC 1557): our decoder over EUC-KR
    2085: ("Hz", None),  # HZ-GB-2312 (RFC 1843): our decoder over GBK
    # UCS-2 in network byte order (RFC 1641 UNICODE-1-1, RFC 1815
    # ISO-10646-J-1): read as UTF-16BE, of which UCS-2 is the subset
    # without surrogates. Without a decoder their text was read as if
    # unlabelled: every other octet a NUL, the letters between them lost.
    1010: ("Legacy", "UTF-16BE"),
    1004: ("Legacy", "UTF-16BE"),
}
UNSUPPORTED = {
    104: "ISO-2022-CN: needs CNS 11643 tables, which encoding_rs does not have",
    105: "ISO-2022-CN-EXT: needs CNS 11643 and ISO-IR-165 tables, which encoding_rs does not have",
    1021: "UTF-7-IMAP is modified UTF-7 for IMAP mailbox names (RFC 3501), not a MIME charset",
    1016: "CESU-8 is not a MIME charset; decode it as UTF-8 to see surrogate-pair findings",
}
DEFAULT_UNSUPPORTED = "no decoder: encoding_rs has no table for this charset"
# Charsets neither IANA nor WHATWG has a record for, that mail carries and we
# decode with tables of our own (tools/gen_single_byte.py and
# tools/gen_johab.py, from Python's codecs). Each gets a record; its labels, the name included, come from
# tools/mail-aliases.tsv, with the reasons.
OWN_CHARSETS = [
    ("x-mac-ce", ("SingleByte", "X_MAC_CE")),
    ("x-mac-greek", ("SingleByte", "X_MAC_GREEK")),
    ("x-mac-turkish", ("SingleByte", "X_MAC_TURKISH")),
    ("x-mac-icelandic", ("SingleByte", "X_MAC_ICELANDIC")),
    ("x-mac-croatian", ("SingleByte", "X_MAC_CROATIAN")),
    ("x-mac-romanian", ("SingleByte", "X_MAC_ROMANIAN")),
    ("Johab", ("Johab", None)),
]
# `ucs-2` is IANA's ISO-10646-UCS-2 (csUnicode), read as UTF-16 is (a byte
# order mark decides, else little-endian as WHATWG has it), not as UTF-16LE
# with a big-endian mark read as U+FFFE.
WHATWG_ONLY_OVERRIDES = {"ascii": "US-ASCII", "ucs-2": "ISO-10646-UCS-2"}
# WHATWG labels we route elsewhere by design.
UNICODE11 = {"unicode-1-1-utf-8", "unicode11utf8"}
SKIP_WHATWG = {"replacement"}


def loose(label):
    label = label.lower()
    if label.startswith("x-"):
        label = label[2:]
    return re.sub(r"[^a-z0-9]", "", label)


def rust_str(s):
    return json.dumps(s)


def enc_const(name):
    return "&encoding_rs::" + re.sub(r"[^A-Za-z0-9]", "_", name).upper() + "_INIT"


def main():
    tree = ET.parse(os.path.join(CORPUS, "iana-charsets", "character-sets.xml"))
    records = []  # dict(name, mib, preferred, labels, kind)
    for r in tree.getroot().iter(NS + "record"):
        name = r.find(NS + "name").text.strip()
        mib = int(r.find(NS + "value").text)
        pa = r.find(NS + "preferred_alias")
        preferred = pa.text.strip() if pa is not None else None
        aliases = []
        for a in r.findall(NS + "alias"):
            if a.text:
                # One alias carries a trailing note ("csAmiga1251\n(Aliases ...").
                aliases.append(a.text.strip().split()[0])
        records.append(
            dict(name=name, mib=mib, preferred=preferred, aliases=aliases, source="iana")
        )

    whatwg = json.load(open(os.path.join(CORPUS, "whatwg-encoding", "encodings.json")))
    ww_label = {}  # label -> WHATWG encoding name
    for group in whatwg:
        for e in group["encodings"]:
            for label in e["labels"]:
                ww_label[label] = e["name"]

    labels = {}  # lower label -> (record index, status)

    def add(label, idx, status):
        key = label.lower()
        if key in labels:
            if labels[key][0] != idx:
                sys.exit(f"label {label!r} maps to two records")
            return
        if len(key) > 63 or not key.isascii():
            sys.exit(f"label {label!r} too long or not ASCII")
        labels[key] = (idx, status)

    # IANA first: every name and alias resolves to its own record.
    for i, rec in enumerate(records):
        pref = rec["preferred"] or rec["name"]
        add(pref, i, "Preferred")
        add(rec["name"], i, "Registered")
        for a in rec["aliases"]:
            add(a, i, "Registered")

    # Decoder of each IANA record: the WHATWG decoder of its labels, then mail overrides.
    for i, rec in enumerate(records):
        encs = {ww_label[l] for l, (j, _) in labels.items() if j == i and l in ww_label}
        mib = rec["mib"]
        if mib in MAIL_DECODERS:
            rec["kind"] = MAIL_DECODERS[mib]
        elif mib in UNSUPPORTED:
            rec["kind"] = ("Unsupported", UNSUPPORTED[mib])
        elif len(encs) == 1:
            rec["kind"] = ("Legacy", encs.pop())
        elif len(encs) > 1:
            sys.exit(f"record {rec['name']} has labels of several WHATWG encodings: {encs}")
        else:
            rec["kind"] = ("Unsupported", DEFAULT_UNSUPPORTED)
        rec["canonical"] = rec["preferred"] or rec["name"]

    def record_for(name):
        hit = labels.get(name.lower())
        return None if hit is None else hit[0]

    # Records IANA lacks.
    u11 = len(records)
    records.append(
        dict(name="UNICODE-1-1-UTF-8", canonical="UNICODE-1-1-UTF-8", mib=None, preferred=None,
             aliases=[], source="mail", kind=("Unicode11Utf8", None))
    )
    for group in whatwg:
        for e in group["encodings"]:
            if e["name"] == "replacement":
                continue
            if record_for(e["name"]) is None:
                records.append(
                    dict(name=e["name"], canonical=e["name"], mib=None, preferred=None,
                         aliases=[], source="whatwg", kind=("Legacy", e["name"]))
                )
                add(e["name"], len(records) - 1, "Whatwg")

    own = {}
    for name, kind in OWN_CHARSETS:
        if record_for(name) is not None:
            sys.exit(f"own charset {name} is already a label")
        own[name.lower()] = len(records)
        records.append(
            dict(name=name, canonical=name, mib=None, preferred=None, aliases=[], source="mail",
                 kind=kind)
        )

    def decoder_of(rec):
        kind, enc = rec["kind"]
        return {
            "Legacy": enc, "Superset": enc, "Ascii": "windows-1252", "Utf8": "UTF-8",
            "Utf16": "UTF-16LE",
        }.get(kind)

    loose_index = {}
    for l, (i, st) in labels.items():
        loose_index.setdefault(loose(l), set()).add(i)

    # WHATWG labels not in IANA.
    for label, enc in sorted(ww_label.items()):
        if label in labels or label in SKIP_WHATWG:
            continue
        if label in UNICODE11:
            add(label, u11, "Whatwg")
            continue
        if label in WHATWG_ONLY_OVERRIDES:
            add(label, record_for(WHATWG_ONLY_OVERRIDES[label]), "Whatwg")
            continue
        cands = sorted(
            i for i in loose_index.get(loose(label), ()) if decoder_of(records[i]) == enc
        )
        target = cands[0] if len(cands) == 1 else record_for(enc)
        if target is None:
            sys.exit(f"no record for WHATWG label {label} ({enc})")
        add(label, target, "Whatwg")

    # Mail aliases.
    decisions = []
    for line in open(os.path.join(ROOT, "tools", "mail-aliases.tsv"), encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        label, target, reason = line.rstrip("\n").split("\t")
        t = record_for(target)
        if t is None:
            t = own.get(target.lower())
        if t is None:
            sys.exit(f"alias {label}: unknown target {target}")
        if label.lower() in labels:
            sys.exit(f"alias {label} is already a label")
        add(label, t, "Alias")
        decisions.append((label, records[t]["canonical"], reason))

    for name, i in own.items():
        if record_for(name) != i:
            sys.exit(f"own charset {name}: its name is not in tools/mail-aliases.tsv")

    # Emit.
    out = []
    w = out.append
    w("// GENERATED by tools/gen_registry.py — do not edit.")
    w("// Sources: IANA Character Sets (character-sets.xml, updated 2022-07-14),")
    w("// WHATWG Encoding Standard encodings.json, tools/mail-aliases.tsv.")
    w("")
    w("use super::{Charset, Kind};")
    w("use crate::finding::LabelStatus;")
    w("")
    w(f"pub(crate) static CHARSETS: [Charset; {len(records)}] = [")
    for i, rec in enumerate(records):
        kind, arg = rec["kind"]
        if kind in ("Legacy", "Superset"):
            k = f"Kind::{kind}({enc_const(arg)})"
        elif kind == "Unsupported":
            k = f"Kind::Unsupported({rust_str(arg)})"
        elif kind == "SingleByte":
            k = f"Kind::SingleByte(&super::single_byte_tables::{arg})"
        else:
            k = f"Kind::{kind}"
        mib = f"Some({rec['mib']})" if rec["mib"] is not None else "None"
        iana = rust_str(rec["name"]) if rec["source"] == "iana" else "\"\""
        w(f"    Charset {{ name: {rust_str(rec['canonical'])}, iana_name: {iana}, mib: {mib}, kind: {k} }}, // {i}")
    w("];")
    w("")
    w("/// Every label, lower-cased, sorted by bytes: (label, index into CHARSETS, status).")
    w(f"pub(crate) static LABELS: [(&[u8], u16, LabelStatus); {len(labels)}] = [")
    for l in sorted(labels, key=lambda s: s.encode()):
        i, st = labels[l]
        w(f"    (b{rust_str(l)}, {i}, LabelStatus::{st}),")
    w("];")
    w("")
    # Perfect hash over the sorted labels (hash and displace): one hash
    # pass, h1 = low 32 bits, h2 = high 32 bits | 1, bucket = bits 40.. of h,
    # slot = (h1 + d * h2) mod M. Mirrored by `charset::lookup`.
    sorted_labels = sorted(labels, key=lambda s: s.encode())
    B, M = 512, 2048
    MASK = 0xFFFFFFFFFFFFFFFF
    K = 0x9E3779B97F4A7C15

    def fnv(b):  # `charset::label_hash`: 8 bytes at a time, multiply-xorshift
        h = len(b)
        for i in range(0, len(b), 8):
            chunk = int.from_bytes(b[i:i + 8].ljust(8, b"\0"), "little")
            h = ((h ^ chunk) * K) & MASK
            h ^= h >> 29
        h = (h * K) & MASK
        return h ^ (h >> 32)
    buckets = [[] for _ in range(B)]
    for idx, l in enumerate(sorted_labels):
        h = fnv(l.encode())
        buckets[(h >> 40) % B].append((idx, h & 0xFFFFFFFF, (h >> 32) | 1))
    slots = [0xFFFF] * M
    disp = [0] * B
    for bi in sorted(range(B), key=lambda i: -len(buckets[i])):
        keys = buckets[bi]
        if not keys:
            continue
        for d in range(1 << 16):
            pos = [((h1 + d * h2) & 0xFFFFFFFF) % M for _, h1, h2 in keys]
            if len(set(pos)) == len(pos) and all(slots[p] == 0xFFFF for p in pos):
                for (idx, _, _), p in zip(keys, pos):
                    slots[p] = idx
                disp[bi] = d
                break
        else:
            sys.exit("perfect hash: no displacement found")
    w(f"pub(crate) const HASH_BUCKETS: usize = {B};")
    w(f"pub(crate) const HASH_SLOTS: usize = {M};")
    w("/// Displacement per bucket.")
    w(f"pub(crate) static LABEL_DISP: [u16; {B}] = [")
    for i in range(0, B, 16):
        w("    " + " ".join(f"{v}," for v in disp[i:i + 16]))
    w("];")
    w("/// Index into LABELS per slot (u16::MAX = empty).")
    w(f"pub(crate) static LABEL_SLOTS: [u16; {M}] = [")
    for i in range(0, M, 16):
        w("    " + " ".join(f"{v}," for v in slots[i:i + 16]))
    w("];")
    w("")
    named = {
        "UTF_8": "UTF-8", "US_ASCII": "US-ASCII", "ISO_8859_1": "ISO-8859-1",
        "WINDOWS_1252": "windows-1252", "UNICODE_1_1_UTF_8": "UNICODE-1-1-UTF-8",
        "UTF_7": "UTF-7", "UTF_16BE": "UTF-16BE", "UTF_16LE": "UTF-16LE",
        "UTF_32BE": "UTF-32BE", "UTF_32LE": "UTF-32LE", "UNKNOWN_8BIT": "UNKNOWN-8BIT",
    }
    for const, label in named.items():
        w(f"pub(crate) const {const}: usize = {record_for(label)};")
    with open(out_path("src", "charset", "registry.rs"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")

    doc = []
    d = doc.append
    d("<!-- GENERATED by tools/gen_registry.py from tools/mail-aliases.tsv — do not edit; edit the TSV. -->")
    d("# Charset alias decisions")
    d("")
    d("How labels resolve (`mailcharset label`, `charset::resolve`):")
    d("")
    d("- **IANA** (character-sets.xml): every name and alias resolves to its own record. The")
    d("  preferred MIME name has status `preferred`; our decision: a record that marks none")
    d("  (UTF-8, windows-1252, UNKNOWN-8BIT ...) counts its Name as preferred, since that is the")
    d("  name MIME uses; every other name and alias is `registered`.")
    d("- **WHATWG** labels not in IANA have status `whatwg` and resolve to the record of the")
    d("  IANA charset they loosely spell with the same decoder (`iso88591` → ISO-8859-1), else")
    d("  to the record of their WHATWG encoding (`cp1252` → windows-1252). `ascii` → US-ASCII;")
    d("  `ucs-2` → ISO-10646-UCS-2, read as `utf-16` is (a byte order mark decides, else")
    d("  little-endian, WHATWG's reading), not as UTF-16LE, which read a big-endian mark as U+FFFE.")
    d("  `unicode-1-1-utf-8` and `unicode11utf8` → UNICODE-1-1-UTF-8 (RFC 2279 §5 Hangul remap,")
    d("  not plain UTF-8). The label `replacement` is not a charset and stays unknown.")
    d("- **Mail is not the web.** ISO-8859-1 (and ISO-8859-9, TIS-620) decode with their")
    d("  windows-125x/874 supersets and report `c1-in-latin1`. The other ISO 8859 charsets have")
    d("  no Windows superset, but mail text holds no C1 control: their octets 0x80..0x9F are read")
    d("  as the writers' Windows charset has them (Word's `’ “ ” – —`; ISO-8859-15, -3, -10, -14,")
    d("  -16 → windows-1252, -2 → windows-1250, -4 and -13 → windows-1257, -5 → windows-1251,")
    d("  -6 → windows-1256, -7 → windows-1253, -8 → windows-1255), every other octet as the")
    d("  label says, and reported as `c1-in-latin1` with a note (a Polish ISO-8859-2 mail in")
    d("  the linux-mips archive quotes `“IsC”`, which was two invisible controls). Such an octet")
    d("  is damage, U+FFFD, where the Windows charset has no character for it either, or where")
    d("  it falls between two letters and no word holds its mark there (Greek `ευχαρι–στώ`;")
    d("  between Latin letters an apostrophe or a dash is the writer's: `I’ll`, `Jean–Pierre`).")
    d("  US-ASCII decodes 8-bit octets as")
    d("  UTF-8 when valid, else by detection (`eight-bit-in-ascii`). Of the charsets WHATWG sends")
    d("  to its replacement decoder, ISO-2022-KR (RFC 1557) and HZ-GB-2312 (RFC 1843) get our own")
    d("  decoders and encoders (over encoding_rs's EUC-KR and GBK tables; an ISO-2022-KR SI with no")
    d("  SO before it on its line means the SO was lost and the Korean before it reads as ASCII")
    d("  letters, `>H3gGO<<?d`: nothing is replaced, as Python's codec reads it, but the SI is")
    d("  reported, `invalid-byte`, verdict `suspicious`), and ISO-2022-CN(-EXT)")
    d("  are explicitly `unsupported` with a reason (CNS 11643 tables are missing; never silent")
    d("  U+FFFD). ISO-2022-JP-2 (RFC 1554, seen in linux-mips encoded-words with JIS X 0212) has")
    d("  our decoder and encoder over encoding_rs's EUC-JP, EUC-KR, GBK and ISO-8859-7 tables;")
    d("  CP50220 decodes with the ISO-2022-JP decoder; CP51932 with EUC-JP; UTF-7 and UNICODE-1-1-UTF-7 with our RFC 2152 decoder;")
    d("  UTF-32 and UCS-4 with ours (BOM, else big-endian). UTF-16 and csUnicode: a BOM decides;")
    d("  without one, little-endian as WHATWG has it unless the text reads clearly better")
    d("  big-endian (no unpaired surrogates, its spaces and line ends, or a short word staying in one")
    d("  script block: `utf16_looks_big_endian` in src/charset/mod.rs). RFC 2781's big-endian default")
    d("  loses to Windows' BOM-less little-endian, the usual case in mail.")
    d("- **Don't-know labels**: `unknown-8bit` (IANA UNKNOWN-8BIT, status `preferred`) and the")
    d("  aliases below that say so (`x-unknown`, `unknown`, `default_charset` ...) are decoded like")
    d("  a missing label (UTF-8 if valid, else detection), keep their own status, and report")
    d("  `missing-label` (with a note) when 8-bit octets occur. `mailcharset label` prints them with")
    d("  `decoder: null` and a note; `encode` refuses them.")
    d("- `ks_c_5601-1987` (and IANA's other KS_C_5601-1987 aliases): its own IANA record, decoded")
    d("  as windows-949 (encoding_rs's EUC-KR), which is what Outlook meant by the label.")
    d("- `x-user-defined`: the label means \"the sender's local code page\", which says no more")
    d("  than `unknown-8bit`: in mail (detection on) it is read like a don't-know label, by")
    d("  detection, with `missing-label`. WHATWG's decoder (0x80..0xFF → U+F780..U+F7FF) is")
    d("  kept for the codec alone (`mailcharset decode --charset x-user-defined`): written into")
    d("  mail, every accented letter was a private-use character a reader shows as a box")
    d("  (found by `tools/hunt_clients.py`).")
    d("- `us-ascii`: decoder windows-1252 for the record (as WHATWG), but 8-bit octets are first")
    d("  tried as UTF-8 and then detected (see above).")
    d("- **QP damage**: a label that is not found but whose remainder after a leading `3d` is")
    d("  (`3diso-8859-1`, from `charset=3Diso-8859-1` decoded twice or not at all) resolves to")
    d("  that charset with status `alias`. Truncated damage (`3diso-885`, `3dus-asci`) stays unknown:")
    d("  we do not guess. A label written twice (`charset=\"charset=us-ascii\"`) resolves the same way.")
    d("- **Other spellings** (`alias`): a label still not found is compared as Unicode Technical")
    d("  Report #22 (section 1.4) compares charset names, as ICU and Java do: its ASCII letters and")
    d("  digits only, case-folded, a `0` that does not follow a digit dropped. `latin-1`,")
    d("  `iso8859_15`, `euc_kr`, `ks_c_5601` (Python's codec names), `ANSI-X3.4-1968` (seen in")
    d("  linux-mips), `windows1252`, `cp-1252` resolve; a key that labels of two charsets share")
    d("  (`iso-ir-9-1` and `iso-ir-91`) resolves to neither, and `win-1252` or `8859-1` stay unknown.")
    d("- Unknown in linux-mips and left unknown: `a`, `3d`, `content-transfer-encoding:` (parser")
    d("  debris, not labels).")
    d("- **Charsets no registry has** that mail carries get records of their own (no MIBenum),")
    d("  their name and every label status `alias`, listed below with the reasons: the Mac OS")
    d("  Central European, Greek, Turkish, Icelandic, Croatian and Romanian charsets (`x-mac-ce`,")
    d("  `x-mac-greek` ...; Microsoft's names for code pages 10029, 10006, 10081, 10079, 10082")
    d("  and 10010), decoded and encoded with 128-entry tables generated from Python's codecs")
    d("  (`tools/gen_single_byte.py`; an octet a table has no character for would be U+FFFD,")
    d("  reported, but Python defines all 128 of each). Until they had records their text was")
    d("  read by detection, which knows no Mac charset but Mac OS Roman: Czech `Dobrý den,")
    d("  děkuji` under `x-mac-ce` came out `Dobrù den, džkuji`. And Johab (`johab`, Korean, code")
    d("  page 1361): its Hangul computed from the 5-bit jamo values of each code (their meaning")
    d("  generated from Python's codec by `tools/gen_johab.py`), its symbols and Hanja, KS X 1001")
    d("  moved, read through encoding_rs's EUC-KR table.")
    d("- IANA records with no decoder in encoding_rs (EBCDIC, ISO 646 national variants, DOS")
    d("  code pages ...) resolve (status `registered`) and report `unsupported-charset`;")
    d("  a body under one is kept byte for byte unless it is plain ASCII (doc/normalize.md).")
    d("  UNICODE-1-1 (RFC 1641) and ISO-10646-J-1 (RFC 1815), UCS-2 in network byte order,")
    d("  are read as UTF-16BE.")
    d("")
    d("## Mail-world aliases (status `alias`)")
    d("")
    d("| label | resolves to | why |")
    d("|---|---|---|")
    for label, target, reason in decisions:
        d(f"| `{label}` | {target} | {reason} |")
    with open(out_path("doc", "charset-aliases.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(doc) + "\n")
    print(f"{len(records)} charsets, {len(labels)} labels, {len(decisions)} mail aliases")


main()
