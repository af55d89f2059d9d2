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
        for r in records {
            match self.format {
                Format::Table => {}
                Format::Jsonl => {
                    json_line(&mut self.out, r)?;
                    self.out.write_all(b"\n")?;
                }
                Format::Json => {
                    self.out
                        .write_all(if self.written == 0 { b"\n" } else { b",\n" })?;
                    json_line(&mut self.out, r)?;
                }
                Format::Csv => write_csv_rows(&mut self.out, r)?,
            }
            self.written += 1;
        }
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

/// A record as one line of JSON, with DEL and the C1 controls escaped too
/// (`\u009b`; serde_json escapes only C0), so that JSON printed on a
/// terminal cannot drive it either.
fn json_line(out: &mut impl Write, r: &Record) -> io::Result<()> {
    let s = serde_json::to_string(r)?;
    // C1 controls are C2 80..C2 9F in UTF-8.
    let has_c1 = s
        .as_bytes()
        .windows(2)
        .any(|w| w[0] == 0xC2 && (0x80..0xA0).contains(&w[1]));
    if !has_c1 && !s.contains('\u{7f}') {
        return out.write_all(s.as_bytes());
    }
    let mut e = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match u32::from(c) {
            v @ (0x7F..=0x9F) => e.push_str(&format!("\\u{v:04x}")),
            _ => e.push(c),
        }
    }
    out.write_all(e.as_bytes())
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
            r.charset.as_deref().unwrap_or(""),
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
    use crate::finding::{Finding, FindingKind, LabelStatus, Verdict};

    fn records() -> Vec<Record> {
        let base = Record {
            input: "dir/a,b.eml".into(),
            index: 0,
            message_id: Some("x\"y@z".into()),
            part: "1.2".into(),
            location: "param:filename".into(),
            label: Some("utf-8".into()),
            charset: Some("UTF-8".into()),
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
            eprintln!("skipping the Python csv oracle: python3 not available");
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
