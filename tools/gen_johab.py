#!/usr/bin/env python3
"""Generates src/charset/johab_tables.rs: the small tables of the Johab
(KS C 5601-1992 annex 3, Windows code page 1361) decoder and encoder in
src/charset/johab.rs.

Source: the running Python's `johab` codec (its version is written into the
output), probed code by code; no file is copied.

Johab's Hangul area (lead 0x84..0xD3) is a 16-bit code 1 ccccc vvvvv ttttt:
five bits each for the initial consonant, the vowel and the final consonant.
Which jamo (or "fill", none) each 5-bit value stands for is read off the
syllables Python decodes; a code with one part only is a compatibility jamo
(U+3131..U+318E), all three fill U+3000. The generator checks that this
reading reproduces Python's decoding of every code 0x8000..0xD7FF.

The symbol and Hanja area (lead 0xD9..0xDE, 0xE0..0xF9) is KS X 1001 moved
arithmetically (two rows a lead octet): johab.rs maps it to EUC-KR octets and
reads them with encoding_rs's EUC-KR table, so no table of it is shipped. The
generator checks the arithmetic against Python: for every code of the area,
Python's johab gives what Python's cp949 gives for the mapped octets (not
euc_kr, which reads A4 D4 as the start of an 8-octet jamo sequence).
tests/it/charset_tables.rs compares our decoder and encoder with Python's on
every two-octet sequence and every BMP character.

Usage: python3 tools/gen_johab.py   (GEN_OUT_DIR=dir to write elsewhere)
"""
import os
import platform

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILL, NONE = 0xFE, 0xFF


def decode(b):
    try:
        s = b.decode("johab")
    except UnicodeDecodeError:
        return None
    return ord(s) if len(s) == 1 else None


