//! Step 3: bursts of copies of one subproblem, kept coming for a while so that the units
//! never wait: when the answers arrive tells the pace the board answers at, and (in waves)
//! its units and clock. Every copy sent is counted answered or lost. A board of grouped units
//! is sent copies of the subproblem's group request, and each end record is an answer: one
//! walk of the group, its cycles the walk's.

use super::timing::{infer, Inferred};
use super::Frames;
use super::{send, Incoming, Known, Writer};
use crate::link::framing::Framing;
use crate::validate;
use queens_core::group::Body;
use queens_core::{frame, group, word, BoardSize};
use serde::Serialize;
use std::time::{Duration, Instant};

/// Copies the probe sends at most (a board that answers at once would take them all).
const MAX_PROBE_COPIES: usize = 5_000;

/// One probe: its subproblem, its frames, and when each answer came.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    /// The subproblem's position in the canonical order.
    pub index: u64,
    /// Its unit cycles (a group's walk on a board of grouped units): as the board counted
    /// them, or our cycle model's when it counts none.
    pub cycles: u64,
    pub frames: Frames,
    /// Answers per second while the units were kept busy (the median of its stretches, so
    /// that a stall of the host moves it little).
    pub rate: f64,
    /// How far the stretches' rates stray from `rate`: half their interquartile range over
    /// it (0 where fewer than four stretches were measured).
    pub spread: f64,
    /// Waves of answers: units and clock, if their spacing shows them.
    pub waves: Option<(usize, f64)>,
    #[serde(skip)]
    pub arrivals: Vec<Duration>,
}

/// How a probe runs: copies at first, how long copies keep coming, and the silence after
/// which a copy is given up.
pub struct ProbePlan {
    pub burst: usize,
    pub span: Duration,
    pub quiet: Duration,
    /// Time to carry one answer where the link is slow enough to matter.
    pub frame_time: Option<Duration>,
}

/// Sends `plan.burst` copies of `k` at once, then one more for each answer until `plan.span`
/// has passed (so the units never wait), and waits for the rest. Copies the board has no room
/// for are dropped by it, and counted lost.
pub fn probe(
    writer: &mut Writer,
    incoming: &Incoming,
    size: BoardSize,
    k: &Known,
    plan: &ProbePlan,
) -> Probe {
    let (wire, one, model_cycles) = match k.group {
        Some(g) => (g.word, group::request_of(size, g.word), g.walk),
        None => {
            let wire = word::encode_wire(&k.sub.pre).expect("canonical pre-placements encode");
            (wire, frame::encode(&word::wire_to_bytes(size, wire)), k.cycles)
        }
    };
    let copies = |n: usize| -> Vec<u8> { one.iter().copied().cycle().take(one.len() * n).collect() };
    let mut p = Probe {
        index: k.index,
        cycles: model_cycles,
        frames: Frames::default(),
        rate: 0.0,
        spread: 0.0,
        waves: None,
        arrivals: Vec::new(),
    };
    if send(writer, &copies(plan.burst)).is_err() {
        return p;
    }
    p.frames.sent = plan.burst as u64;
    let sent = Instant::now();
    let mut framing = Framing::new(size);
    if k.group.is_some() {
        framing.grouped();
    }
    let mut last = sent;
    let mut board_cycles = None;
    // Waves come one round of the units apart: wait for the next one as long as the longest
    // gap so far, twice over, and at least `quiet`; once no more copies go out, four times
    // the longest gap.
    let mut longest = Duration::ZERO;
    loop {
        let refilling = sent.elapsed() < plan.span && (p.frames.sent as usize) < MAX_PROBE_COPIES;
        let wait = if refilling || p.arrivals.len() < 2 {
            plan.quiet.max(2 * longest)
        } else {
            (4 * longest).max(Duration::from_millis(100))
        };
        let left = (last + wait).saturating_duration_since(Instant::now());
        let Ok((at, bytes)) = incoming.next(left) else {
            break;
        };
        let Ok(r) = framing.push(&bytes) else { break };
        let mut more = 0;
        // Each answer: its word and cycles.
        let answers = r.frames.iter().filter_map(|(payload, with_cycles)| {
            let c = validate::check(size, payload, *with_cycles).ok()?;
            Some((c.wire, c.cycles))
        });
        let ends = r.records.iter().filter_map(|payload| {
            let rec = validate::record(size, payload).ok()?;
            match rec.body {
                Body::End { cycles, .. } => Some((rec.wire, Some(cycles))),
                Body::South { .. } | Body::Wrap { .. } => None,
            }
        });
        for (got, cycles) in answers.chain(ends) {
            if got != wire {
                continue;
            }
            let t = at.duration_since(sent);
            if let Some(prev) = p.arrivals.last() {
                longest = longest.max(t.saturating_sub(*prev));
            }
            p.arrivals.push(t);
            board_cycles = board_cycles.or(cycles);
            last = at;
            more += 1;
        }
        if refilling && more > 0 {
            if send(writer, &copies(more)).is_err() {
                break;
            }
            p.frames.sent += more as u64;
        }
    }
    p.frames.answered = p.arrivals.len() as u64;
    p.frames.lost = p.frames.sent.saturating_sub(p.frames.answered);
    p.cycles = board_cycles.unwrap_or(model_cycles);
    p.arrivals.sort_unstable();
    let busy: Vec<Duration> = p.arrivals.iter().copied().filter(|t| *t <= plan.span).collect();
    if let Inferred::Waves { units, clock_hz, .. } = infer(&p.arrivals, p.cycles, plan.frame_time) {
        p.waves = Some((units, clock_hz));
    }
    (p.rate, p.spread) = steady_rate(&busy, p.waves.map_or(1, |w| w.0));
    p
}

