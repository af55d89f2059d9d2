//! The parallel, order-preserving pipeline.
//!
//! A reader thread cuts the input into small batches (bounded in bytes and
//! in messages) and hands each to a rayon pool of `jobs` threads as soon as
//! it is read; the calling thread puts the finished batches back in input
//! order and writes them. The bytes read but not yet written are bounded
//! by a window (16 MiB by default), whatever the size of the archive; the
//! outputs waiting to be written are about as large again.

use super::progress::{Bar, Progress};
use super::{MailboxError, MessageWriter, RawMessage};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, mpsc};

/// What the per-message work decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The new bytes, or `None` to keep the message as it was.
    pub output: Option<Vec<u8>>,
    /// How many findings the message had (counted in
    /// [`RunStats::with_findings`] when non-zero).
    pub findings: usize,
    /// The run stops before this message: neither it nor any message after
    /// it is written ([`Outcome::stop`]).
    pub stop: bool,
}

impl Outcome {
    /// Keep the message as it was.
    pub fn unchanged() -> Self {
        Outcome::default()
    }

    /// New bytes. Bytes equal to the input count as unchanged.
    pub fn changed(bytes: Vec<u8>) -> Self {
        Outcome {
            output: Some(bytes),
            findings: 0,
            stop: false,
        }
    }

    /// Stop the run before this message (it failed, and the run is to
    /// end at the first failure): it and every message after it are not
    /// written, everything before it is. The writer is handed back as
    /// usual; the caller decides whether it is finished.
    pub fn stop() -> Self {
        Outcome {
            stop: true,
            ..Outcome::default()
        }
    }

    /// With `n` findings (counted in [`RunStats::with_findings`]).
    pub fn with_findings(mut self, n: usize) -> Self {
        self.findings = n;
        self
    }
}

/// Counts printed at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Messages read.
    pub messages_in: u64,
    /// Messages written.
    pub messages_out: u64,
    /// Messages written with new bytes.
    pub changed: u64,
    /// Kept as they were.
    pub unchanged: u64,
    /// Messages with findings.
    pub with_findings: u64,
    /// Input octets.
    pub bytes_in: u64,
    /// Output octets.
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
    /// A batch (the unit one worker takes) is cut when it holds this many
    /// bytes (counted as for the window) ...
    pub batch_bytes: usize,
    /// ... or this many messages.
    pub batch_messages: usize,
    /// Input bytes read but not yet written, at most, counting each
    /// message as 256 bytes more than its size. A message larger than this
    /// is let through alone.
    pub window_bytes: usize,
    /// How far the reader runs ahead of the writer with small batches
    /// (at most `window_bytes`): by default 1 MiB per core, at least 4 MiB
    /// ([`default_read_ahead`]). A batch of `n` bytes may come in while up
    /// to `(workers + 1) * n` bytes are in flight (within `window_bytes`),
    /// so that large messages still keep every worker busy.
    pub read_ahead_bytes: usize,
    /// Whether to draw a progress bar.
    pub progress: Progress,
    /// Total input size for the progress bar's ETA.
    pub total_bytes: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 0,
            batch_bytes: 512 << 10,
            batch_messages: 128,
            window_bytes: 16 << 20,
            read_ahead_bytes: default_read_ahead(
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            ),
            progress: Progress::Auto,
            total_bytes: None,
        }
    }
}

/// The default read-ahead on a machine of `cores` cores: 1 MiB a core
/// (two default batches), at least 4 MiB. The reader runs ahead of the
/// workers as far as it may, so this is the run's working set: the whole
/// 16 MiB window on two cores made a run 5-10% slower than 4 MiB, with
/// twice the page faults and twice the peak memory
/// (doc/bench-log.md, issue 18, tenth round).
pub fn default_read_ahead(cores: usize) -> usize {
    (cores.max(1) << 20).max(4 << 20)
}

/// What the reading thread hands a worker: a message, or a message with
/// what the reading thread found out about it (see [`run_to_writer`]).
pub(crate) trait Unit: Send {
    /// The message.
    fn message(&self) -> &RawMessage;
}

impl Unit for RawMessage {
    fn message(&self) -> &RawMessage {
        self
    }
}

impl<P: Send> Unit for (RawMessage, P) {
    fn message(&self) -> &RawMessage {
        &self.0
    }
}

/// What one message costs in the window beyond its bytes (the message's
/// own fields, its result, the bookkeeping), so that many empty messages
/// are bounded too.
const PER_MESSAGE: usize = 256;

/// What a batch came to, handed from a worker (or the reader) to the
/// writing thread.
enum Piece<U, T> {
    /// The messages with their results, the input bytes they hold in the
    /// window, and the worker that computed them (its rayon index).
    Done(Vec<(U, T)>, usize, usize),
    /// The reader stopped here.
    Failed(MailboxError),
    /// The work panicked; passed on to the caller.
    Panicked(Box<dyn std::any::Any + Send>),
}

