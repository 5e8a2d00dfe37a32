//! Progress for people: a bar on a terminal, plain lines otherwise, and
//! `::group::` sections when running in GitHub Actions. All on stderr, so
//! stdout stays free for what a command prints as its answer.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Terminal,
    Plain,
    GitHubActions,
    /// Prints nothing: for tests.
    #[cfg_attr(not(test), allow(dead_code, reason = "used by tests"))]
    Quiet,
}

pub struct Progress {
    mode: Mode,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Chooses the mode from the environment.
    pub fn detect() -> Self {
        let mode = if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
            Mode::GitHubActions
        } else if std::io::stderr().is_terminal() {
            Mode::Terminal
        } else {
            Mode::Plain
        };
        Progress { mode, bar: None }
    }

    /// Progress that prints nothing.
    #[cfg_attr(not(test), allow(dead_code, reason = "used by tests"))]
    pub fn quiet() -> Self {
        Progress { mode: Mode::Quiet, bar: None }
    }

    /// A stage titled `title` begins, with `samples` samples to come.
    pub fn stage_start(&mut self, title: &str, samples: usize) {
        match self.mode {
            Mode::GitHubActions => say!("::group::{title}"),
            Mode::Plain => say!("== {title}"),
            Mode::Quiet => {}
            Mode::Terminal => {
                let bar = ProgressBar::new(samples as u64);
                let style = ProgressStyle::with_template("{prefix:.bold} [{bar:24}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> ");
                bar.set_style(style);
                bar.set_prefix(title.to_string());
                self.bar = Some(bar);
            }
        }
    }

    pub fn sample_start(&mut self, k: usize, n: usize, left: Duration) {
        let text = format!("sample {k} of {n}, about {} left", human(left));
        if self.mode == Mode::Quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.set_message(text),
            None => say!("{text}"),
        }
    }

    pub fn sample_done(&mut self, k: usize, n: usize, outcome: &str) {
        if self.mode == Mode::Quiet {
            return;
        }
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                bar.println(format!("sample {k} of {n}: {outcome}"));
            }
            None => say!("sample {k} of {n}: {outcome}"),
        }
    }

    pub fn stage_end(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.mode == Mode::GitHubActions {
            say!("::endgroup::");
        }
    }

    pub fn note(&self, text: &str) {
        if self.mode == Mode::Quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(text),
            None => say!("{text}"),
        }
    }
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 { format!("{}m {:02}s", s / 60, s % 60) } else { format!("{s}s") }
}
