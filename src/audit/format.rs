use super::record::Record;
use super::summary::Summary;
use std::borrow::Cow;
use std::io::{self, Write};

/// Output formats of `mailcharset audit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A human summary: labels x verdicts, top findings, worst messages.
    Table,
    /// One JSON array of records.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// One row per finding.
    Csv,
}

/// CSV header; one row per finding (records without findings have no row).
pub const CSV_HEADER: &str = "input,index,message_id,part,location,label,charset,status,verdict,detected_charset,detected_confidence,kind,offset,count";

/// Streaming writer for records in one format. `Table` buffers a summary and
/// prints it in [`RecordWriter::finish`]; the others write as they go.
pub struct RecordWriter<W: Write> {
    out: W,
    format: Format,
    written: usize,
    summary: Summary,
}

impl<W: Write> RecordWriter<W> {
    /// A writer of `format` into `out` (JSON opens its array, CSV writes its header).
    pub fn new(out: W, format: Format) -> io::Result<Self> {
        let mut w = RecordWriter {
            out,
            format,
            written: 0,
            summary: Summary::default(),
        };
        match format {
            Format::Json => w.out.write_all(b"[")?,
            Format::Csv => writeln!(w.out, "{CSV_HEADER}")?,
            Format::Table | Format::Jsonl => {}
        }
        Ok(w)
    }

    /// Writes the records of one message.
    pub fn write_message(&mut self, records: &[Record]) -> io::Result<()> {
        self.summary.add_message(records);
        if self.format == Format::Table {
            self.written += records.len();
            return Ok(());
        }
        self.write_formatted(&Formatted::new(self.format, records)?)
    }

    /// Writes the records of one message that a worker thread formatted
    /// ([`Formatted::new`], same format): the writing thread only copies
    /// bytes. They are not added to the [`RecordWriter::summary`]; a
    /// table (which is the summary) takes [`RecordWriter::write_message`].
    pub fn write_formatted(&mut self, f: &Formatted) -> io::Result<()> {
        if f.format != self.format || self.format == Format::Table {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "records formatted for another format",
            ));
        }
        let mut bytes = &f.bytes[..];
        // JSON: every record was written after ",\n"; the array's first
        // one goes after "\n".
        if self.written == 0 && self.format == Format::Json {
            bytes = bytes.strip_prefix(b",").unwrap_or(bytes);
        }
        self.out.write_all(bytes)?;
        self.written += f.records;
        Ok(())
    }

    /// The summary of everything written so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Closes the output (the JSON array, the table) and returns the summary.
    pub fn finish(self) -> io::Result<Summary> {
        self.finish_output().map(|(summary, _)| summary)
    }

    /// [`RecordWriter::finish`], handing the output back (to be committed
    /// when it is a [`crate::mailbox::AtomicFile`]).
    pub fn finish_output(mut self) -> io::Result<(Summary, W)> {
        match self.format {
            Format::Json => self.out.write_all(b"\n]\n")?,
            Format::Table => self.summary.write_table(&mut self.out)?,
            Format::Jsonl | Format::Csv => {}
        }
        self.out.flush()?;
        Ok((self.summary, self.out))
    }
}

/// The records of one message written in a format, away from the
/// [`RecordWriter`] (on the worker thread that audited the message), for
/// [`RecordWriter::write_formatted`].
#[derive(Clone, Debug)]
pub struct Formatted {
    format: Format,
    bytes: Vec<u8>,
    records: usize,
    worst: Option<crate::finding::Verdict>,
}

