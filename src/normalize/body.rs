//! Text bodies: decode through the label (or detection), write as UTF-8.

use super::{
    Action, Ctx, Edit, NormalizeError, PartReport, declared, eol_of, html, label_text,
    line_ending_of, patch,
};
use crate::charset::{self, Charset};
use crate::finding::{FindingKind, Verdict};
use crate::message::transfer::{self, Cte};
use crate::message::{Message, Part};
use crate::mime::{LineEnding, WriteOptions, write_parameterized};
use std::borrow::Cow;

/// Converts one text/* leaf. Pushes the body and Content-Type /
/// Content-Transfer-Encoding edits, and records in `rewritten` the offsets
/// (in the part) of the fields it replaced, so the header pass leaves them.
pub(super) fn text_part(
    msg: &Message<'_>,
    part: &Part<'_>,
    ctx: &mut Ctx<'_>,
    rewritten: &mut Vec<usize>,
) -> Result<(), NormalizeError> {
    let ct = &part.content_type;
    // A transfer coding we do not know: the body is opaque (RFC 2045 6.4).
    if let crate::mime::TransferEncoding::Other(_) = part.transfer_encoding {
        return Ok(());
    }
    let transfer::TransferDecoded {
        bytes: decoded,
        findings: transfer_findings,
        not_encoded,
    } = part.transfer_decoded(msg);
    // The Content-Type's charset, or an HTML part's own declaration.
    let label = crate::message::body_label(ct, &decoded).map(|(l, _)| l);
    let body = charset::DecodeOptions {
        body: true,
        declared: crate::message::declared_label(ct, &decoded),
        ..ctx.dopts
    };
    let d = charset::decode(&decoded, label, &body);
    // No label, or one that failed: a multipart/alternative sibling's
    // charset, when its text has the same words (`message::sibling`).
    let d = crate::message::sibling::reread(msg, part, &decoded, label, d, &body);
    let used = d.used;
    let label_cs = charset::resolve(label).charset;
    let ascii = crate::codec::is_ascii(&decoded);
    // A damaged transfer coding is reported whatever is done with the text
    // (it used to be only when the part was kept for it: a base64 body cut
    // short, or with garbage in it, was converted without a word).
    let transfer_damaged = !transfer_findings.is_empty();
    let mut findings = transfer_findings;
    // Its header ended without the empty line: where the text starts is
    // this reader's (and Python's) reading, reported as the audit does.
    findings.extend(part.separator_finding());
    findings.extend(d.findings.iter().cloned());
    findings.extend(charset::possible_old_hangul(&d));
    let entry = PartReport {
        part: part.id.clone(),
        location: "body".into(),
        label: label.map(label_text),
        charset: used.map(Charset::name),
        action: Action::Unchanged,
        verdict: d.verdict.settle(&findings),
        findings,
    };
    // Not text (binary-in-text): kept byte for byte, never re-encoded.
    // Nor is text labelled base64 (`TransferDecoded::not_encoded`): read as
    // it stands for the report, but every reader decodes it as base64 (to
    // garbage), and which reading the sender meant is not ours to settle.
    if d.binary || not_encoded {
        ctx.report.parts.push(PartReport {
            action: Action::Kept,
            ..entry
        });
        return Ok(());
    }
    // A label common readers cannot decode (UNICODE-1-1-UTF-8, an unknown
    // label, x-unknown, unknown-8bit) is replaced by utf-8 even on ASCII.
    let unreadable_label =
        label.is_some() && label_cs.is_none_or(|c| c.is_unicode11_utf8() || c.is_unknown_8bit());
    // Already UTF-8, or ASCII under a label that reads ASCII as ASCII:
    // nothing to do.
    let unchanged = d.replacements == 0
        && d.verdict != Verdict::Mislabeled
        && d.verdict != Verdict::UnknownLabel
        && !unreadable_label
        && ((ascii
            && label_cs.map_or(label.is_none(), Charset::is_ascii_compatible)
            // Not ISO-2022-JP found in 7-bit text (doc/charset-decision.md).
            && used.is_none_or(Charset::is_ascii_compatible))
            || (label_cs.is_some_and(Charset::is_utf8)
                && used.is_some_and(Charset::is_utf8)
                // Not a repaired text (CESU-8): that one is written.
                && matches!(d.text, Cow::Borrowed(_))));
    if unchanged {
        ctx.report.parts.push(entry);
        return Ok(());
    }
    // UTF-8 as it stands: no character of it needs converting.
    let octets_kept = used.is_some_and(Charset::is_utf8)
        && d.replacements == 0
        && matches!(d.text, Cow::Borrowed(_));
    // A file the sender attached (a patch, a CSV, a log), or a patch sent
    // as text, inline: its octets are the file, read by the program it is
    // saved for (`git am` and `patch` apply a patch's octets as they stand;
    // git's mailinfo re-codes the commit message, not the diff), not by
    // the label. Unless asked for (`Options::convert_attachments`). A part
    // typed as a patch, or a text/plain body whose diff lines hold what
    // the conversion would change; 8-bit prose above an ASCII diff is
    // converted, the diff reading the same.
    let file = !ctx.opts.convert_attachments
        && (part.is_file()
            || patch::is_patch_type(&ct.subtype)
            || (ct.subtype == "plain" && patch::diff_lines_change(&decoded)));
    // Kept as it is, whatever the decision read:
    let keep =
        // RTF: a reader takes its 8-bit octets in the code page the
        // document names (`\ansicpg1252`), whatever the MIME label says;
        // written as UTF-8 every accented letter would read as two.
        ct.subtype == "rtf"
        // A damaged transfer coding whose result does not decode cleanly
        // under its label: re-encoding would bake one reader's guess at
        // the damage into the message.
        || (transfer_damaged && (d.replacements > 0 || d.verdict == Verdict::Mislabeled))
        // A file or a patch, unless it is UTF-8 as it stands (under a label
        // that said otherwise, or none): its label is corrected below.
        || (file && !octets_kept)
        // An OpenPGP clear-signed text (RFC 4880 7): the signature covers
        // the characters as written, so written as UTF-8 it reads "BAD
        // signature" in the recipient's client, which looks like
        // tampering. In its label's charset, which readers decode.
        || clear_signed(&decoded)
        // A charset we know but have no decoder for (VISCII, an EBCDIC
        // code page, ISO-2022-CN, SCSU): whatever detection reads is a
        // guess at a text whose charset is known, and the label says it is
        // not the guess's. Kept as written, reported `unsupported-charset`;
        // only plain ASCII text, without the escapes and shifts of the
        // 7-bit forms, is written as UTF-8.
        || (unsupported_label(&d) && (!ascii || has_shift_codes(&decoded)))
        // A vCard/vCalendar property whose `CHARSET=` names a charset the
        // text was not read in: its declaration is what an address book
        // follows, and it would be rewritten to UTF-8 over the guess.
        || (crate::mime::is_directory(&ct.subtype)
            && declared::vcard_charset_disagrees(
                &decoded,
                used,
                d.verdict == Verdict::Mislabeled,
            ));
    if keep {
        ctx.report.parts.push(PartReport {
            action: Action::Kept,
            ..entry
        });
        return Ok(());
    }
    let unsupported = unsupported_label(&d);
    // An unknown label on ASCII text loses nothing by becoming utf-8.
    let problem = d.replacements > 0
        || (d.verdict == Verdict::UnknownLabel && !ascii)
        || used.is_none()
        || (unsupported && !ascii);
    if problem {
        if !ctx.on_problem(entry, part.body.start)? {
            return Ok(());
        }
    } else {
        ctx.report.parts.push(PartReport {
            action: Action::Converted,
            ..entry
        });
    }
    // A file or a patch that is UTF-8 as it stands: only its label is
    // corrected, the body and its transfer coding stay as they came.
    // Written again as a text, its line ends became the message's (a CSV
    // or a script with LF lines in base64 came out with CRLF ones, a CRLF
    // one in an LF mailbox with LF ones) and its coding the writer's
    // choice. A `7bit` (or no) Content-Transfer-Encoding over its 8-bit
    // octets is made `8bit` (`binary` when its lines are not 8bit's), as
    // the coding a writer chooses made it honest before. Not when its own
    // declaration (a `<meta>`, an XML `encoding`) must be made to say
    // UTF-8: that changes its text anyway.
    if file && octets_kept && matches!(declaration_as_utf8(&ct.subtype, &d.text), Cow::Borrowed(_))
    {
        let body = part.raw_body(msg);
        let cte = (part.transfer_encoding == crate::mime::TransferEncoding::SevenBit
            && !transfer::is_7bit_clean(body))
        .then(|| {
            if is_8bit_clean(body) {
                Cte::EightBit
            } else {
                Cte::Binary
            }
        });
        header_fields(part, ctx, cte, line_ending_of(msg, part), rewritten);
        return Ok(());
    }
    let le = line_ending_of(msg, part);
    let eol = eol_of(le);
    // The document's own declaration must say what it now is: a saved
    // attachment is read by it (doc/normalize.md).
    let text: Cow<'_, str> = match declaration_as_utf8(&ct.subtype, &d.text) {
        Cow::Owned(s) => Cow::Owned(s),
        Cow::Borrowed(_) => d.text,
    };
    let text = with_line_endings(text.as_bytes(), eol);
    // A line that starts with `--` and the boundary of a multipart around
    // the part is that multipart's delimiter to every reader, whatever the
    // part's coding: written bare (7bit, 8bit, or quoted-printable, which
    // leaves `-` and can break a long line just before one), it would end
    // the part there, the text after it becoming parts of its own and the
    // parts after it an epilogue. Such a text is written in base64, whose
    // alphabet has no `-` (doc/normalize.md).
    let boundaries = enclosing_boundaries(msg, part);
    let safe = |body: &[u8]| !starts_a_line(body, &boundaries);
    let (cte, mut body) = if transfer::is_7bit_clean(&text) && safe(&text) {
        (Cte::SevenBit, text.into_owned())
    } else if ctx.opts.eight_bit && is_8bit_clean(&text) && safe(&text) {
        (Cte::EightBit, text.into_owned())
    } else {
        match transfer::choose_encoding(&text) {
            Cte::QuotedPrintable => match transfer::encode(Cte::QuotedPrintable, &text, eol) {
                qp if safe(&qp) => (Cte::QuotedPrintable, qp.into_owned()),
                _ => (
                    Cte::Base64,
                    transfer::encode(Cte::Base64, &text, eol).into_owned(),
                ),
            },
            cte => (cte, transfer::encode(cte, &text, eol).into_owned()),
        }
    };
    // Base64 ends without a line end; keep the one the body had.
    let raw_body = part.raw_body(msg);
    if cte == Cte::Base64 && raw_body.ends_with(b"\n") && !body.is_empty() {
        body.extend_from_slice(eol.as_bytes());
    }
    ctx.edits.push(Edit {
        range: part.body.clone(),
        bytes: body,
    });
    header_fields(part, ctx, Some(cte), le, rewritten);
    Ok(())
}

