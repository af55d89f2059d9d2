//! Address lists (From, To, Cc, Reply-To, ...): only display names and
//! comments are decoded; addr-specs are kept as written.

use super::encoded_word::{self, Context, DecodedText};
use super::lexer::{self, is_fws};
use super::{decode_raw, malformed};
use crate::charset::DecodeOptions;
use crate::finding::Finding;
use std::ops::Range;

/// One mailbox of an address list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mailbox {
    /// The decoded display name (phrase before `<...>`), if any; None for
    /// an empty one (`"" <a@b>`, whose span is still given).
    pub display_name: Option<DecodedText>,
    /// Span of the display name in the field value (from its first to its
    /// last octet, comments inside it included).
    pub display_name_span: Option<Range<usize>>,
    /// The address as written, comments and surrounding white space
    /// removed (`<` `>` not included). None for a mailbox that is only a
    /// comment or a bare phrase.
    pub addr_spec: Option<String>,
    /// Span of the address in the field value (inside the angle brackets).
    pub addr_span: Option<Range<usize>>,
    /// Decoded comments, in order.
    pub comments: Vec<DecodedText>,
    /// Index of the group this mailbox belongs to.
    pub group: Option<usize>,
}

/// A named group (`name: a, b;`).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The group's name, decoded.
    pub name: DecodedText,
    /// Where the name is in the field value.
    pub name_span: Range<usize>,
}

/// A parsed address list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AddressList {
    /// Every mailbox, in groups or not, in order.
    pub mailboxes: Vec<Mailbox>,
    /// The groups.
    pub groups: Vec<Group>,
    /// Structural findings and the findings of display names (offsets into
    /// the field value).
    pub findings: Vec<Finding>,
}

/// A lexical item of an address list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    /// Atom text, a quoted string, or white space: phrase material.
    Phrase,
    Ws,
    Comment,
    /// `<...>`; the range is the content.
    Angle,
    Comma,
    Semicolon,
    Colon,
}

/// Splits an address list into lexical items.
///
/// ```abnf
/// address-list = (address *("," address)) / obs-addr-list   ; RFC 5322 3.4
/// address      = mailbox / group
/// mailbox      = name-addr / addr-spec
/// name-addr    = [display-name] angle-addr
/// angle-addr   = [CFWS] "<" addr-spec ">" [CFWS]
/// group        = display-name ":" [group-list] ";" [CFWS]
/// display-name = phrase
/// ```
/// The length of a run of ISO-2022-JP from an escape to a two-octet set
/// (`ESC $ B`, `ESC $ @`) through the next escape back to ASCII or JIS X
/// 0201 Roman (`ESC ( B`, `ESC ( J`); `None` without both.
fn iso2022_run(rest: &[u8]) -> Option<usize> {
    if !(rest.starts_with(b"\x1b$B") || rest.starts_with(b"\x1b$@")) {
        return None;
    }
    let back = memchr::memmem::find_iter(&rest[3..], b"\x1b(")
        .map(|i| i + 3)
        .find(|&i| matches!(rest.get(i + 2), Some(b'B' | b'J')))?;
    Some(back + 3)
}

fn tokens(v: &[u8]) -> Vec<(Tok, Range<usize>)> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < v.len() {
        let start = k;
        let rest = &v[k..];
        let (tok, end) = match rest[0] {
            b if is_fws(b) => (
                Tok::Ws,
                k + rest.iter().position(|&c| !is_fws(c)).unwrap_or(rest.len()),
            ),
            b'(' => match lexer::comment(rest) {
                Ok((r, _)) => (Tok::Comment, v.len() - r.len()),
                Err(_) => (Tok::Phrase, k + 1),
            },
            b'"' => match lexer::quoted_string(rest) {
                Ok((r, _)) => (Tok::Phrase, v.len() - r.len()),
                Err(_) => (Tok::Phrase, k + 1),
            },
            b'<' => {
                // Comments inside the angle brackets may hold `>`.
                let mut j = 1;
                while j < rest.len() && rest[j] != b'>' {
                    if rest[j] == b'(' {
                        match lexer::comment(&rest[j..]) {
                            Ok((r, _)) => j = rest.len() - r.len(),
                            Err(_) => j += 1,
                        }
                    } else if rest[j] == b'"' {
                        match lexer::quoted_string(&rest[j..]) {
                            Ok((r, _)) => j = rest.len() - r.len(),
                            Err(_) => j += 1,
                        }
                    } else {
                        j += 1;
                    }
                }
                out.push((Tok::Angle, k + 1..k + j.min(rest.len())));
                k += (j + 1).min(rest.len());
                continue;
            }
            // An encoded-word is one item even when its text holds a
            // special (`=?utf-8?q?Doe,_John?=`: RFC 2047 5 (3) forbids it,
            // mailers write it).
            b'=' if let Some(n) = encoded_word::word_len(rest) => (Tok::Phrase, k + n),
            // Raw ISO-2022-JP (`ESC $ B` ... `ESC ( B`): its two-octet
            // characters are ASCII octets, specials among them (`;3ED` is
            // 山田), so the run to the escape back to ASCII is one item.
            0x1B if let Some(n) = iso2022_run(rest) => (Tok::Phrase, k + n),
            b',' => (Tok::Comma, k + 1),
            b';' => (Tok::Semicolon, k + 1),
            b':' => (Tok::Colon, k + 1),
            _ => (
                Tok::Phrase,
                k + rest
                    .iter()
                    .position(|&c| {
                        is_fws(c) || matches!(c, b'(' | b'"' | b'<' | b',' | b';' | b':')
                    })
                    .unwrap_or(rest.len()),
            ),
        };
        out.push((tok, start..end.max(start + 1)));
        k = end.max(start + 1);
    }
    out
}

