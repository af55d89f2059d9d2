//! RFC 2047 encoded-words in unstructured fields, phrases, quoted strings
//! and parameter values, plus raw 8-bit text (RFC 6532).

use super::lexer::{PResult, is_fws, is_token_char};
use super::params::hex;
use super::{Decoding, decode_labelled, decode_raw, malformed_word};
use crate::charset::DecodeOptions;
use crate::finding::Finding;
use nom::Parser;
use nom::bytes::complete::{tag, take_while1};

/// RFC 2047 2: an encoded-word is at most 75 characters long.
pub const MAX_WORD_LEN: usize = 75;

/// B or Q.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum WordEncoding {
    /// `B`: base64.
    B,
    /// `Q`: quoted-printable-like.
    Q,
}

/// One encoded-word as found in a value.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodedWord {
    /// Offset of `=?` in the value that was decoded.
    pub offset: usize,
    /// Length of the word as written.
    pub len: usize,
    /// The charset label as written (without `*language`).
    pub label: Vec<u8>,
    /// RFC 2231 5 language tag (`=?UTF-8*en?Q?...?=`).
    pub language: Option<String>,
    /// `B` or `Q`.
    pub encoding: WordEncoding,
    /// Index (in the `words` list) of the first word of the run this word
    /// was decoded with: adjacent words of one charset are decoded as one
    /// octet string, so a character split across words survives.
    pub run: usize,
    /// What the charset layer said about the run (findings' offsets point
    /// into the run's decoded octets).
    pub decoding: Decoding,
    /// The word broke a rule (see the `malformed-encoded-word` findings).
    pub malformed: bool,
}

/// A decoded field value or fragment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecodedText {
    /// The decoded text.
    pub text: String,
    /// The encoded-words, in order.
    pub words: Vec<EncodedWord>,
    /// How raw 8-bit octets outside encoded-words were decoded (the first
    /// stretch of them; each stretch has a `raw-8bit-header` finding).
    pub raw8bit: Option<Decoding>,
    /// `malformed-encoded-word`, `raw-8bit-header` ... with offsets into the
    /// value.
    pub findings: Vec<Finding>,
}

/// Where the text comes from; decides quoting and trimming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Context {
    /// An unstructured field (RFC 5322 3.2.5): trimmed at both ends.
    Unstructured,
    /// A phrase (display name): `"` delimits quoted strings whose
    /// quoted-pairs are resolved; trimmed outside quotes.
    Phrase,
    /// An (unquoted) parameter value: kept as is.
    Value,
}

/// Decodes an unstructured field value (Subject, Comments, ...): unfolds,
/// decodes encoded-words (whitespace between adjacent words dropped,
/// adjacent words of one charset decoded together) and raw 8-bit octets,
/// and trims the ends. Never fails.
pub fn decode_unstructured(value: &[u8]) -> DecodedText {
    decode_with(value, Context::Unstructured, &DecodeOptions::default())
}

/// [`decode_unstructured`] with charset decoding options.
pub fn decode_unstructured_with(value: &[u8], opts: &DecodeOptions) -> DecodedText {
    decode_with(value, Context::Unstructured, opts)
}

/// Decodes a phrase (a display name, written with atoms, quoted strings and
/// encoded-words); quoted strings are unquoted, encoded-words decoded also
/// inside them. White space between words (outside quoted strings) is one
/// space, as RFC 5322 3.2.5 has it; inside quoted strings it is kept.
pub fn decode_phrase(value: &[u8]) -> DecodedText {
    decode_with(value, Context::Phrase, &DecodeOptions::default())
}

/// [`decode_phrase`] with charset decoding options.
pub fn decode_phrase_with(value: &[u8], opts: &DecodeOptions) -> DecodedText {
    decode_with(value, Context::Phrase, opts)
}

/// A word as written, before decoding.
struct RawWord<'a> {
    label: &'a [u8],
    language: Option<&'a [u8]>,
    encoding: WordEncoding,
    text: &'a [u8],
    /// `?=` was there.
    terminated: bool,
}

