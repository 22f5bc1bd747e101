//! The front end's queue against rust-hdl's `SynchronousFIFO`, whose behaviour it keeps:
//! both driven with the same random reads and writes, cycle by cycle, in rust-hdl's simulator.

use queens_hdl::front::queue::Queue;
use rust_hdl::prelude::*;

/// Sets the clock low, high and low again, letting the block settle each time.
fn cycle<L: Block>(uut: &mut L, clock: impl Fn(&mut L, bool)) {
    for level in [false, true, false] {
        clock(uut, level);
        assert!(simulate(uut, 200), "did not settle");
    }
}

#[test]
fn the_queue_behaves_as_rust_hdls_synchronous_fifo() {
    same_as_fifo(Queue::<Bits<8>, 3, 4>::default());
}

/// A queue of 8 entries on 5-bit addresses (as the id queues of a core of few units) is the
/// same queue.
#[test]
fn a_queue_smaller_than_its_addresses_behaves_the_same() {
    same_as_fifo(Queue::<Bits<8>, 5, 6>::holding(3));
}

/// Drives `ours` (8 entries) and rust-hdl's FIFO of 8 alike and compares them cycle by cycle.
fn same_as_fifo<const N: usize, const NP1: usize>(mut ours: Queue<Bits<8>, N, NP1>) {
    let mut theirs = SynchronousFIFO::<Bits<8>, 3, 4, 1>::default();
    ours.connect_all();
    theirs.connect_all();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut reads, mut writes, mut fulls) = (0, 0, 0);
    for t in 0..4000 {
        let r = next();
        // Phases that fill and drain the queue, so that full and empty both come round.
        let filling = (t / 200) % 2 == 0;
        let write = r % 8 < if filling { 6 } else { 2 };
        let read = (r >> 8) % 8 < if filling { 2 } else { 6 };
        let data = ((r >> 16) & 0xff).to_bits::<8>();
        ours.write.next = write;
        ours.read.next = read;
        ours.data_in.next = data;
        theirs.write.next = write;
        theirs.read.next = read;
        theirs.data_in.next = data;
        cycle(&mut ours, |u, l| u.clock.next = Clock { clk: l });
        cycle(&mut theirs, |u, l| u.clock.next = Clock { clk: l });
        let empty = theirs.empty.val();
        assert_eq!(ours.empty.val(), empty, "empty, cycle {t}");
        assert_eq!(ours.full.val(), theirs.full.val(), "full, cycle {t}");
        assert_eq!(
            ours.almost_full.val(),
            theirs.almost_full.val(),
            "almost_full, cycle {t}"
        );
        if !empty {
            assert_eq!(ours.data_out.val(), theirs.data_out.val(), "head, cycle {t}");
            reads += read as u32;
        }
        writes += write as u32;
        fulls += theirs.full.val() as u32;
    }
    assert!(
        reads > 500 && writes > 1000 && fulls > 50,
        "{reads} {writes} {fulls}"
    );
}
