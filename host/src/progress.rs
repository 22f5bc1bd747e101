//! Progress bars: those of commands that show one only once they have taken a second, and
//! those of `queens run`.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use queens_host::dispatch::LinkState;
use queens_host::run::Progress;
use queens_host::store::file::Watch;
use queens_host::store::Summary;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A bar's style from `template`, whose `{rate}` is a rate at a precision a person reads
/// ("385,004/s", "12.5/s"), not indicatif's `{per_sec}` with its three decimals.
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate(s.per_sec()));
            },
        )
}

/// Items a second as a person reads them: whole and grouped from 100 up, one decimal below.
pub fn rate(per_sec: f64) -> String {
    match per_sec {
        r if !r.is_finite() || r <= 0.0 => "0/s".into(),
        r if r >= 99.95 => format!("{}/s", indicatif::HumanCount(r.round() as u64)),
        r => format!("{r:.1}/s"),
    }
}

/// Runs `work` on a scoped thread and, once it has taken a second, shows a bar driven by
/// `done`. `total` is computed only then, on its own thread (it may cost a census).
pub fn with_bar<T: Send>(
    what: &str,
    done: &AtomicU64,
    total: impl FnOnce() -> u64 + Send,
    work: impl FnOnce() -> T + Send,
) -> T {
    std::thread::scope(|s| {
        let worker = s.spawn(work);
        let start = Instant::now();
        while !worker.is_finished() && start.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_millis(10));
        }
        if !worker.is_finished() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            let template = format!("{what} {{bar:40}} {{human_pos}}/{{human_len}} {{rate}} eta {{eta}}");
            bar.set_style(style(&template));
            let mut total = Some(s.spawn(total));
            while !worker.is_finished() {
                if total.as_ref().is_some_and(|t| t.is_finished()) {
                    if let Some(Ok(t)) = total.take().map(|t| t.join()) {
                        bar.set_length(t);
                    }
                }
                bar.set_position(done.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
            if let Some(t) = total {
                let _ = t.join();
            }
        }
        worker.join().expect("worker thread panicked")
    })
}

