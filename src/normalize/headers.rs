//! Header fields: encoded-words, RFC 2231 parameters and raw 8-bit text in
//! a legacy charset rewritten as UTF-8.
//!
//! A field is rewritten only when its decoding involved a charset other
//! than UTF-8 or US-ASCII (UNICODE-1-1-UTF-8 included), UTF-8 read through
//! a label that is not UTF-8 (a lie the decision saw through:
//! `=?iso-8859-1?B?...?=` or `=?us-ascii?...` over UTF-8 octets, the audit's
//! `mislabeled`), raw 8-bit octets that are not UTF-8, or — in
//! [`HeaderMode::Utf8`] — UTF-8 encoded-words that can be written raw. A
//! field holding a malformed encoded-word is kept as written. So a
//! normalized message has nothing left to rewrite.

use super::{Action, Ctx, Edit, NormalizeError, OnError, PartReport, label_text};
use crate::finding::{Finding, FindingKind, Verdict};
use crate::message::Part;
use crate::message::fields::FieldKind;
use crate::mime::{
    ContentDisposition, ContentType, DecodedText, Decoding, Field, HeaderMode, LineEnding,
    ParamEncoding, Parameter, WriteOptions, decode_unstructured_with, encode_phrase,
    parse_address_list_with, write_parameter, write_parameterized, write_unstructured,
};
use std::ops::Range;

/// Longest header line the writers aim for.
const MAX_LINE: usize = 76;

/// What decoding a field's pieces of text involved.
#[derive(Default)]
struct Assess {
    /// A legacy charset (or raw UTF-8 words to unwrap): rewrite.
    convert: bool,
    /// Replacement, unknown label, undecodable: [`OnError`] decides.
    problem: bool,
    /// A malformed encoded-word: keep the field as written.
    malformed: bool,
    label: Option<Vec<u8>>,
    charset: Option<&'static str>,
    verdict: Option<Verdict>,
    findings: Vec<Finding>,
}

impl Assess {
    fn decoding(&mut self, dec: &Decoding, mode: HeaderMode) {
        if self.charset.is_none() {
            self.label = dec.label.clone();
            self.charset = dec.used.map(|c| c.name());
        }
        self.verdict = self.verdict.max(Some(dec.verdict));
        self.findings.extend(dec.findings.iter().cloned());
        match dec.used {
            _ if dec.replacements > 0 || dec.verdict == Verdict::UnknownLabel => {
                self.problem = true;
            }
            None => self.problem = true,
            Some(u) if u.is_utf8() => {
                // A surrogate-pair finding without replacement: CESU-8
                // repaired (`Options::repair_cesu8`), to be written out.
                let repaired = dec
                    .findings
                    .iter()
                    .any(|f| f.kind == FindingKind::SurrogatePair);
                // UTF-8 read through a label that is not UTF-8 (the
                // decision's `mislabeled`: UTF-8 octets under iso-8859-1 or
                // us-ascii): a reader that follows the label shows
                // mojibake, so the field is written with a true label.
                let relabel = dec.resolution.charset.is_some_and(|c| !c.is_utf8());
                if (mode == HeaderMode::Utf8 && dec.label.is_some()) || repaired || relabel {
                    self.convert = true;
                }
            }
            Some(u) if u.is_us_ascii() => {}
            Some(_) => self.convert = true,
        }
    }

    /// Takes in the assessment of one piece of the field (a display name,
    /// a parameter).
    fn merge(&mut self, one: Assess) {
        self.convert |= one.convert;
        self.problem |= one.problem;
        self.malformed |= one.malformed;
        if self.charset.is_none() {
            self.label = one.label;
            self.charset = one.charset;
        }
        self.verdict = self.verdict.max(one.verdict);
        self.findings.extend(one.findings);
    }

    /// A decoded piece of text and the raw octets it came from.
    fn text(&mut self, d: &DecodedText, raw: &[u8], mode: HeaderMode) {
        for (k, w) in d.words.iter().enumerate() {
            self.malformed |= w.malformed;
            // Words of one run share their decoding: count it once.
            if w.run == k {
                self.decoding(&w.decoding, mode);
            }
        }
        self.findings.extend(
            d.findings
                .iter()
                .filter(|f| f.kind == FindingKind::MalformedEncodedWord)
                .cloned(),
        );
        // A word kept as written (not B or Q) keeps its field as written.
        self.malformed |= d.findings.iter().any(|f| {
            f.kind == FindingKind::MalformedEncodedWord
                && !d
                    .words
                    .iter()
                    .any(|w| (w.offset..w.offset + w.len.max(1)).contains(&f.offset))
        });
        self.raw8(raw, d.raw8bit.as_ref());
    }

