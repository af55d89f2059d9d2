//! The header-field vectors of stalwart mail-parser
//! (`../shared/corpus/stalwart-mail-parser/resources/*.json`), compared with
//! their expected values. Every difference is justified in a table below;
//! a difference not in a table fails, and so does a table entry that no
//! longer differs (so the tables stay true).
//!

use crate::common;
use mailcharset::mime;
use serde_json::Value;
use std::path::PathBuf;

fn resources() -> Option<PathBuf> {
    common::corpus_file("mime_vectors", "stalwart-mail-parser/resources")
}

/// A vector file: the copy in fixtures/vectors/stalwart when the repository
/// has one (a fresh clone runs those), else the corpus's.
fn load(name: &str) -> Option<Vec<Value>> {
    let vendored = common::fixtures().join("vectors/stalwart").join(name);
    let path = if vendored.is_file() {
        vendored
    } else {
        resources()?.join(name)
    };
    let text = std::fs::read_to_string(path).expect("vector file readable");
    let v: Value = serde_json::from_str(&text).expect("vector file is JSON");
    Some(v.as_array().expect("an array").clone())
}

/// The value of a synthetic field carrying `header` (which may run into the
/// next field, as some vectors do).
fn field_value(header: &str) -> Vec<u8> {
    let mut msg = b"X-Test:".to_vec();
    msg.extend_from_slice(header.as_bytes());
    let block = mime::parse_header_block(&msg);
    block.fields[0].value.to_vec()
}

struct Tally {
    agree: usize,
    justified: usize,
    failures: Vec<String>,
}

fn check(
    file: &str,
    table: &[(&str, &str)],
    mut actual_of: impl FnMut(&str) -> Value,
    expected_of: impl Fn(&Value) -> Value,
) -> Option<Tally> {
    let vectors = load(file)?;
    assert!(!vectors.is_empty(), "{file} has vectors");
    let mut t = Tally {
        agree: 0,
        justified: 0,
        failures: Vec::new(),
    };
    let mut used = vec![false; table.len()];
    for v in &vectors {
        let header = v["header"].as_str().expect("header is a string");
        let expected = expected_of(&v["expected"]);
        let actual = actual_of(header);
        let entry = table.iter().position(|(h, _)| *h == header);
        if actual == expected {
            t.agree += 1;
            if let Some(k) = entry {
                t.failures.push(format!(
                    "{file}: {header:?} agrees now; remove its table entry ({})",
                    table[k].1
                ));
            }
        } else if let Some(k) = entry {
            used[k] = true;
            t.justified += 1;
        } else {
            t.failures.push(format!(
                "{file}: {header:?}\n  expected {expected}\n  actual   {actual}"
            ));
        }
    }
    for (k, u) in used.iter().enumerate() {
        if !u && !t.failures.iter().any(|f| f.contains(table[k].0)) {
            t.failures.push(format!(
                "{file}: table entry {:?} matched no vector",
                table[k].0
            ));
        }
    }
    println!(
        "{file}: {} agree, {} justified differences, {} unexplained",
        t.agree,
        t.justified,
        t.failures.len()
    );
    Some(t)
}

fn assert_clean(t: Tally) {
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n"));
    assert!(t.agree > 0);
}

/// Content-Type vectors whose expected value we do not share, and why.
const CONTENT_TYPE_DIFFERENCES: &[(&str, &str)] = &[
    (
        "image/jpeg;\n   name=\"=?iso-8859-1?B?4Q==?= =?utf-8?B?w6k=?= =?iso-8859-1?q?=ED?=.jpeg\"\n",
        "white space between adjacent encoded-words is dropped also inside a quoted \
         string (RFC 2047 6.2; mailers split long names into words this way): \
         \"áéí.jpeg\", not \"á é í.jpeg\" (differs only with the real charset layer)",
    ),
    (
        "test/encoded; key4*=us-ascii''foo; key*9999=ba%; key2*0=a; key3*0*=us-ascii'en'xyz; key*0=\"f\0oo\"; key2*1*=b%25; key3*1=plop%; key*1=baz; *=test; =test2;\n",
        "same values; parameters are listed in order of first appearance (key*9999 \
         comes before key2*0), mail-parser lists a joined parameter where its last \
         section appears",
    ),
    (
        "malicious/attempt; 1*2*=a; 3**=b; 4***=c; *5**6*=d;*****7*8*=e; 9*10*11*12*13*14=f; 15*x***fff*===g;1 * 999999999999999999 *= h; 18 *=*=*=*=*==i;\n",
        "garbage names: we take `1*2*=a` as section 2 of `1` (reported missing \
         sections 0 and 1) and drop every other item as a parameter without a \
         valid name (`3**`, `*5**6*`, `1 * 9...` hold no `attr[*N][*]=`), each with \
         a malformed finding; mail-parser guesses names out of them",
    ),
];