/// `text` (of a text/`subtype` part) with the declaration a reader of the
/// saved document follows made to say UTF-8 (doc/normalize.md): an HTML
/// `<meta>`, an XML `encoding`, a CSS `@charset`, a vCard's `CHARSET=`.
/// Borrowed when there is none to change.
fn declaration_as_utf8<'t>(subtype: &str, text: &'t str) -> Cow<'t, str> {
    if subtype == "html" {
        // XHTML sent as text/html opens with an XML declaration too, which
        // an XML reader of the saved page follows: both must say UTF-8
        // (the declaration kept `encoding="windows-1251"` over UTF-8 text
        // beside a `<meta>` that said utf-8).
        match html::rewrite_meta_charset(text) {
            Cow::Owned(t) => match declared::rewrite_xml_encoding(&t) {
                Cow::Owned(x) => Cow::Owned(x),
                Cow::Borrowed(_) => Cow::Owned(t),
            },
            Cow::Borrowed(_) => declared::rewrite_xml_encoding(text),
        }
    } else if crate::mime::is_xml(subtype) {
        declared::rewrite_xml_encoding(text)
    } else if subtype == "css" {
        declared::rewrite_css_charset(text)
    } else if crate::mime::is_directory(subtype) {
        declared::rewrite_vcard_charset(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// The boundaries of the multiparts `part` lies in, the nearest last,
/// through encapsulated messages (message/rfc822 in a multipart is inside
/// that multipart's body too).
fn enclosing_boundaries<'m>(msg: &'m Message<'_>, part: &Part<'_>) -> Vec<&'m [u8]> {
    use crate::message::PartKind;
    let mut out = Vec::new();
    let mut at = &msg.root;
    while !std::ptr::eq(at, part) {
        at =
            match &at.kind {
                PartKind::Leaf => break,
                PartKind::Message(inner) => inner,
                PartKind::Multipart(m) => {
                    // (what its delimiter lines start with)
                    out.push(crate::mime::boundary_core(&m.boundary));
                    // The parts of a multipart lie apart, delimiter lines
                    // between them.
                    match m.parts.iter().find(|c| {
                        c.range.start <= part.range.start && part.range.end <= c.range.end
                    }) {
                        Some(c) => c,
                        None => break,
                    }
                }
            };
    }
    out
}