/// Bounds the input bytes in flight: the reader takes bytes before a batch
/// is handed out, the writing thread gives them back once it is written.
struct Window {
    /// The hard bound (`Options::window_bytes`).
    limit: usize,
    /// The bound for small batches (`Options::read_ahead_bytes`).
    read_ahead: usize,
    /// Worker threads.
    workers: usize,
    /// Bytes in flight, and whether the run was stopped.
    state: Mutex<(usize, bool)>,
    cv: Condvar,
}

impl Window {
    fn new(limit: usize, read_ahead: usize, workers: usize) -> Self {
        Window {
            limit: limit.max(1),
            read_ahead,
            workers,
            state: Mutex::new((0, false)),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, (usize, bool)> {
        // Nothing panics while holding the lock, and the counts stay
        // consistent if something did.
        lock(&self.state)
    }

    /// Waits until `n` bytes fit (or nothing is in flight); false if the
    /// run was stopped. They fit within the read-ahead, or within room for
    /// a batch of this size for each worker and the writer, whichever is
    /// more, and always within the window.
    fn take(&self, n: usize) -> bool {
        let limit = self
            .read_ahead
            .max(n.saturating_mul(self.workers + 1))
            .min(self.limit);
        let mut g = self.lock();
        while !g.1 && g.0 > 0 && g.0.saturating_add(n) > limit {
            g = self.cv.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        if g.1 {
            return false;
        }
        g.0 = g.0.saturating_add(n);
        true
    }

    fn give_back(&self, n: usize) {
        let mut g = self.lock();
        g.0 = g.0.saturating_sub(n);
        self.cv.notify_all();
    }

    fn stop(&self) {
        self.lock().1 = true;
        self.cv.notify_all();
    }
}

/// What was written but waits to be freed by the thread that allocated it
/// (the reader's messages, a worker's results), and the input bytes of
/// their batches.
struct Held<X> {
    items: Vec<X>,
    bytes: usize,
}

impl<X> Held<X> {
    fn new() -> Mutex<Self> {
        Mutex::new(Held {
            items: Vec::new(),
            bytes: 0,
        })
    }

    /// Leaves `items`, from a batch of `bytes` input bytes, for their
    /// thread; past `cap` bytes waiting, the caller frees them at once.
    fn leave(held: &Mutex<Self>, items: Vec<X>, bytes: usize, cap: usize) {
        let mut h = lock(held);
        if h.bytes + bytes <= cap {
            h.items.extend(items);
            h.bytes += bytes;
        } else {
            drop(h);
            drop(items);
        }
    }

    /// Frees what waits, outside the lock.
    fn free(held: &Mutex<Self>) {
        let items = {
            let mut h = lock(held);
            h.bytes = 0;
            std::mem::take(&mut h.items)
        };
        drop(items);
    }
}

/// Locks a mutex that no one holds across a panic (what it guards stays
/// consistent if someone did).
fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Stops the reader when the writing side leaves, by error or by panic.
struct StopOnDrop<'a>(&'a Window);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Runs `work` over every message of `reader` on `opts.jobs` threads and
/// shows each message with its result to `sink` in input order. `sink`
/// borrows them: they are freed afterwards by the threads that allocated
/// them (the reader, the worker), which keeps the allocator's per-thread
/// arenas uncontended.
///
/// A reader thread cuts the input into small batches and hands each to the
/// pool as soon as it is read, as long as the window (`opts.window_bytes`)
/// has room; the calling thread puts finished batches back in order and
/// writes them. No thread waits for a whole batch of others to finish, so
/// one large message keeps one worker busy while the rest go on.
///
/// Stops at the first reader or sink error and returns it; everything
/// before a reader error is handed to `sink` first. A panic in `work` is
/// passed on to the caller.
pub fn run_ordered<I, T, F, S, E>(reader: I, opts: &Options, work: F, sink: S) -> Result<(), E>
where
    I: Iterator<Item = Result<RawMessage, MailboxError>> + Send,
    T: Send,
    F: Fn(&RawMessage) -> T + Sync,
    S: FnMut(&RawMessage, &T) -> Result<(), E>,
    E: From<MailboxError> + Send,
{
    run_units(reader, opts, work, sink)
}

/// [`run_ordered`] over any [`Unit`]: the reader may pair each message with
/// what it found out on the reading thread.
fn run_units<I, U, T, F, S, E>(reader: I, opts: &Options, work: F, mut sink: S) -> Result<(), E>
where
    I: Iterator<Item = Result<U, MailboxError>> + Send,
    U: Unit,
    T: Send,
    F: Fn(&U) -> T + Sync,
    S: FnMut(&U, &T) -> Result<(), E>,
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
    let window = Window::new(
        opts.window_bytes,
        opts.read_ahead_bytes,
        pool.current_num_threads(),
    );
    let work = &work;
    let window = &window;
    // What was written is freed by the thread that allocated it: messages
    // by the reader (before it hands out a batch), results by the worker that
    // computed them (left here for its next batch). glibc's malloc frees
    // another thread's memory under that thread's arena lock; freeing it
    // all on the writing thread showed in profiles as lock contention and
    // wake-ups (doc/bench-log.md, issue 18, fourth round). The window has
    // those bytes back already, so what waits for each thread is capped
    // (`hold`, in input bytes); past it, and for a batch larger than it,
    // the writing thread frees at once, as it did before.
    let hold = (opts.window_bytes / 8).max(1);
    let to_free: Vec<Mutex<Held<T>>> = (0..pool.current_num_threads())
        .map(|_| Held::new())
        .collect();
    let to_free = &to_free;
    let reader_held = Held::<U>::new();
    let reader_held = &reader_held;
    pool.in_place_scope(|s| {
        std::thread::scope(|ts| {
            let (tx, rx) = mpsc::channel::<(u64, Piece<U, T>)>();
            ts.spawn(move || {
                let seq = std::cell::Cell::new(0u64);
                let hand_out = |batch: Vec<U>, bytes: usize| -> bool {
                    Held::free(reader_held);
                    let room = window.take(bytes);
                    Held::free(reader_held);
                    if !room {
                        return false;
                    }
                    let tx = tx.clone();
                    let n = seq.get();
                    seq.set(n + 1);
                    s.spawn(move |_| {
                        let me = rayon::current_thread_index().unwrap_or(0);
                        let done = catch_unwind(AssertUnwindSafe(|| {
                            // A result that panics when dropped is this
                            // batch's panic (and the lock is not held).
                            if let Some(mine) = to_free.get(me) {
                                Held::free(mine);
                            }
                            // Each message's start is fetched into this
                            // core's cache while the one before it is
                            // worked on (`codec::simd::prefetch`).
                            let mut done = Vec::with_capacity(batch.len());
                            let mut it = batch.into_iter().peekable();
                            while let Some(m) = it.next() {
                                if let Some(next) = it.peek() {
                                    crate::codec::prefetch(&next.message().bytes);
                                }
                                let t = work(&m);
                                done.push((m, t));
                            }
                            done
                        }));
                        let piece = match done {
                            Ok(v) => Piece::Done(v, bytes, me),
                            Err(p) => Piece::Panicked(p),
                        };
                        // The writer is gone only if the run stopped.
                        let _ = tx.send((n, piece));
                    });
                    true
                };
                // The reader's error, if it gave one; None at its end or
                // when the run stopped.
                let read = catch_unwind(AssertUnwindSafe(|| {
                    let mut batch = Vec::new();
                    let mut bytes = 0usize;
                    for item in reader {
                        match item {
                            Ok(m) => {
                                bytes += m.message().bytes.len() + PER_MESSAGE;
                                batch.push(m);
                                if bytes >= batch_bytes || batch.len() >= batch_messages {
                                    if !hand_out(std::mem::take(&mut batch), bytes) {
                                        return None;
                                    }
                                    bytes = 0;
                                }
                            }
                            Err(e) => {
                                if !batch.is_empty() && !hand_out(std::mem::take(&mut batch), bytes)
                                {
                                    return None;
                                }
                                return Some(e);
                            }
                        }
                    }
                    if !batch.is_empty() {
                        hand_out(batch, bytes);
                    }
                    None
                }));
                match read {
                    Ok(None) => {}
                    Ok(Some(e)) => {
                        let _ = tx.send((seq.get(), Piece::Failed(e)));
                    }
                    // A panic in the reader reaches the caller as it is.
                    Err(p) => {
                        let _ = tx.send((seq.get(), Piece::Panicked(p)));
                    }
                }
            });
            let _stop = StopOnDrop(window);
            let mut next = 0u64;
            let mut waiting = BTreeMap::new();
            for (n, piece) in rx.iter() {
                waiting.insert(n, piece);
                while let Some(piece) = waiting.remove(&next) {
                    next += 1;
                    match piece {
                        Piece::Done(results, bytes, me) => {
                            for (m, t) in &results {
                                sink(m, t)?;
                            }
                            let (messages, outs): (Vec<U>, Vec<T>) = results.into_iter().unzip();
                            Held::leave(reader_held, messages, bytes, hold);
                            if let Some(theirs) = to_free.get(me) {
                                Held::leave(theirs, outs, bytes, hold);
                            }
                            window.give_back(bytes);
                        }
                        Piece::Failed(e) => return Err(E::from(e)),
                        Piece::Panicked(p) => resume_unwind(p),
                    }
                }
            }
            // Every batch handed out comes back: a gap would be a bug here,
            // and it must not pass for a complete run.
            if !waiting.is_empty() {
                return Err(E::from(MailboxError::io(
                    "pipeline",
                    None,
                    std::io::Error::other(format!(
                        "internal error: batch {next} never came back ({} after it did)",
                        waiting.len()
                    )),
                )));
            }
            // What the workers have not freed yet (no batch came after
            // it) is freed on the pool too.
            for theirs in to_free {
                s.spawn(move |_| Held::free(theirs));
            }
            Ok(())
        })
    })
}

/// Runs `work` over every message and writes the results with `writer`,
/// which is finished (renamed into place) only if everything succeeded.
pub fn run<I, F>(
    reader: I,
    writer: MessageWriter,
    opts: &Options,
    work: F,
) -> Result<RunStats, MailboxError>
where
    I: Iterator<Item = Result<RawMessage, MailboxError>> + Send,
    F: Fn(&RawMessage) -> Outcome + Sync,
{
    let (stats, writer) = run_to_writer(reader, writer, opts, work)?;
    writer.finish()?;
    Ok(stats)
}

/// [`run`], but the writer is handed back unfinished: the caller finishes
/// it (the output appears) or drops it (nothing appears; in place, the
/// input stays as it was), for example when a message failed in a way the
/// pipeline does not know about.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn run_unfinished<I, F>(
    reader: I,
    writer: MessageWriter,
    opts: &Options,
    work: F,
) -> Result<(RunStats, MessageWriter), MailboxError>
where
    I: Iterator<Item = Result<RawMessage, MailboxError>> + Send,
    F: Fn(&RawMessage) -> Outcome + Sync,
{
    run_to_writer(reader, writer, opts, work)
}

