//! Progress on standard error: an indicatif bar on a terminal (messages/s,
//! MB/s, ETA when the input size is known), nothing otherwise. Without the
//! `cli` feature (a library embedded in a gateway) there is no bar: the
//! types stay, and draw nothing.

#[cfg(feature = "cli")]
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// When to show progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Progress {
    /// When standard error is a terminal.
    #[default]
    Auto,
    /// Always (`--progress`), even into a pipe or file.
    Always,
    /// Never (`--quiet`).
    Never,
}

impl Progress {
    /// From the CLI's `--quiet` / `--progress` flags.
    pub fn from_flags(quiet: bool, progress: bool) -> Self {
        match (quiet, progress) {
            (true, _) => Progress::Never,
            (false, true) => Progress::Always,
            (false, false) => Progress::Auto,
        }
    }

    /// Whether a bar would be drawn.
    pub fn enabled(self) -> bool {
        match self {
            Progress::Auto => std::io::stderr().is_terminal(),
            Progress::Always => true,
            Progress::Never => false,
        }
    }
}

/// Without the `cli` feature: no bar.
#[cfg(not(feature = "cli"))]
struct ProgressBar;

#[cfg(not(feature = "cli"))]
impl ProgressBar {
    fn inc(&self, _: u64) {}
    fn set_message(&self, _: String) {}
    fn finish(&self) {}
}

/// A running progress display.
pub struct Bar {
    bar: Option<ProgressBar>,
    start: Instant,
    messages: u64,
}

impl Bar {
    /// A bar on stderr when `mode` says so (bytes, MB/s, messages/s, and an
    /// ETA when `total_bytes` is known); a no-op otherwise.
    pub fn new(mode: Progress, total_bytes: Option<u64>) -> Self {
        let start = Instant::now();
        if !mode.enabled() {
            return Bar {
                bar: None,
                start,
                messages: 0,
            };
        }
        #[cfg(not(feature = "cli"))]
        let _ = total_bytes;
        #[cfg(not(feature = "cli"))]
        return Bar {
            bar: None,
            start,
            messages: 0,
        };
        #[cfg(feature = "cli")]
        let target = match mode {
            // `term_like` draws whether or not stderr is a terminal.
            Progress::Always => {
                ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), 4)
            }
            _ => ProgressDrawTarget::stderr_with_hz(10),
        };
        #[cfg(feature = "cli")]
        let (bar, template) = match total_bytes {
            Some(n) => (
                ProgressBar::with_draw_target(Some(n), target),
                "{elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} {bytes_per_sec} {msg} ETA {eta}",
            ),
            None => (
                ProgressBar::with_draw_target(None, target),
                "{spinner} {elapsed_precise} {bytes} {bytes_per_sec} {msg}",
            ),
        };
        #[cfg(feature = "cli")]
        {
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            Bar {
                bar: Some(bar),
                start,
                messages: 0,
            }
        }
    }

    /// Counts `messages` more, `bytes` more input.
    pub fn advance(&mut self, messages: u64, bytes: u64) {
        self.messages += messages;
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
            let secs = self.start.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!(
                "{} msgs {:.0} msgs/s",
                self.messages,
                self.messages as f64 / secs
            ));
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}