impl Formatted {
    /// `records` in `format`, as [`RecordWriter::write_message`] writes
    /// them. The table is not written record by record: for it, the bytes
    /// are empty (write the records with `write_message`).
    pub fn new(format: Format, records: &[Record]) -> io::Result<Formatted> {
        let mut bytes = Vec::with_capacity(records.len() * 512);
        for r in records {
            match format {
                Format::Table => {}
                Format::Jsonl => {
                    json_into(&mut bytes, r)?;
                    bytes.push(b'\n');
                }
                Format::Json => {
                    bytes.extend_from_slice(b",\n");
                    json_into(&mut bytes, r)?;
                }
                Format::Csv => write_csv_rows(&mut bytes, r)?,
            }
        }
        Ok(Formatted {
            format,
            bytes,
            records: records.len(),
            worst: records.iter().map(|r| r.verdict).max(),
        })
    }

    /// The worst verdict among the records (None when there were none).
    pub fn worst(&self) -> Option<crate::finding::Verdict> {
        self.worst
    }
}

/// Writes all `records` (grouped by message as they come) in `format`.
pub fn write_records<W: Write>(out: W, format: Format, records: &[Record]) -> io::Result<Summary> {
    let mut w = RecordWriter::new(out, format)?;
    let mut start = 0;
    while start < records.len() {
        let key = (&records[start].input, records[start].index);
        let len = records[start..]
            .iter()
            .take_while(|r| (&r.input, r.index) == key)
            .count();
        w.write_message(&records[start..start + len])?;
        start += len;
    }
    w.finish()
}

/// `s` with C0 controls, DEL and C1 controls written as visible escapes
/// (`\x1b`, `\x7f`, `\u{9b}`): text from a message (a label, a
/// Message-ID, a field name, a file name) must not retitle a terminal or
/// clear the screen of the person reading a table or CSV. Used for the
/// table, CSV and the command line's messages.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match u32::from(c) {
            0x00..=0x1F | 0x7F => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            0x80..=0x9F => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Appends a record as one line of JSON to `out`: what serde_json writes