fn content_type_actual(header: &str) -> Value {
    let value = field_value(header);
    let ct = mime::ContentType::parse(&value);
    // mail-parser parses Content-Type and Content-Disposition with one
    // parser; we have two. A value without a subtype is not a Content-Type
    // (we default it to text/plain, RFC 2045 5.2), so it is compared as the
    // Content-Disposition it usually is.
    if ct.defaulted {
        let cd = mime::ContentDisposition::parse(&value);
        if cd.disposition.is_empty() {
            return Value::Null;
        }
        return serde_json::json!({
            "c_type": cd.disposition,
            "c_subtype": null,
            "attributes": attributes(&cd.params),
        });
    }
    serde_json::json!({
        "c_type": ct.media_type,
        "c_subtype": ct.subtype,
        "attributes": attributes(&ct.params),
    })
}

/// mail-parser's shape: `[name, value]` pairs, a `name-language` pair before
/// a parameter with a language, null when there are none.
fn attributes(params: &[mime::Parameter]) -> Value {
    let mut attrs = Vec::new();
    for p in params {
        if let Some(lang) = &p.language {
            attrs.push(serde_json::json!([format!("{}-language", p.name), lang]));
        }
        attrs.push(serde_json::json!([p.name, p.value]));
    }
    if attrs.is_empty() {
        Value::Null
    } else {
        Value::Array(attrs)
    }
}

#[test]
fn content_type_vectors() {
    let Some(t) = check(
        "content_type.json",
        CONTENT_TYPE_DIFFERENCES,
        content_type_actual,
        |e| {
            // One vector leaves "attributes" out: the same as null.
            let mut e = e.clone();
            if let Some(o) = e.as_object_mut() {
                o.entry("attributes").or_insert(Value::Null);
            }
            e
        },
    ) else {
        return;
    };
    assert_clean(t);
}

/// Unstructured vectors whose expected value we do not share, and why.
const UNSTRUCTURED_DIFFERENCES: &[(&str, &str)] = &[
    (
        " Fwd: \n\tSaying \n Hello\r\n",
        "RFC 5322 2.2.3 unfolding removes the line end only; the white space after \
         it stays (\"Fwd: \\tSaying  Hello\"); mail-parser collapses each fold",
    ),
    (
        " FWD: \n Saying Hello \nX-Mailer: 123\r\n",
        "RFC 5322 unfolding keeps the white space of the fold (\"FWD:  Saying Hello\")",
    ),
    (
        " from x.y.test\n      by example.net\n      via TCP\n      with ESMTP\n      id ABC12345\n      for <mary@example.net>;  21 Nov 1997 10:05:43 -0600\n",
        "RFC 5322 unfolding keeps the indentation of each continuation line",
    ),
    (
        " let's = try =?iso-8859-1? to break\n =? the \n parser\n",
        "RFC 5322 unfolding keeps the white space of the fold (\"the  parser\")",
    ),
    (
        "[SUSPECTED SPAM]=?utf-8?B?VGhpcyBpcyB0aGUgb3JpZ2luYWwgc3ViamVjdA==?=\n",
        "no space is written where the input has none: \"[SUSPECTED SPAM]This ...\"",
    ),
    (
        "[SUSPECTED SPAM]=?utf-8?B?VGhpcyBpcyB0aGUgb\n 3JpZ2luYWwgc3ViamVjdA==?=\n",
        "no space is written where the input has none (the fold inside the word is \
         removed, with a malformed-encoded-word finding)",
    ),
    (
        "[SUSPECTED SPAM]=?utf-8?B?VGhpcyBpcyB0aGUgb\r\n 3JpZ2luYWwgc3ViamVjdA==?=\r\n",
        "as the LF form above",
    ),
    (
        "Some text =?utf-8?Q??=here\n",
        "the empty word decodes to nothing (malformed-encoded-word finding), the \
         text around it is kept as written: \"Some text here\"",
    ),
];

#[test]
fn unstructured_vectors() {
    let Some(t) = check(
        "unstructured.json",
        UNSTRUCTURED_DIFFERENCES,
        |h| Value::String(mime::decode_unstructured(&field_value(h)).text),
        |e| e.clone(),
    ) else {
        return;
    };
    assert_clean(t);
}

