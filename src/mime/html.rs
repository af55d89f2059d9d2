//! The charset an HTML document declares about itself: a byte order mark,
//! else the WHATWG "prescan a byte stream to determine its encoding"
//! (HTML Living Standard 13.2.3.2), over the first 64 KiB
//! ([`DECLARATION_LIMIT`]) rather than 1024 octets: the first
//! `<meta charset=...>` or `<meta http-equiv="Content-Type" content="...;
//! charset=...">` whose label names a charset, skipping comments and the
//! attributes of other tags the way a browser does.
//!
//! This is parsing only; which label wins (the Content-Type parameter
//! does, when there is one) is decided by `message::Part::body_label`.

use crate::charset;
use std::ops::Range;

/// How far into an HTML document its `<meta>` declaration is looked for.
/// WHATWG's prescan stops at 1024 octets, but a browser's tree builder
/// still honours a `<meta>` found later (it "changes the encoding" and
/// reparses), and mail puts one there, after a long `<style>`. Looked for
/// by the reading ([`html_charset`]) and by the rewriter that makes a
/// converted part's `<meta>` say utf-8 (`normalize::rewrite_meta_charset`)
/// alike: a declaration the rewriter replaces is one the reading saw. It
/// used to be 1024 octets for the one and 8 KiB for the other, so a
/// Hungarian page whose `<meta charset=iso-8859-2>` came after a 1.1 KiB
/// style sheet was guessed as windows-1252 (`keresõ`) and its `<meta>`
/// then rewritten to utf-8: the declaration that named the charset was
/// lost.
pub const DECLARATION_LIMIT: usize = 64 * 1024;

/// WHATWG's prescan window: every `<meta>` in it is read, in the head or
/// not.
const PRESCAN_LIMIT: usize = 1024;

/// How many octets of `html` its declaration is looked for in: the first
/// 1024 (WHATWG's prescan), and on up to the first `<body` tag, within
/// [`DECLARATION_LIMIT`]. A `<meta>` past the prescan and below `<body>`
/// is no declaration of the page: it is the head of a quoted or forwarded
/// message (an independent review: a UTF-8 reply quoting an old page's
/// `<meta charset=iso-8859-1>` was read as Latin-1, `Merci, Ã  bientÃ´t`).
/// The reading and the rewriter use the same window.
pub fn declaration_window(html: &[u8]) -> usize {
    let cap = html.len().min(DECLARATION_LIMIT);
    let floor = PRESCAN_LIMIT.min(cap);
    // Tag by tag: `<body` in a comment, a script or a style sheet (a
    // template's `document.write("<body>")`) is no body tag.
    let starts = |at: usize, name: &[u8]| {
        html.get(at..at + name.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(name))
            && html
                .get(at + name.len())
                .is_none_or(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')
    };
    let skip_to = |from: usize, end: &[u8]| {
        crate::mime::find_ci(&html[from.min(cap)..cap], end).map_or(cap, |k| from + k + end.len())
    };
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'<', &html[at..cap]) {
        let lt = at + k;
        at = if html[lt..].starts_with(b"<!--") {
            skip_to(lt + 4, b"-->")
        } else if starts(lt + 1, b"script") {
            skip_to(lt + 7, b"</script")
        } else if starts(lt + 1, b"style") {
            skip_to(lt + 6, b"</style")
        } else if starts(lt + 1, b"body") {
            return lt.max(floor);
        } else {
            lt + 1
        };
    }
    cap
}

/// Where an HTML document's own charset declaration is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HtmlCharset {
    /// A byte order mark naming this charset (`UTF-8`, `UTF-16BE`,
    /// `UTF-16LE`).
    Bom(&'static str),
    /// A `<meta>` label: its octets as written (`range` in the input), or,
    /// where WHATWG substitutes (a UTF-16/32 label in markup read as ASCII
    /// means UTF-8; `x-user-defined` means windows-1252), the label used
    /// instead.
    Meta {
        /// The label's octets in the input.
        range: Range<usize>,
        /// The label to decode with when it is not the one written.
        instead: Option<&'static str>,
    },
}

