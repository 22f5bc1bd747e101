//! Units and clock of a board that does not say them, from when its answers arrive: a burst
//! of copies of one subproblem of C cycles comes back in waves, one per round of the units,
//! each as large as the units, C / clock apart.

use std::time::Duration;

/// What the waves of a burst tell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Inferred {
    /// Waves were seen: the units answering and the clock they run at.
    Waves {
        units: usize,
        clock_hz: f64,
        waves: usize,
    },
    /// The answers came as a stream, not in waves (or in waves of one answer): the link
    /// delivers them slower than the units finish (a UART-bound board), a single unit answers
    /// them, or the units finish faster than the link's timing shows.
    NoWaves { answered: usize },
}

/// A gap between answers that starts a new wave: at least this share of a round.
const WAVE_GAP: f64 = 0.5;
/// Gaps below this are never waves (scheduling and transport jitter).
const MIN_GAP: Duration = Duration::from_millis(3);

/// `arrivals`: when each answer of the burst arrived, from the burst's sending, sorted;
/// `cycles`: the cycles of the subproblem every answer ran; `frame_time`: how long the link
/// takes to carry one answer, where it is slow enough to matter (a serial line).
pub fn infer(arrivals: &[Duration], cycles: u64, frame_time: Option<Duration>) -> Inferred {
    let gaps: Vec<Duration> = arrivals.windows(2).map(|w| w[1] - w[0]).collect();
    let longest = gaps.iter().copied().max().unwrap_or_default();
    let shortest = gaps.iter().copied().min().unwrap_or_default();
    // Answers evenly apart are a stream, not waves: the link's pace (a serial line's frame
    // time) or a single unit's, which timing alone cannot tell apart.
    let even = shortest.as_secs_f64() > 0.5 * longest.as_secs_f64();
    let link_paced = frame_time.is_some_and(|f| shortest.as_secs_f64() < 1.5 * f.as_secs_f64());
    if longest < MIN_GAP || even || link_paced && shortest < MIN_GAP {
        return Inferred::NoWaves {
            answered: arrivals.len(),
        };
    }
    // The round: the median of the gaps that part waves (a stall of the host's stretches one
    // gap, it does not move the median), and the rounds near it averaged.
    let mut parting: Vec<Duration> = gaps.iter().copied().filter(|g| *g >= MIN_GAP).collect();
    parting.sort_unstable();
    let median = parting[parting.len() / 2];
    let cut = median.mul_f64(WAVE_GAP);
    let rounds: Vec<Duration> = parting
        .iter()
        .copied()
        .filter(|g| *g >= cut && g.as_secs_f64() <= 1.5 * median.as_secs_f64())
        .collect();
    let round = rounds.iter().sum::<Duration>() / rounds.len().max(1) as u32;
    // Waves: the answers between parting gaps.
    let mut sizes: Vec<usize> = vec![1];
    for g in &gaps {
        if *g >= cut {
            sizes.push(1);
        } else {
            *sizes.last_mut().expect("one wave at least") += 1;
        }
    }
    let waves = sizes.len();
    // Every wave but the last is full.
    let mut full: Vec<usize> = sizes[..waves.saturating_sub(1).max(1)].to_vec();
    full.sort_unstable();
    let units = full[full.len() / 2];
    // Waves of one answer each are a stream with uneven gaps: a link that paces the answers
    // (a UART behind a TCP port, unseen from here) looks just like a single unit.
    if units == 1 {
        return Inferred::NoWaves {
            answered: arrivals.len(),
        };
    }
    Inferred::Waves {
        units,
        clock_hz: cycles as f64 / round.as_secs_f64().max(1e-9),
        waves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_micros(m * 1000)).collect()
    }

    #[test]
    fn waves_give_units_and_clock() {
        // 3 units, 10 ms a round (1,000 cycles at 100 kHz), a last wave of 2, and the host
        // stalled for 25 ms once.
        let a = ms(&[10, 10, 10, 20, 20, 20, 30, 30, 30, 40, 40, 40, 75, 75, 75, 85, 85]);
        match infer(&a, 1000, None) {
            Inferred::Waves {
                units,
                clock_hz,
                waves,
            } => {
                assert_eq!((units, waves), (3, 6));
                assert!((clock_hz - 100_000.0).abs() < 1.0, "{clock_hz}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            infer(&ms(&[1, 1, 2, 2, 3]), 1000, None),
            Inferred::NoWaves { answered: 5 }
        ));
        // One answer at a time with uneven gaps (a UART behind TCP, the host's scheduling):
        // a stream, not one unit.
        assert!(matches!(
            infer(&ms(&[20, 45, 61, 90, 104, 140]), 1000, None),
            Inferred::NoWaves { answered: 6 }
        ));
        // A slow serial line: one answer every 17 ms, each taking the line that long.
        let line = Some(Duration::from_millis(17));
        assert!(matches!(
            infer(&ms(&[17, 34, 51, 68]), 1000, line),
            Inferred::NoWaves { .. }
        ));
    }
}
