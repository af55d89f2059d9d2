//! The charset of a sibling part: the parts of a multipart/alternative are
//! one text in two or three forms (text/plain, text/html, an Outlook
//! meeting's text/calendar), written by one mailer at one time, in one
//! charset. When a part's label fails on its octets, a sibling's label
//! that read the sibling cleanly is better evidence than U+FFFD: its text
//! holds the same words.
//!
//! The rule ([`reread`]), applied after the charset decision of the part
//! (normalize and audit both call it, so they agree):
//!
//! - it looks at a part only when the decision read it with U+FFFD, and
//!   not when the reading is UTF-8 with characters beyond ASCII (valid
//!   UTF-8 is its own evidence), the part's own markup declaration
//!   (`<meta>`, XML, vCard `CHARSET=`: [`super::declared_label`]), or
//!   binary. A clean reading, its label's or detection's, is never
//!   second-guessed: a sibling's label can be a lie that reads cleanly
//!   too, and then both parts make the same mojibake;
//! - a sibling is a text leaf of the nearest enclosing multipart/alternative
//!   (through multipart/related or /mixed inside it, never into an attached
//!   message); its hint is the charset the decision read it in, when that is
//!   its label's (or its markup's, over a Content-Type that lied), without a
//!   replacement, a `mixed-charset` or `mislabeled` finding, with 8-bit
//!   text, an ASCII-compatible charset other than UTF-8 (a UTF-8 hint never
//!   reads what the decision did not read as UTF-8). A sibling whose own
//!   label was judged a lie gives no hint, nor one read by detection;
//! - the part read as the hint must be clean: no U+FFFD, decided `ok` under
//!   it as a label (so a Latin hint over another script's octets, caught by
//!   the decision's lie rules, is refused);
//! - and it must read more of the part's words with non-ASCII letters as
//!   the sibling's text has them than the part's own reading does: the
//!   sibling's text is the evidence, word for word.
//!
//! One clean reading gives way too: a single-byte charset's (an HTML
//! part's stale `<meta>`, a text/plain under a Latin lie) that shows the
//! marks of East Asian octets read one at a time (symbols, capitals or
//! another script's letters inside words, Cyrillic letters no one language
//! writes together: [`charset::single_byte_mojibake`]), beside a sibling
//! read cleanly under its own Shift_JIS, EUC-JP, EUC-KR, GBK, GB18030 or
//! Big5 label, when that charset reads the part cleanly (`ok`) as plausible
//! East Asian text, none of the part's own words are the sibling's, and at
//! least half of the new reading's words are, six of their characters or
//! more ([`same_east_asian_text`]). A lie of the sibling's reads its
//! octets as the same mojibake, but the part's own reading then has none
//! of those marks: it is the text.
//!
//! The reading is reported: `missing-label` (no label) noted "read as X,
//! the charset of its sibling part N", or `mislabeled` with that note
//! (verdict `mislabeled`) under a label.

use super::{Message, Part, PartKind, body_label, declared_label};
use crate::charset::{self, Charset, DecodeOptions, Decoded, Detected};
use crate::finding::{Finding, FindingKind, Verdict};
use std::collections::HashSet;

/// `d`, the decision over the text body `bytes` of `part` under `label`
/// (with `opts`, the options it was decided with), or the part read in a
/// sibling's charset when the rule of this module says so.
pub(crate) fn reread<'b>(
    msg: &Message<'_>,
    part: &Part<'_>,
    bytes: &'b [u8],
    label: Option<&[u8]>,
    d: Decoded<'b>,
    opts: &DecodeOptions,
) -> Decoded<'b> {
    // The decision without the repairs normalize may ask for (mixed lines
    // read in their charset, CESU-8 pairs joined): the rule must see what
    // the audit sees, or the two would disagree.
    if (opts.repair_mixed || opts.repair_cesu8)
        && d.findings.iter().any(|f| {
            matches!(
                f.kind,
                FindingKind::MixedCharset | FindingKind::SurrogatePair
            )
        })
    {
        let plain = DecodeOptions {
            repair_mixed: false,
            repair_cesu8: false,
            ..*opts
        };
        let own = charset::decode(bytes, label, &plain);
        return match hinted(msg, part, bytes, &own, opts) {
            Some(h) => h,
            None => d,
        };
    }
    match hinted(msg, part, bytes, &d, opts) {
        Some(h) => h,
        None => d,
    }
}

/// The most text leaves an alternative may have besides the part itself
/// for its parts to be asked about each other.
const MAX_SIBLINGS: usize = 32;