/// Parses an address list (From, To, Cc, Bcc, Reply-To, Sender, ...).
/// Never fails.
pub fn parse_address_list(value: &[u8]) -> AddressList {
    parse_address_list_with(value, &DecodeOptions::default())
}

/// [`parse_address_list`] with charset decoding options.
pub fn parse_address_list_with(value: &[u8], opts: &DecodeOptions) -> AddressList {
    parse(value, opts, false)
}

/// [`parse_address_list_with`] for what an audit reads of a list: the
/// encoded-words of its display names, group names and comments. A
/// phrase that cannot hold one (it lacks `=` or `?`, which no quoting or
/// comment removal brings together) is not decoded: its `DecodedText` is
/// empty (a display name is then None); addresses are not read
/// (`addr_spec` is None), and the list's findings are only those of what
/// was decoded. A To or Cc field of forty names with one encoded-word among
/// them had each name decoded and each address copied, then dropped.
pub(crate) fn parse_address_list_words(value: &[u8], opts: &DecodeOptions) -> AddressList {
    parse(value, opts, true)
}

/// `words_only`: as [`parse_address_list_words`].
fn parse(value: &[u8], opts: &DecodeOptions, words_only: bool) -> AddressList {
    let toks = tokens(value);
    let mut list = AddressList::default();
    let mut group: Option<usize> = None;
    let mut cur: Vec<(Tok, Range<usize>)> = Vec::new();
    for (tok, r) in toks {
        match tok {
            Tok::Comma => finish(value, &mut cur, group, opts, words_only, &mut list),
            Tok::Semicolon => {
                finish(value, &mut cur, group, opts, words_only, &mut list);
                if group.is_none() {
                    list.findings
                        .push(malformed(r.start, "';' outside a group"));
                }
                group = None;
            }
            Tok::Colon if !cur.iter().any(|t| t.0 == Tok::Angle) => {
                // The phrase so far names a group; a comment is kept in it.
                let (name, span) = phrase_of(value, &cur, opts, words_only);
                if group.is_some() {
                    list.findings.push(malformed(r.start, "nested group"));
                }
                for (t, cr) in &cur {
                    if *t == Tok::Comment {
                        let c = comment_text(value, cr.clone(), opts);
                        list.findings.extend(c.findings.iter().cloned());
                    }
                }
                list.findings.extend(name.findings.iter().cloned());
                list.groups.push(Group {
                    name,
                    name_span: span.unwrap_or(r.start..r.start),
                });
                group = Some(list.groups.len() - 1);
                cur.clear();
            }
            _ => cur.push((tok, r)),
        }
    }
    finish(value, &mut cur, group, opts, words_only, &mut list);
    if group.is_some() {
        // An unterminated group is common and harmless.
    }
    list
}

