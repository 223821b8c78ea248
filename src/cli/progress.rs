//! The progress bar (indicatif), the CLI's implementation of
//! [`lgrscan::scan::Progress`]. Hidden when stderr is not a terminal or with
//! `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;

pub struct Bar {
    bar: Option<ProgressBar>,
    phase: Mutex<String>,
}

impl Bar {
    pub fn new(show: bool) -> Bar {
        let bar = show.then(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} {wide_bar}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Bar { bar, phase: Mutex::new(String::new()) }
    }

    /// Starts the reading phase: a bar of bytes read of the inputs' total
    /// size (compressed inputs count their uncompressed bytes, so the bar
    /// may run past the total), and the callback that moves it.
    pub fn reading(&self, inputs: &[String]) -> Option<lgrscan::input::ProgressFn> {
        let b = self.bar.as_ref()?;
        let total: u64 =
            inputs.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
        // Drawn once set up (see `phase`).
        b.set_draw_target(ProgressDrawTarget::hidden());
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} {msg}: {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, ETA {eta}) {wide_bar}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_message(format!("reading {} input(s)", inputs.len()));
        b.set_length(total);
        b.set_draw_target(ProgressDrawTarget::stderr());
        b.enable_steady_tick(std::time::Duration::from_millis(120));
        let bar = b.clone();
        Some(lgrscan::input::ProgressFn(std::sync::Arc::new(move |n| bar.inc(n))))
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl lgrscan::scan::Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        if let Some(b) = &self.bar {
            if let Ok(mut p) = self.phase.lock() {
                *p = name.to_string();
            }
            // Items counted in the phase's own unit (its name's last word:
            // labels, sets), never as bytes. Drawn nowhere while the bar
            // changes: the ticking thread drew half-changed frames (the
            // new phase's unit beside the bytes of the last one).
            b.set_draw_target(ProgressDrawTarget::hidden());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} {msg}: {human_pos}/{human_len} {prefix} ({per_sec}, ETA {eta}) {wide_bar}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.reset();
            b.set_prefix(name.rsplit(' ').next().unwrap_or_default().to_string());
            b.set_message(name.to_string());
            b.set_length(total);
            b.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn advance(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }
}