/// mail-parser's address shape: `{"List": [...]}` without groups,
/// `{"Group": [...]}` with (ungrouped runs become groups named null).
/// Our name is the display name, else the comments joined by a space.
fn address_actual(header: &str) -> Value {
    let list = mime::parse_address_list(&field_value(header));
    let mailbox = |m: &mime::Mailbox| {
        let name = match &m.display_name {
            Some(d) => Value::String(d.text.clone()),
            None if !m.comments.is_empty() => Value::String(
                m.comments
                    .iter()
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            None => Value::Null,
        };
        serde_json::json!({"name": name, "address": m.addr_spec})
    };
    if list.groups.is_empty() {
        let v: Vec<Value> = list.mailboxes.iter().map(mailbox).collect();
        return serde_json::json!({ "List": v });
    }
    let mut groups: Vec<(Option<usize>, Vec<Value>)> = Vec::new();
    let mut next_group = 0;
    for m in &list.mailboxes {
        // Empty groups have no mailboxes: emit them in order.
        while let Some(g) = m.group.filter(|&g| g > next_group) {
            let _ = g;
            groups.push((Some(next_group), Vec::new()));
            next_group += 1;
        }
        match groups.last_mut() {
            Some((g, v)) if *g == m.group => v.push(mailbox(m)),
            _ => {
                if let Some(g) = m.group {
                    next_group = g + 1;
                }
                groups.push((m.group, vec![mailbox(m)]));
            }
        }
    }
    while next_group < list.groups.len() {
        groups.push((Some(next_group), Vec::new()));
        next_group += 1;
    }
    let v: Vec<Value> = groups
        .into_iter()
        .map(|(g, addresses)| {
            let name = g.map(|g| list.groups[g].name.text.clone());
            serde_json::json!({"name": name, "addresses": addresses})
        })
        .collect();
    serde_json::json!({ "Group": v })
}

/// Address vectors whose expected value we do not share, and why.
const ADDRESS_DIFFERENCES: &[(&str, &str)] = &[
    (
        "Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>\n",
        COMMENTS_APART,
    ),
    (
        "Pete(A nice \n \\\n ) chap) <pete(his\n account)@silly\n .test(his host)>\n",
        "`\\` before a line end is obs-qp (RFC 5322 4.1), so the comment ends at \
         the first `)` and `chap)` is phrase text: name \"Pete chap)\"; and comments \
         are kept apart",
    ),
    (
        "A Group(Some people)\n        :Chris Jones <c@(Chris's host.)public.example>,\n            joe@example.org,\n     John <jdoe@one.test> (my dear friend); (the end of the group)\n",
        COMMENTS_APART,
    ),
    (
        "(Empty list)(start)Hidden recipients  :(nobody(that I know))  ;\n",
        COMMENTS_APART,
    ),
    (
        "Mary Smith <@node.test:mary@example.net>, , jdoe@test  . example\n",
        "CFWS inside an addr-spec is not part of the address (RFC 5322 4.4): \
         \"jdoe@test.example\"",
    ),
    (
        "John Doe <jdoe@machine(comment).  example>\n",
        "CFWS inside an addr-spec is not part of the address, and comments are \
         kept apart: \"jdoe@machine.example\", name \"John Doe\"",
    ),
    ("Name (comment) =?utf-8?q?Doe?= <a@b.com>\n", COMMENTS_APART),
    (
        "Nathaniel Borenstein <nsb@thumper.bellcore.com>\n    (=?iso-8859-8?b?7eXs+SDv4SDp7Oj08A==?=)\n",
        COMMENTS_APART,
    ),
];

const COMMENTS_APART: &str = "comments are kept apart (`Mailbox::comments`, `Group` name without them), not appended to the display name; mail-parser appends them";

#[test]
fn address_vectors() {
    let Some(t) = check("address.json", ADDRESS_DIFFERENCES, address_actual, |e| {
        e.clone()
    }) else {
        return;
    };
    assert_clean(t);
}

/// Keywords-style phrase lists (`list.json`): no differences.
#[test]
fn list_vectors() {
    let Some(t) = check(
        "list.json",
        &[],
        |h| {
            let items: Vec<Value> = mime::decode_phrase_list(&field_value(h))
                .into_iter()
                .map(|d| Value::String(d.text))
                .collect();
            Value::Array(items)
        },
        |e| e.clone(),
    ) else {
        return;
    };
    assert_clean(t);
}

/// Message-ID lists (`id.json`); `null` is an empty list.
#[test]
fn id_vectors() {
    let Some(t) = check(
        "id.json",
        &[],
        |h| {
            let ids = mime::parse_msg_ids(&field_value(h));
            if ids.is_empty() {
                Value::Null
            } else {
                serde_json::json!(ids)
            }
        },
        |e| e.clone(),
    ) else {
        return;
    };
    assert_clean(t);
}
