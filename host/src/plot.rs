//! The picture of a campaign: a value per subproblem (solutions, cycles) in canonical order,
//! binned into columns (a campaign of N = 27 has two billion subproblems), drawn on a log
//! scale as the range of each column with its mean as a line.

use svg::node::element::{Line, Polyline, Rectangle, Text};
use svg::Document;

/// The values that fall into one column.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bin {
    pub n: u64,
    pub min: u64,
    pub max: u64,
    pub sum: f64,
}

impl Bin {
    pub fn add(&mut self, v: u64) {
        if self.n == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.n += 1;
        self.sum += v as f64;
    }

    pub fn mean(&self) -> f64 {
        self.sum / self.n as f64
    }
}

/// One panel: a name and a bin per column (empty bins are gaps: nothing known there yet).
pub struct Panel {
    pub name: String,
    pub bins: Vec<Bin>,
}

/// Values per subproblem index, binned into `columns` columns over `len` indices.
pub struct Binner {
    len: u64,
    bins: Vec<Bin>,
}

impl Binner {
    pub fn new(len: u64, columns: usize) -> Self {
        Self {
            len: len.max(1),
            bins: vec![Bin::default(); columns.max(1)],
        }
    }

    pub fn add(&mut self, index: u64, v: u64) {
        let c = (index as u128 * self.bins.len() as u128 / self.len as u128) as usize;
        let last = self.bins.len() - 1;
        self.bins[c.min(last)].add(v);
    }

    pub fn into_panel(self, name: &str) -> Panel {
        Panel {
            name: name.into(),
            bins: self.bins,
        }
    }
}

const W: f64 = 1000.0;
const PANEL_H: f64 = 260.0;
const LEFT: f64 = 70.0;
const TOP: f64 = 40.0;

/// log10(v + 1): zero counts sit on the axis.
fn lg(v: f64) -> f64 {
    (v + 1.0).log10()
}

/// The whole picture; `subproblems` labels the horizontal axis.
pub fn render(title: &str, subproblems: u64, panels: &[Panel]) -> Document {
    let height = TOP + panels.len() as f64 * (PANEL_H + 50.0) + 20.0;
    let mut doc = Document::new()
        .set("viewBox", (0, 0, W + LEFT + 20.0, height))
        .set("font-family", "sans-serif")
        .set("font-size", 12)
        .add(
            Rectangle::new()
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", "white"),
        )
        .add(Text::new(title).set("x", LEFT).set("y", 24).set("font-size", 16));
    for (k, p) in panels.iter().enumerate() {
        let y0 = TOP + k as f64 * (PANEL_H + 50.0);
        let top = p
            .bins
            .iter()
            .filter(|b| b.n > 0)
            .map(|b| lg(b.max as f64))
            .fold(1.0, f64::max)
            .ceil();
        let y = |v: f64| y0 + PANEL_H - lg(v) / top * PANEL_H;
        let dx = W / p.bins.len() as f64;
        doc = doc.add(
            Rectangle::new()
                .set("x", LEFT)
                .set("y", y0)
                .set("width", W)
                .set("height", PANEL_H)
                .set("fill", "none")
                .set("stroke", "#444"),
        );
        for d in 0..=top as u32 {
            let yy = y0 + PANEL_H - d as f64 / top * PANEL_H;
            doc = doc
                .add(
                    Line::new()
                        .set("x1", LEFT - 4.0)
                        .set("x2", LEFT + W)
                        .set("y1", yy)
                        .set("y2", yy)
                        .set("stroke", "#ddd"),
                )
                .add(
                    Text::new(if d == 0 { "0".to_string() } else { format!("1e{d}") })
                        .set("x", LEFT - 8.0)
                        .set("y", yy + 4.0)
                        .set("text-anchor", "end"),
                );
        }
        let mut mean = Vec::new();
        for (i, b) in p.bins.iter().enumerate() {
            if b.n == 0 {
                continue;
            }
            let x = LEFT + (i as f64 + 0.5) * dx;
            doc = doc.add(
                Line::new()
                    .set("x1", x)
                    .set("x2", x)
                    .set("y1", y(b.min as f64))
                    .set("y2", y(b.max as f64) - 0.5)
                    .set("stroke", "#9ecae1")
                    .set("stroke-width", dx.max(1.0)),
            );
            mean.push(format!("{x:.1},{:.1}", y(b.mean())));
        }
        doc = doc
            .add(
                Polyline::new()
                    .set("points", mean.join(" "))
                    .set("fill", "none")
                    .set("stroke", "#08519c")
                    .set("stroke-width", 1.2),
            )
            .add(
                Text::new(format!(
                    "{} per subproblem (band: range of a column, line: mean)",
                    p.name
                ))
                .set("x", LEFT)
                .set("y", y0 - 6.0),
            )
            .add(Text::new("0").set("x", LEFT).set("y", y0 + PANEL_H + 16.0))
            .add(
                Text::new(format!("subproblem {subproblems} (canonical order)"))
                    .set("x", LEFT + W)
                    .set("y", y0 + PANEL_H + 16.0)
                    .set("text-anchor", "end"),
            );
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_the_range_and_render() {
        let mut b = Binner::new(10, 5);
        for i in 0..10 {
            b.add(i, i * 100);
        }
        let p = b.into_panel("solutions");
        assert_eq!(p.bins.iter().map(|b| b.n).sum::<u64>(), 10);
        assert_eq!((p.bins[4].min, p.bins[4].max), (800, 900));
        let svg = render("test", 10, &[p]).to_string();
        assert!(svg.contains("<polyline") && svg.contains("1e3"), "{svg}");
    }
}