    /// Raw 8-bit octets: rewritten unless they are UTF-8 (RFC 6532). And
    /// raw ISO-2022-JP (ASCII octets with its escapes, read so by
    /// `decode_raw`): a reader that took them in the body's charset shows
    /// `$BF|K\8l` once the body is UTF-8.
    fn raw8(&mut self, raw: &[u8], dec: Option<&Decoding>) {
        let iso2022 =
            raw.is_ascii() && dec.is_some_and(|d| d.used.is_some_and(|c| !c.is_ascii_compatible()));
        if !iso2022 && (raw.is_ascii() || std::str::from_utf8(raw).is_ok()) {
            return;
        }
        self.convert = true;
        if let Some(dec) = dec {
            if self.charset.is_none() {
                self.charset = dec.used.map(|c| c.name());
            }
            self.verdict = self.verdict.max(Some(dec.verdict));
            self.findings.extend(dec.findings.iter().cloned());
            if dec.replacements > 0 {
                self.problem = true;
            }
        }
        if !iso2022 {
            self.findings
                .push(Finding::new(FindingKind::Raw8bitHeader, 0, 1));
        }
    }
}

/// Rewrites the fields of `part` that need it, except those at the offsets
/// in `skip` (already rewritten by the body conversion).
/// `head` is the part's header section as written.
pub(super) fn fields(
    part: &Part<'_>,
    head: &[u8],
    le: LineEnding,
    ctx: &mut Ctx<'_>,
    skip: &[usize],
) -> Result<(), NormalizeError> {
    // The usual header section: nothing in any field to decode, told by
    // one pass over the whole section.
    if !crate::mime::may_need_decoding(head) {
        return Ok(());
    }
    for f in &part.header.fields {
        if !f.has_name() || skip.contains(&f.offset) {
            continue;
        }
        let v = f.value;
        // Nothing to decode (the section's test, on this field): decided
        // before the field's name is looked at.
        if !crate::mime::may_need_decoding(v) {
            continue;
        }
        // ASCII without encoded-words, but a `*`: only an RFC 2231
        // parameter field has anything to decode.
        let plain = !crate::mime::has_encoded_word_start(v)
            && v.is_ascii()
            && memchr::memchr(0x1B, v).is_none();
        let kind = FieldKind::of(f.name);
        if plain && kind != FieldKind::Parameters {
            continue;
        }
        if !ctx.opts.limits.field_within_limits(v) {
            ctx.report.parts.push(PartReport {
                part: part.id.clone(),
                location: format!("header:{}", f.name_str()),
                label: None,
                charset: None,
                action: Action::Kept,
                verdict: Verdict::Suspicious,
                findings: vec![ctx.opts.limits.field_finding(0)],
            });
            continue;
        }
        match kind {
            FieldKind::Unstructured => unstructured(part, f, ctx, le)?,
            FieldKind::AddressList => address_list(part, f, ctx, le)?,
            FieldKind::Parameters => parameters(part, f, ctx, le)?,
            // Encoded-words are not allowed there, and rewriting Received
            // or Message-ID would be wrong: kept (audit reports them).
            FieldKind::Structured => {}
        }
    }
    Ok(())
}

fn wopts(ctx: &Ctx<'_>, le: LineEnding) -> WriteOptions {
    WriteOptions {
        mode: ctx.opts.headers,
        line_ending: le,
        max_line: MAX_LINE,
    }
}

