//! A ratio of two units' mean cycles from paired per-subproblem figures, with its interval.
//!
//! Over a sample of subproblems with figures x_i (one unit) and y_i (the other), the ratio of
//! the means is R = Σx / Σy. Its standard error comes from the spread of the residuals
//! x_i - R·y_i (the delta method; Cochran, "Sampling Techniques", 1977, §6.4). The figures may
//! be exact or probe estimates: a probe estimate is unbiased, so the residuals' spread then
//! holds both the probes' noise and the sample's, and needs no term of its own.

use serde::Serialize;

/// The interval reported is the ratio ± this many standard errors (95% for a normal mean).
pub const Z95: f64 = 1.96;

/// A ratio and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Ratio {
    /// Σx / Σy over the pairs, with the interval of the same ratio over the `population` the
    /// pairs are a sample of (the finite-population correction takes the interval to nothing
    /// when the sample is the population). `None`: the set is the whole of what is measured,
    /// so it has no interval.
    pub fn of_pairs(pairs: impl Iterator<Item = (f64, f64)> + Clone, population: Option<u64>) -> Ratio {
        let (k, sx, sy) = pairs
            .clone()
            .fold((0usize, 0.0, 0.0), |(k, sx, sy), (x, y)| (k + 1, sx + x, sy + y));
        let value = sx / sy;
        let Some(population) = population.filter(|_| k >= 2 && sy > 0.0) else {
            return Ratio {
                value,
                low: value,
                high: value,
            };
        };
        let k = k as f64;
        let s2 = pairs.map(|(x, y)| (x - value * y).powi(2)).sum::<f64>() / (k - 1.0);
        let fpc = (1.0 - k / population as f64).max(0.0);
        let stderr = (s2 / k * fpc).sqrt() / (sy / k);
        Ratio {
            value,
            low: value - Z95 * stderr,
            high: value + Z95 * stderr,
        }
    }

    /// "0.642 (0.631 to 0.653)", or the bare ratio when it has no interval.
    pub fn text(&self) -> String {
        if self.low == self.high {
            format!("{:.3}", self.value)
        } else {
            format!("{:.3} ({:.3} to {:.3})", self.value, self.low, self.high)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_covers_the_populations_ratio_about_as_often_as_it_says() {
        // A population with a known ratio; many samples of it; count the intervals that miss.
        let mut rng = fastrand::Rng::with_seed(3);
        let pop: Vec<(f64, f64)> = (0..20_000)
            .map(|_| {
                let y = rng.f64() * 100.0 + 1.0;
                (0.6 * y * (0.5 + rng.f64()), y)
            })
            .collect();
        let truth = Ratio::of_pairs(pop.iter().copied(), None).value;
        let mut missed = 0;
        for _ in 0..400 {
            let sample: Vec<(f64, f64)> = (0..200).map(|_| pop[rng.usize(0..pop.len())]).collect();
            let r = Ratio::of_pairs(sample.iter().copied(), Some(pop.len() as u64));
            assert!(r.low < r.value && r.value < r.high);
            if !(r.low..=r.high).contains(&truth) {
                missed += 1;
            }
        }
        assert!(
            (5..=40).contains(&missed),
            "{missed} of 400 intervals missed (about 20 expected)"
        );
    }

    #[test]
    fn a_whole_population_has_no_interval() {
        let pairs = [(1.0, 2.0), (3.0, 2.0), (2.0, 4.0)];
        let all = Ratio::of_pairs(pairs.iter().copied(), Some(3));
        assert_eq!((all.low, all.value, all.high), (0.75, 0.75, 0.75));
        let none = Ratio::of_pairs(pairs.iter().copied(), None);
        assert_eq!(none, all);
    }
}