/// Whether a line of `body` starts with `--` and one of `boundaries`: a
/// delimiter line (RFC 2046 5.1.1), or one a lenient reader may take for
/// one (more conservative than the parser, which wants nothing but white
/// space or `--` after the boundary). A line starts after LF, and after a
/// bare CR too (Python's `email` ends a line there).
fn starts_a_line(body: &[u8], boundaries: &[&[u8]]) -> bool {
    !boundaries.is_empty()
        && memchr::memmem::find_iter(body, b"--").any(|at| {
            (at == 0 || matches!(body[at - 1], b'\n' | b'\r'))
                && boundaries.iter().any(|b| body[at + 2..].starts_with(b))
        })
}

/// Whether `body` holds an OpenPGP clear-signed message: a line that is
/// `-----BEGIN PGP SIGNED MESSAGE-----` (RFC 4880 7), at the start of the
/// body or of a line (a quoted one, `> -----BEGIN`, is not signed here).
fn clear_signed(body: &[u8]) -> bool {
    const ARMOR: &[u8] = b"-----BEGIN PGP SIGNED MESSAGE-----";
    memchr::memmem::find_iter(body, ARMOR).any(|at| at == 0 || body[at - 1] == b'\n')
}

/// Rewrites (or inserts) Content-Type with `charset=utf-8` and
/// Content-Transfer-Encoding (`None`: the body keeps its coding, and the
/// field stays as it is).
fn header_fields(
    part: &Part<'_>,
    ctx: &mut Ctx<'_>,
    cte: Option<Cte>,
    le: LineEnding,
    rewritten: &mut Vec<usize>,
) {
    let ct = &part.content_type;
    let wopts = WriteOptions {
        mode: ctx.opts.headers,
        line_ending: le,
        max_line: 76,
    };
    let mut params: Vec<(&str, &str)> = ct
        .params
        .iter()
        .map(|p| {
            if p.name == "charset" {
                ("charset", "utf-8")
            } else {
                (&*p.name, p.value.as_str())
            }
        })
        .collect();
    if !params.iter().any(|p| p.0 == "charset") {
        params.push(("charset", "utf-8"));
    }
    let head = format!("{}/{}", ct.media_type, ct.subtype);
    let mut insert = Vec::new();
    match part.header.get("content-type") {
        Some(f) => {
            let name = f.name_str();
            // Only the charset changed, in place, when no other parameter
            // needs writing again; else the field from its parameters.
            let mut bytes = charset_in_place(f, ct, le)
                .unwrap_or_else(|| write_parameterized(&name, &head, &params, &wopts).into_bytes());
            bytes.extend_from_slice(f.line_ending.as_bytes());
            rewritten.push(f.offset);
            ctx.edits.push(Edit {
                range: part.field_range(f),
                bytes,
            });
        }
        None => {
            insert.extend_from_slice(
                write_parameterized("Content-Type", &head, &params, &wopts).as_bytes(),
            );
            insert.extend_from_slice(le.as_bytes());
        }
    }
    match (cte, part.header.get("content-transfer-encoding")) {
        (None, _) => {}
        (Some(cte), Some(f)) => {
            let mut bytes = format!("{}: {}", f.name_str(), cte.as_str()).into_bytes();
            bytes.extend_from_slice(f.line_ending.as_bytes());
            rewritten.push(f.offset);
            ctx.edits.push(Edit {
                range: part.field_range(f),
                bytes,
            });
        }
        (Some(cte), None) if cte != Cte::SevenBit => {
            insert.extend_from_slice(
                format!("Content-Transfer-Encoding: {}", cte.as_str()).as_bytes(),
            );
            insert.extend_from_slice(le.as_bytes());
        }
        (Some(_), None) => {}
    }
    // A top-level message that was not MIME becomes one: Content-Type and
    // Content-Transfer-Encoding mean nothing without MIME-Version (RFC 2045 4).
    if part.depth == 0 && part.header.get("mime-version").is_none() {
        let mut mv = b"MIME-Version: 1.0".to_vec();
        mv.extend_from_slice(le.as_bytes());
        insert.splice(0..0, mv);
    }
    // A header that ends without a line end (the input ended): the new
    // fields start on a line of their own.
    if !insert.is_empty()
        && part
            .header
            .fields
            .last()
            .is_some_and(|f| f.line_ending == LineEnding::None)
    {
        insert.splice(0..0, le.as_bytes().iter().copied());
    }
    if !insert.is_empty() {
        let at = part.range.start + part.header.header_end;
        ctx.edits.push(Edit {
            range: at..at,
            bytes: insert,
        });
    }
}

