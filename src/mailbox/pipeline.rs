//! The parallel, order-preserving pipeline.
//!
//! A reader thread cuts the input into batches (bounded in bytes and in
//! messages) and hands them over a channel of depth one; the batch is
//! processed on a rayon pool of `jobs` threads while the calling thread
//! writes the previous batch's results in input order. In flight at most:
//! the batch being read, one queued, one being processed and one being
//! written — about four batches, whatever the size of the archive.

use super::progress::{Bar, Progress};
use super::{MailboxError, MessageWriter, RawMessage};
use rayon::prelude::*;
use std::sync::mpsc;

/// What the per-message work decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The new bytes, or `None` to keep the message as it was.
    pub output: Option<Vec<u8>>,
    /// How many findings the message had (counted in
    /// [`RunStats::with_findings`] when non-zero).
    pub findings: usize,
}

impl Outcome {
    pub fn unchanged() -> Self {
        Outcome::default()
    }

    /// New bytes. Bytes equal to the input count as unchanged.
    pub fn changed(bytes: Vec<u8>) -> Self {
        Outcome {
            output: Some(bytes),
            findings: 0,
        }
    }

    pub fn with_findings(mut self, n: usize) -> Self {
        self.findings = n;
        self
    }
}

/// Counts printed at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub messages_in: u64,
    pub messages_out: u64,
    pub changed: u64,
    /// Kept as they were.
    pub unchanged: u64,
    pub with_findings: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

impl std::ops::AddAssign for RunStats {
    /// Sums the counts of several inputs.
    fn add_assign(&mut self, o: Self) {
        self.messages_in += o.messages_in;
        self.messages_out += o.messages_out;
        self.changed += o.changed;
        self.unchanged += o.unchanged;
        self.with_findings += o.with_findings;
        self.bytes_in += o.bytes_in;
        self.bytes_out += o.bytes_out;
    }
}

impl std::fmt::Display for RunStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} messages in, {} out: {} changed, {} kept as they were, {} with findings",
            self.messages_in, self.messages_out, self.changed, self.unchanged, self.with_findings
        )
    }
}

/// Pipeline settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Worker threads; 0 means all cores.
    pub jobs: usize,
    /// A batch is cut when it holds this many bytes ...
    pub batch_bytes: usize,
    /// ... or this many messages.
    pub batch_messages: usize,
    pub progress: Progress,
    /// Total input size for the progress bar's ETA.
    pub total_bytes: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 0,
            batch_bytes: 8 << 20,
            batch_messages: 1024,
            progress: Progress::Auto,
            total_bytes: None,
        }
    }
}

type Batch = Vec<RawMessage>;

/// Runs `work` over every message of `reader` on `opts.jobs` threads and
/// hands each message with its result to `sink` in input order.
///
/// Stops at the first reader or sink error and returns it (the reader
/// thread is told to stop by the channel closing).
pub fn run_ordered<I, T, F, S, E>(reader: I, opts: &Options, work: F, mut sink: S) -> Result<(), E>
where
    I: Iterator<Item = Result<RawMessage, MailboxError>> + Send,
    T: Send,
    F: Fn(&RawMessage) -> T + Sync,
    S: FnMut(RawMessage, T) -> Result<(), E>,
    E: From<MailboxError> + Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .thread_name(|i| format!("mailcharset-{i}"))
        .build()
        .map_err(|e| {
            E::from(MailboxError::io(
                "thread pool",
                None,
                std::io::Error::other(e.to_string()),
            ))
        })?;
    let batch_bytes = opts.batch_bytes.max(1);
    let batch_messages = opts.batch_messages.max(1);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Result<Batch, MailboxError>>(1);
        scope.spawn(move || {
            let mut batch = Vec::new();
            let mut bytes = 0usize;
            for item in reader {
                match item {
                    Ok(m) => {
                        bytes += m.bytes.len();
                        batch.push(m);
                        if bytes >= batch_bytes || batch.len() >= batch_messages {
                            if tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                                return;
                            }
                            bytes = 0;
                        }
                    }
                    Err(e) => {
                        if !batch.is_empty() && tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                            return;
                        }
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
            if !batch.is_empty() {
                let _ = tx.send(Ok(batch));
            }
        });
        let mut prev: Option<Vec<(RawMessage, T)>> = None;
        let mut write_all = |results: Vec<(RawMessage, T)>| -> Result<(), E> {
            for (m, t) in results {
                sink(m, t)?;
            }
            Ok(())
        };
        for batch in rx.iter() {
            let batch = match batch {
                Ok(b) => b,
                Err(e) => {
                    // Everything read before the error is still written, so
                    // the caller can report how far it got.
                    if let Some(p) = prev.take() {
                        write_all(p)?;
                    }
                    return Err(E::from(e));
                }
            };
            let mut results = None;
            let mut written = Ok(());
            pool.in_place_scope(|s| {
                let results = &mut results;
                let work = &work;
                s.spawn(move |_| {
                    *results = Some(
                        batch
                            .into_par_iter()
                            .map(|m| {
                                let t = work(&m);
                                (m, t)
                            })
                            .collect::<Vec<_>>(),
                    );
                });
                if let Some(p) = prev.take() {
                    written = write_all(p);
                }
            });
            written?;
            prev = results;
        }
        if let Some(p) = prev.take() {
            write_all(p)?;
        }
        Ok(())
    })
}

/// Runs `work` over every message and writes the results with `writer`,
/// which is finished (renamed into place) only if everything succeeded.
pub fn run<I, F>(
    reader: I,
    mut writer: MessageWriter,
    opts: &Options,
    work: F,
) -> Result<RunStats, MailboxError>
where
    I: Iterator<Item = Result<RawMessage, MailboxError>> + Send,
    F: Fn(&RawMessage) -> Outcome + Sync,
{
    let mut stats = RunStats::default();
    let mut bar = Bar::new(opts.progress, opts.total_bytes);
    // An mbox output looks for `From ` in every message; done here, on the
    // workers, rather than on the writing thread.
    let mbox_out = matches!(writer.kind(), super::OutputKind::Mbox(_));
    let work = |m: &RawMessage| {
        let o = work(m);
        let has_from =
            mbox_out.then(|| super::mbox::contains_from(o.output.as_deref().unwrap_or(&m.bytes)));
        (o, has_from)
    };
    run_ordered(
        reader,
        opts,
        work,
        |m: RawMessage, (o, has_from): (Outcome, Option<bool>)| {
            stats.messages_in += 1;
            stats.bytes_in += m.input_len;
            if o.findings > 0 {
                stats.with_findings += 1;
            }
            let out: &[u8] = match &o.output {
                Some(b) if *b != m.bytes => {
                    stats.changed += 1;
                    b
                }
                _ => {
                    stats.unchanged += 1;
                    &m.bytes
                }
            };
            writer.write_prechecked(&m, out, has_from)?;
            stats.messages_out += 1;
            stats.bytes_out += out.len() as u64;
            bar.advance(1, m.input_len);
            Ok::<(), MailboxError>(())
        },
    )?;
    bar.finish();
    writer.finish()?;
    Ok(stats)
}
