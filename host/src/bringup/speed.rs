//! Step 4: units and clock from the probes, only where the evidence shows them, with what
//! bound the measurement; and the rate the board should reach, from its clock and its link.
//!
//! Two probes run subproblems of C₁ and C₂ cycles (C₂ about half of C₁). Where the units set
//! the pace, each answer costs (C + o) / P seconds, P being the cycles all units run a second
//! (units × clock) and o the cycles a unit waits between subproblems: the two rates give P and
//! o. Where the link or the host sets the pace, both rates are that pace and the two points
//! give no sensible o: then nothing is measured, only a lower bound, and nothing is judged
//! slow. A stall of the host can only make P look larger, never smaller, unless it hits one
//! probe and not the other; the rates are medians of stretches for that reason, and a board
//! is failed as slow only below [`SLOW`] of what it was built for.

use super::probe::Probe;
use super::verdict::Verdict;
use queens_core::ident::Ident;
use queens_core::BoardSize;
use serde::Serialize;

/// A measured clock this close to the answered one confirms it.
const CONFIRMS: f64 = 0.05;
/// A measured clock below this share of the answered one fails the board.
const SLOW: f64 = 0.90;
/// A link whose pace is at least this share of its top rate is what bounds the answers.
const LINK_SHARE: f64 = 0.7;
/// The units set the pace only where the board's word queue outlasts the host's turnaround
/// by far: it must hold this long of answers at the faster probe's pace.
const QUEUE_TIME: f64 = 5e-3;
/// Waves split units × clock into units and clock where they agree with it this closely.
const WAVES_AGREE: f64 = 0.10;

/// What bounds the pace of the answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The units: their pace follows the subproblems' cycles.
    Units,
    /// The serial link carries no more.
    Link,
    /// The link or the host: the answers come at one pace whatever their cycles.
    LinkOrHost,
    /// The host: the rates follow the cycles, but so fast that the board's queue empties
    /// before the host answers it (a stall of the host would show as a slower clock).
    Host,
}

impl Bound {
    pub fn text(self) -> &'static str {
        match self {
            Bound::Units => "the units and their clock",
            Bound::Link => "the link",
            Bound::LinkOrHost => "the link or the host",
            Bound::Host => "the host's turnaround",
        }
    }
}

/// Units, clock and pace as the evidence shows them.
#[derive(Debug, Clone, Serialize)]
pub struct Speed {
    pub units: Option<usize>,
    pub units_source: String,
    pub clock_hz: Option<f64>,
    pub clock_source: String,
    /// Cycles all units run a second (units × clock), where measured.
    pub cycles_per_second: Option<f64>,
    /// A lower bound of units × clock where the link or the host bound the answers.
    pub cycles_per_second_at_least: Option<f64>,
    pub bound: Option<Bound>,
    #[serde(skip)]
    pub verdicts: Vec<Verdict>,
}

/// Units and clock before any probe: what the board said, or nothing.
pub fn unmeasured(ident: Option<Ident>) -> Speed {
    Speed {
        units: ident.map(|i| i.units as usize),
        units_source: if ident.is_some() { "answered" } else { "unknown" }.into(),
        clock_hz: ident.map(|i| i.clock_hz as f64).filter(|&c| c > 0.0),
        clock_source: if ident.is_some_and(|i| i.clock_hz > 0) {
            "answered"
        } else {
            "unknown"
        }
        .into(),
        cycles_per_second: None,
        cycles_per_second_at_least: None,
        bound: None,
        verdicts: Vec::new(),
    }
}

/// The fit of two probes: cycles a second of all units, and cycles a unit waits between
/// subproblems, if the rates follow the cycles.
fn fit(a: &Probe, b: &Probe, size: BoardSize) -> Option<(f64, f64)> {
    let (dear, cheap) = if a.cycles >= b.cycles { (a, b) } else { (b, a) };
    let (rd, rc) = (dear.rate, cheap.rate);
    if rd <= 0.0 || rc <= 0.0 || (dear.cycles as f64) < 1.5 * cheap.cycles as f64 {
        return None;
    }
    if within_noise(dear, cheap) {
        return None;
    }
    let (xd, xc) = (1.0 / rd, 1.0 / rc);
    let p = (dear.cycles - cheap.cycles) as f64 / (xd - xc);
    let overhead = xc * p - cheap.cycles as f64;
    // Our front end keeps a unit waiting a dispatch; Queens@TUD's chain a few cycles.
    let most = 2.0 * queens_hdl::front::dispatch_cycles(size.inner() as usize) as f64 + 16.0;
    let fits = overhead >= -0.15 * cheap.cycles as f64 && overhead <= most;
    fits.then_some((p, overhead.max(0.0)))
}

