use super::format::escape_controls;
use super::record::Record;
use crate::finding::{FindingKind, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

const VERDICTS: [Verdict; 5] = [
    Verdict::Ok,
    Verdict::Suspicious,
    Verdict::Mislabeled,
    Verdict::Invalid,
    Verdict::UnknownLabel,
];

/// One of the worst messages: (verdict, findings, input, index,
/// message_id); input and Message-ID shared with the records.
pub type WorstMessage = (Verdict, usize, Arc<str>, usize, Option<Arc<str>>);

/// A dangerous finding: (input, index, location, kind, note).
pub type Alert = (Arc<str>, usize, String, FindingKind, Option<String>);

/// Counts for one label (lower-cased as written; `(none)` when absent).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LabelRow {
    /// Messages that carry the label at least once.
    pub messages: usize,
    /// Records (labelled pieces of text) per verdict, in `VERDICTS` order.
    pub verdicts: [usize; 5],
    /// Canonical charset it resolved to.
    pub charset: Option<&'static str>,
}

/// A corpus summary built from records as they stream past.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Messages audited.
    pub messages: usize,
    /// Records (labelled pieces of text) written.
    pub records: usize,
    /// Records per verdict, in `VERDICTS` order.
    pub verdicts: [usize; 5],
    /// Per label as written (lower-cased): its charset and verdicts.
    pub labels: BTreeMap<String, LabelRow>,
    /// Per year (from Date): messages and records per verdict.
    pub years: BTreeMap<String, (usize, [usize; 5])>,
    /// Per finding kind: (records with it, total occurrences).
    pub findings: BTreeMap<FindingKind, (usize, usize)>,
    /// The worst messages: (verdict, findings, input, index, message_id).
    pub worst: Vec<WorstMessage>,
    /// Dangerous findings (NUL, overlong or surrogate forms, path traversal
    /// attempts), in input order, the first 20: (input, index,
    /// location, kind, note).
    pub alerts: Vec<Alert>,
    /// All dangerous findings, including those not kept in `alerts`.
    pub alert_count: usize,
}

/// Dangerous findings listed in the table.
pub(crate) const ALERTS_KEPT: usize = 20;

/// Finding kinds that are a security concern rather than a charset mistake:
/// forms a lenient decoder turns into characters a strict one refuses.
pub(crate) fn is_dangerous(kind: FindingKind) -> bool {
    matches!(
        kind,
        FindingKind::Nul
            | FindingKind::Overlong
            | FindingKind::Surrogate
            | FindingKind::SurrogatePair
            | FindingKind::OutOfRange
            | FindingKind::LegacyForm
            | FindingKind::ExtendedForm
    )
}

const WORST_KEPT: usize = 10;

fn verdict_slot(v: Verdict) -> usize {
    VERDICTS.iter().position(|&x| x == v).unwrap_or(0)
}