/// The display name made of the phrase items of `items` (comments left
/// out), and its span. `words_only`: not decoded (empty) when the span
/// lacks `=` or `?` ([`parse_address_list_words`]).
fn phrase_of(
    value: &[u8],
    items: &[(Tok, Range<usize>)],
    opts: &DecodeOptions,
    words_only: bool,
) -> (DecodedText, Option<Range<usize>>) {
    let mut phrase = items.iter().filter(|t| t.0 == Tok::Phrase).map(|t| &t.1);
    let Some(first) = phrase.next() else {
        return (DecodedText::default(), None);
    };
    let last = phrase.next_back().unwrap_or(first);
    let span = first.start..last.end;
    if words_only
        && value
            .get(span.clone())
            .is_none_or(|p| memchr::memchr(b'=', p).is_none() || memchr::memchr(b'?', p).is_none())
    {
        return (DecodedText::default(), Some(span));
    }
    let has_comment = items
        .iter()
        .any(|t| t.0 == Tok::Comment && t.1.start > span.start && t.1.end < span.end);
    let text = if has_comment {
        // A run of white space and comments (CFWS) inside the phrase
        // becomes one space; offsets are then approximate.
        let mut bytes = Vec::with_capacity(span.len());
        let mut cfws: Option<(usize, bool)> = None; // (start in value, has comment)
        for (t, r) in items {
            if r.start < span.start || r.end > span.end {
                continue;
            }
            match t {
                Tok::Comment | Tok::Ws => {
                    let c = cfws.get_or_insert((r.start, false));
                    c.1 |= *t == Tok::Comment;
                }
                _ => {
                    if let Some((start, has_comment)) = cfws.take() {
                        if has_comment {
                            bytes.push(b' ');
                        } else {
                            bytes.extend_from_slice(&value[start..r.start]);
                        }
                    }
                    bytes.extend_from_slice(&value[r.clone()]);
                }
            }
        }
        encoded_word::decode_with(&bytes, Context::Phrase, opts)
    } else {
        encoded_word::decode_with(&value[span.clone()], Context::Phrase, opts)
    };
    (shift(text, span.start), Some(span))
}

fn shift(mut d: DecodedText, by: usize) -> DecodedText {
    for f in &mut d.findings {
        f.offset += by;
    }
    for w in &mut d.words {
        w.offset += by;
    }
    d
}

fn comment_text(value: &[u8], r: Range<usize>, opts: &DecodeOptions) -> DecodedText {
    let inner = &value[r.clone()];
    let inner = inner.strip_prefix(b"(").unwrap_or(inner);
    let inner = inner.strip_suffix(b")").unwrap_or(inner);
    let unq = lexer::unquote(inner);
    shift(
        encoded_word::decode_with(lexer::trim_fws(&unq), Context::Unstructured, opts),
        r.start + 1,
    )
}

/// Ends the mailbox made of `cur`. `words_only`: as
/// [`parse_address_list_words`] (no addr-spec).
fn finish(
    value: &[u8],
    cur: &mut Vec<(Tok, Range<usize>)>,
    group: Option<usize>,
    opts: &DecodeOptions,
    words_only: bool,
    list: &mut AddressList,
) {
    if cur.iter().all(|t| t.0 == Tok::Ws) {
        cur.clear();
        return;
    }
    let mut mb = Mailbox {
        group,
        ..Mailbox::default()
    };
    for (t, r) in cur.iter() {
        if *t == Tok::Comment {
            let c = comment_text(value, r.clone(), opts);
            list.findings.extend(c.findings.iter().cloned());
            mb.comments.push(c);
        }
    }
    match cur.iter().position(|t| t.0 == Tok::Angle) {
        Some(a) => {
            let r = cur[a].1.clone();
            if cur.iter().filter(|t| t.0 == Tok::Angle).count() > 1 {
                list.findings
                    .push(malformed(r.start, "more than one <address> in a mailbox"));
            }
            if !words_only {
                let (addr, span) = addr_spec(value, r, opts, &mut list.findings);
                mb.addr_spec = Some(addr);
                mb.addr_span = Some(span);
            }
            let (name, span) = phrase_of(value, &cur[..a], opts, words_only);
            if span.is_some() {
                // An empty name (`"" <a@b>`) is no name; the span stays.
                list.findings.extend(name.findings.iter().cloned());
                mb.display_name = (!name.text.is_empty()).then_some(name);
                mb.display_name_span = span;
            } else if cur[a + 1..].iter().any(|t| t.0 == Tok::Phrase) {
                // `<a@b> Name`: a phrase after the address.
                let (name, span) = phrase_of(value, &cur[a + 1..], opts, words_only);
                list.findings.push(malformed(
                    span.as_ref().map_or(0, |s| s.start),
                    "display name after the address",
                ));
                list.findings.extend(name.findings.iter().cloned());
                mb.display_name = Some(name);
                mb.display_name_span = span;
            }
        }
        None if words_only => {}
        None => {
            // A bare addr-spec: the phrase items as written, comments removed.
            let items: Vec<&Range<usize>> = cur
                .iter()
                .filter(|t| t.0 != Tok::Comment)
                .map(|t| &t.1)
                .collect();
            if let (Some(first), Some(last)) = (items.first(), items.last())
                && cur.iter().any(|t| t.0 == Tok::Phrase)
            {
                let span = first.start..last.end;
                let (addr, span) = addr_spec(value, span, opts, &mut list.findings);
                if !addr.is_empty() {
                    mb.addr_spec = Some(addr);
                    mb.addr_span = Some(span);
                }
            }
        }
    }
    cur.clear();
    list.mailboxes.push(mb);
}

