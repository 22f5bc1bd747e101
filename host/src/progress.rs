//! Progress bars that appear only on runs that last longer than a second.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
            let template = format!("{what} {{bar:40}} {{human_pos}}/{{human_len}} {{per_sec}} eta {{eta}}");
            bar.set_style(ProgressStyle::with_template(&template).expect("valid template"));
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
