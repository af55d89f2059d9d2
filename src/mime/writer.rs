//! Writers for the normalizer: UTF-8 text back into header syntax, as
//! RFC 2047 encoded-words (`=?UTF-8?Q?...?=` / `?B?`) where needed, or raw
//! UTF-8 (RFC 6532); RFC 2231 parameters. Lines are folded to stay within
//! [`WriteOptions::max_line`] octets where the text allows it, and a UTF-8
//! character is never split across encoded-words.

use super::header::LineEnding;
use super::header::MAX_LINE;
use super::lexer::is_token_char;

/// How non-ASCII header text is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HeaderMode {
    /// RFC 2047 encoded-words (7-bit headers), the default.
    #[default]
    Encoded,
    /// Raw UTF-8 (RFC 6532), for SMTPUTF8 transports. Encoded-words are
    /// still used where the text could not otherwise survive (line ends,
    /// control characters, text that looks like an encoded-word, white
    /// space at the ends).
    Utf8,
}

/// Options for the writers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Encoded-words, or raw UTF-8 (RFC 6532).
    pub mode: HeaderMode,
    /// The line end written inside folds.
    pub line_ending: LineEnding,
    /// Longest line wanted, line end excluded (RFC 5322 2.1.1: 78; RFC 2047
    /// writers use 76).
    pub max_line: usize,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            mode: HeaderMode::Encoded,
            line_ending: LineEnding::Crlf,
            max_line: 76,
        }
    }
}

/// `=?UTF-8?Q?` + `?=`.
const WORD_OVERHEAD: usize = 12;
/// RFC 2047 2.
const MAX_WORD: usize = 75;

/// A character that may stand for itself in Q encoding anywhere an
/// encoded-word may appear (RFC 2047 5 (3), the strictest rule).
fn q_literal(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'!' | b'*' | b'+' | b'-' | b'/')
}

fn q_len(s: &str) -> usize {
    s.bytes()
        .map(|b| if q_literal(b) || b == b' ' { 1 } else { 3 })
        .sum()
}

fn b_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