/// `text` with CRLF and bare LF line ends written as `eol` (a bare CR is
/// data and stays).
fn with_line_endings(text: &[u8], eol: transfer::Newline) -> Cow<'_, [u8]> {
    let needs = match eol {
        transfer::Newline::Lf => memchr::memmem::find(text, b"\r\n").is_some(),
        transfer::Newline::Crlf => {
            memchr::memchr_iter(b'\n', text).any(|i| i == 0 || text[i - 1] != b'\r')
        }
    };
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len() + text.len() / 32);
    let mut at = 0;
    for i in memchr::memchr_iter(b'\n', text) {
        let end = if i > 0 && text[i - 1] == b'\r' {
            i - 1
        } else {
            i
        };
        out.extend_from_slice(&text[at..end]);
        out.extend_from_slice(eol.as_bytes());
        at = i + 1;
    }
    out.extend_from_slice(&text[at..]);
    Cow::Owned(out)
}

/// Whether `text` may be sent as `8bit` (RFC 2045 2.8): no NUL, CR only in
/// CRLF, lines of at most 998 octets.
fn is_8bit_clean(text: &[u8]) -> bool {
    let mut line = 0usize;
    for (i, &b) in text.iter().enumerate() {
        match b {
            0 => return false,
            b'\n' => line = 0,
            b'\r' => {
                if text.get(i + 1) != Some(&b'\n') {
                    return false;
                }
            }
            _ => {
                line += 1;
                if line > 998 {
                    return false;
                }
            }
        }
    }
    true
}