impl Summary {
    /// Adds the records of one message.
    pub fn add_message(&mut self, records: &[Record]) {
        let Some(first) = records.first() else {
            return;
        };
        self.messages += 1;
        let year = first
            .year
            .map_or_else(|| "unknown".to_string(), |y| y.to_string());
        let year_row = self.years.entry(year).or_default();
        year_row.0 += 1;
        let mut seen_labels: Vec<String> = Vec::new();
        let mut worst = Verdict::Ok;
        let mut finding_count = 0;
        for r in records {
            self.records += 1;
            let slot = verdict_slot(r.verdict);
            self.verdicts[slot] += 1;
            year_row.1[slot] += 1;
            worst = worst.max(r.verdict);
            finding_count += r.findings.len();
            for f in &r.findings {
                let e = self.findings.entry(f.kind).or_default();
                e.0 += 1;
                e.1 += f.count;
                if is_dangerous(f.kind) {
                    self.alert_count += 1;
                    if self.alerts.len() < ALERTS_KEPT {
                        self.alerts.push((
                            r.input.clone(),
                            r.index,
                            r.location.clone(),
                            f.kind,
                            f.note.as_deref().map(String::from),
                        ));
                    }
                }
            }
            if r.location == "message" {
                continue;
            }
            let key = r
                .label
                .as_deref()
                .map_or_else(|| "(none)".to_string(), |l| l.trim().to_ascii_lowercase());
            let row = self.labels.entry(key.clone()).or_default();
            row.verdicts[slot] += 1;
            if row.charset.is_none() {
                row.charset = r.charset;
            }
            if !seen_labels.contains(&key) {
                row.messages += 1;
                seen_labels.push(key);
            }
        }
        if worst > Verdict::Ok {
            self.worst.push((
                worst,
                finding_count,
                first.input.clone(),
                first.index,
                first.message_id.clone(),
            ));
            self.worst
                .sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.3.cmp(&b.3)));
            self.worst.truncate(WORST_KEPT);
        }
    }

    /// Merges another summary (for parallel runs) into this one.
    pub fn merge(&mut self, other: Summary) {
        self.messages += other.messages;
        self.records += other.records;
        add5(&mut self.verdicts, &other.verdicts);
        for (k, v) in other.labels {
            let row = self.labels.entry(k).or_default();
            row.messages += v.messages;
            add5(&mut row.verdicts, &v.verdicts);
            if row.charset.is_none() {
                row.charset = v.charset;
            }
        }
        for (k, v) in other.years {
            let row = self.years.entry(k).or_default();
            row.0 += v.0;
            add5(&mut row.1, &v.1);
        }
        for (k, v) in other.findings {
            let e = self.findings.entry(k).or_default();
            e.0 += v.0;
            e.1 += v.1;
        }
        self.alert_count += other.alert_count;
        let room = ALERTS_KEPT.saturating_sub(self.alerts.len());
        self.alerts.extend(other.alerts.into_iter().take(room));
        self.worst.extend(other.worst);
        self.worst
            .sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.3.cmp(&b.3)));
        self.worst.truncate(WORST_KEPT);
    }

    /// The human table: labels x verdicts, findings, years, worst messages.
    pub fn write_table(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "{} messages, {} labelled pieces of text",
            self.messages, self.records
        )?;
        writeln!(out)?;
        let width = self
            .labels
            .keys()
            .map(|k| k.chars().count())
            .max()
            .unwrap_or(5)
            .max(5);
        write!(
            out,
            "{:<width$} {:<18} {:>8}",
            "label", "charset", "messages"
        )?;
        for v in VERDICTS {
            write!(out, " {:>10}", v.as_str())?;
        }
        writeln!(out)?;
        for (label, row) in &self.labels {
            write!(
                out,
                "{:<width$} {:<18} {:>8}",
                escape_controls(label),
                row.charset.unwrap_or("-"),
                row.messages
            )?;
            for n in row.verdicts {
                write!(out, " {n:>10}")?;
            }
            writeln!(out)?;
        }
        write!(out, "{:<width$} {:<18} {:>8}", "total", "", self.messages)?;
        for n in self.verdicts {
            write!(out, " {n:>10}")?;
        }
        writeln!(out)?;
        if !self.findings.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "{:<26} {:>8} {:>12}",
                "finding", "records", "occurrences"
            )?;
            let mut rows: Vec<_> = self.findings.iter().collect();
            rows.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
            for (kind, (records, total)) in rows {
                writeln!(out, "{:<26} {:>8} {:>12}", kind.as_str(), records, total)?;
            }
        }
        if self.years.len() > 1 {
            writeln!(out)?;
            write!(out, "{:<8} {:>8}", "year", "messages")?;
            for v in VERDICTS {
                write!(out, " {:>10}", v.as_str())?;
            }
            writeln!(out)?;
            for (year, (messages, verdicts)) in &self.years {
                write!(out, "{year:<8} {messages:>8}")?;
                for n in verdicts {
                    write!(out, " {n:>10}")?;
                }
                writeln!(out)?;
            }
        }
        if !self.alerts.is_empty() {
            writeln!(out)?;
            writeln!(
                out,
                "dangerous forms ({} findings{}):",
                self.alert_count,
                if self.alert_count > self.alerts.len() {
                    format!(", the first {}", self.alerts.len())
                } else {
                    String::new()
                }
            )?;
            for (input, index, location, kind, note) in &self.alerts {
                write!(
                    out,
                    "  {}#{index}  {}  {}",
                    escape_controls(input),
                    escape_controls(location),
                    kind.as_str()
                )?;
                if let Some(n) = note {
                    write!(out, ": {}", escape_controls(n))?;
                }
                writeln!(out)?;
            }
        }
        if !self.worst.is_empty() {
            writeln!(out)?;
            writeln!(out, "worst messages:")?;
            for (verdict, findings, input, index, id) in &self.worst {
                writeln!(
                    out,
                    "  {:<13} {:>3} findings  {}#{}  {}",
                    verdict.as_str(),
                    findings,
                    escape_controls(input),
                    index,
                    escape_controls(id.as_deref().unwrap_or("(no Message-ID)"))
                )?;
            }
        }
        Ok(())
    }
}