fn push_q(out: &mut String, s: &str) {
    for b in s.bytes() {
        if q_literal(b) {
            out.push(b as char);
        } else if b == b' ' {
            out.push('_');
        } else {
            out.push('=');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
}

fn push_b(out: &mut String, s: &[u8]) {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in s.chunks(3) {
        let n = chunk.len();
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(chunk.get(1).copied().unwrap_or(0)) << 8)
            | u32::from(chunk.get(2).copied().unwrap_or(0));
        for k in 0..4 {
            if k <= n {
                out.push(char::from(A[((v >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
}

/// Splits `s` into encoded-words of at most `first_room` octets for the
/// first and [`MAX_WORD`] for the others, each holding whole characters.
/// Picks Q or B for the whole span, whichever is shorter.
fn encode_words(s: &str, first_room: usize) -> Vec<String> {
    let use_b = b_len(s.len()) < q_len(s);
    let mut words = Vec::new();
    let mut room = first_room.clamp(WORD_OVERHEAD + 4, MAX_WORD);
    let mut start = 0;
    while start < s.len() {
        // Take as many whole characters as fit.
        // The Q length grows by each character's own length (summing it
        // again from `start` for every character was quadratic per word).
        let mut end = start;
        let mut q = 0;
        for (k, c) in s[start..].char_indices() {
            let next = start + k + c.len_utf8();
            let len = if use_b {
                b_len(next - start)
            } else {
                q + q_len(&s[start + k..next])
            };
            if WORD_OVERHEAD + len > room && end > start {
                break;
            }
            q = len;
            end = next;
        }
        let mut w = String::with_capacity(room);
        if use_b {
            w.push_str("=?UTF-8?B?");
            push_b(&mut w, &s.as_bytes()[start..end]);
        } else {
            w.push_str("=?UTF-8?Q?");
            push_q(&mut w, &s[start..end]);
        }
        w.push_str("?=");
        words.push(w);
        start = end;
        room = MAX_WORD;
    }
    words
}

fn is_wsp_char(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// True when `word` (no white space) cannot be written as itself.
fn needs_encoding(word: &str, mode: HeaderMode, max_line: usize) -> bool {
    let special = word
        .bytes()
        .any(|b| b < 0x20 || b == 0x7f || (b >= 0x80 && mode == HeaderMode::Encoded))
        || word.contains("=?");
    special || (mode == HeaderMode::Encoded && word.len() + 1 > max_line)
}

/// A piece of an unstructured value.
enum Piece<'a> {
    Ws(&'a str),
    Plain(&'a str),
    Encode(&'a str),
}

/// Splits text into white space, plain words and spans to encode; adjacent
/// words to encode are merged with the white space between them (white
/// space between encoded-words is dropped when decoding).
fn pieces(text: &str, mode: HeaderMode, max_line: usize) -> Vec<Piece<'_>> {
    // Words and white-space runs: (is_ws, start, end).
    let mut raw: Vec<(bool, usize, usize)> = Vec::new();
    for (k, c) in text.char_indices() {
        let ws = is_wsp_char(c);
        match raw.last_mut() {
            Some(last) if last.0 == ws => last.2 = k + c.len_utf8(),
            _ => raw.push((ws, k, k + c.len_utf8())),
        }
    }
    // Mark words to encode; white space at either end must be encoded too
    // (a decoder trims it).
    let n = raw.len();
    let mut enc: Vec<bool> = raw
        .iter()
        .map(|&(ws, s, e)| !ws && needs_encoding(&text[s..e], mode, max_line))
        .collect();
    if n > 0 {
        if raw[0].0 {
            enc[0] = true;
            if n > 1 {
                enc[1] = true;
            }
        }
        if raw[n - 1].0 {
            enc[n - 1] = true;
            if n > 1 {
                enc[n - 2] = true;
            }
        }
    }
    // White space between two encoded items is encoded too.
    for k in 1..n.saturating_sub(1) {
        if raw[k].0 && enc[k - 1] && enc[k + 1] {
            enc[k] = true;
        }
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        let (ws, s, mut e) = raw[k];
        if enc[k] {
            while k + 1 < n && enc[k + 1] {
                k += 1;
                e = raw[k].2;
            }
            out.push(Piece::Encode(&text[s..e]));
        } else if ws {
            out.push(Piece::Ws(&text[s..e]));
        } else {
            out.push(Piece::Plain(&text[s..e]));
        }
        k += 1;
    }
    out
}

/// Lays out pieces after `prefix` (e.g. `Subject:`), folding before white
/// space so that lines stay within `max_line` where possible.
struct Layout<'o> {
    out: String,
    line_len: usize,
    opts: &'o WriteOptions,
    /// Nothing but the field name is written yet: folding now would leave
    /// `Subject:` alone on its line and gain nothing.
    name_only: bool,
}

impl Layout<'_> {
    fn new<'o>(prefix: &str, opts: &'o WriteOptions) -> Layout<'o> {
        Layout {
            out: prefix.to_owned(),
            line_len: prefix.len(),
            opts,
            name_only: true,
        }
    }

    fn fold(&mut self) {
        self.out
            .push_str(std::str::from_utf8(self.opts.line_ending.as_bytes()).unwrap_or("\r\n"));
        self.line_len = 0;
    }

    /// Writes `ws` then `unit`, folding inside `ws` if they do not fit: the
    /// white space but its last character stays on the current line (it may
    /// itself be folded), the last character starts the next line.
    fn put(&mut self, ws: &str, unit: &str) {
        let ws = if ws.is_empty() { " " } else { ws };
        let first = std::mem::replace(&mut self.name_only, false);
        if self.line_len + ws.len() + unit.len() <= self.opts.max_line
            || self.line_len == 0
            || (first && self.line_len + ws.len() + unit.len() <= MAX_LINE)
        {
            self.out.push_str(ws);
            self.out.push_str(unit);
            self.line_len += ws.len() + unit.len();
            return;
        }
        let (head, last) = ws.split_at(ws.len() - 1);
        for c in head.chars() {
            if self.line_len + 1 > self.opts.max_line {
                self.fold();
            }
            self.out.push(c);
            self.line_len += 1;
        }
        self.fold();
        self.out.push_str(last);
        self.out.push_str(unit);
        self.line_len = last.len() + unit.len();
    }

    /// Writes a span as encoded-words, after `ws`.
    fn put_encoded(&mut self, ws: &str, text: &str) {
        let ws = if ws.is_empty() { " " } else { ws };
        let max = self.opts.max_line;
        let first_room = if self.line_len + ws.len() + WORD_OVERHEAD + 4 <= max {
            max - self.line_len - ws.len()
        } else {
            max.saturating_sub(1)
        };
        let words = encode_words(text, first_room.min(MAX_WORD));
        let mut sep = ws;
        for w in words {
            self.put(sep, &w);
            sep = " ";
        }
    }
}

/// Writes an unstructured field (`Subject`, `Comments`, ...): returns
/// `Name: value`, folded with `opts.line_ending` + white space, without a
/// final line end. Decoding the value gives `text` back.
///
/// In [`HeaderMode::Encoded`] every line stays within `opts.max_line`
/// (an ASCII word too long for a line is encoded so that it can be split).
/// In [`HeaderMode::Utf8`] a word longer than a line is written whole
/// (RFC 6532 keeps the 998-octet limit of RFC 5322 only).
pub fn write_unstructured(name: &str, text: &str, opts: &WriteOptions) -> String {
    let mut l = Layout::new(&format!("{name}:"), opts);
    let ps = pieces(text, opts.mode, opts.max_line);
    let mut ws = " ";
    for p in &ps {
        match p {
            Piece::Ws(w) => ws = w,
            Piece::Plain(w) => {
                l.put(ws, w);
                ws = "";
            }
            Piece::Encode(t) => {
                l.put_encoded(ws, t);
                ws = "";
            }
        }
    }
    l.out
}

/// RFC 5322 `atext`.
fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b)
}

/// A display name as phrase units (atoms, one quoted string, or
/// encoded-words), to be joined by single spaces.
fn phrase_units(text: &str, mode: HeaderMode) -> Vec<String> {
    let simple_spacing = !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text.contains('\t');
    if text.contains("=?") || text.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return encode_words(text, MAX_WORD);
    }
    let ascii = text.is_ascii();
    if ascii
        && simple_spacing
        && !text.is_empty()
        && text.split(' ').all(|w| w.bytes().all(is_atext))
    {
        return text.split(' ').map(str::to_owned).collect();
    }
    if ascii || mode == HeaderMode::Utf8 {
        let mut q = String::with_capacity(text.len() + 2);
        q.push('"');
        for c in text.chars() {
            if c == '"' || c == '\\' {
                q.push('\\');
            }
            q.push(c);
        }
        q.push('"');
        return vec![q];
    }
    encode_words(text, MAX_WORD)
}

/// Encodes a display name (RFC 5322 phrase): atoms as they are, a quoted
/// string when it holds specials, RFC 2047 encoded-words when it holds
/// non-ASCII (or raw UTF-8 in a quoted string in [`HeaderMode::Utf8`]).
pub fn encode_phrase(text: &str, mode: HeaderMode) -> String {
    phrase_units(text, mode).join(" ")
}

/// Writes an address-list field: `Name: Display <addr>, addr, ...`. Display
/// names are encoded with [`encode_phrase`]; addresses are written as
/// given (an internationalized address needs [`HeaderMode::Utf8`] and an
/// SMTPUTF8 transport; it is not encoded). Folds between mailboxes and
/// between the units of a name.
pub fn write_address_list(
    name: &str,
    mailboxes: &[(Option<&str>, &str)],
    opts: &WriteOptions,
) -> String {
    let mut l = Layout::new(&format!("{name}:"), opts);
    for (k, (display, addr)) in mailboxes.iter().enumerate() {
        let last = k + 1 == mailboxes.len();
        let comma = if last { "" } else { "," };
        match display {
            Some(d) if !d.is_empty() => {
                for u in phrase_units(d, opts.mode) {
                    l.put(" ", &u);
                }
                l.put(" ", &format!("<{addr}>{comma}"));
            }
            _ => l.put(" ", &format!("{addr}{comma}")),
        }
    }
    l.out
}

/// Writes one parameter as the sections to put after `;` (more than one
/// for a long value): `name=token`, `name="quoted"`, or RFC 2231
/// `name*=utf-8''%XX` / `name*0*=utf-8''...`, `name*1*=...`. In
/// [`HeaderMode::Utf8`] non-ASCII values are written raw in a quoted string.
pub fn write_parameter(name: &str, value: &str, mode: HeaderMode) -> Vec<String> {
    // Room for a section's value on a 76-octet line: " name*NN*=utf-8''" + ";".
    let section = 76usize.saturating_sub(name.len() + 16).max(12);
    let printable = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    if printable || (mode == HeaderMode::Utf8 && !value.bytes().any(|b| b < 0x20 || b == 0x7f)) {
        if value.len() + name.len() + 5 <= 74 {
            if !value.is_empty() && value.bytes().all(is_token_char) && value.is_ascii() {
                return vec![format!("{name}={value}")];
            }
            return vec![format!("{name}={}", quote(value))];
        }
        if printable {
            // RFC 2231 3: plain continuations.
            return split_chars(value, section - 2, |c| {
                if c == '"' || c == '\\' { 2 } else { 1 }
            })
            .into_iter()
            .enumerate()
            .map(|(k, s)| format!("{name}*{k}={}", quote(s)))
            .collect();
        }
    }
    let enc = |s: &str| {
        let mut o = String::with_capacity(s.len() * 3);
        for b in s.bytes() {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                o.push(b as char);
            } else {
                o.push('%');
                o.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
                o.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
            }
        }
        o
    };
    let cost = |c: char| {
        let mut buf = [0u8; 4];
        enc(c.encode_utf8(&mut buf)).len()
    };
    let parts = split_chars(value, section, cost);
    if parts.len() <= 1 {
        return vec![format!("{name}*=utf-8''{}", enc(value))];
    }
    parts
        .into_iter()
        .enumerate()
        .map(|(k, s)| {
            if k == 0 {
                format!("{name}*0*=utf-8''{}", enc(s))
            } else {
                format!("{name}*{k}*={}", enc(s))
            }
        })
        .collect()
}

fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

/// Splits at character boundaries into pieces whose cost is at most `max`
/// (at least one character each).
fn split_chars(s: &str, max: usize, cost: impl Fn(char) -> usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut acc = 0;
    for (k, c) in s.char_indices() {
        let n = cost(c);
        if acc + n > max && k > start {
            out.push(&s[start..k]);
            start = k;
            acc = 0;
        }
        acc += n;
    }
    if start < s.len() || out.is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// Writes a field with a value and parameters (`Content-Type`,
/// `Content-Disposition`): `Name: head; p1=v1; ...`, folding before a
/// parameter that does not fit.
pub fn write_parameterized(
    name: &str,
    head: &str,
    params: &[(&str, &str)],
    opts: &WriteOptions,
) -> String {
    let mut l = Layout::new(&format!("{name}:"), opts);
    let sections: Vec<String> = params
        .iter()
        .flat_map(|(n, v)| write_parameter(n, v, opts.mode))
        .collect();
    let mut unit = head.to_owned();
    for s in sections {
        unit.push(';');
        l.put(" ", &unit);
        unit = s;
    }
    l.put(" ", &unit);
    l.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mime::encoded_word::decode_unstructured;

    #[test]
    fn ascii_stays_plain_and_folds() {
        let o = WriteOptions::default();
        assert_eq!(
            write_unstructured("Subject", "Hello world", &o),
            "Subject: Hello world"
        );
        let long = "word ".repeat(30);
        let w = write_unstructured("Subject", long.trim_end(), &o);
        assert!(w.split("\r\n").all(|l| l.len() <= 76), "{w}");
        assert!(!w.contains("=?"));
    }

    /// `encode_words` fills every word but the last: one more character
    /// would not have fit in 75 octets. An overcount of the encoded length
    /// would still give short, decodable words; this catches it.
    #[test]
    fn encoded_words_are_filled_to_the_limit() {
        let texts = [
            "Grüße aus Köln, schöne Grüße! ".repeat(8),
            "日本語のテキスト、とても長い件名です。".repeat(6),
            "mixed ascii and 🚀 emoji with = and ? and _ signs ".repeat(5),
            "é".repeat(200),
            "ab".repeat(100),
        ];
        for text in &texts {
            for first_room in [MAX_WORD, 40, 20] {
                let words = encode_words(text, first_room);
                let mut start = 0;
                for (i, w) in words.iter().enumerate() {
                    let room = if i == 0 {
                        first_room.clamp(WORD_OVERHEAD + 4, MAX_WORD)
                    } else {
                        MAX_WORD
                    };
                    assert!(w.len() <= room, "{w} over {room}");
                    let decoded = decode_unstructured(w.as_bytes()).text;
                    assert!(text[start..].starts_with(&decoded), "{w} -> {decoded}");
                    let end = start + decoded.len();
                    if let Some(c) = text[end..].chars().next() {
                        let more = &text[start..end + c.len_utf8()];
                        let len = if w.starts_with("=?UTF-8?B?") {
                            b_len(more.len())
                        } else {
                            q_len(more)
                        };
                        assert!(WORD_OVERHEAD + len > room, "{w} has room for {c:?}");
                    }
                    start = end;
                }
                assert_eq!(start, text.len(), "{text}");
            }
        }
    }

    #[test]
    fn non_ascii_is_encoded_and_words_stay_short() {
        let o = WriteOptions::default();
        let w = write_unstructured("Subject", &"Grüße aus Köln ".repeat(10), &o);
        for line in w.split("\r\n") {
            assert!(line.len() <= 76, "{line}");
        }
        assert_eq!(
            write_parameter("filename", "a b.pdf", HeaderMode::Encoded),
            ["filename=\"a b.pdf\""]
        );
        assert_eq!(
            write_parameter("filename", "é.pdf", HeaderMode::Encoded),
            ["filename*=utf-8''%C3%A9.pdf"]
        );
    }
}