/// Applies the decision for one field: `build` makes the new field (final
/// line end excluded) when it is to be written.
fn decide(
    part: &Part<'_>,
    f: &Field<'_>,
    location: String,
    a: Assess,
    ctx: &mut Ctx<'_>,
    build: impl FnOnce(&Ctx<'_>) -> Option<Vec<u8>>,
) -> Result<(), NormalizeError> {
    if !(a.convert || a.problem) {
        return Ok(());
    }
    let entry = PartReport {
        part: part.id.clone(),
        location,
        label: a.label.as_deref().map(label_text),
        charset: a.charset,
        action: Action::Converted,
        verdict: a.verdict.unwrap_or(Verdict::Ok).settle(&a.findings),
        findings: a.findings,
    };
    if a.malformed {
        ctx.report.parts.push(PartReport {
            action: Action::Kept,
            ..entry
        });
        return Ok(());
    }
    if a.problem && ctx.opts.on_error != OnError::Replace {
        ctx.on_problem(entry, part.field_range(f).start)?;
        return Ok(());
    }
    let Some(mut bytes) = build(ctx) else {
        return Ok(());
    };
    bytes.extend_from_slice(f.line_ending.as_bytes());
    if bytes == f.raw {
        return Ok(());
    }
    ctx.report.parts.push(PartReport {
        action: if a.problem {
            Action::Replaced
        } else {
            Action::Converted
        },
        ..entry
    });
    ctx.edits.push(Edit {
        range: part.field_range(f),
        bytes,
    });
    Ok(())
}

fn unstructured(
    part: &Part<'_>,
    f: &Field<'_>,
    ctx: &mut Ctx<'_>,
    le: LineEnding,
) -> Result<(), NormalizeError> {
    let d = decode_unstructured_with(f.value, &ctx.dopts);
    let mut a = Assess::default();
    a.text(&d, f.value, ctx.opts.headers);
    let name = f.name_str();
    // Trailing white space is part of an unstructured value (RFC 5322
    // 3.2.5) that decoding trims: written again, it is kept (encoded, as a
    // decoder would trim it bare).
    let trailing: String = f
        .value
        .iter()
        .rev()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .filter(|&&b| b == b' ' || b == b'\t')
        .map(|&b| char::from(b))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let text = if !trailing.is_empty() && !d.text.ends_with(&trailing) {
        format!("{}{trailing}", d.text)
    } else {
        d.text.clone()
    };
    decide(part, f, format!("header:{name}"), a, ctx, |ctx| {
        Some(raw_name(
            f,
            &name,
            write_unstructured(&name, &text, &wopts(ctx, le)),
        ))
    })
}

/// A field written again (`written`, made with the name as text, `name`)
/// with its name as it came: a name with 8-bit octets (`X-Café`, which
/// RFC 5322 has no place for but mailers write) keeps its octets, not
/// U+FFFD for each.
fn raw_name(f: &Field<'_>, name: &str, written: String) -> Vec<u8> {
    let mut out = written.into_bytes();
    if !f.name.is_ascii() && out.starts_with(name.as_bytes()) {
        out.splice(..name.len(), f.name.iter().copied());
    }
    out
}

/// Address lists: only display names (and group names) are rewritten, in
/// place; addresses, comments and punctuation stay as written.
fn address_list(
    part: &Part<'_>,
    f: &Field<'_>,
    ctx: &mut Ctx<'_>,
    le: LineEnding,
) -> Result<(), NormalizeError> {
    let list = parse_address_list_with(f.value, &ctx.dopts);
    let mode = ctx.opts.headers;
    let mut a = Assess::default();
    let mut spans: Vec<(Range<usize>, String)> = Vec::new();
    let phrases = list
        .mailboxes
        .iter()
        .filter_map(|m| Some((m.display_name.as_ref()?, m.display_name_span.clone()?)))
        .chain(list.groups.iter().map(|g| (&g.name, g.name_span.clone())));
    for (d, span) in phrases {
        let Some(raw) = f.value.get(span.clone()) else {
            continue;
        };
        if raw.is_ascii()
            && !crate::mime::has_encoded_word_start(raw)
            && memchr::memchr(0x1B, raw).is_none()
        {
            continue;
        }
        let mut one = Assess::default();
        one.text(d, raw, mode);
        if one.convert || one.problem {
            spans.push((span, d.text.clone()));
        }
        a.merge(one);
    }
    let name = f.name_str();
    decide(part, f, format!("header:{name}"), a, ctx, |_| {
        spans.sort_by_key(|s| s.0.start);
        let mut value = Vec::with_capacity(f.value.len() + 32);
        let mut at = 0;
        for (r, text) in &spans {
            if r.start < at || r.end > f.value.len() {
                return None;
            }
            value.extend_from_slice(&f.value[at..r.start]);
            value.extend_from_slice(encode_phrase(text, mode).as_bytes());
            at = r.end;
        }
        value.extend_from_slice(&f.value[at..]);
        let mut out = Vec::with_capacity(name.len() + 1 + value.len());
        out.extend_from_slice(f.name);
        out.push(b':');
        out.extend_from_slice(&value);
        Some(fold_long_lines(&out, le))
    })
}

/// Content-Type and Content-Disposition parameters: the field is written
/// again with every parameter when one of them needs it.
fn parameters(
    part: &Part<'_>,
    f: &Field<'_>,
    ctx: &mut Ctx<'_>,
    le: LineEnding,
) -> Result<(), NormalizeError> {
    let (head, params): (String, Vec<Parameter>) = if f.is("content-type") {
        let ct = ContentType::parse_with(f.value, &ctx.dopts);
        // A boundary must stay octet for octet: multipart types are kept.
        if ct.defaulted || ct.media_type == "multipart" {
            return Ok(());
        }
        (format!("{}/{}", ct.media_type, ct.subtype), ct.params)
    } else {
        let cd = ContentDisposition::parse_with(f.value, &ctx.dopts);
        if cd.disposition.is_empty() {
            return Ok(());
        }
        (cd.disposition, cd.params)
    };
    let mode = ctx.opts.headers;
    let mut a = Assess::default();
    let mut location = None;
    // The parameters whose value is written again.
    let mut changed: Vec<&Parameter> = Vec::new();
    for p in &params {
        // Each parameter assessed on its own (whether it is to be written
        // again), then into the field's.
        let mut one = Assess::default();
        match p.encoding {
            ParamEncoding::Rfc2231 => match (&p.charset, &p.decoding) {
                (Some(_), Some(dec)) => one.decoding(dec, mode),
                _ => one.raw8(&p.raw, p.decoding.as_ref()),
            },
            ParamEncoding::Rfc2047 => {
                for (k, w) in p.words.iter().enumerate() {
                    one.malformed |= w.malformed;
                    if w.run == k {
                        one.decoding(&w.decoding, mode);
                    }
                }
                one.raw8(&p.raw, p.decoding.as_ref());
            }
            ParamEncoding::Plain => one.raw8(&p.raw, p.decoding.as_ref()),
        }
        one.malformed |= p
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::MalformedEncodedWord);
        if one.convert || one.problem {
            changed.push(p);
            if location.is_none() {
                location = Some(format!("param:{}", p.name));
            }
        }
        a.merge(one);
    }
    let location = location.unwrap_or_else(|| format!("header:{}", f.name_str()));
    let name = f.name_str();
    decide(part, f, location, a, ctx, |ctx| {
        // Only the parameters that need it are written again, where they
        // stand: the plain fallback beside an RFC 2231 value
        // (`filename="Resume.pdf"; filename*=iso-8859-1''R%E9sum%E9.pdf`),
        // a parameter without a value, comments and the rest stay as
        // written (the whole field written from the parsed list dropped
        // them). The list is the fallback when the spans do not fit.
        splice_parameters(f, &changed, mode, le).or_else(|| {
            let list: Vec<(&str, &str)> = params
                .iter()
                .map(|p| (&*p.name, p.value.as_str()))
                .collect();
            Some(raw_name(
                f,
                &name,
                write_parameterized(&name, &head, &list, &wopts(ctx, le)),
            ))
        })
    })
}