fn add5(a: &mut [usize; 5], b: &[usize; 5]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Finding, LabelStatus};

    fn rec(index: usize, label: Option<&str>, verdict: Verdict, kinds: &[FindingKind]) -> Record {
        Record {
            input: "in.mbox".into(),
            index,
            message_id: Some(format!("m{index}@x").into()),
            part: "1".into(),
            location: "body".into(),
            label: label.map(String::from),
            charset: label.and_then(|l| {
                crate::charset::resolve(Some(l.as_bytes()))
                    .charset
                    .map(|c| c.name())
            }),
            status: LabelStatus::Preferred,
            verdict,
            detected: None,
            findings: kinds.iter().map(|&k| Finding::new(k, 0, 2)).collect(),
            year: Some(2001),
            source: Default::default(),
        }
    }

    #[test]
    fn labels_count_messages_once_and_records_per_verdict() {
        let mut s = Summary::default();
        s.add_message(&[
            rec(0, Some("KOI8-R"), Verdict::Ok, &[]),
            rec(
                0,
                Some("koi8-r"),
                Verdict::Invalid,
                &[FindingKind::Replacement],
            ),
        ]);
        s.add_message(&[rec(1, Some("koi8-r"), Verdict::Ok, &[])]);
        s.add_message(&[rec(
            2,
            None,
            Verdict::Suspicious,
            &[FindingKind::EightBitInAscii],
        )]);
        let row = &s.labels["koi8-r"];
        assert_eq!(row.messages, 2);
        assert_eq!(row.verdicts, [2, 0, 0, 1, 0]);
        assert_eq!(s.labels["(none)"].messages, 1);
        assert_eq!(s.messages, 3);
        assert_eq!(s.records, 4);
        assert_eq!(s.findings[&FindingKind::Replacement], (1, 2));
        assert_eq!(s.worst.len(), 2);
        assert_eq!(s.worst[0].0, Verdict::Invalid);
    }

    #[test]
    fn dangerous_findings_are_listed_up_to_the_cap() {
        let mut s = Summary::default();
        for i in 0..ALERTS_KEPT + 5 {
            s.add_message(&[rec(
                i,
                Some("utf-8"),
                Verdict::Invalid,
                &[FindingKind::Overlong, FindingKind::Replacement],
            )]);
        }
        s.add_message(&[rec(
            99,
            Some("iso-8859-1"),
            Verdict::Suspicious,
            &[FindingKind::C1InLatin1],
        )]);
        assert_eq!(s.alert_count, ALERTS_KEPT + 5);
        assert_eq!(s.alerts.len(), ALERTS_KEPT);
        assert_eq!(s.alerts[0].1, 0);
        let mut t = Vec::new();
        s.write_table(&mut t).unwrap();
        let t = String::from_utf8(t).unwrap();
        assert!(t.contains(&format!(
            "dangerous forms ({} findings, the first {ALERTS_KEPT})",
            ALERTS_KEPT + 5
        )));
        assert!(!t.contains("in.mbox#99  body"));
    }

    #[test]
    fn merge_equals_sequential() {
        let msgs: Vec<Vec<Record>> = (0..6)
            .map(|i| {
                vec![rec(
                    i,
                    Some(if i % 2 == 0 { "big5" } else { "gb2312" }),
                    if i % 3 == 0 {
                        Verdict::Invalid
                    } else {
                        Verdict::Ok
                    },
                    &[],
                )]
            })
            .collect();
        let mut all = Summary::default();
        msgs.iter().for_each(|m| all.add_message(m));
        let (mut a, mut b) = (Summary::default(), Summary::default());
        msgs[..3].iter().for_each(|m| a.add_message(m));
        msgs[3..].iter().for_each(|m| b.add_message(m));
        a.merge(b);
        assert_eq!(a.labels, all.labels);
        assert_eq!(a.verdicts, all.verdicts);
        assert_eq!(a.worst, all.worst);
        let (mut t1, mut t2) = (Vec::new(), Vec::new());
        a.write_table(&mut t1).unwrap();
        all.write_table(&mut t2).unwrap();
        assert_eq!(t1, t2);
    }
}