/// ```abnf
/// charset = token    ; RFC 2047 2, without "*" (RFC 2231 5)
/// ```
fn charset_token(i: &[u8]) -> PResult<'_, &[u8]> {
    take_while1(|b: u8| is_token_char(b) && b != b'*').parse(i)
}

/// ```abnf
/// language = 1*(ALPHA / DIGIT / "-")   ; RFC 2231 5 (RFC 5646 tag)
/// ```
fn language(i: &[u8]) -> PResult<'_, &[u8]> {
    take_while1(|b: u8| b.is_ascii_alphanumeric() || b == b'-').parse(i)
}

/// An encoded-word. Leniencies: the encoded text may hold white space
/// (folds are removed, spaces kept in Q); a word whose `?=` is missing ends
/// at the next white space (`terminated == false`).
///
/// ```abnf
/// encoded-word = "=?" charset ["*" language] "?" encoding "?" encoded-text "?="
/// encoding     = "B" / "Q"                  ; case-insensitive
/// encoded-text = 1*<any printable ASCII except "?" and SPACE>
/// ```
fn encoded_word(i: &[u8]) -> PResult<'_, RawWord<'_>> {
    let (r, _) = tag(&b"=?"[..]).parse(i)?;
    let (r, label) = charset_token(r)?;
    let (r, lang) = match r.strip_prefix(b"*") {
        Some(r2) => {
            let (r3, l) = language(r2)?;
            (r3, Some(l))
        }
        None => (r, None),
    };
    let (r, (_, e, _)) = (
        tag(&b"?"[..]),
        nom::bytes::complete::take(1usize),
        tag(&b"?"[..]),
    )
        .parse(r)?;
    let encoding = match e[0] {
        b'B' | b'b' => WordEncoding::B,
        b'Q' | b'q' => WordEncoding::Q,
        _ => {
            return Err(nom::Err::Error(nom::error::Error::new(
                r,
                nom::error::ErrorKind::Alt,
            )));
        }
    };
    match memchr::memchr(b'?', r) {
        Some(q) if r.get(q + 1) == Some(&b'=') => Ok((
            &r[q + 2..],
            RawWord {
                label,
                language: lang,
                encoding,
                text: &r[..q],
                terminated: true,
            },
        )),
        _ => {
            let end = r.iter().position(|&b| is_fws(b)).unwrap_or(r.len());
            Ok((
                &r[end..],
                RawWord {
                    label,
                    language: lang,
                    encoding,
                    text: &r[..end],
                    terminated: false,
                },
            ))
        }
    }
}

/// The length of the terminated encoded-word at the start of `i`, if any
/// (for tokenisers that must not split a word at a special inside it).
pub(crate) fn word_len(i: &[u8]) -> Option<usize> {
    match encoded_word(i) {
        Ok((rest, w)) if w.terminated => Some(i.len() - rest.len()),
        _ => None,
    }
}

/// The octets a run of encoded-words carries: each word's B or Q text
/// decoded exactly as [`decode_unstructured`] decoded it, before any
/// charset. For consumers that look at the octets themselves (the auditor
/// names the characters overlong forms spell). `value` is the field value
/// the words' offsets point into; None when a word is not where its offset
/// says.
pub(crate) fn word_octets(value: &[u8], words: &[EncodedWord]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for w in words {
        let written = value.get(w.offset..w.offset + w.len)?;
        let (_, raw) = encoded_word(written).ok()?;
        match raw.encoding {
            WordEncoding::Q => decode_q(raw.text, &mut out),
            WordEncoding::B => decode_b(raw.text, &mut out),
        };
    }
    Some(out)
}

/// The charset label of the encoded-word written at `offset` in `value`
/// (for words kept as written, which have no [`EncodedWord`]).
pub(crate) fn label_at(value: &[u8], offset: usize) -> Option<Vec<u8>> {
    let (_, raw) = encoded_word(value.get(offset..)?).ok()?;
    Some(raw.label.to_vec())
}