/// The field with each of `changed` written again in place of the form of
/// it that was read (its RFC 2231 sections, the first replaced and the
/// others removed with their `;`; or its one plain `name=value`); other
/// forms of it and everything else as written. Each new section starts a
/// line of its own (a fold before it), so no line of the field grows and
/// none is only white space. `None` when a span does not fit the value,
/// or another form of a changed parameter holds 8-bit octets or an
/// encoded-word (a raw Latin-1 `filename="Résumé.pdf"` fallback would stay
/// beside its converted value): then the field is written from its
/// parameters.
fn splice_parameters(
    f: &Field<'_>,
    changed: &[&Parameter],
    mode: HeaderMode,
    le: LineEnding,
) -> Option<Vec<u8>> {
    let v = f.value;
    let fold = format!("{} ", String::from_utf8_lossy(le.as_bytes()));
    // (range to replace, the sections written there; none: removed)
    let mut edits: Vec<(Range<usize>, Vec<String>)> = Vec::new();
    for p in changed {
        let extended = |r: &Range<usize>| {
            v.get(r.clone())
                .is_some_and(|t| t.iter().take_while(|&&b| b != b'=').any(|&b| b == b'*'))
        };
        let (read, kept): (Vec<&Range<usize>>, Vec<&Range<usize>>) =
            if p.encoding == ParamEncoding::Rfc2231 {
                p.spans.iter().partition(|r| extended(r))
            } else {
                let (first, rest) = p.spans.split_first()?;
                (vec![first], rest.iter().collect())
            };
        for r in &kept {
            let t = v.get((*r).clone())?;
            if !t.is_ascii() || crate::mime::has_encoded_word_start(t) {
                return None;
            }
        }
        let (first, rest) = read.split_first()?;
        let sections = write_parameter(&p.name, &p.value, mode);
        // The white space (folds too) before the first section goes: the
        // new text brings its own, a space where the line has room for
        // the first section, else a fold.
        let before = v.get(..first.start)?;
        let start = before
            .iter()
            .rposition(|&b| !crate::mime::lexer::is_fws(b))
            .map_or(0, |i| i + 1);
        edits.push((start..first.end, sections));
        for r in rest {
            // With the `;` before it and the white space (folds too)
            // between.
            let before = v.get(..r.start)?;
            let semi = before
                .iter()
                .rposition(|&b| !crate::mime::lexer::is_fws(b))
                .filter(|&i| before[i] == b';')?;
            edits.push((semi..r.end, Vec::new()));
        }
    }
    edits.sort_by_key(|e| e.0.start);
    let mut out = Vec::with_capacity(f.name.len() + 1 + v.len() + 32);
    out.extend_from_slice(f.name);
    out.push(b':');
    let mut at = 0;
    for (r, sections) in &edits {
        if r.start < at || r.end > v.len() {
            return None;
        }
        out.extend_from_slice(&v[at..r.start]);
        at = r.end;
        let Some((first, more)) = sections.split_first() else {
            continue;
        };
        // A space where the line has room for the first section (and
        // its `;`), else a fold; a fold before each further one.
        let column = out.len() - out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // The `;` after it counts when something follows on the line.
        let follows = !more.is_empty()
            || v[at..]
                .iter()
                .take_while(|&&b| b != b'\r' && b != b'\n')
                .any(|&b| b != b' ' && b != b'\t');
        if column + 1 + first.len() + usize::from(follows) <= MAX_LINE {
            out.push(b' ');
        } else {
            out.extend_from_slice(fold.as_bytes());
        }
        out.extend_from_slice(first.as_bytes());
        for s in more {
            out.push(b';');
            out.extend_from_slice(fold.as_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    out.extend_from_slice(&v[at..]);
    Some(out)
}

/// Folds lines longer than [`MAX_LINE`] before white space (a fold is a
/// line end inserted before a space, which unfolding removes again).
fn fold_long_lines(field: &[u8], le: LineEnding) -> Vec<u8> {
    let eol = le.as_bytes();
    let mut out = Vec::with_capacity(field.len() + 16);
    let mut line_start = 0;
    let mut last_ws: Option<usize> = None;
    for &b in field {
        if b == b'\n' || b == b'\r' {
            out.push(b);
            line_start = out.len();
            last_ws = None;
            continue;
        }
        if (b == b' ' || b == b'\t') && out.len() > line_start {
            if out.len() - line_start > MAX_LINE
                && let Some(ws) = last_ws
            {
                out.splice(ws..ws, eol.iter().copied());
                line_start = ws + eol.len();
            }
            last_ws = Some(out.len());
        }
        out.push(b);
    }
    if out.len() - line_start > MAX_LINE
        && let Some(ws) = last_ws
    {
        out.splice(ws..ws, eol.iter().copied());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_before_spaces() {
        let long = format!(
            "To:{}",
            " =?UTF-8?B?w6nDqcOpw6nDqcOpw6nDqcOpw6k=?= <a@b>,".repeat(4)
        );
        let out = fold_long_lines(long.as_bytes(), LineEnding::Lf);
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| l.len() <= MAX_LINE), "{text}");
        assert_eq!(text.replace("\n", ""), long);
    }
}