/// Answers per second of sorted `arrivals` that come in waves of `wave` (the units, where
/// waves show; 1 otherwise): the first tenth left out (the units filling), the rest cut in
/// eight stretches of equal answers, and the median of their rates with their spread (see
/// [`Probe::spread`]). Each stretch is whole
/// waves long, so that it starts and ends at the same place in a wave: a stretch of 4½
/// waves of 4 answers measured from one wave's start to another's would count 18 answers
/// in 4 waves' time, an eighth too fast.
pub fn steady_rate(arrivals: &[Duration], wave: usize) -> (f64, f64) {
    if arrivals.len() < 3 {
        return (0.0, 0.0);
    }
    let from = arrivals.len() / 10;
    let a = &arrivals[from..];
    if a.len() <= wave.max(2) {
        // Not one whole wave after the first answer: no pace to measure.
        return (0.0, 0.0);
    }
    let wave = wave.max(1);
    let stretches = ((a.len() - 1) / wave).clamp(1, 8);
    let per = (a.len() - 1) / stretches / wave * wave;
    let mut rates: Vec<f64> = (0..stretches)
        .map(|s| {
            let (i, j) = (s * per, (s + 1) * per);
            let dt = (a[j] - a[i]).as_secs_f64().max(1e-7);
            (j - i) as f64 / dt
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let q = rates.len() / 4;
    let spread = if rates.len() >= 4 {
        (rates[rates.len() - 1 - q] - rates[q]) / 2.0 / median
    } else {
        0.0
    };
    (median, spread)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steady_rate_shrugs_off_a_stall() {
        // 1,000 answers a second, with one stall of 50 ms and the burst after it.
        let mut a: Vec<Duration> = (0..400).map(Duration::from_millis).collect();
        for t in &mut a[200..250] {
            *t = Duration::from_millis(250);
        }
        let (r, spread) = steady_rate(&a, 1);
        assert!((r - 1000.0).abs() < 20.0, "{r}");
        assert!(spread < 0.02, "{spread}");
    }

    #[test]
    fn the_steady_rate_of_waves_counts_whole_waves() {
        // Waves of 4 answers every 10 ms (400 a second), the four 0.1 ms apart.
        let a: Vec<Duration> = (0..160)
            .map(|i| Duration::from_micros(10_000 * (i / 4) + 100 * (i % 4)))
            .collect();
        let (r, _) = steady_rate(&a, 4);
        assert!((r / 400.0 - 1.0).abs() < 0.01, "{r}");
    }

    #[test]
    fn an_uneven_pace_has_a_spread() {
        // Stretches alternately at 1,000 and 600 answers a second.
        let mut a = Vec::new();
        let mut t = 0.0;
        for i in 0..400 {
            t += if (i / 45) % 2 == 0 { 1e-3 } else { 1.0 / 600.0 };
            a.push(Duration::from_secs_f64(t));
        }
        let (r, spread) = steady_rate(&a, 1);
        assert!(r > 600.0 && r < 1000.0, "{r}");
        assert!(spread > 0.1, "{spread}");
    }
}