/// The Content-Type field `f` with its charset parameter made `utf-8`
/// where it stands (or `; charset=utf-8` added at its end), everything
/// else as written: case, quoting, comments, a parameter without a value,
/// folds. `None` when another parameter needs writing again (RFC 2231 or
/// RFC 2047 values, raw 8-bit octets), or the charset is given in more
/// than one form: then the field is written from its parameters.
fn charset_in_place(
    f: &crate::mime::Field<'_>,
    ct: &crate::mime::ContentType,
    le: LineEnding,
) -> Option<Vec<u8>> {
    use crate::mime::ParamEncoding;
    let v = f.value;
    let others_plain = ct.params.iter().all(|p| {
        p.name == "charset"
            || (p.encoding == ParamEncoding::Plain && p.raw.is_ascii() && p.words.is_empty())
    });
    if ct.defaulted || !others_plain || !v.is_ascii() {
        return None;
    }
    let mut value = Vec::with_capacity(v.len() + 16);
    match ct.params.iter().find(|p| p.name == "charset") {
        Some(p) => {
            let [span] = p.spans.as_slice() else {
                return None;
            };
            value.extend_from_slice(v.get(..span.start)?);
            value.extend_from_slice(b"charset=utf-8");
            value.extend_from_slice(v.get(span.end..)?);
        }
        None => {
            let end = v
                .iter()
                .rposition(|&b| !crate::mime::lexer::is_fws(b))
                .map_or(0, |i| i + 1);
            value.extend_from_slice(&v[..end]);
            // On a line of its own when the last line has no room for it.
            let line = match v[..end].iter().rposition(|&b| b == b'\n') {
                Some(lf) => end - (lf + 1),
                None => f.name.len() + 1 + end,
            };
            if line + b"; charset=utf-8".len() > 76 {
                value.push(b';');
                value.extend_from_slice(le.as_bytes());
                value.extend_from_slice(b" charset=utf-8");
            } else {
                value.extend_from_slice(b"; charset=utf-8");
            }
            value.extend_from_slice(&v[end..]);
        }
    }
    // Read back, it must say utf-8 with the other parameters as they were:
    // a stray quote (`c"arset=...`) hides a parameter from the parser, and
    // one added after it would be inside the quoted string.
    let again = crate::mime::ContentType::parse(&value);
    let others = |c: &crate::mime::ContentType| -> Vec<(String, String)> {
        c.params
            .iter()
            .filter(|p| p.name != "charset")
            .map(|p| (p.name.to_string(), p.value.clone()))
            .collect()
    };
    if again.param("charset").map(|p| p.value.as_str()) != Some("utf-8")
        || others(&again) != others(ct)
    {
        return None;
    }
    let mut out = Vec::with_capacity(f.name.len() + 1 + value.len());
    out.extend_from_slice(f.name);
    out.push(b':');
    out.extend_from_slice(&value);
    Some(out)
}