/// Q decoding (RFC 2047 4.2), leniently: a bad `=XX` is kept as written,
/// a fold inside the word is removed, spaces and 8-bit octets are taken as
/// themselves (`Repaired`).
///
/// ```abnf
/// q-text  = *( "_" / "=" 2HEXDIG / <printable ASCII except "?", "=", "_", SP> )
///           ; RFC 2047 4.2: "_" is SP, "=XX" an octet
/// ```
fn decode_q(text: &[u8], out: &mut Vec<u8>) -> Quality {
    let mut clean = true;
    let mut k = 0;
    while k < text.len() {
        match text[k] {
            b'_' => out.push(b' '),
            b'=' => match (
                text.get(k + 1).and_then(|&b| hex(b)),
                text.get(k + 2).and_then(|&b| hex(b)),
            ) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    k += 3;
                    continue;
                }
                _ => {
                    clean = false;
                    out.push(b'=');
                }
            },
            b'\r' | b'\n' => {
                // A fold inside the word: drop it and the white space after.
                clean = false;
                while text.get(k + 1).is_some_and(|&b| is_fws(b)) {
                    k += 1;
                }
            }
            b => {
                if b == b' ' || b == b'\t' || !(0x20..0x7f).contains(&b) {
                    clean = false;
                }
                out.push(b);
            }
        }
        k += 1;
    }
    if clean {
        Quality::Clean
    } else {
        Quality::Repaired
    }
}

