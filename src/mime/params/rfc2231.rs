//! RFC 2231 parameter values: sections (`name*0`, `name*1*`) joined in
//! order before decoding, `charset'language'` split off, percent-decoding,
//! and the choice between an RFC 2231 form and a plain fallback beside it.
//! One parameter is built once, from all its parts.

use super::*;

/// Percent-decodes an RFC 2231 value; a `%` not followed by two hex digits
/// is kept as written and reported.
///
/// ```abnf
/// extended-other-values = *(ext-octet / attribute-char)
/// ext-octet             = "%" 2(DIGIT / "A" / "B" / "C" / "D" / "E" / "F")
/// ```
fn percent_decode(v: &[u8], out: &mut Vec<u8>) -> bool {
    let mut clean = true;
    let mut k = 0;
    while k < v.len() {
        if v[k] == b'%' {
            if let (Some(h), Some(l)) = (
                v.get(k + 1).and_then(|&b| hex(b)),
                v.get(k + 2).and_then(|&b| hex(b)),
            ) {
                out.push(h << 4 | l);
                k += 3;
                continue;
            }
            clean = false;
        }
        out.push(v[k]);
        k += 1;
    }
    clean
}

/// Splits `charset'language'value` (RFC 2231 4).
///
/// ```abnf
/// extended-initial-value = [charset] "'" [language] "'" extended-other-values
/// ```
#[allow(clippy::type_complexity)]
fn split_initial(v: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let q1 = memchr::memchr(b'\'', v)?;
    let rest = &v[q1 + 1..];
    let q2 = memchr::memchr(b'\'', rest)?;
    Some((&v[..q1], &rest[..q2], &rest[q2 + 1..]))
}

/// Joins RFC 2231 sections, then converts each parameter once.
pub(super) fn join_sections(raw: Vec<RawParam<'_>>, opts: &DecodeOptions) -> Vec<Parameter> {
    // Group by lowercase name, in order of first appearance (a map from
    // name to group: linear in the number of parameters, however many).
    // A field has a few parameters: a look along the groups costs less
    // than the map, which is built only past a few dozen.
    const LINEAR: usize = 32;
    // One parameter (`charset=...` alone, the usual case): its own group,
    // without the group list.
    if raw.len() == 1 {
        let name = token_lower(raw[0].name);
        return vec![build_param(name, raw, opts)];
    }
    let mut groups: Vec<(Cow<'static, str>, Vec<RawParam<'_>>)> = Vec::with_capacity(raw.len());
    let mut index: std::collections::HashMap<Cow<'static, str>, usize> =
        std::collections::HashMap::new();
    let many = raw.len() > LINEAR;
    for p in raw {
        let name = token_lower(p.name);
        let found = if many {
            index.get(&name).copied()
        } else {
            groups.iter().position(|(n, _)| *n == name)
        };
        match found {
            Some(g) => groups[g].1.push(p),
            None => {
                if many {
                    index.insert(name.clone(), groups.len());
                }
                groups.push((name, vec![p]));
            }
        }
    }
    groups
        .into_iter()
        .map(|(name, parts)| build_param(name, parts, opts))
        .collect()
}