/// Whether the rates of the probes `dear` and `cheap` are apart by no more than each one
/// strays within its probe: then they tell nothing. A link or host that sets an uneven pace
/// (a board simulated slower than real time, a host busy with other work) would otherwise
/// give units a few kilohertz fast, or hide a slow clock.
fn within_noise(dear: &Probe, cheap: &Probe) -> bool {
    cheap.rate - dear.rate <= 2.0 * (dear.rate * dear.spread + cheap.rate * cheap.spread)
}

/// Whether the probes `d` and `h` were too uneven to tell whether the units set their pace:
/// worth probing again. So is a pair where one probe has a rate and the other none: its
/// answers all came at once (a host that stalled and then read them in one go).
pub fn uneven(d: &Probe, h: &Probe) -> bool {
    let (dear, cheap) = if d.cycles >= h.cycles { (d, h) } else { (h, d) };
    if (dear.rate > 0.0) != (cheap.rate > 0.0) {
        return true;
    }
    // Equal rates (a link's pace) are within any noise, and are judged as they are.
    dear.rate > 0.0 && cheap.rate > dear.rate && within_noise(dear, cheap)
}

/// Judges the probes `d` (the dearer) and `h`. `link_rate`: answers a second a serial link
/// carries at most.
pub fn judge(
    ident: Option<Ident>,
    d: &Probe,
    h: Option<&Probe>,
    size: BoardSize,
    link_rate: Option<f64>,
) -> Speed {
    let mut s = unmeasured(ident);
    let said_units = ident.map(|i| i.units as usize);
    let said_clock = ident.map(|i| i.clock_hz as f64).filter(|&c| c > 0.0);
    // Where the two probes' rates give no fit (too few answers in the dearer one's span),
    // their waves still show units and clock when both show the same: subproblems of
    // different cycles coming back at one units × clock is the units' pace, not a link's.
    let fitted = h.and_then(|h| fit(d, h, size)).or_else(|| {
        let (a, b) = (d.waves?, h?.waves?);
        let same = a.0 == b.0 && (a.1 / b.1 - 1.0).abs() <= WAVES_AGREE;
        same.then_some((a.0 as f64 * a.1, 0.0))
    });
    let pace = h.map_or(d.rate, |h| h.rate.max(d.rate));
    let queue_lasts = queens_hdl::front::WORD_QUEUE as f64 / pace.max(1e-9);
    let trusted = fitted.filter(|_| queue_lasts >= QUEUE_TIME);
    let Some((p, overhead)) = trusted else {
        // The answers came at a pace the cycles do not set (the link's or the host's), or
        // too fast for the host to keep the board's queue filled.
        let at_least = h.map_or(d.rate * d.cycles as f64, |h| {
            (d.rate * d.cycles as f64).max(h.rate * h.cycles as f64)
        });
        s.cycles_per_second_at_least = (at_least > 0.0).then_some(at_least);
        s.bound = Some(match link_rate {
            _ if fitted.is_some() => Bound::Host,
            Some(l) if pace >= LINK_SHARE * l => Bound::Link,
            _ => Bound::LinkOrHost,
        });
        let why = format!(
            "not measurable through this link: {} set the answers' pace",
            s.bound.expect("set above").text()
        );
        if ident.is_some() {
            if s.clock_hz.is_some() {
                s.clock_source = format!("answered; {why}");
            }
        } else {
            s.units_source = format!("unknown: {why}");
            s.clock_source = format!("unknown: {why}");
        }
        return s;
    };
    tracing::debug!(p, overhead, "units bound the probes");
    s.bound = Some(Bound::Units);
    s.cycles_per_second = Some(p);
    // Waves tell units from clock where they agree with units × clock (a link that delivers
    // answers in chunks makes waves of its own, which do not).
    let agree = |w: &(usize, f64)| (w.0 as f64 * w.1 / p - 1.0).abs() <= WAVES_AGREE;
    let waves = d.waves.filter(agree).or(h.and_then(|h| h.waves).filter(agree));
    match (said_units, waves) {
        (Some(said), Some((units, _))) if units < said => {
            s.verdicts.push(Verdict::FewerUnits { answer: units, said });
        }
        (None, Some((units, _))) => {
            s.units = Some(units);
            s.units_source = "inferred".into();
        }
        (None, None) => {
            s.units_source =
                "unknown: the answers came as a stream, which shows units × clock, not either".into();
        }
        _ => {}
    }
    // The clock: from the waves where they show, else the cycles a second over the units.
    let measured = match (waves, s.units) {
        (Some((_, clock)), _) => Some(clock),
        (None, Some(u)) => Some(p / u.max(1) as f64),
        (None, None) => None,
    };
    let Some(clock) = measured else {
        s.clock_source = "unknown: see units".into();
        return s;
    };
    match said_clock {
        Some(built) => {
            if (clock / built - 1.0).abs() <= CONFIRMS {
                s.clock_source = "answered, confirmed".into();
            } else {
                s.clock_source = format!("measured; the board answered {:.3} MHz", built / 1e6);
            }
            if clock < SLOW * built {
                s.verdicts.push(Verdict::SlowerThanBuilt {
                    measured_hz: clock,
                    built_hz: built,
                });
            }
        }
        None => s.clock_source = "inferred".into(),
    }
    s.clock_hz = Some(clock);
    s
}