/// Whether the decision found the label's charset one we have no decoder
/// for.
fn unsupported_label(d: &charset::Decoded<'_>) -> bool {
    d.findings
        .iter()
        .any(|f| f.kind == FindingKind::UnsupportedCharset)
}

/// ESC, SO or SI: the escapes and shifts of ISO 2022's 7-bit forms
/// (ISO-2022-CN, JIS_Encoding), text in another charset in ASCII octets.
fn has_shift_codes(bytes: &[u8]) -> bool {
    memchr::memchr3(0x1B, 0x0E, 0x0F, bytes).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_endings() {
        assert_eq!(
            &*with_line_endings(b"a\r\nb\nc", transfer::Newline::Lf),
            b"a\nb\nc"
        );
        assert_eq!(
            &*with_line_endings(b"a\r\nb\nc\r", transfer::Newline::Crlf),
            b"a\r\nb\r\nc\r"
        );
        assert!(matches!(
            with_line_endings(b"a\nb", transfer::Newline::Lf),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn eight_bit_rules() {
        assert!(is_8bit_clean("é\r\nü\n".as_bytes()));
        assert!(!is_8bit_clean(b"a\0b"));
        assert!(!is_8bit_clean(b"a\rb"));
        assert!(!is_8bit_clean(&[b'x'; 999]));
    }
}