/// [`run_unfinished`]: the run, with the writer handed back unfinished.
pub(crate) fn run_to_writer<I, F>(
    reader: I,
    mut writer: MessageWriter,
    opts: &Options,
    work: F,
) -> Result<(RunStats, MessageWriter), MailboxError>
where
    I: Iterator<Item = Result<RawMessage, MailboxError>> + Send,
    F: Fn(&RawMessage) -> Outcome + Sync,
{
    let mut stats = RunStats::default();
    let mut bar = Bar::new(opts.progress, opts.total_bytes);
    // An mbox output looks for `From ` in every message it writes (lines to
    // quote). For a message written as it was read, the reading thread
    // looks, beside the worker's critical path; a changed output is looked
    // at on the worker that made it. Neither is the one writing thread.
    let mbox_out = matches!(writer.kind(), super::OutputKind::Mbox(_));
    let reader = reader.map(|r| {
        r.map(|m| {
            let has_from = mbox_out.then(|| super::mbox::contains_from(&m.bytes));
            (m, has_from)
        })
    });
    // The worker also settles whether the message changed: an output equal
    // to the input is dropped there (its thread), and the writing thread
    // compares nothing.
    let work = |(m, _): &(RawMessage, Option<bool>)| {
        let mut o = work(m);
        if o.output.as_ref().is_some_and(|b| *b == m.bytes) {
            o.output = None;
        }
        let has_from = match &o.output {
            Some(b) if mbox_out => Some(super::mbox::contains_from(b)),
            _ => None,
        };
        (o, has_from)
    };
    let ran = run_units(
        reader,
        opts,
        work,
        |(m, read_from): &(RawMessage, Option<bool>), (o, out_from): &(Outcome, Option<bool>)| {
            if o.stop {
                return Err(Halt::Stop);
            }
            stats.messages_in += 1;
            stats.bytes_in += m.input_len;
            if o.findings > 0 {
                stats.with_findings += 1;
            }
            let (out, has_from): (&[u8], Option<bool>) = match &o.output {
                Some(b) => {
                    stats.changed += 1;
                    (b, *out_from)
                }
                None => {
                    stats.unchanged += 1;
                    (&m.bytes, *read_from)
                }
            };
            writer.write_prechecked(m, out, has_from)?;
            stats.messages_out += 1;
            stats.bytes_out += out.len() as u64;
            bar.advance(1, m.input_len);
            Ok::<(), Halt>(())
        },
    );
    bar.finish();
    match ran {
        Ok(()) | Err(Halt::Stop) => Ok((stats, writer)),
        Err(Halt::Failed(e)) => Err(e),
    }
}

/// Why [`run_to_writer`]'s writing stopped early.
enum Halt {
    /// A reader or writer error.
    Failed(MailboxError),
    /// A message's [`Outcome::stop`].
    Stop,
}

impl From<MailboxError> for Halt {
    fn from(e: MailboxError) -> Self {
        Halt::Failed(e)
    }
}