/// The charset `html` declares: a byte order mark, else the first `<meta>`
/// label in the first 64 KiB ([`DECLARATION_LIMIT`]) that names a charset this
/// crate knows (an unknown label, or one that names no charset such as
/// `x-unknown`, is passed over, as WHATWG passes over labels it does not
/// know).
///
/// ```
/// use mailcharset::mime::{HtmlCharset, html_charset};
/// let html = b"<html><head><meta charset=\"iso-8859-2\"></head>";
/// let Some(HtmlCharset::Meta { range, instead: None }) = html_charset(html) else { panic!() };
/// assert_eq!(&html[range], b"iso-8859-2");
/// let html = b"<!-- <meta charset=koi8-r> --><META HTTP-EQUIV=Content-Type CONTENT='text/html; charset=windows-1251'>";
/// let Some(HtmlCharset::Meta { range, .. }) = html_charset(html) else { panic!() };
/// assert_eq!(&html[range], b"windows-1251");
/// assert_eq!(html_charset(b"\xef\xbb\xbf<p>"), Some(HtmlCharset::Bom("UTF-8")));
/// assert_eq!(html_charset(b"<p>charset=latin1</p>"), None);
/// ```
pub fn html_charset(html: &[u8]) -> Option<HtmlCharset> {
    if html.starts_with(b"\xEF\xBB\xBF") {
        return Some(HtmlCharset::Bom("UTF-8"));
    }
    if html.starts_with(b"\xFE\xFF") {
        return Some(HtmlCharset::Bom("UTF-16BE"));
    }
    if html.starts_with(b"\xFF\xFE") {
        return Some(HtmlCharset::Bom("UTF-16LE"));
    }
    prescan(&html[..declaration_window(html)])
}

fn is_space(b: u8) -> bool {
    matches!(b, 0x09 | 0x0A | 0x0C | 0x0D | 0x20)
}

/// The prescan proper, over `b` (already cut to the limit).
fn prescan(b: &[u8]) -> Option<HtmlCharset> {
    let mut pos = 0;
    while pos < b.len() {
        let rest = &b[pos..];
        if rest.starts_with(b"<!--") {
            // To the `>` of the first `-->` after `<!--` (`<!-->` ends too).
            pos = find(b, pos + 2, b"-->").map_or(b.len(), |e| e + 3);
            continue;
        }
        if rest.len() > 5
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && (is_space(rest[5]) || rest[5] == b'/')
        {
            pos += 5;
            if let Some(found) = meta(b, &mut pos) {
                return Some(found);
            }
            continue;
        }
        let letter_at = |i: usize| rest.get(i).is_some_and(u8::is_ascii_alphabetic);
        if rest[0] == b'<' && (letter_at(1) || (rest.get(1) == Some(&b'/') && letter_at(2))) {
            // A start or end tag: its name, then its attributes.
            while pos < b.len() && !is_space(b[pos]) && b[pos] != b'>' {
                pos += 1;
            }
            while attribute(b, &mut pos).is_some() {}
            pos += 1;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos = memchr::memchr(b'>', &b[pos + 2..]).map_or(b.len(), |e| pos + 2 + e + 1);
            continue;
        }
        pos += 1;
    }
    None
}

/// The attributes of one `<meta` tag (`pos` after `<meta`): its charset
/// declaration if it makes one. `pos` ends after the tag's attributes.
fn meta(b: &[u8], pos: &mut usize) -> Option<HtmlCharset> {
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    // None: no charset attribute or content; Some(true): from `content`,
    // which needs `http-equiv=content-type`.
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<HtmlCharset> = None;
    while let Some(a) = attribute(b, pos) {
        let name = b[a.name.clone()].to_ascii_lowercase();
        if names.contains(&name) {
            continue;
        }
        let value = &b[a.value.clone()];
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value.eq_ignore_ascii_case(b"content-type"),
            b"content" if charset.is_none() => {
                if let Some(r) = from_content(value) {
                    let r = a.value.start + r.start..a.value.start + r.end;
                    if let Some(found) = label(b, r) {
                        charset = Some(found);
                        need_pragma = Some(true);
                    }
                }
            }
            b"charset" => {
                charset = label(b, a.value.clone());
                need_pragma = Some(false);
            }
            _ => {}
        }
        names.push(name);
    }
    match need_pragma {
        None => None,
        Some(true) if !got_pragma => None,
        _ => charset,
    }
}

/// One attribute: the ranges of its name and value in `b`.
struct Attribute {
    name: Range<usize>,
    value: Range<usize>,
}