/// Runs `work` on a scoped thread while a line on stderr shows what `watch` says it does:
/// each phase by name with a bar (entries, bytes, rate, time left) when it has a size, a
/// spinner when it has none. Shown from the first half second, so that no long open or
/// creation is silent.
pub fn watched<T: Send>(watch: &Watch, work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        let worker = s.spawn(work);
        let start = Instant::now();
        while !worker.is_finished() && start.elapsed() < Duration::from_millis(500) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut shown: Option<(String, ProgressBar)> = None;
        while !worker.is_finished() {
            let (phase, total) = watch.phase();
            if shown.as_ref().map(|(p, _)| p) != Some(&phase) {
                if let Some((_, b)) = shown.take() {
                    b.finish_and_clear();
                }
                let bar = if total > 0 {
                    let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
                    b.set_style(style(
                        "{msg} {bar:30} {human_pos}/{human_len} entries, {rate}, eta {eta}",
                    ));
                    b
                } else {
                    let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                    b.set_style(
                        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
                    );
                    b.enable_steady_tick(Duration::from_millis(200));
                    b
                };
                bar.set_message(phase.clone());
                shown = Some((phase, bar));
            }
            if let Some((_, b)) = &shown {
                if total > 0 {
                    b.set_position(watch.done.load(Ordering::Relaxed).min(total));
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if let Some((_, b)) = shown {
            b.finish_and_clear();
        }
        worker.join().expect("worker thread panicked")
    })
}

/// A spinner on stderr (drawn only on a terminal) saying what is being waited for, and for
/// how long; `prefix` names the work when there are several.
pub fn spinner(prefix: &str, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let template = if prefix.is_empty() {
        "{spinner} {msg} {elapsed}"
    } else {
        "{spinner} {prefix}: {msg} {elapsed}"
    };
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar.set_prefix(prefix.to_string());
    bar.set_message(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The bars of `queens run`: the campaign's progress since this run began (all hosts, for a
/// shared store) and a line for each link.
#[derive(Default)]
pub struct RunBars {
    shown: Option<Shown>,
    /// When the command started: the first subproblems sent are timed from it.
    since: Option<Instant>,
}

impl RunBars {
    /// Bars that say how long after `since` the first subproblems went out.
    pub fn since(since: Instant) -> Self {
        Self {
            shown: None,
            since: Some(since),
        }
    }
}

struct Shown {
    multi: MultiProgress,
    all: ProgressBar,
    solved_before: u64,
    links: Vec<ProgressBar>,
}

impl Progress for RunBars {
    fn start(&mut self, labels: &[String], before: &Summary) {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(4));
        let all = multi.add(ProgressBar::new(before.pending()));
        all.set_style(style(
            "all {bar:30} {human_pos}/{human_len} {rate} eta {eta} {elapsed} {msg}",
        ));
        // Drawn from the first second, even while no result has come (at N = 27 the first
        // take half a minute or more).
        all.set_message("opening the links");
        all.enable_steady_tick(Duration::from_millis(500));
        let links = labels
            .iter()
            .map(|l| {
                let b = multi.add(ProgressBar::no_length());
                b.set_style(style(&format!("{l:<28} {{human_pos}} solved {{rate}} {{msg}}")));
                b
            })
            .collect();
        self.shown = Some(Shown {
            multi,
            all,
            solved_before: before.solved.subproblems(),
            links,
        });
    }

    fn sent(&mut self) {
        let (Some(b), Some(t)) = (&self.shown, self.since) else {
            return;
        };
        let line = format!(
            "first subproblems sent {:.1} s after the start",
            t.elapsed().as_secs_f64()
        );
        if b.multi.is_hidden() {
            eprintln!("{line}");
        } else {
            let _ = b.multi.println(line);
        }
    }

    fn update(&mut self, campaign: &Summary, links: &[LinkState]) {
        let Some(b) = &self.shown else {
            return;
        };
        let solved = campaign.solved.subproblems().saturating_sub(b.solved_before);
        b.all.set_position(solved);
        let in_flight: usize = links.iter().map(|l| l.in_flight).sum();
        let mut msg = if solved == 0 && in_flight > 0 {
            format!("{in_flight} sent, waiting for the first results")
        } else {
            format!("total {}", campaign.solved.total())
        };
        if campaign.unchecked > 0 {
            let read = campaign.subproblems - campaign.unchecked;
            msg += &format!(
                " (provisional: {:.1}% of the campaign read again)",
                100.0 * read as f64 / campaign.subproblems.max(1) as f64
            );
        }
        b.all.set_message(msg);
        for (bar, link) in b.links.iter().zip(links) {
            bar.set_position(link.counters.solved);
            let state = if link.up { "" } else { "down, reopening" };
            bar.set_message(format!(
                "{} in flight, {} resent, {} rejected {state}",
                link.in_flight, link.counters.reissued, link.counters.rejected_frames
            ));
        }
    }

    fn finish(&mut self) {
        if let Some(b) = self.shown.take() {
            b.multi.clear().ok();
        }
    }
}

/// The spinners of the routed reports (`hdl report --pnr`, an ECP5 board's fit): one per
/// step, named by the step, its message the tool's phase.
#[derive(Default)]
pub struct Steps(std::sync::Mutex<Option<ProgressBar>>);

impl Steps {
    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        // A bar is only drawn: one a panicking thread left behind is still good to draw.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl queens_hdl::pnr::figures::Show for Steps {
    fn begin(&self, what: &str) {
        *self.bar() = Some(spinner(what, ""));
    }
    fn phase(&self, phase: &str) {
        if let Some(b) = &*self.bar() {
            b.set_message(phase.to_string());
        }
    }
    fn end(&self) {
        if let Some(b) = self.bar().take() {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_read_at_a_sensible_precision() {
        assert_eq!(super::rate(385_003.594), "385,004/s");
        assert_eq!(super::rate(12.345), "12.3/s");
        assert_eq!(super::rate(0.04), "0.0/s");
        assert_eq!(super::rate(f64::NAN), "0/s");
    }
}
