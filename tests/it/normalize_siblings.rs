//! The charset of a sibling part in a multipart/alternative
//! (`message::sibling`, doc/charset-decision.md "Where a body's label comes
//! from"): normalize and audit read a part without a label, or whose label
//! fails on its octets, in the charset its sibling was read in cleanly, when
//! that reads the same words; and leave every other part as it was.

use mailcharset::audit::{self, AuditOptions, MessageContext, Record};
use mailcharset::normalize::{self, Options};
use std::borrow::Cow;

fn norm(raw: &[u8]) -> Vec<u8> {
    let n = normalize::normalize(raw, &Options::default()).expect("normalized");
    let again = normalize::normalize(&n.bytes, &Options::default()).expect("normalized");
    assert!(matches!(again.bytes, Cow::Borrowed(_)), "not idempotent");
    n.bytes.into_owned()
}

fn audit(raw: &[u8]) -> Vec<Record> {
    let ctx = MessageContext {
        input: "t.eml",
        index: 0,
    };
    audit::audit_message(raw, &ctx, &AuditOptions::default())
}

/// The text of each text leaf of `msg`, transfer decoding undone, read as
/// UTF-8 (normalize's output).
fn texts(msg: &[u8]) -> Vec<String> {
    let m = mailcharset::message::Message::parse(msg);
    m.parts()
        .into_iter()
        .filter(|p| p.is_text())
        .map(|p| String::from_utf8_lossy(&p.decoded_body(&m).0).into_owned())
        .collect()
}

/// The audit's body record of part `id`: label, charset read (detected or
/// the label's), verdict, and the notes of its findings.
fn body(raw: &[u8], id: &str) -> (Option<String>, Option<String>, String, Vec<String>) {
    let rec = audit(raw)
        .into_iter()
        .find(|r| r.location == "body" && r.part == id)
        .expect("a body record");
    let read = rec
        .detected
        .as_ref()
        .map(|d| d.charset.clone())
        .or(rec.charset.clone());
    let notes = rec
        .findings
        .iter()
        .map(|f| format!("{} {}", f.kind, f.note.as_deref().unwrap_or("")))
        .collect();
    (rec.label, read, rec.verdict.as_str().to_string(), notes)
}

/// A multipart/`kind` message of two 8-bit parts.
fn two(kind: &str, ct1: &str, b1: &[u8], ct2: &str, b2: &[u8]) -> Vec<u8> {
    [
        format!(
            "From: a@example.org\nSubject: x\nMIME-Version: 1.0\n\
             Content-Type: multipart/{kind}; boundary=\"B\"\n\n--B\n\
             Content-Type: {ct1}\nContent-Transfer-Encoding: 8bit\n\n"
        )
        .as_bytes(),
        b1,
        format!("\n--B\nContent-Type: {ct2}\nContent-Transfer-Encoding: 8bit\n\n").as_bytes(),
        b2,
        b"\n--B--\n",
    ]
    .concat()
}

fn cp1252(s: &str) -> Vec<u8> {
    encoding_rs::WINDOWS_1252.encode(s).0.into_owned()
}

fn latin2(s: &str) -> Vec<u8> {
    encoding_rs::ISO_8859_2.encode(s).0.into_owned()
}

fn cp1250(s: &str) -> Vec<u8> {
    encoding_rs::WINDOWS_1250.encode(s).0.into_owned()
}

fn html(s: &str) -> String {
    format!("<html><body><p>{s}</p></body></html>")
}

const FR: &str = "Il faut mettre à jour le paquet.";
const CS: &str = "Zmínky o alkoholických nápojích. Metalinkový soubor se zamítá. Nebezpečný název.";

/// An HTML part labelled utf-8 over the octets of its windows-1252 (or
/// ISO-8859-2) plain sibling: one `à` was U+FFFD (too few octets to doubt
/// the label), a Czech text was read as detection's windows-1252
/// (`Nebezpeèný`). Hunt `h_struct.py` seed 2: 6 of 195 HTML parts.
#[test]
fn a_failing_label_is_read_in_the_sibling_charset_when_its_words_agree() {
    for (plain_cs, octets, text) in [
        ("windows-1252", cp1252(FR), FR),
        ("iso-8859-2", latin2(CS), CS),
    ] {
        let page = html(text);
        let page_octets = if plain_cs == "windows-1252" {
            cp1252(&page)
        } else {
            latin2(&page)
        };
        let raw = two(
            "alternative",
            &format!("text/plain; charset={plain_cs}"),
            &octets,
            "text/html; charset=utf-8",
            &page_octets,
        );
        let out = texts(&norm(&raw));
        assert_eq!(out, [text.to_string(), page.clone()], "{plain_cs}");
        let (label, read, verdict, notes) = body(&raw, "2");
        assert_eq!(label.as_deref(), Some("utf-8"));
        assert_eq!(
            read.as_deref().map(str::to_ascii_lowercase).as_deref(),
            Some(plain_cs)
        );
        assert_eq!(verdict, "mislabeled");
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("mislabeled ")
                    && n.contains("the charset of its sibling part 1")),
            "{notes:?}"
        );
    }
}