/// The part read in a sibling's charset, when the rule holds.
fn hinted<'b>(
    msg: &Message<'_>,
    part: &Part<'_>,
    bytes: &'b [u8],
    own: &Decoded<'b>,
    opts: &DecodeOptions,
) -> Option<Decoded<'b>> {
    // U+FFFD in the part's reading, or (stricter below) a clean
    // single-byte reading that is East Asian octets read one at a time.
    let mojibake = if wants_hint(bytes, own, opts) {
        false
    } else if may_want_east_asian_hint(own, opts) {
        true
    } else {
        return None;
    };
    let family = alternative_of(msg, part)?;
    let mut leaves = Vec::new();
    text_leaves(family, part, &mut leaves);
    // An alternative is a few renderings of one text; past a few dozen it
    // is no such thing, and asking each part about every other is
    // quadratic (10,000 one-line parts in 590 KB took 4.8 s to filter).
    if leaves.len() > MAX_SIBLINGS {
        return None;
    }
    // A clean reading's text is walked for the marks of East Asian octets
    // once, and only when a sibling is labelled in an East Asian charset:
    // most clean single-byte parts have none, and the walk costs as much
    // as the decision (a fifth of an audit of the linux-mips archive).
    let mut marks: Option<bool> = None;
    let mut tried: Vec<&'static str> = Vec::new();
    for sib in leaves {
        // A sibling whose Content-Type names another charset is not asked
        // (one without a charset may declare it in its markup).
        if mojibake
            && sib.content_type.charset().is_some_and(|l| {
                !charset::resolve(Some(l))
                    .charset
                    .is_some_and(charset::is_east_asian_multi_octet)
            })
        {
            continue;
        }
        if mojibake
            && !*marks.get_or_insert_with(|| {
                !crate::codec::is_ascii(bytes) && charset::single_byte_mojibake(&own.text)
            })
        {
            return None;
        }
        let Some((hint, text)) = hint_of(msg, sib, opts) else {
            continue;
        };
        let Some(decoder) = hint.decoder_name() else {
            continue;
        };
        if tried.contains(&decoder)
            || own.used.and_then(Charset::decoder_name) == Some(decoder)
            || (mojibake && !charset::is_east_asian_multi_octet(hint))
        {
            continue;
        }
        tried.push(decoder);
        let under = DecodeOptions {
            declared: None,
            header_hint: None,
            repair_mixed: false,
            repair_cesu8: false,
            body: true,
            ..*opts
        };
        let h = charset::decode_as(bytes, hint, &under);
        if h.binary
            || h.replacements > 0
            || h.verdict != Verdict::Ok
            || h.used.and_then(Charset::decoder_name) != Some(decoder)
        {
            continue;
        }
        // The sibling's words: the hint must read more of them than the
        // part's own reading (with U+FFFD at the octets its label fails
        // on) does.
        let theirs: HashSet<&str> = words(&text).collect();
        let (hers, ours) = (found(&h.text, &theirs), found(&own.text, &theirs));
        if hers <= ours || (mojibake && !same_east_asian_text(&h.text, &own.text, &theirs)) {
            continue;
        }
        return Some(read_as(bytes, own, h, hint, sib));
    }
    None
}

/// Whether the decision's reading `own` of `bytes` is one a sibling may
/// replace: not its label's clean reading, not valid UTF-8, not the part's
/// own markup declaration's, not binary.
fn wants_hint(bytes: &[u8], own: &Decoded<'_>, opts: &DecodeOptions) -> bool {
    // Only a reading with U+FFFD: one detection read cleanly (no label, or
    // a lie it replaced) stands. A sibling's label can be a lie that reads
    // its octets cleanly too (Greek under windows-1251, Turkish under
    // ISO-8859-1), and both parts then make the same mojibake, so their
    // words agree: an independent review found 75 of 216 correct
    // detections of a plain or calendar part turned into the sibling's
    // mojibake, and a different text sharing one word switched charsets.
    // Asked first: it costs nothing, and most parts have none (the ASCII
    // test below walks the body).
    if own.replacements == 0 || own.binary || crate::codec::is_ascii(bytes) {
        return false;
    }
    // A charset we know and cannot decode: the label is right, the hint
    // would be a guess.
    if own
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::UnsupportedCharset)
    {
        return false;
    }
    let used = own.used.and_then(Charset::decoder_name);
    // UTF-8 that read characters: its own evidence (a damaged octet among
    // them is damage, a single-byte reading would make mojibake of them).
    if own
        .used
        .is_some_and(|c| c.is_utf8() || c.is_unicode11_utf8())
        && own.text.chars().any(|c| !c.is_ascii() && c != '\u{FFFD}')
    {
        return false;
    }
    // The part's own declaration won over its Content-Type.
    if opts
        .declared
        .is_some_and(|c| c.decoder_name().is_some() && c.decoder_name() == used)
    {
        return false;
    }
    true
}