fn b64_value(b: u8) -> Option<u32> {
    match b {
        b'A'..=b'Z' => Some(u32::from(b - b'A')),
        b'a'..=b'z' => Some(u32::from(b - b'a') + 26),
        b'0'..=b'9' => Some(u32::from(b - b'0') + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// How well encoded text decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quality {
    Clean,
    /// Decoded after a repair (missing padding, white space, a bad `=XX`).
    Repaired,
    /// Not base64 at all: the word is kept as written.
    Invalid,
}

/// B decoding (RFC 2047 4.1, base64 of RFC 2045 6.8), leniently: white
/// space is skipped and padding may be missing or extra (`Repaired`); an
/// octet outside the base64 alphabet makes the word `Invalid`.
///
/// ```abnf
/// b-text  = *4base64-char [base64-tail]        ; RFC 2047 4.1, RFC 2045 6.8
/// base64-char = ALPHA / DIGIT / "+" / "/"
/// base64-tail = 2base64-char "==" / 3base64-char "="
/// ```
fn decode_b(text: &[u8], out: &mut Vec<u8>) -> Quality {
    let mut clean = true;
    let mut invalid = false;
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut padding = 0usize;
    let mut n = 0usize;
    for &b in text {
        if b == b'=' {
            padding += 1;
            continue;
        }
        if is_fws(b) {
            clean = false;
            continue;
        }
        match b64_value(b) {
            Some(v) if padding == 0 => {
                acc = (acc << 6) | v;
                bits += 6;
                n += 1;
                if bits >= 8 {
                    bits -= 8;
                    out.push((acc >> bits) as u8);
                    acc &= (1 << bits) - 1;
                }
            }
            Some(_) => clean = false,
            None => invalid = true,
        }
    }
    // A lone trailing sextet cannot make an octet; missing or extra padding.
    if n % 4 == 1 || !(n + padding).is_multiple_of(4) {
        clean = false;
    }
    if invalid {
        Quality::Invalid
    } else if clean {
        Quality::Clean
    } else {
        Quality::Repaired
    }
}

/// ISO-2022 labels (iso-2022-jp, -jp-2, -kr, -cn ...). Each ISO-2022
/// encoded-word must end in ASCII (RFC 1468, RFC 1557), so a character is
/// never split across words; and joining words puts two escape sequences
/// back to back, which the WHATWG ISO-2022-JP decoder rejects. These words
/// are therefore decoded one by one, not as a run, unless a word breaks
/// that rule ([`iso2022_open`]).
fn is_iso2022(label: &[u8]) -> bool {
    let l = label.len().min(8);
    label[..l].eq_ignore_ascii_case(b"iso-2022")
        || label.len() >= 11 && label[..11].eq_ignore_ascii_case(b"csiso2022jp")
}

/// Whether ISO-2022 octets end outside ASCII: their last escape sequence
/// designates a double-byte set or katakana (`ESC $ B`, `ESC ( I`, ...) and
/// not ASCII or JIS-Roman (`ESC ( B`, `ESC ( J`); or, in ISO-2022-KR and
/// -CN, a shift-out (SO, 0x0E) is not followed by a shift-in (SI, 0x0F).
/// Mailers that split a Japanese Subject into encoded-words by length
/// leave the first word in JIS mode; the next word's octets then carry on
/// from that mode, and read alone they are ASCII garbage (`%F%-%9%H` for
/// テキスト). Python's `email` joins such words; so does this decoder.
fn iso2022_open(octets: &[u8]) -> bool {
    let shifted = match memchr::memrchr2(0x0E, 0x0F, octets) {
        Some(i) => octets[i] == 0x0E,
        None => false,
    };
    let Some(esc) = memchr::memrchr(0x1B, octets) else {
        return shifted;
    };
    match &octets[esc + 1..] {
        [b'(', b'B' | b'J', ..] => shifted,
        // G1/G2 designations (ISO-2022-KR, -CN) wait for a shift-out.
        [b'$', b')' | b'*' | b'+', ..] => shifted,
        [b'$' | b'(', ..] => true,
        // An escape cut short by the end of the word.
        [] => true,
        _ => shifted,
    }
}

/// A run of adjacent encoded-words of one charset, not yet decoded.
struct Run {
    label: Vec<u8>,
    bytes: Vec<u8>,
    first_word: usize,
}

/// A word of the current run: (offset, len, label, language, encoding,
/// malformed).
type PendingWord = (usize, usize, Vec<u8>, Option<String>, WordEncoding, bool);

struct State<'o> {
    opts: &'o DecodeOptions,
    /// The value being decoded (word offsets are into it).
    value: &'o [u8],
    out: DecodedText,
    /// Plain octets not yet appended, and the offset of the first.
    text: Vec<u8>,
    text_offset: usize,
    /// White space seen after the last token, maybe dropped.
    ws: Vec<u8>,
    ws_offset: usize,
    ws_quoted: bool,
    run: Option<Run>,
    last_was_word: bool,
    /// Words seen: (offset, len, label, language, encoding, malformed).
    pending_words: Vec<PendingWord>,
}

impl<'o> State<'o> {
    fn flush_text(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let (t, raw) = decode_raw(&self.text, self.text_offset, self.opts);
        self.out.text.push_str(&t);
        if let Some((d, f)) = raw {
            if self.out.raw8bit.is_none() {
                self.out.raw8bit = Some(d);
            }
            self.out.findings.push(f);
        }
        self.text.clear();
    }

    fn flush_run(&mut self) {
        let Some(run) = self.run.take() else {
            return;
        };
        let (t, dec) = decode_labelled(&run.bytes, &run.label, self.opts);
        // A run under an unknown label (read by detection) that decodes
        // into NUL or other control characters (UTF-16 octets under
        // `ucs-2le`, a binary blob) is no header text: its words stay as
        // written, in ASCII (decoded, NULs and controls were written into
        // the header). Under a label the charset knows, its reading stands.
        let controls = dec.is_unknown_label()
            && t.chars()
                .any(|c| (c.is_control() && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c));
        let span = match (self.pending_words.first(), self.pending_words.last()) {
            (Some(a), Some(z)) => self.value.get(a.0..z.0 + z.1),
            _ => None,
        };
        let kept = controls && span.is_some();
        match span.filter(|_| controls) {
            Some(words) => {
                self.out.text.push_str(&String::from_utf8_lossy(words));
                if let Some(w) = self.pending_words.first() {
                    self.out.findings.push(malformed_word(
                        w.0,
                        "decodes into control characters: kept as written",
                    ));
                }
            }
            None => self.out.text.push_str(&t),
        }
        if let Some(w) = self.pending_words.first()
            && dec.is_unknown_label()
        {
            self.out
                .findings
                .push(malformed_word(w.0, "unknown charset in encoded-word"));
        }
        for (offset, len, label, language, encoding, malformed) in self.pending_words.drain(..) {
            self.out.words.push(EncodedWord {
                offset,
                len,
                label,
                language,
                encoding,
                run: run.first_word,
                decoding: dec.clone(),
                // Kept as written: its field is kept as written too.
                malformed: malformed || kept,
            });
        }
    }

    /// White space before a non-word token: kept (unfolded) unless leading.
    fn flush_ws(&mut self, ctx: Context) {
        if self.ws.is_empty() {
            return;
        }
        let leading = self.out.text.is_empty() && self.text.is_empty() && self.run.is_none();
        if !(leading && ctx != Context::Value && !self.ws_quoted) {
            if self.text.is_empty() {
                self.text_offset = self.ws_offset;
            }
            if ctx == Context::Phrase && !self.ws_quoted {
                // Between the words of a phrase, CFWS is one separator
                // (RFC 5322 3.2.5): one space.
                self.text.push(b' ');
            } else {
                self.text.extend(
                    self.ws
                        .iter()
                        .copied()
                        .filter(|&b| b != b'\r' && b != b'\n'),
                );
            }
        }
        self.ws.clear();
    }

    fn push_text(&mut self, ctx: Context, bytes: &[u8], offset: usize) {
        self.flush_run();
        self.flush_ws(ctx);
        if self.text.is_empty() {
            self.text_offset = offset;
        }
        self.text.extend_from_slice(bytes);
        self.last_was_word = false;
    }

    fn push_word(
        &mut self,
        ctx: Context,
        w: RawWord<'_>,
        raw: &[u8],
        offset: usize,
        embedded: bool,
    ) {
        let len = raw.len();
        let mut bytes = Vec::with_capacity(w.text.len());
        let quality = match w.encoding {
            WordEncoding::Q => decode_q(w.text, &mut bytes),
            WordEncoding::B => decode_b(w.text, &mut bytes),
        };
        let note = |f: &mut Vec<Finding>, n: &'static str| {
            f.push(malformed_word(offset, n));
        };
        if quality == Quality::Invalid {
            note(&mut self.out.findings, "bad base64, kept as written");
            self.push_text(ctx, raw, offset);
            return;
        }
        let mut clean = quality == Quality::Clean;
        if !w.terminated {
            note(&mut self.out.findings, "encoded-word without closing ?=");
        }
        if !clean {
            note(
                &mut self.out.findings,
                match w.encoding {
                    WordEncoding::B => "base64 repaired (padding or white space)",
                    WordEncoding::Q => "bad Q encoding, decoded leniently",
                },
            );
        }
        if embedded {
            // RFC 2047 5 (1): an encoded-word stands apart, white space
            // (or a quote or parenthesis) on either side.
            note(&mut self.out.findings, "encoded-word inside a word");
        }
        if w.text.is_empty() {
            note(&mut self.out.findings, "empty encoded-word");
            clean = false;
        }
        // A word over 75 characters (RFC 2047 2) is decoded all the same,
        // as every common reader does: its length alone is not damage.
        let malformed = !clean || !w.terminated;
        // White space between adjacent encoded-words is dropped (RFC 2047 6.2).
        if self.last_was_word {
            self.ws.clear();
        }
        let same = self.last_was_word
            && self.run.as_ref().is_some_and(|r| {
                r.label.eq_ignore_ascii_case(w.label)
                    && (!is_iso2022(w.label) || iso2022_open(&r.bytes))
            });
        if same && is_iso2022(w.label) {
            note(
                &mut self.out.findings,
                "ISO-2022 encoded-word ends outside ASCII (RFC 1468); read on into the next",
            );
        }
        if !same {
            self.flush_run();
            self.flush_ws(ctx);
            self.flush_text();
            self.run = Some(Run {
                label: w.label.to_vec(),
                bytes: Vec::new(),
                first_word: self.out.words.len() + self.pending_words.len(),
            });
        }
        if let Some(r) = self.run.as_mut() {
            r.bytes.extend_from_slice(&bytes);
        }
        self.pending_words.push((
            offset,
            len,
            w.label.to_vec(),
            w.language.map(|l| String::from_utf8_lossy(l).into_owned()),
            w.encoding,
            malformed,
        ));
        self.last_was_word = true;
    }
}