/// WHATWG "get an attribute", over octet ranges (names and values are
/// compared case-insensitively by the caller instead of lowercased here).
/// None when the tag ends (`>`, left for the caller to step over) or the
/// input does.
fn attribute(b: &[u8], pos: &mut usize) -> Option<Attribute> {
    while *pos < b.len() && (is_space(b[*pos]) || b[*pos] == b'/') {
        *pos += 1;
    }
    if *pos >= b.len() || b[*pos] == b'>' {
        return None;
    }
    let start = *pos;
    // The name: up to `=` (not as its first octet), space, `/` or `>`.
    loop {
        let c = *b.get(*pos)?;
        if c == b'=' && *pos > start {
            break;
        }
        if is_space(c) || c == b'/' || c == b'>' {
            let name = start..*pos;
            if c != b'/' && c != b'>' {
                // Spaces, then `=` or another attribute.
                while *pos < b.len() && is_space(b[*pos]) {
                    *pos += 1;
                }
                if b.get(*pos) == Some(&b'=') {
                    break;
                }
            }
            return Some(Attribute {
                name,
                value: *pos..*pos,
            });
        }
        *pos += 1;
    }
    let name_end = {
        let mut e = *pos;
        while e > start && is_space(b[e - 1]) {
            e -= 1;
        }
        e
    };
    let name = start..name_end;
    *pos += 1; // the `=`
    while *pos < b.len() && is_space(b[*pos]) {
        *pos += 1;
    }
    let q = *b.get(*pos)?;
    if q == b'"' || q == b'\'' {
        let v = *pos + 1;
        // A quote that does not end before the input does ends the prescan
        // (WHATWG: running out of bytes): what follows is inside the value.
        let Some(end) = memchr::memchr(q, &b[v..]).map(|e| e + v) else {
            *pos = b.len();
            return None;
        };
        *pos = end + 1;
        return Some(Attribute {
            name,
            value: v..end,
        });
    }
    if q == b'>' {
        return Some(Attribute {
            name,
            value: *pos..*pos,
        });
    }
    let v = *pos;
    while *pos < b.len() && !is_space(b[*pos]) && b[*pos] != b'>' {
        *pos += 1;
    }
    if *pos >= b.len() {
        return None;
    }
    Some(Attribute {
        name,
        value: v..*pos,
    })
}

/// WHATWG "extract a character encoding from a meta element": the range of
/// the label in a `content` value (`text/html; charset=...`).
fn from_content(v: &[u8]) -> Option<Range<usize>> {
    let mut pos = 0;
    loop {
        let at = super::find_ci(&v[pos..], b"charset")? + pos;
        let mut j = at + 7;
        while j < v.len() && is_space(v[j]) {
            j += 1;
        }
        if v.get(j) != Some(&b'=') {
            pos = j;
            continue;
        }
        j += 1;
        while j < v.len() && is_space(v[j]) {
            j += 1;
        }
        let q = *v.get(j)?;
        if q == b'"' || q == b'\'' {
            let end = memchr::memchr(q, &v[j + 1..])? + j + 1;
            return Some(j + 1..end);
        }
        let mut e = j;
        while e < v.len() && !is_space(v[e]) && v[e] != b';' {
            e += 1;
        }
        return Some(j..e);
    }
}