/// The addr-spec in `r`, as written but without its CFWS: comments and
/// white space outside quoted strings are removed (RFC 5322 4.4: they are
/// not part of the address). Raw 8-bit octets are decoded by the RFC 6532
/// rule.
///
/// ```abnf
/// addr-spec = local-part "@" domain    ; RFC 5322 3.4.1 (kept as written)
/// ```
fn addr_spec(
    value: &[u8],
    r: Range<usize>,
    opts: &DecodeOptions,
    findings: &mut Vec<Finding>,
) -> (String, Range<usize>) {
    let raw = &value[r.clone()];
    if !raw.iter().any(|&b| is_fws(b) || b == b'(' || b == b'"') {
        // Nothing to remove: the common case.
        let (s, raw8) = decode_raw(raw, r.start, opts);
        if let Some((_, f)) = raw8 {
            findings.push(f);
        }
        return (s, r);
    }
    let mut bytes = Vec::with_capacity(raw.len());
    let mut k = 0;
    while k < raw.len() {
        match raw[k] {
            b'(' => match lexer::comment(&raw[k..]) {
                Ok((rest, _)) => k = raw.len() - rest.len(),
                Err(_) => k += 1,
            },
            b'"' => {
                let end = match lexer::quoted_string(&raw[k..]) {
                    Ok((rest, _)) => raw.len() - rest.len(),
                    Err(_) => k + 1,
                };
                bytes.extend_from_slice(&raw[k..end]);
                k = end;
            }
            b if is_fws(b) => k += 1,
            b => {
                bytes.push(b);
                k += 1;
            }
        }
    }
    let trimmed = &bytes[..];
    let lead = raw.iter().position(|&b| !is_fws(b)).unwrap_or(0);
    let (s, raw8) = decode_raw(trimmed, r.start + lead, opts);
    if let Some((_, f)) = raw8 {
        findings.push(f);
    }
    let trail = raw.iter().rev().position(|&b| !is_fws(b)).unwrap_or(0);
    (s, r.start + lead..(r.end - trail).max(r.start + lead))
}

/// Message identifiers (`Message-ID`, `In-Reply-To`, `References`), as
/// written between the angle brackets, comments outside them skipped. A
/// value without any `<` is taken as one bare identifier (real mail has
/// them); `<>` yields nothing.
///
/// ```abnf
/// msg-id = [CFWS] "<" id-left "@" id-right ">" [CFWS]   ; RFC 5322 3.6.4
/// ```
pub fn parse_msg_ids(value: &[u8]) -> Vec<String> {
    let mut ids = Vec::new();
    let mut i = value;
    let mut bracketed = false;
    loop {
        i = lexer::cfws(i);
        let Some(&b) = i.first() else {
            break;
        };
        if b == b'<' {
            bracketed = true;
            let rest = &i[1..];
            let end = memchr::memchr(b'>', rest).unwrap_or(rest.len());
            let id = lexer::unfold(&rest[..end]);
            if !id.is_empty() {
                ids.push(String::from_utf8_lossy(&id).into_owned());
            }
            i = rest.get(end + 1..).unwrap_or(&[]);
        } else {
            // Not an id: skip to the next white space or `<`.
            let n = i
                .iter()
                .position(|&c| is_fws(c) || c == b'<' || c == b'(')
                .unwrap_or(i.len())
                .max(1);
            i = &i[n..];
        }
    }
    if !bracketed {
        let bare = lexer::trim_fws(value);
        if !bare.is_empty() {
            ids.push(String::from_utf8_lossy(&lexer::unfold(bare)).into_owned());
        }
    }
    ids
}