/// Decodes `value` in context `ctx`. Offsets are into `value`.
pub(crate) fn decode_with(value: &[u8], ctx: Context, opts: &DecodeOptions) -> DecodedText {
    // Fast path: nothing to decode, nothing to unquote (an ESC may open
    // raw ISO-2022-JP: `decode_raw`).
    if value.is_ascii()
        && !super::has_encoded_word_start(value)
        && memchr::memchr(0x1B, value).is_none()
        && (ctx != Context::Phrase || memchr::memchr2(b'"', b'\\', value).is_none())
    {
        let text = match ctx {
            Context::Unstructured => {
                super::ascii_string(&super::lexer::unfold(super::lexer::trim_fws(value)))
            }
            Context::Phrase => {
                let t = super::lexer::trim_fws(value);
                let single_spaced = !t
                    .windows(2)
                    .any(|w| is_fws(w[0]) && (w[0] != b' ' || is_fws(w[1])))
                    && !t.last().is_some_and(|&b| is_fws(b));
                if single_spaced {
                    super::ascii_string(t)
                } else {
                    t.split(|&b| is_fws(b))
                        .filter(|w| !w.is_empty())
                        .map(super::ascii_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            }
            Context::Value => super::ascii_string(&super::lexer::unfold(value)),
        };
        return DecodedText {
            text,
            ..DecodedText::default()
        };
    }
    let mut st = State {
        opts,
        value,
        out: DecodedText::default(),
        text: Vec::new(),
        text_offset: 0,
        ws: Vec::new(),
        ws_offset: 0,
        ws_quoted: false,
        run: None,
        last_was_word: false,
        pending_words: Vec::new(),
    };
    let mut in_quote = false;
    let mut i = value;
    while let Some(&b) = i.first() {
        let offset = value.len() - i.len();
        if is_fws(b) {
            let n = i.iter().position(|&c| !is_fws(c)).unwrap_or(i.len());
            if st.ws.is_empty() {
                st.ws_offset = offset;
                st.ws_quoted = in_quote;
            }
            st.ws.extend_from_slice(&i[..n]);
            i = &i[n..];
            continue;
        }
        if b == b'='
            && let Ok((rest, w)) = encoded_word(i)
        {
            let len = i.len() - rest.len();
            let apart =
                |b: Option<&u8>| b.is_none_or(|&b| is_fws(b) || matches!(b, b'"' | b'(' | b')'));
            let embedded =
                !apart(offset.checked_sub(1).and_then(|k| value.get(k))) || !apart(rest.first());
            st.push_word(ctx, w, &i[..len], offset, embedded);
            i = rest;
            continue;
        }
        if ctx == Context::Phrase {
            if b == b'"' {
                // Quotes delimit; they are not text. White space before an
                // opening quote is kept unless it is leading.
                in_quote = !in_quote;
                if !st.last_was_word || !starts_with_word(&i[1..]) {
                    st.flush_run();
                    st.flush_ws(ctx);
                }
                i = &i[1..];
                continue;
            }
            if in_quote && b == b'\\' && i.len() > 1 {
                st.push_text(ctx, &i[1..2], offset + 1);
                i = &i[2..];
                continue;
            }
        }
        // Plain text up to the next white space, `=` or quote.
        let n = 1 + i[1..]
            .iter()
            .position(|&c| {
                is_fws(c) || c == b'=' || (ctx == Context::Phrase && matches!(c, b'"' | b'\\'))
            })
            .unwrap_or(i.len() - 1);
        st.push_text(ctx, &i[..n], offset);
        i = &i[n..];
    }
    st.flush_run();
    if ctx == Context::Value || (st.ws_quoted && ctx == Context::Phrase) {
        st.flush_ws(ctx);
    }
    st.flush_text();
    st.out
}

/// True when `i` (after a quote) starts with an encoded-word, possibly
/// after white space.
fn starts_with_word(i: &[u8]) -> bool {
    let k = i.iter().position(|&b| !is_fws(b)).unwrap_or(i.len());
    encoded_word(&i[k..]).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn un(s: &str) -> String {
        decode_unstructured(s.as_bytes()).text
    }

    #[test]
    fn adjacent_words_join_and_split_characters_survive() {
        assert_eq!(un("=?utf-8?q?a?= =?utf-8?q?b?="), "ab");
        assert_eq!(un("x =?utf-8?q?a?=  y"), "x a  y");
        // U+00E9 = C3 A9 split across two B words.
        assert_eq!(
            un("=?UTF-8?B?w6E=?=\r\n =?UTF-8?Q?caf=C3?= =?utf-8?Q?=A9?="),
            "ácafé"
        );
    }

    #[test]
    fn iso2022_words_left_in_jis_mode_read_on() {
        // 日本語のテキストです in ISO-2022-JP, split after のテ while in JIS
        // mode: the second word has no escape of its own.
        let first = "=?ISO-2022-JP?B?GyRCRnxLXDhsJE4lRg==?=";
        let second = "=?ISO-2022-JP?B?JS0lOSVIJEckORsoQg==?=";
        let d = decode_unstructured(format!("{first}\r\n {second}").as_bytes());
        assert_eq!(d.text, "日本語のテキストです");
        assert!(d.findings.iter().any(|f| {
            f.note
                .as_deref()
                .is_some_and(|n| n.starts_with("ISO-2022 encoded-word ends outside ASCII"))
        }));
        // Words that each end in ASCII stay apart, with no finding.
        let d = decode_unstructured(
            "=?ISO-2022-JP?B?GyRCRnxLXBsoQg==?= =?ISO-2022-JP?B?GyRCOGwbKEI=?=".as_bytes(),
        );
        assert_eq!(d.text, "日本語");
        assert!(d.findings.is_empty(), "{:?}", d.findings);
        // The state is the run's: a middle word without escapes carries on.
        assert!(iso2022_open(b"\x1b$BF|"));
        assert!(iso2022_open(b"\x1b(I1"));
        assert!(!iso2022_open(b"\x1b$BF|\x1b(B"));
        assert!(!iso2022_open(b"\x1b(Jabc"));
        assert!(!iso2022_open(b"plain"));
        assert!(iso2022_open(b"\x1b$)C\x0e!!"));
        assert!(!iso2022_open(b"\x1b$)C\x0e!!\x0f"));
    }

    #[test]
    fn malformed_words_are_reported() {
        let d = decode_unstructured(b"=?utf-8?q?abc def");
        assert_eq!(d.text, "abc def");
        assert!(
            d.findings
                .iter()
                .any(|f| f.note.as_deref() == Some("encoded-word without closing ?="))
        );
        let d = decode_unstructured(b"=?utf-8?b?w6=k?=");
        assert!(d.words[0].malformed);
        let d = decode_unstructured(b"a =?utf-8?x?abc?= b");
        assert_eq!(d.text, "a =?utf-8?x?abc?= b");
        assert!(d.words.is_empty());
    }

    #[test]
    fn language_tags_are_kept() {
        let d = decode_unstructured(b"=?US-ASCII*EN?Q?Keith_Moore?=");
        assert_eq!(d.text, "Keith Moore");
        assert_eq!(d.words[0].language.as_deref(), Some("EN"));
        assert_eq!(d.words[0].label, b"US-ASCII");
    }

    #[test]
    fn phrases_unquote() {
        let d = decode_phrase(b"\"Giant; \\\"Big\\\" Box\"");
        assert_eq!(d.text, "Giant; \"Big\" Box");
        assert_eq!(decode_phrase(b"\"=?utf-8?q?a?= b\"").text, "a b");
        assert_eq!(
            decode_phrase(b"=?utf-8?q?a?= \"=?utf-8?q?_b?=\"").text,
            "a b"
        );
        assert_eq!(decode_phrase(b" John \r\n\t Doe ").text, "John Doe");
        assert_eq!(decode_phrase(b"John\tQ. Doe").text, "John Q. Doe");
        assert_eq!(decode_phrase(b"John Q. Doe").text, "John Q. Doe");
        assert_eq!(decode_phrase(b" \"John  Doe\" ").text, "John  Doe");
    }
}
