//! The front end's queue against a software queue: driven with random reads and writes,
//! cycle by cycle, in rust-hdl's simulator, it must hand out every accepted word once and in
//! order, keep its flags true, and show a held word within two cycles.

use queens_hdl::queue::Queue;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Sets the clock low, high and low again, letting the block settle each time.
fn cycle<L: Block>(uut: &mut L, clock: impl Fn(&mut L, bool)) {
    for level in [false, true, false] {
        clock(uut, level);
        assert!(simulate(uut, 200), "did not settle");
    }
}

#[test]
fn the_queue_hands_out_every_word_once_in_order() {
    const CAP: usize = 8;
    let mut ours = Queue::<Bits<8>, 3, 4>::default();
    ours.connect_all();
    let mut held: VecDeque<u64> = VecDeque::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut reads, mut writes, mut fulls, mut hidden) = (0, 0, 0, 0);
    for t in 0..4000 {
        let r = next();
        // Phases that fill and drain the queue, so that full and empty both come round.
        let filling = (t / 200) % 2 == 0;
        let write = r % 8 < if filling { 6 } else { 2 };
        let read = (r >> 8) % 8 < if filling { 2 } else { 6 };
        let data = (r >> 16) & 0xff;
        // What the queue takes this cycle, from its flags before the edge.
        let take = read && !ours.empty.val();
        let put = write && !ours.full.val();
        if take {
            assert_eq!(ours.data_out.val().to_u64(), held[0], "head, cycle {t}");
        }
        ours.write.next = write;
        ours.read.next = read;
        ours.data_in.next = data.to_bits();
        cycle(&mut ours, |u, l| u.clock.next = Clock { clk: l });
        if take {
            held.pop_front();
            reads += 1;
        }
        if put {
            held.push_back(data);
            writes += 1;
        }
        assert_eq!(ours.full.val(), held.len() == CAP, "full, cycle {t}");
        assert!(
            ours.almost_full.val() || held.len() < CAP,
            "almost_full low with the queue full, cycle {t}"
        );
        if !ours.empty.val() {
            assert!(!held.is_empty(), "a word shown from an empty queue, cycle {t}");
            assert_eq!(ours.data_out.val().to_u64(), held[0], "head, cycle {t}");
        }
        // A held word is hidden for at most two cycles (after a write, or after a read).
        hidden = if ours.empty.val() && !held.is_empty() {
            hidden + 1
        } else {
            0
        };
        assert!(
            hidden <= 2,
            "{} words held but empty for {hidden} cycles, cycle {t}",
            held.len()
        );
        fulls += ours.full.val() as u32;
    }
    // Words taken and put, and cycles full: enough that every case came round.
    assert!(
        reads > 500 && writes > 500 && fulls > 50,
        "{reads} {writes} {fulls}"
    );
}