fn build_param(
    name: Cow<'static, str>,
    parts: Vec<RawParam<'_>>,
    opts: &DecodeOptions,
) -> Parameter {
    let mut findings = Vec::new();
    let offset = parts.first().map_or(0, |p| p.offset);
    let spans = parts.iter().map(|p| p.offset..p.end).collect();
    // Prefer RFC 2231 sections, then `name*`, then the plain form: mailers
    // send a plain fallback beside the RFC 2231 form.
    let has_sections = parts.iter().any(|p| p.section.is_some());
    let has_ext = parts.iter().any(|p| p.extended && p.section.is_none());
    let (mut chosen, others): (Vec<RawParam<'_>>, Vec<RawParam<'_>>) = if parts.len() == 1 {
        // The usual case: one form, chosen whatever it is.
        (parts, Vec::new())
    } else {
        parts.into_iter().partition(|p| {
            if has_sections {
                p.section.is_some()
            } else if has_ext {
                p.extended
            } else {
                true
            }
        })
    };
    for o in &others {
        findings.push(malformed(o.offset, "parameter also given in another form"));
    }
    if !has_sections {
        // One value; further ones are duplicates.
        for d in chosen.iter().skip(1) {
            findings.push(malformed(d.offset, "duplicate parameter"));
        }
        chosen.truncate(1);
    } else {
        // Sections in order of number; report order, duplicates and gaps.
        if chosen.windows(2).any(|w| w[0].section > w[1].section) {
            findings.push(malformed(offset, "RFC 2231 sections out of order"));
        }
        chosen.sort_by_key(|p| p.section);
        let mut k = 1;
        while k < chosen.len() {
            if chosen[k].section == chosen[k - 1].section {
                findings.push(malformed(chosen[k].offset, "duplicate RFC 2231 section"));
                chosen.remove(k);
            } else {
                k += 1;
            }
        }
        let mut expect = 0u32;
        for p in &chosen {
            if p.section != Some(expect) {
                findings.push(malformed(p.offset, "missing RFC 2231 section"));
            }
            expect = p.section.unwrap_or(0).saturating_add(1);
        }
    }
    let is_2231 = chosen.iter().any(|p| p.extended || p.section.is_some());
    let mut bytes = Vec::new();
    let mut charset: Option<Vec<u8>> = None;
    let mut language = None;
    let mut first = true;
    for p in &chosen {
        let v: &[u8] = &p.value;
        if p.extended {
            let body = if first {
                match split_initial(v) {
                    Some((cs, lang, body)) => {
                        if !cs.is_empty() {
                            charset = Some(cs.to_vec());
                        }
                        if !lang.is_empty() {
                            language = Some(String::from_utf8_lossy(lang).into_owned());
                        }
                        body
                    }
                    None => {
                        findings.push(malformed(p.offset, "RFC 2231 value without charset'lang'"));
                        v
                    }
                }
            } else {
                // Leniency: some mailers repeat `charset'` (or
                // `charset'lang'`) in later sections.
                match &charset {
                    Some(cs)
                        if v.len() > cs.len()
                            && v[..cs.len()].eq_ignore_ascii_case(cs)
                            && v[cs.len()] == b'\'' =>
                    {
                        findings.push(malformed(
                            p.offset,
                            "charset repeated in a later RFC 2231 section",
                        ));
                        let r = &v[cs.len() + 1..];
                        match split_initial_lang(r) {
                            Some(r) => r,
                            None => r,
                        }
                    }
                    _ => v,
                }
            };
            if !percent_decode(body, &mut bytes) {
                findings.push(malformed(p.offset, "bad %XX escape in RFC 2231 value"));
            }
        } else {
            bytes.extend_from_slice(v);
        }
        first = false;
    }
    for p in chosen.iter().filter(|p| p.unterminated) {
        findings.push(malformed(
            p.offset,
            "quoted string without its closing quote",
        ));
    }
    let mut param = Parameter {
        name,
        value: String::new(),
        raw: Vec::new(),
        charset: None,
        language,
        encoding: if is_2231 {
            ParamEncoding::Rfc2231
        } else {
            ParamEncoding::Plain
        },
        decoding: None,
        words: Vec::new(),
        offset,
        spans,
        findings,
    };
    match &charset {
        Some(label) => {
            let (text, dec) = decode_labelled(&bytes, label, opts);
            param.value = text;
            param.decoding = Some(dec);
        }
        None if !is_2231 && crate::mime::has_encoded_word_start(&bytes) => {
            let d = encoded_word::decode_with(&bytes, encoded_word::Context::Value, opts);
            if !d.words.is_empty() {
                param.encoding = ParamEncoding::Rfc2047;
                if param.language.is_none() {
                    param.language = d.words.iter().find_map(|w| w.language.clone());
                }
            }
            param.value = d.text;
            param.words = d.words;
            param.decoding = d.raw8bit;
            // Offsets of word findings are into the unquoted value; shift
            // them to the field value (approximate for quoted values).
            param.findings.extend(d.findings.into_iter().map(|mut f| {
                f.offset += offset;
                f
            }));
        }
        None => {
            let (text, raw8) = decode_raw(&bytes, offset, opts);
            param.value = text;
            if let Some((dec, f)) = raw8 {
                param.decoding = Some(dec);
                param.findings.push(f);
            }
        }
    }
    param.charset = charset;
    param.raw = bytes;
    param
}

/// Strips a repeated `lang'` after a repeated charset, if present.
fn split_initial_lang(r: &[u8]) -> Option<&[u8]> {
    let q = memchr::memchr(b'\'', r)?;
    // Only a short language tag, not a quote inside the value.
    (q <= 16
        && r[..q]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'-'))
    .then(|| &r[q + 1..])
}