/// Whether the decision's clean reading `own` of `bytes` is one an East
/// Asian sibling may replace: a single-byte charset's (the label's, often
/// an HTML part's stale `<meta>`), not the part's own markup declaration
/// over its Content-Type, not binary. The text must also show the marks
/// of East Asian octets read one at a time
/// ([`charset::single_byte_mojibake`]), asked in [`hinted`] when a
/// sibling is labelled in an East Asian charset.
fn may_want_east_asian_hint(own: &Decoded<'_>, opts: &DecodeOptions) -> bool {
    if own.replacements > 0 || own.binary {
        return false;
    }
    let Some(used) = own.used else {
        return false;
    };
    if !used.is_single_byte() || used.decoder_name().is_none() {
        return false;
    }
    if opts
        .declared
        .is_some_and(|c| c.decoder_name().is_some() && c.decoder_name() == used.decoder_name())
    {
        return false;
    }
    true
}

/// Whether `hint`, an East Asian charset's reading of a part whose own
/// reading `own` was clean, is the sibling's text (`theirs`, its words):
/// plausible Han, kana or Hangul, none of `own`'s words among the
/// sibling's, and at least half of the reading's words with a character
/// beyond ASCII found there, six of their characters or more. A clean
/// reading stands on less: the sibling's text is the only evidence.
fn same_east_asian_text(hint: &str, own: &str, theirs: &HashSet<&str>) -> bool {
    if charset::east_asian_letters(hint) < 6 || found(own, theirs) > 0 {
        return false;
    }
    let mine: HashSet<&str> = words(hint).collect();
    let shared: Vec<&&str> = mine.iter().filter(|w| theirs.contains(*w)).collect();
    let chars: usize = shared
        .iter()
        .map(|w| w.chars().filter(|c| !c.is_ascii()).count())
        .sum();
    shared.len() * 2 >= mine.len() && chars >= 6
}

/// The nearest multipart/alternative holding `part` through multiparts
/// only (not across an attached message).
fn alternative_of<'m, 'a>(msg: &'m Message<'a>, part: &Part<'a>) -> Option<&'m Part<'a>> {
    match search(&msg.root, part) {
        Search::Closed(found) => found,
        Search::Missing | Search::Open => None,
    }
}

enum Search<'m, 'a> {
    /// `part` is not below this node.
    Missing,
    /// `part` is below, no multipart/alternative yet on the way up.
    Open,
    /// Settled: the alternative, or none (an attached message's boundary
    /// was crossed first).
    Closed(Option<&'m Part<'a>>),
}

fn search<'m, 'a>(node: &'m Part<'a>, part: &Part<'a>) -> Search<'m, 'a> {
    match &node.kind {
        PartKind::Leaf => {
            if std::ptr::eq(node, part) {
                Search::Open
            } else {
                Search::Missing
            }
        }
        PartKind::Message(inner) => match search(inner, part) {
            Search::Open => Search::Closed(None),
            other => other,
        },
        PartKind::Multipart(m) => {
            for child in &m.parts {
                match search(child, part) {
                    Search::Missing => continue,
                    Search::Open if node.content_type.subtype == "alternative" => {
                        return Search::Closed(Some(node));
                    }
                    other => return other,
                }
            }
            Search::Missing
        }
    }
}

/// The text leaves under `node` but `part`, in order, not looking into
/// attached messages.
fn text_leaves<'m, 'a>(node: &'m Part<'a>, part: &Part<'a>, out: &mut Vec<&'m Part<'a>>) {
    match &node.kind {
        PartKind::Leaf => {
            if node.is_text() && !std::ptr::eq(node, part) {
                out.push(node);
            }
        }
        PartKind::Message(_) => {}
        PartKind::Multipart(m) => {
            // No further than the rule asks ([`MAX_SIBLINGS`]).
            for child in &m.parts {
                if out.len() > MAX_SIBLINGS {
                    return;
                }
                text_leaves(child, part, out);
            }
        }
    }
}