/// A comma-separated list of phrases (`Keywords`, RFC 5322 3.6.5), each
/// decoded as [`super::decode_phrase`] does; empty items are left out.
///
/// ```abnf
/// keywords = "Keywords:" phrase *("," phrase) CRLF
/// ```
pub fn decode_phrase_list(value: &[u8]) -> Vec<DecodedText> {
    let toks = tokens(value);
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |from: usize, to: usize| {
        let d = shift(
            encoded_word::decode_with(&value[from..to], Context::Phrase, &DecodeOptions::default()),
            from,
        );
        if !d.text.is_empty() {
            out.push(d);
        }
    };
    for (tok, r) in &toks {
        if *tok == Tok::Comma {
            push(start, r.start);
            start = r.end;
        }
    }
    push(start, value.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &str) -> Vec<(Option<String>, Option<String>)> {
        parse_address_list(v.as_bytes())
            .mailboxes
            .into_iter()
            .map(|m| (m.display_name.map(|d| d.text), m.addr_spec))
            .collect()
    }

    #[test]
    fn specials_inside_an_encoded_word_do_not_split() {
        assert_eq!(
            pairs("=?utf-8?q?Doe,_John?= <j@d>, x@y"),
            [
                (Some("Doe, John".into()), Some("j@d".into())),
                (None, Some("x@y".into())),
            ]
        );
        let k: Vec<String> = decode_phrase_list(b"a, =?utf-8?q?b,c?= , \"d, e\",,")
            .into_iter()
            .map(|d| d.text)
            .collect();
        assert_eq!(k, ["a", "b,c", "d, e"]);
        assert_eq!(parse_msg_ids(b" <a@b> (c) <> <d@e>"), ["a@b", "d@e"]);
        assert_eq!(parse_msg_ids(b" bare@id "), ["bare@id"]);
        assert!(parse_msg_ids(b"<>").is_empty());
    }

    #[test]
    fn display_names_are_decoded_addresses_kept() {
        assert_eq!(
            pairs("=?utf-8?q?J=C3=B6rg?= <a@b.c>, \"X, Y\" <x@y>, z@w (Zed)"),
            [
                (Some("Jörg".into()), Some("a@b.c".into())),
                (Some("X, Y".into()), Some("x@y".into())),
                (None, Some("z@w".into())),
            ]
        );
        let l = parse_address_list(b"A Group: a@b, C <c@d>; e@f");
        assert_eq!(l.groups.len(), 1);
        assert_eq!(l.groups[0].name.text, "A Group");
        assert_eq!(l.mailboxes[1].group, Some(0));
        assert_eq!(l.mailboxes[2].group, None);
        // An address that looks like an encoded-word stays as written.
        assert_eq!(
            pairs("<=?utf-8?q?x?=@example.org>")[0].1.as_deref(),
            Some("=?utf-8?q?x?=@example.org")
        );
    }

    /// What an audit reads of a list ([`parse_address_list_words`]): the
    /// encoded-words of its display names, comments and group names, and
    /// the malformed-word findings beside them.
    fn words_read(l: &AddressList) -> Vec<String> {
        let phrases = l
            .mailboxes
            .iter()
            .flat_map(|m| m.display_name.iter().chain(m.comments.iter()))
            .chain(l.groups.iter().map(|g| &g.name));
        let mut out = Vec::new();
        // In order, phrase by phrase; the phrases without any are none of
        // the audit's business (their count differs: a name not decoded
        // is None).
        for d in phrases {
            for w in &d.words {
                out.push(format!("{} {} {:?} {}", w.offset, w.len, w.label, w.run));
            }
            for f in &d.findings {
                if f.kind == crate::finding::FindingKind::MalformedEncodedWord {
                    out.push(format!("{} {:?}", f.offset, f.note));
                }
            }
        }
        out
    }

    #[test]
    fn the_audits_reading_has_every_encoded_word_of_the_full_parse() {
        let opts = DecodeOptions::default();
        for v in [
            &b"=?utf-8?q?J=C3=B6rg?= <a@b.c>, \"X, Y\" <x@y>, z@w (Zed)"[..],
            b"Plain Name <a@b>, \"=?iso-8859-1?q?Andr=E9?=\" <c@d>, e@f (=?utf-8?q?c?=)",
            b"A Group: =?utf-8?b?w6k=?= <a@b>, C <c@d>; \"x=\\?y\" <e@f>",
            b"=?utf-8?q?bad_no_end <a@b>, =?x-unknown?q?y?= <c@d>, n (c) m <e@f>",
            b"<a@b> =?utf-8?q?after?=, =?utf-8?q?G?=: ; a = ? b <c@d>",
            b"\"a=\" \"?b\" <c@d>, =?utf-8?Q?=E2=82?= =?utf-8?Q?=AC?= <e@f>",
            b"",
        ] {
            let full = parse_address_list_with(v, &opts);
            let words = parse_address_list_words(v, &opts);
            assert_eq!(
                words_read(&words),
                words_read(&full),
                "{}",
                String::from_utf8_lossy(v)
            );
        }
    }
}
