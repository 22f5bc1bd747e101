//! The canonical enumeration against brute force: every valid ring belongs to exactly one
//! kept orbit, classes match the orbit's stabiliser, and the order is the word order.

use queens_core::enumerate::canonical;
use queens_core::{word, Blocking, BoardSize, Orientation, Preplacement, Symmetry};
use std::collections::HashSet;

fn all_valid_rings(size: BoardSize) -> HashSet<[u32; 8]> {
    let n = size.n();
    let pairs: Vec<(u32, u32)> = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|(a, b)| a.abs_diff(*b) > 1)
        .collect();
    let mut out = HashSet::new();
    for &(wa, wb) in &pairs {
        for &(na, nb) in &pairs {
            for &(ea, eb) in &pairs {
                for &(sa, sb) in &pairs {
                    let c = [wa, wb, na, nb, ea, eb, sa, sb];
                    if Preplacement::new(size, c).is_ok() {
                        out.insert(c);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_ring_in_exactly_one_kept_orbit() {
    for n in 6..=9 {
        let size = BoardSize::new(n).unwrap();
        let all = all_valid_rings(size);
        let mut covered = HashSet::new();
        for sp in canonical(size) {
            let orbit: HashSet<[u32; 8]> = sp.pre.images().iter().map(|p| p.coords()).collect();
            assert_eq!(
                orbit.len() as u64,
                sp.sym.weight(),
                "orbit size of {} ({})",
                sp.pre,
                sp.sym
            );
            for c in &orbit {
                assert!(all.contains(c), "image {c:?} is not a valid ring");
                assert!(covered.insert(*c), "ring {c:?} is in two kept orbits (N = {n})");
            }
        }
        assert_eq!(covered.len(), all.len(), "N = {n}: kept orbits miss some rings");
    }
}

#[test]
fn class_is_the_stabiliser() {
    for n in 6..=12 {
        for sp in canonical(BoardSize::new(n).unwrap()) {
            let r1 = sp.pre.rotated();
            let r2 = r1.rotated();
            let expect = if r1 == sp.pre {
                Symmetry::Rotate
            } else if r2 == sp.pre {
                Symmetry::Point
            } else {
                Symmetry::None
            };
            assert_eq!(sp.sym, expect, "{}", sp.pre);
        }
    }
}

#[test]
fn order_is_word_order_and_west_is_minimal() {
    for n in 6..=13 {
        let size = BoardSize::new(n).unwrap();
        let table = queens_core::board::PairTable::new(size);
        let mut last = None;
        for sp in canonical(size) {
            let w = word::encode(&sp.pre).unwrap();
            assert!(last < Some(w), "not increasing at {}", sp.pre);
            last = Some(w);
            // The kept ring's west side is the smallest side or mirrored side of its orbit.
            let west = sp.pre.side_indices(&table)[0];
            for img in sp.pre.images() {
                assert!(
                    west <= img.side_indices(&table)[0],
                    "{} has a smaller image {}",
                    sp.pre,
                    img
                );
            }
        }
    }
}

#[test]
fn images_form_a_group() {
    let s = BoardSize::new(10).unwrap();
    let p = canonical(s).nth(777).unwrap().pre;
    let imgs = p.images();
    assert_eq!(imgs[0].rotated().rotated().rotated().rotated(), p);
    assert_eq!(imgs[0].transposed().transposed(), p);
    for img in imgs {
        // every image is again a valid ring
        Preplacement::new(s, img.coords()).unwrap();
    }
}

#[test]
fn every_orientation_keeps_the_completions() {
    for n in 6..=11 {
        for sp in canonical(BoardSize::new(n).unwrap()) {
            let b = Blocking::new(&sp.pre);
            let want = queens_core::search::completions_of(&b);
            for o in Orientation::ALL {
                let t = b.turned(o);
                assert_eq!(queens_core::search::completions_of(&t), want, "{} {o:?}", sp.pre);
                assert_eq!(t.rows.count_ones(), t.cols.count_ones());
                assert_eq!(t.down >> (2 * b.m - 1), 0);
                assert_eq!(t.up >> (2 * b.m - 1), 0);
            }
            assert_eq!(
                b.turned(Orientation::ColumnsBack)
                    .turned(Orientation::ColumnsBack),
                b
            );
            assert_eq!(b.turned(Orientation::Rows).turned(Orientation::Rows), b);
        }
    }
}