/// A sibling's charset and its text, when its reading is its label's (or
/// its markup's), clean, 8-bit, and in an ASCII-compatible charset other
/// than UTF-8.
fn hint_of(
    msg: &Message<'_>,
    sib: &Part<'_>,
    opts: &DecodeOptions,
) -> Option<(&'static Charset, String)> {
    if matches!(
        sib.transfer_encoding,
        crate::mime::TransferEncoding::Other(_)
    ) {
        return None;
    }
    let (bytes, transfer_findings) = sib.decoded_body(msg);
    if !transfer_findings.is_empty() || crate::codec::is_ascii(&bytes) {
        return None;
    }
    let ct = &sib.content_type;
    let (label, _) = body_label(ct, &bytes)?;
    let labelled = charset::resolve(Some(label)).charset?.decoder_name()?;
    let declared = declared_label(ct, &bytes);
    let body = DecodeOptions {
        body: true,
        declared,
        header_hint: None,
        repair_mixed: false,
        repair_cesu8: false,
        ..*opts
    };
    let d = charset::decode(&bytes, Some(label), &body);
    let used = d.used?;
    let decoder = used.decoder_name()?;
    if d.binary
        || d.replacements > 0
        || !used.is_ascii_compatible()
        || used.is_utf8()
        || used.is_unicode11_utf8()
    {
        return None;
    }
    let doubted = d.findings.iter().any(|f| {
        matches!(
            f.kind,
            FindingKind::Mislabeled | FindingKind::MixedCharset | FindingKind::MissingLabel
        )
    });
    let its_label = decoder == labelled && !doubted;
    // Its markup's declaration, read over a Content-Type that lied.
    let its_markup = declared.is_some_and(|c| c.decoder_name() == Some(decoder));
    (its_label || its_markup).then(|| (used, d.text.into_owned()))
}

/// The words of `text` that hold a character beyond ASCII.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_ascii())
}

/// How many different words with a character beyond ASCII `text` shares
/// with `theirs`.
fn found(text: &str, theirs: &HashSet<&str>) -> usize {
    let mine: HashSet<&str> = words(text).collect();
    mine.iter().filter(|w| theirs.contains(*w)).count()
}

/// `own` with the text, charset and findings of `h`, the reading in the
/// sibling `sib`'s charset `hint`.
fn read_as<'b>(
    bytes: &[u8],
    own: &Decoded<'b>,
    h: Decoded<'b>,
    hint: &'static Charset,
    sib: &Part<'_>,
) -> Decoded<'b> {
    let note = format!(
        "read as {}, the charset of its sibling part {} (multipart/alternative), whose text has the same words",
        hint.name(),
        sib.id
    );
    // What the part's label says stays said; what its reading found (the
    // damage, detection's guess) no longer applies.
    let mut findings: Vec<Finding> = own
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FindingKind::UnknownLabel
                    | FindingKind::UnsupportedCharset
                    | FindingKind::EightBitInAscii
            )
        })
        .cloned()
        .collect();
    let labelled = own
        .resolution
        .charset
        .is_some_and(|c| c.decoder_name().is_some());
    if let Some(unknown) = findings
        .iter_mut()
        .find(|f| f.kind == FindingKind::UnknownLabel)
    {
        let named = unknown.clone().with_note(note);
        *unknown = named;
    } else if labelled {
        let first = bytes.iter().position(|&b| b >= 0x80).unwrap_or(0);
        let label = own.resolution.charset.map_or("", Charset::name);
        findings.push(
            Finding::new(FindingKind::Mislabeled, first, 1)
                .with_note(format!("labelled {label}, {note}")),
        );
    } else {
        // A label that names no charset (`x-unknown`) says so first.
        let said = own
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::MissingLabel)
            .and_then(|f| f.note.as_deref());
        let note = match said {
            Some(said) => format!("{said}; {note}"),
            None => note,
        };
        findings.push(Finding::new(FindingKind::MissingLabel, 0, 1).with_note(note));
    }
    findings.extend(h.findings);
    let verdict = if own.verdict == Verdict::UnknownLabel {
        Verdict::UnknownLabel
    } else if labelled {
        Verdict::Mislabeled
    } else {
        Verdict::Suspicious
    };
    Decoded {
        text: h.text,
        resolution: own.resolution,
        used: h.used,
        detected: Some(Detected {
            charset: hint,
            confidence: 0.9,
        }),
        findings,
        verdict,
        replacements: 0,
        binary: false,
    }
}