def hangul_tables():
    codes = {}
    for code in range(0x8000, 0xD800):
        c = decode(bytes([code >> 8, code & 0xFF]))
        if c is not None:
            codes[code] = c
    parts = lambda code: ((code >> 10) & 31, (code >> 5) & 31, code & 31)
    cho, jung, jong = [NONE] * 32, [NONE] * 32, [NONE] * 32

    def put(table, v, i):
        assert table[v] in (NONE, i), (v, table[v], i)
        table[v] = i

    for code, c in codes.items():
        if 0xAC00 <= c <= 0xD7A3:
            s = c - 0xAC00
            c5, v5, t5 = parts(code)
            put(cho, c5, s // 588)
            put(jung, v5, s % 588 // 28)
            put(jong, t5, s % 28)  # 0: no final consonant, the fill
    (blank,) = [code for code, c in codes.items() if c == 0x3000]
    c5, v5, t5 = parts(blank)
    put(cho, c5, FILL)
    put(jung, v5, FILL)
    assert jong[t5] == 0, "the final's fill is the syllables' 0"
    cho_jamo, jung_jamo, jong_jamo = [0] * 32, [0] * 32, [0] * 32
    for code, c in codes.items():
        if not 0x3131 <= c <= 0x318E:
            continue
        c5, v5, t5 = parts(code)
        if cho[c5] == FILL and jung[v5] == FILL:
            jong_jamo[t5] = c - 0x3100
        elif cho[c5] == FILL and jong[t5] == 0:
            jung_jamo[v5] = c - 0x3100
        elif jung[v5] == FILL and jong[t5] == 0:
            cho_jamo[c5] = c - 0x3100
        else:
            raise AssertionError(hex(code))
    # The reading of the tables (johab.rs does the same) is Python's decoding.
    for code in range(0x8000, 0xD800):
        c5, v5, t5 = parts(code)
        i, v, t = cho[c5], jung[v5], jong[t5]
        if NONE in (i, v, t):
            want = None
        elif i == FILL and v == FILL:
            want = 0x3000 if t == 0 else (0x3100 + jong_jamo[t5] if jong_jamo[t5] else None)
        elif i == FILL:
            want = 0x3100 + jung_jamo[v5] if t == 0 and jung_jamo[v5] else None
        elif v == FILL:
            want = 0x3100 + cho_jamo[c5] if t == 0 and cho_jamo[c5] else None
        else:
            want = 0xAC00 + i * 588 + v * 28 + t
        assert codes.get(code) == want, (hex(code), codes.get(code), want)
    return cho, jung, jong, cho_jamo, jung_jamo, jong_jamo


def check_symbol_area():
    """Johab's symbol and Hanja area is KS X 1001 moved: the arithmetic of
    johab.rs's `ksx1001`, checked against Python's johab and cp949."""
    n = 0
    for lead in range(0xD8, 0x100):
        for trail in range(0x100):
            got = decode(bytes([lead, trail]))
            if 0xD9 <= lead <= 0xDE:
                base = 0x21 + 2 * (lead - 0xD9)
            elif 0xE0 <= lead <= 0xF9:
                base = 0x4A + 2 * (lead - 0xE0)
            else:
                base = None
            if 0x31 <= trail <= 0x7E:
                idx = trail - 0x31
            elif 0x91 <= trail <= 0xFE:
                idx = trail - 0x91 + 78
            else:
                idx = None
            want = None
            if base is not None and idx is not None:
                row, col = (base, 0x21 + idx) if idx < 94 else (base + 1, 0x21 + idx - 94)
                jamo = row == 0x24 and col <= 0x53  # U+3131..U+3163: the Hangul area's
                if not jamo:
                    try:
                        s = bytes([row | 0x80, col | 0x80]).decode("cp949")
                        want = ord(s) if len(s) == 1 else None
                    except UnicodeDecodeError:
                        pass
            assert got == want, (hex(lead), hex(trail), got, want)
            n += got is not None
    return n


def jamo_codes():
    """How Python's encoder writes the compatibility jamo U+3131..U+3163."""
    out = []
    for c in range(0x3131, 0x3164):
        b = chr(c).encode("johab")
        assert len(b) == 2 and b[0] < 0xD8, hex(c)
        out.append(b[0] << 8 | b[1])
    return out


def main():
    py = platform.python_version()
    cho, jung, jong, cho_jamo, jung_jamo, jong_jamo = hangul_tables()
    symbols = check_symbol_area()
    jamo = jamo_codes()

    def table(name, doc, values):
        w = [f"/// {doc}", "#[rustfmt::skip]", f"pub(crate) static {name}: [u8; 32] = ["]
        for i in range(0, 32, 16):
            w.append("    " + " ".join(f"0x{v:02X}," for v in values[i:i + 16]))
        w.append("];")
        return w

    out = [
        "// GENERATED by tools/gen_johab.py — do not edit.",
        f"// Source: Python {py}'s `johab` codec, probed code by code (the generator",
        "// checks these tables reproduce its decoding of the whole Hangul area, and the",
        f"// symbol area's arithmetic, {symbols} characters, against its cp949).",
        "",
        "/// A 5-bit value that stands for no jamo.",
        f"pub(crate) const NONE: u8 = 0x{NONE:02X};",
        "/// A 5-bit value that stands for \"no initial\" or \"no vowel\" (the",
        "/// final's fill is its index 0, as in the syllable arithmetic).",
        f"pub(crate) const FILL: u8 = 0x{FILL:02X};",
        "",
    ]
    out += table("CHO", "Initial consonant of each 5-bit value: its index 0..=18, FILL or NONE.", cho)
    out += table("JUNG", "Vowel of each 5-bit value: its index 0..=20, FILL or NONE.", jung)
    out += table("JONG", "Final consonant of each 5-bit value: its index 1..=27, 0 for none, or NONE.", jong)
    out += table(
        "CHO_JAMO",
        "The compatibility jamo (U+3100 + value) of a code with an initial alone; 0: none.",
        cho_jamo,
    )
    out += table(
        "JUNG_JAMO",
        "The compatibility jamo (U+3100 + value) of a code with a vowel alone; 0: none.",
        jung_jamo,
    )
    out += table(
        "JONG_JAMO",
        "The compatibility jamo (U+3100 + value) of a code with a final alone; 0: none.",
        jong_jamo,
    )
    out.append("/// The code of each compatibility jamo U+3131..=U+3163, as Python writes it.")
    out.append("#[rustfmt::skip]")
    out.append(f"pub(crate) static JAMO_CODE: [u16; {len(jamo)}] = [")
    for i in range(0, len(jamo), 12):
        out.append("    " + " ".join(f"0x{v:04X}," for v in jamo[i:i + 12]))
    out.append("];")
    target = os.environ.get("GEN_OUT_DIR") or os.path.join(ROOT, "src", "charset")
    with open(os.path.join(target, "johab_tables.rs"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"Johab tables from Python {py}: {symbols} symbols and Hanja by arithmetic")


main()