/// for it, with DEL and the C1 controls escaped too (`\u009b`; serde_json
/// escapes only C0), so that JSON printed on a terminal cannot drive it
/// either.
///
/// Written out field by field rather than through serde: formatting took
/// about 7% of `audit --format jsonl`'s instructions through serde_json
/// plus a second pass for DEL and C1 (doc/bench-log.md, issue 18, fifth
/// round). A test checks it against serde_json and that pass on generated
/// records.
fn json_into(out: &mut Vec<u8>, r: &Record) -> io::Result<()> {
    out.extend_from_slice(b"{\"input\":");
    json_str(out, &r.input);
    out.extend_from_slice(b",\"index\":");
    out.extend_from_slice(itoa::Buffer::new().format(r.index).as_bytes());
    out.extend_from_slice(b",\"message_id\":");
    json_opt_str(out, r.message_id.as_deref());
    out.extend_from_slice(b",\"part\":");
    json_str(out, &r.part);
    out.extend_from_slice(b",\"location\":");
    json_str(out, &r.location);
    out.extend_from_slice(b",\"label\":");
    json_opt_str(out, r.label.as_deref());
    out.extend_from_slice(b",\"charset\":");
    json_opt_str(out, r.charset);
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(r.status.as_str().as_bytes());
    out.push(b'"');
    out.extend_from_slice(b",\"verdict\":\"");
    out.extend_from_slice(r.verdict.as_str().as_bytes());
    out.push(b'"');
    out.extend_from_slice(b",\"detected\":");
    match &r.detected {
        None => out.extend_from_slice(b"null"),
        Some(d) => {
            out.extend_from_slice(b"{\"charset\":");
            json_str(out, &d.charset);
            out.extend_from_slice(b",\"confidence\":");
            // serde_json's float format (shortest round trip, null for NaN).
            serde_json::to_writer(&mut *out, &d.confidence)?;
            out.push(b'}');
        }
    }
    out.extend_from_slice(b",\"findings\":[");
    for (i, f) in r.findings.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"kind\":\"");
        out.extend_from_slice(f.kind.as_str().as_bytes());
        out.push(b'"');
        out.extend_from_slice(b",\"offset\":");
        out.extend_from_slice(itoa::Buffer::new().format(f.offset).as_bytes());
        out.extend_from_slice(b",\"count\":");
        out.extend_from_slice(itoa::Buffer::new().format(f.count).as_bytes());
        if let Some(note) = &f.note {
            out.extend_from_slice(b",\"note\":");
            json_str(out, note);
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

fn json_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => json_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON string: `"` and `\` escaped, the C0 controls as serde_json
/// writes them (`\n`, `\t` ..., else `\u00XX`), DEL and C1 as `\u00XX`.
fn json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    // Without an early exit the check runs 16 octets wide.
    let special = s.as_bytes().iter().fold(false, |any, &b| {
        any | !(0x20..0x7F).contains(&b) | (b == b'"') | (b == b'\\')
    });
    if !special {
        out.extend_from_slice(s.as_bytes());
    } else {
        for c in s.chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\u{8}' => out.extend_from_slice(b"\\b"),
                '\u{c}' => out.extend_from_slice(b"\\f"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    let v = u32::from(c) as usize;
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[v >> 4]);
                    out.push(HEX[v & 15]);
                }
                c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
    }
    out.push(b'"');
}

fn csv_field(out: &mut impl Write, s: &str) -> io::Result<()> {
    let s = &*escape_controls(s);
    if s.contains([',', '"', '\n', '\r']) {
        out.write_all(b"\"")?;
        out.write_all(s.replace('"', "\"\"").as_bytes())?;
        out.write_all(b"\"")
    } else {
        out.write_all(s.as_bytes())
    }
}

fn write_csv_rows(out: &mut impl Write, r: &Record) -> io::Result<()> {
    for f in &r.findings {
        let index = r.index.to_string();
        let (det_cs, det_conf) = match &r.detected {
            Some(d) => (d.charset.clone(), format!("{:.2}", d.confidence)),
            None => (String::new(), String::new()),
        };
        let offset = f.offset.to_string();
        let count = f.count.to_string();
        let fields: [&str; 14] = [
            &r.input,
            &index,
            r.message_id.as_deref().unwrap_or(""),
            &r.part,
            &r.location,
            r.label.as_deref().unwrap_or(""),
            r.charset.unwrap_or(""),
            r.status.as_str(),
            r.verdict.as_str(),
            &det_cs,
            &det_conf,
            f.kind.as_str(),
            &offset,
            &count,
        ];
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            csv_field(out, field)?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::record::{DetectedRecord, Source};
    use crate::finding::{Finding, FindingKind, LabelStatus, Verdict};
    use proptest::prelude::*;

    fn records() -> Vec<Record> {
        let base = Record {
            input: "dir/a,b.eml".into(),
            index: 0,
            message_id: Some("x\"y@z".into()),
            part: "1.2".into(),
            location: "param:filename".into(),
            label: Some("utf-8".into()),
            charset: Some("UTF-8"),
            status: LabelStatus::Preferred,
            verdict: Verdict::Invalid,
            detected: Some(super::super::DetectedRecord {
                charset: "windows-1252".into(),
                confidence: 0.5,
            }),
            findings: vec![
                Finding::new(FindingKind::Overlong, 5, 1).with_note("overlong '.'"),
                Finding::new(FindingKind::Replacement, 5, 1),
            ],
            year: None,
            source: Default::default(),
        };
        let mut clean = base.clone();
        clean.index = 1;
        clean.findings.clear();
        clean.verdict = Verdict::Ok;
        clean.detected = None;
        vec![base, clean]
    }

    fn render(format: Format) -> String {
        let mut out = Vec::new();
        write_records(&mut out, format, &records()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_is_one_array_of_the_contract_fields() {
        let v: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        let arr = v.as_array().unwrap();
        assert_eq!(arr.len(), 2);
        let keys: Vec<&str> = arr[0]
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        for k in [
            "input",
            "index",
            "message_id",
            "part",
            "location",
            "label",
            "charset",
            "status",
            "verdict",
            "detected",
            "findings",
        ] {
            assert!(keys.contains(&k), "missing {k}");
        }
        assert!(!keys.contains(&"year"));
        assert_eq!(arr[0]["findings"][0]["kind"], "overlong");
        assert_eq!(arr[0]["verdict"], "invalid");
        assert_eq!(arr[1]["detected"], serde_json::Value::Null);
    }

    #[test]
    fn jsonl_is_one_object_per_line_matching_json() {
        let lines: Vec<serde_json::Value> = render(Format::Jsonl)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let json: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        assert_eq!(serde_json::Value::Array(lines), json);
    }

    #[test]
    fn csv_has_one_row_per_finding_and_quotes_per_rfc4180() {
        let csv = render(Format::Csv);
        // Python's csv module is an independent reader.
        let script = "import csv,sys,json; print(json.dumps(list(csv.reader(sys.stdin))))";
        let child = std::process::Command::new("python3")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            // A skip, never a pass where the oracle must run (.ci/run).
            assert!(
                std::env::var_os("MAILCHARSET_REQUIRE_ORACLES").is_none(),
                "python3 is required (MAILCHARSET_REQUIRE_ORACLES) but could not run"
            );
            eprintln!("SKIPPED: the Python csv oracle: python3 not available");
            return;
        };
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(csv.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let rows: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rows.len(), 3, "header + 2 findings of the first record");
        assert_eq!(rows[0].join(","), CSV_HEADER);
        assert_eq!(rows[1][0], "dir/a,b.eml");
        assert_eq!(rows[1][2], "x\"y@z");
        assert_eq!(rows[1][11], "overlong");
        assert_eq!(rows[2][11], "replacement");
    }

    /// Formatted on a worker and copied by the writer, message after
    /// message (two records, none, one): against serde_json's own
    /// serialization of the records (JSON lines, one JSON array: the first
    /// record without a comma) and one CSV row per finding.
    #[test]
    fn formatted_records_write_as_serde_json_and_csv_rows() {
        let recs = records();
        let messages: [&[Record]; 3] = [&recs[..], &[], &recs[1..]];
        let all: Vec<&Record> = messages.iter().flat_map(|m| m.iter()).collect();
        let write = |format: Format| {
            let mut w = RecordWriter::new(Vec::new(), format).unwrap();
            for m in messages {
                let f = Formatted::new(format, m).unwrap();
                assert_eq!(f.worst(), m.iter().map(|r| r.verdict).max());
                w.write_formatted(&f).unwrap();
            }
            String::from_utf8(w.finish_output().unwrap().1).unwrap()
        };
        let lines: String = all
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        assert_eq!(write(Format::Jsonl), lines);
        let array: serde_json::Value = serde_json::from_str(&write(Format::Json)).unwrap();
        assert_eq!(array, serde_json::to_value(&all).unwrap());
        let csv = write(Format::Csv);
        let findings: usize = all.iter().map(|r| r.findings.len()).sum();
        assert_eq!(csv.lines().count(), 1 + findings, "{csv}");
        assert!(csv.starts_with(CSV_HEADER));
        // Records formatted for one format are refused by another, and the
        // table takes records.
        let f = Formatted::new(Format::Jsonl, &recs).unwrap();
        let mut w = RecordWriter::new(Vec::new(), Format::Json).unwrap();
        assert!(w.write_formatted(&f).is_err(), "another format is refused");
        let mut w = RecordWriter::new(Vec::new(), Format::Table).unwrap();
        let f = Formatted::new(Format::Table, &recs).unwrap();
        assert!(w.write_formatted(&f).is_err(), "a table takes records");
    }

    /// The JSON as it was made before `json_into` was written by hand:
    /// serde_json, then DEL and C1 escaped in a second pass.
    fn json_by_serde(r: &Record) -> Vec<u8> {
        let s = serde_json::to_string(r).unwrap();
        let mut out = String::new();
        for c in s.chars() {
            match u32::from(c) {
                v @ (0x7F..=0x9F) => out.push_str(&format!("\\u{v:04x}")),
                _ => out.push(c),
            }
        }
        out.into_bytes()
    }

    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(vec![
                "a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{8}", "\u{9}", "\n", "\u{b}",
                "\u{c}", "\r", "\u{1b}", "\u{1f}", "\u{7f}", "\u{80}", "\u{9b}", "\u{9f}",
                "\u{a0}", "é", "日", "\u{2028}", "\u{fffd}", "🚀",
            ]),
            0..8,
        )
        .prop_map(|v| v.concat())
    }

    fn finding() -> impl Strategy<Value = Finding> {
        (
            proptest::sample::select(vec![
                FindingKind::Overlong,
                FindingKind::Replacement,
                FindingKind::MissingLabel,
                FindingKind::MixedCharset,
            ]),
            any::<usize>(),
            any::<usize>(),
            proptest::option::of(text()),
        )
            .prop_map(|(kind, offset, count, note)| {
                let f = Finding::new(kind, offset, count);
                match note {
                    Some(n) => f.with_note(n),
                    None => f,
                }
            })
    }

    fn record() -> impl Strategy<Value = Record> {
        (
            (
                text(),
                any::<usize>(),
                proptest::option::of(text()),
                text(),
                text(),
            ),
            (
                proptest::option::of(text()),
                // Canonical names, the only ones a record holds.
                proptest::option::of(proptest::sample::select(vec![
                    "UTF-8",
                    "windows-1252",
                    "ISO-2022-JP",
                    "x-mac-ce",
                    "UNICODE-1-1-UTF-8",
                ])),
                proptest::sample::select(vec![
                    LabelStatus::Preferred,
                    LabelStatus::Registered,
                    LabelStatus::Whatwg,
                    LabelStatus::Alias,
                    LabelStatus::Unknown,
                    LabelStatus::Missing,
                ]),
                proptest::sample::select(vec![
                    Verdict::Ok,
                    Verdict::Suspicious,
                    Verdict::Mislabeled,
                    Verdict::Invalid,
                    Verdict::UnknownLabel,
                ]),
            ),
            proptest::option::of((text(), any::<f32>())),
            proptest::collection::vec(finding(), 0..4),
        )
            .prop_map(
                |(
                    (input, index, id, part, location),
                    (label, charset, status, verdict),
                    det,
                    findings,
                )| {
                    Record {
                        input: input.into(),
                        index,
                        message_id: id.map(Into::into),
                        part,
                        location,
                        label,
                        charset,
                        status,
                        verdict,
                        detected: det.map(|(charset, confidence)| DetectedRecord {
                            charset,
                            confidence,
                        }),
                        findings,
                        year: None,
                        source: Source::Body,
                    }
                },
            )
    }

    proptest! {
        /// The hand-written JSON is what serde_json plus the DEL and C1
        /// pass made, on records with every kind of character in every
        /// string, notes or none, detection or none (NaN and infinite
        /// confidences included).
        #[test]
        fn json_is_what_serde_json_writes(r in record()) {
            let mut out = Vec::new();
            json_into(&mut out, &r).unwrap();
            prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(json_by_serde(&r)).unwrap());
        }
    }

    #[test]
    fn json_escapes_del_and_c1_controls() {
        let mut r = records().remove(1);
        r.message_id = Some("a\u{7f}b\u{9b}c\u{a0}d".into());
        let mut out = Vec::new();
        json_into(&mut out, &r).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\"a\\u007fb\\u009bc\u{a0}d\""), "{s}");
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["message_id"], "a\u{7f}b\u{9b}c\u{a0}d");
    }

    #[test]
    fn table_names_labels_and_worst_messages() {
        let t = render(Format::Table);
        assert!(
            t.starts_with("2 messages, 2 labelled pieces of text"),
            "{t}"
        );
        assert!(t.contains("utf-8"));
        assert!(t.contains("worst messages:"));
        assert!(t.contains("dir/a,b.eml#0"));
    }
}
