"""Generates encoded-word header values and what Python's email package
decodes them to, for tests/it/mime_charsets.rs
(generated_encoded_words_decode_as_python_decodes_them). Seeded: argv[1]."""
import base64, json, random, sys
from email.header import decode_header, make_header
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
TEXTS = [("utf-8", "Grüße aus Köln"), ("utf-8", "日本語の件名です"), ("utf-8", "Привет, мир"),
         ("utf-8", "नमस्ते दुनिया"), ("utf-8", "🚀 launch"), ("iso-8859-1", "café crème"),
         ("iso-8859-2", "Żółć gęślą"), ("koi8-r", "Привет всем"), ("windows-1251", "Здравствуйте"),
         ("shift_jis", "日本語テキスト"), ("euc-kr", "안녕하세요 여러분"), ("gb2312", "你好世界"),
         ("big5", "中文測試"), ("iso-8859-7", "Καλημέρα"), ("windows-1252", "“quoted” – dash"),
         ("utf-8", "a_b=c?d"), ("iso-8859-15", "€ 5"), ("iso-2022-jp", "日本語のテキストです"),
         ("iso-2022-jp", "件名 テスト")]
def q(b):
    out = []
    for x in b:
        c = chr(x)
        if c == ' ':
            out.append('_')
        elif c.isalnum() and x < 128:
            out.append(c)
        else:
            out.append('=%02X' % x)
    return ''.join(out)
def word(cs, b, enc):
    label = rng.choice([cs, cs.upper(), cs.title()])
    if enc == 'B':
        return '=?%s?%s?%s?=' % (label, rng.choice('Bb'), base64.b64encode(b).decode())
    return '=?%s?%s?%s?=' % (label, rng.choice('Qq'), q(b))
cases = []
for k in range(400):
    parts = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.25:
            parts.append(('text', rng.choice(['Re:', 'Fwd:', 'hello', 'x', '[list]', 'a-b'])))
        else:
            cs, t = rng.choice(TEXTS)
            b = t.encode(cs)
            enc = rng.choice('BQ')
            if rng.random() < 0.3 and len(b) > 4:
                # split anywhere (inside a character, an ISO-2022 escape or
                # JIS mode) into two adjacent words of the same charset
                cut = rng.randint(1, len(b) - 1)
                parts.append(('ew', word(cs, b[:cut], enc)))
                parts.append(('ew', word(cs, b[cut:], enc)))
            else:
                parts.append(('ew', word(cs, b, enc)))
    out = parts[0][1]
    for a, b in zip(parts, parts[1:]):
        out += rng.choice([' ', '  ', '\t', '\r\n '])
        out += b[1]
    try:
        # A value without an encoded-word comes back from decode_header as
        # it is, folds and all; RFC 5322 unfolding removes the CRLF.
        want = str(make_header(decode_header(out))).replace('\r\n', '')
    except Exception as e:
        continue
    cases.append({"value": out, "want": want})
print(json.dumps(cases))
