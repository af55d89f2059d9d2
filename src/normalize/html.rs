//! HTML charset declarations: after a text/html part is converted, its
//! `<meta charset=...>` and `<meta http-equiv="Content-Type"
//! content="...; charset=...">` must say utf-8, or a browser would read the
//! UTF-8 bytes in the old charset.

use crate::mime::find_ci;
use std::borrow::Cow;

/// Rewrites the charset value of every `<meta ...>` tag that starts within
/// the window the reading looks in (the first 1024 octets, and on to the
/// first `<body` tag within 64 KiB: `mime::html_declaration_window`) to
/// `utf-8`: a `<meta>` rewritten is one the text was read by (or weighed
/// against, under a Content-Type `charset`). The attribute names are
/// matched ASCII case-insensitively, quotes are optional; text outside
/// `<meta>` tags is never touched. Borrows when nothing changed.
///
/// ```
/// use mailcharset::normalize::rewrite_meta_charset;
/// assert_eq!(
///     rewrite_meta_charset(r#"<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=ISO-8859-1">"#),
///     r#"<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=utf-8">"#
/// );
/// assert_eq!(rewrite_meta_charset("<meta charset=koi8-r>"), "<meta charset=utf-8>");
/// assert_eq!(rewrite_meta_charset("<p>charset=latin1</p>"), "<p>charset=latin1</p>");
/// ```
pub fn rewrite_meta_charset(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let window = crate::mime::html_declaration_window(bytes);
    // (start, end) of each charset value to replace.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < window {
        let Some(k) = find_ci(&bytes[at..window], b"<meta") else {
            break;
        };
        let tag_start = at + k;
        let after_name = tag_start + 5;
        // `<meta` must be followed by white space, `/` or `>`.
        if !bytes
            .get(after_name)
            .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        {
            at = after_name;
            continue;
        }
        let tag_end =
            memchr::memchr(b'>', &bytes[after_name..]).map_or(bytes.len(), |e| after_name + e);
        let tag = &bytes[after_name..tag_end];
        let mut s = 0;
        while let Some(c) = find_ci(&tag[s..], b"charset") {
            let mut j = s + c + 7;
            while tag.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            if tag.get(j) != Some(&b'=') {
                s = j;
                continue;
            }
            j += 1;
            while tag.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            if matches!(tag.get(j), Some(b'"' | b'\'')) {
                j += 1;
            }
            let v = j;
            while tag.get(j).is_some_and(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')
            }) {
                j += 1;
            }
            if j > v && !tag[v..j].eq_ignore_ascii_case(b"utf-8") {
                spans.push((after_name + v, after_name + j));
            }
            s = j.max(s + c + 7);
        }
        at = tag_end;
    }
    replace_spans(html, &spans, "utf-8")
}

/// `text` with each of `spans` (sorted, not overlapping, ASCII runs: their
/// ends are char boundaries) replaced by `with`; borrowed when there are
/// none.
pub(super) fn replace_spans<'a>(
    text: &'a str,
    spans: &[(usize, usize)],
    with: &str,
) -> Cow<'a, str> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut last = 0;
    for &(s, e) in spans {
        out.push_str(text.get(last..s).unwrap_or(""));
        out.push_str(with);
        last = e;
    }
    out.push_str(text.get(last..).unwrap_or(""));
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::rewrite_meta_charset as r;

    #[test]
    fn meta_forms() {
        assert_eq!(
            r("<meta charset=\"windows-1252\">"),
            "<meta charset=\"utf-8\">"
        );
        assert_eq!(r("<meta charset='x' />"), "<meta charset='utf-8' />");
        assert_eq!(
            r(
                "<html><head><meta http-equiv=Content-Type content=\"text/html;charset=gb2312\"></head>"
            ),
            "<html><head><meta http-equiv=Content-Type content=\"text/html;charset=utf-8\"></head>"
        );
        assert_eq!(
            r("<Meta\n  Charset = Shift_JIS >"),
            "<Meta\n  Charset = utf-8 >"
        );
    }

    #[test]
    fn leaves_everything_else() {
        for s in [
            "<meta charset=utf-8>",
            "<meta charset=UTF-8>",
            "<metadata charset=latin1>",
            "<p>charset=latin1</p>",
            "<meta name=x content=y>",
            "<meta charset=",
            "",
            "<meta",
        ] {
            assert!(matches!(r(s), std::borrow::Cow::Borrowed(_)), "{s}");
        }
        // Past the scan window: left alone.
        let late = format!(
            "{}<meta charset=latin1>",
            " ".repeat(crate::mime::HTML_DECLARATION_LIMIT)
        );
        assert_eq!(r(&late), late);
        // Below `<body>` past 1024 octets (a quoted message's head): left
        // alone, as the reading passes it over; in the head, rewritten.
        let quoted = format!(
            "<html><head><meta charset=koi8-r></head><body>{}<blockquote><meta charset=latin1>",
            "x".repeat(2000)
        );
        assert_eq!(
            r(&quoted),
            quoted.replacen("koi8-r", "utf-8", 1),
            "only the head's"
        );
    }
}