/// WHATWG "get an encoding" for a label in `b[r]`: white space trimmed; a
/// label that names no charset we know is no declaration.
fn label(b: &[u8], mut r: Range<usize>) -> Option<HtmlCharset> {
    while r.start < r.end && is_space(b[r.start]) {
        r.start += 1;
    }
    while r.end > r.start && is_space(b[r.end - 1]) {
        r.end -= 1;
    }
    let cs = charset::resolve(Some(&b[r.clone()])).charset?;
    if cs.is_unknown_8bit() {
        return None;
    }
    let instead = if cs.name().starts_with("UTF-16") || cs.name().starts_with("UTF-32") {
        // Markup the prescan read as ASCII is not UTF-16 (WHATWG), nor
        // UTF-32.
        Some("UTF-8")
    } else if cs.name() == "x-user-defined" {
        Some("windows-1252")
    } else {
        None
    };
    Some(HtmlCharset::Meta { range: r, instead })
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay.get(from..)?, needle).map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta_label(html: &[u8]) -> Option<String> {
        match html_charset(html)? {
            HtmlCharset::Meta { range, instead } => Some(
                instead
                    .map(str::to_string)
                    .unwrap_or_else(|| String::from_utf8_lossy(&html[range]).into_owned()),
            ),
            HtmlCharset::Bom(b) => Some(format!("bom:{b}")),
        }
    }

    #[test]
    fn the_forms_browsers_read() {
        for (html, want) in [
            (&b"<meta charset=iso-8859-2>"[..], Some("iso-8859-2")),
            (b"<meta charset='koi8-r'/>", Some("koi8-r")),
            (b"<META CHARSET = \" windows-1250 \">", Some("windows-1250")),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-7\">",
                Some("iso-8859-7"),
            ),
            (
                b"<meta content='text/html;charset=\"gb2312\"' http-equiv=content-type>",
                Some("gb2312"),
            ),
            // content without http-equiv: no declaration.
            (b"<meta content=\"text/html; charset=koi8-r\">", None),
            // The first meta that declares wins; an unknown label is passed over.
            (
                b"<meta charset=bogus><meta charset=windows-1251><meta charset=koi8-r>",
                Some("windows-1251"),
            ),
            (b"<meta charset=x-unknown><meta charset=big5>", Some("big5")),
            // Commented out, in another tag's attribute, in text: not read.
            (b"<!-- <meta charset=koi8-r> --><p>", None),
            (b"<!--><meta charset=koi8-r>", Some("koi8-r")),
            (b"<a title='<meta charset=koi8-r>'>x</a>", None),
            (b"<p>charset=koi8-r</p>", None),
            (b"<metadata charset=koi8-r>", None),
            (b"<meta name=x><meta charset=euc-kr>", Some("euc-kr")),
            // WHATWG's substitutions.
            (b"<meta charset=utf-16le>", Some("UTF-8")),
            (b"<meta charset=x-user-defined>", Some("windows-1252")),
            // Cut off: nothing.
            (b"<meta charset=", None),
            (b"<meta charset=\"koi8-r", None),
            // A quote that runs to the end: the rest is inside it.
            (b"<meta name=\"x>\n<meta charset=koi8-r>", None),
            (b"<a title='x>\n<meta charset=koi8-r>", None),
            (b"<meta", None),
            (b"", None),
        ] {
            assert_eq!(
                meta_label(html).as_deref(),
                want,
                "{}",
                String::from_utf8_lossy(html)
            );
        }
    }

    #[test]
    fn only_the_first_64_kib() {
        let mut html = vec![b' '; DECLARATION_LIMIT - 24];
        html.extend_from_slice(b"<meta charset=koi8-r>");
        assert_eq!(meta_label(&html).as_deref(), Some("koi8-r"));
        let mut late = vec![b' '; DECLARATION_LIMIT];
        late.extend_from_slice(b"<meta charset=koi8-r>");
        assert_eq!(meta_label(&late), None);
        // Past WHATWG's 1024 octets, after a style sheet: read (it was not).
        let mut styled = b"<html><head><style>".to_vec();
        while styled.len() < 3 * 1024 {
            styled.extend_from_slice(b"\n.c { font-family: Calibri, Arial; margin: 0; }");
        }
        styled.extend_from_slice(b"</style><meta charset=\"iso-8859-2\"></head>");
        assert_eq!(meta_label(&styled).as_deref(), Some("iso-8859-2"));
        // Below `<body>` and past 1024 octets: a quoted message's head, no
        // declaration of this page. Within 1024 octets WHATWG reads it.
        let mut quoted = b"<html><body><p>Merci, \xc3\xa0 bient\xc3\xb4t</p>".to_vec();
        let early = [quoted.as_slice(), b"<meta charset=iso-8859-1>"].concat();
        assert_eq!(meta_label(&early).as_deref(), Some("iso-8859-1"));
        quoted.resize(1500, b' ');
        quoted.extend_from_slice(b"<blockquote><meta charset=iso-8859-1>");
        assert_eq!(meta_label(&quoted), None);
        assert_eq!(declaration_window(&quoted), 1024);
        assert_eq!(declaration_window(b"<html><head></head><bodyx>"), 26);
        // `<body` in a comment, a script or a style sheet of the head is no
        // body tag (an independent review: the window stopped there).
        for trap in [
            &b"<!-- <body> -->"[..],
            b"<script>document.write('<body>')</script>",
            b"<style>/* <body class=x> */</style>",
        ] {
            let mut page = b"<html><head>".to_vec();
            page.extend_from_slice(trap);
            page.resize(1500, b' ');
            page.extend_from_slice(b"<meta charset=\"iso-8859-2\"></head><body>");
            assert_eq!(meta_label(&page).as_deref(), Some("iso-8859-2"));
        }
    }

    #[test]
    fn byte_order_marks() {
        assert_eq!(meta_label(b"\xfe\xff\0<").as_deref(), Some("bom:UTF-16BE"));
        assert_eq!(meta_label(b"\xff\xfe<\0").as_deref(), Some("bom:UTF-16LE"));
        assert_eq!(
            meta_label(b"\xef\xbb\xbf<meta charset=koi8-r>").as_deref(),
            Some("bom:UTF-8")
        );
    }
}