/// An unlabelled part beside a labelled sibling: a text/plain part next to
/// its ISO-8859-2 HTML was read as windows-1252 (`Nebezpeèný`), an
/// Outlook meeting's text/calendar next to its windows-1250 text/plain too
/// (`øetìzec`, a word the plain part does not hold: the words they share
/// read alike in both, and the sibling's label is the mailer's word where
/// detection only guesses).
#[test]
fn an_unlabelled_part_is_read_in_the_sibling_charset() {
    let raw = two(
        "alternative",
        "text/plain",
        &latin2(CS),
        "text/html; charset=iso-8859-2",
        &latin2(&html(CS)),
    );
    assert_eq!(texts(&norm(&raw)), [CS.to_string(), html(CS)]);
    let (label, read, verdict, notes) = body(&raw, "1");
    assert_eq!(
        (label, read.as_deref(), verdict.as_str()),
        (None, Some("ISO-8859-2"), "suspicious")
    );
    assert!(
        notes.iter().any(|n| n
            .starts_with("missing-label read as ISO-8859-2, the charset of its sibling part 2")),
        "{notes:?}"
    );

    // The HTML of a multipart/related inside the alternative (the page
    // and its images) is a sibling too.
    let raw = [
        b"From: a@example.org\nMIME-Version: 1.0\n\
          Content-Type: multipart/alternative; boundary=\"B\"\n\n--B\n\
          Content-Type: text/plain; charset=iso-8859-2\n\
          Content-Transfer-Encoding: 8bit\n\n"
            .as_slice(),
        &latin2(CS),
        b"\n--B\nContent-Type: multipart/related; boundary=\"R\"\n\n--R\n\
          Content-Type: text/html\nContent-Transfer-Encoding: 8bit\n\n",
        &latin2(&html(CS)),
        b"\n--R\nContent-Type: image/png\n\nPNG\n--R--\n--B--\n",
    ]
    .concat();
    assert_eq!(texts(&norm(&raw))[1], html(CS));
    assert_eq!(body(&raw, "2.1").1.as_deref(), Some("ISO-8859-2"));

    let summary = "Zadaný neplatné";
    let ics = format!(
        "BEGIN:VCALENDAR\nMETHOD:REQUEST\nVERSION:2.0\nBEGIN:VEVENT\n\
         SUMMARY;LANGUAGE=cs:{summary}\nLOCATION:řetězec\nDESCRIPTION:Poznámka\\n\n\
         END:VEVENT\nEND:VCALENDAR\n"
    );
    let raw = two(
        "alternative",
        "text/plain; charset=windows-1250",
        &cp1250(summary),
        "text/calendar; method=REQUEST",
        &cp1250(&ics),
    );
    assert_eq!(texts(&norm(&raw)), [summary.to_string(), ics]);
    let (_, read, _, notes) = body(&raw, "2");
    assert_eq!(read.as_deref(), Some("windows-1250"), "{notes:?}");
}

/// What the sibling rule must leave alone, each beside a case it changes
/// (so the test fails on code without the rule): a label that reads its
/// part cleanly; a sibling whose own label was judged a lie, or that is
/// not an alternative of the part (multipart/mixed); UTF-8 with a damaged
/// octet beside a windows-1252 sibling; a text whose words the sibling does
/// not hold under a failing label.
#[test]
fn the_sibling_charset_is_no_hint_where_the_part_or_the_sibling_says_otherwise() {
    // Changed: the utf-8 label fails on one octet the sibling reads.
    let fixed = two(
        "alternative",
        "text/plain; charset=windows-1252",
        &cp1252(FR),
        "text/html; charset=utf-8",
        &cp1252(&html(FR)),
    );
    assert_eq!(texts(&norm(&fixed))[1], html(FR));

    // Its own label reads it cleanly: windows-1250 octets under
    // iso-8859-1 beside a windows-1250 sibling stay the label's
    // (`Nebezpeèný`: one letter, no evidence of a lie the decision takes),
    // though the sibling reads the word otherwise.
    let word = "Nebezpečný název";
    let raw = two(
        "alternative",
        "text/plain; charset=windows-1250",
        &cp1250(word),
        "text/html; charset=iso-8859-1",
        &cp1250(&html(word)),
    );
    assert_eq!(body(&raw, "2").1.as_deref(), Some("ISO-8859-1"));
    assert_eq!(texts(&norm(&raw))[1], html("Nebezpeèný název"));

    // The sibling's label is judged a lie (8-bit octets under us-ascii,
    // read by detection): it is no hint, though detection read the
    // sibling in the very charset that would read the part.
    let raw = two(
        "alternative",
        "text/plain; charset=us-ascii",
        &cp1252(FR),
        "text/html; charset=utf-8",
        &cp1252(&html(FR)),
    );
    assert_eq!(body(&raw, "1").2, "mislabeled", "{:?}", body(&raw, "1"));
    assert_eq!(body(&raw, "2").2, "invalid", "{:?}", body(&raw, "2"));

    // multipart/mixed: two texts, not one text in two forms.
    let raw = two(
        "mixed",
        "text/plain; charset=windows-1252",
        &cp1252(FR),
        "text/html; charset=utf-8",
        &cp1252(&html(FR)),
    );
    assert!(texts(&norm(&raw))[1].contains('\u{FFFD}'));
    assert_eq!(body(&raw, "2").2, "invalid");

    // UTF-8 letters and one stray octet: damaged UTF-8, not windows-1252.
    let page = [html("Déjà vu, café").as_bytes(), b" \xe0 ".as_slice()].concat();
    let raw = two(
        "alternative",
        "text/plain; charset=windows-1252",
        &cp1252("Déjà vu, café à"),
        "text/html; charset=utf-8",
        &page,
    );
    let out = texts(&norm(&raw));
    assert!(
        out[1].contains("Déjà vu, café") && out[1].contains('\u{FFFD}'),
        "{out:?}"
    );

    // Under a failing label, words the sibling does not have are no
    // evidence: the label's reading, U+FFFD at the octet, stays.
    let raw = two(
        "alternative",
        "text/plain; charset=windows-1252",
        &cp1252("Voilà tout."),
        "text/html; charset=utf-8",
        &cp1252(&html("Il était une fois.")),
    );
    assert_eq!(body(&raw, "2").2, "invalid");
}