/// The rate the known-answer set should reach, and what bounds it: the units at their
/// clock, the serial link, or the pace the probes found where the link or the host set it.
pub fn predict(
    s: &Speed,
    mean_cycles: f64,
    link_rate: Option<f64>,
    pace: Option<f64>,
) -> (Option<f64>, Option<Bound>) {
    let compute = match (s.cycles_per_second, s.units, s.clock_hz) {
        (Some(p), _, _) => Some(p / mean_cycles.max(1.0)),
        (None, Some(u), Some(c)) => Some(u as f64 * c / mean_cycles.max(1.0)),
        _ => None,
    };
    let mut best: Option<(f64, Bound)> = compute.map(|c| (c, Bound::Units));
    let mut take = |rate: Option<f64>, b: Bound| {
        if let Some(r) = rate.filter(|r| *r > 0.0) {
            if best.is_none_or(|(x, _)| r < x) {
                best = Some((r, b));
            }
        }
    };
    take(link_rate, Bound::Link);
    if matches!(s.bound, Some(Bound::LinkOrHost | Bound::Link | Bound::Host)) {
        take(pace, s.bound.expect("matched"));
    }
    (best.map(|b| b.0), best.map(|b| b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(cycles: u64, rate: f64, spread: f64) -> Probe {
        Probe {
            index: 0,
            cycles,
            frames: Default::default(),
            rate,
            spread,
            waves: None,
            arrivals: Vec::new(),
        }
    }

    #[test]
    fn rates_apart_by_their_noise_give_no_units() {
        // N = 10 through a slow, uneven link: the cheaper probe happened to come back 20%
        // faster, inside what each probe's stretches strayed.
        let size = BoardSize::new(10).unwrap();
        let s = judge(
            None,
            &probe(24, 25.0, 0.12),
            Some(&probe(13, 30.0, 0.12)),
            size,
            None,
        );
        assert_eq!(s.bound, Some(Bound::LinkOrHost));
        assert_eq!(s.cycles_per_second, None);
        // The same rates measured steadily are the units' pace.
        let s = judge(
            None,
            &probe(24, 25.0, 0.01),
            Some(&probe(13, 30.0, 0.01)),
            size,
            None,
        );
        assert_eq!(s.bound, Some(Bound::Units));
    }

    #[test]
    fn only_an_uneven_pair_is_probed_again() {
        // Either order: the dearer probe is the one with more cycles.
        assert!(uneven(&probe(24, 25.0, 0.12), &probe(13, 30.0, 0.12)));
        assert!(uneven(&probe(13, 30.0, 0.12), &probe(24, 25.0, 0.12)));
        // Steady rates are judged as they are, and so are equal ones (a link's pace).
        assert!(!uneven(&probe(24, 25.0, 0.01), &probe(13, 30.0, 0.01)));
        assert!(!uneven(&probe(24, 25.0, 0.0), &probe(13, 25.0, 0.0)));
        // One probe without a rate (seen in a full local run of the suite: a cheap probe's
        // 868 answers read at once), in either place; two without are a link's or host's
        // pace, as they are.
        assert!(uneven(&probe(127, 630.0, 0.0002), &probe(47, 0.0, 0.0)));
        assert!(uneven(&probe(127, 0.0, 0.0), &probe(47, 1700.0, 0.0002)));
        assert!(!uneven(&probe(127, 0.0, 0.0), &probe(47, 0.0, 0.0)));
    }
}
