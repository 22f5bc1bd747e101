//! An answer's frame, the same for both kinds (docs/spec/protocol.md): the echoed word, the
//! record right below it, padding below the record to whole bytes, and above the word what
//! the kind adds (the plain unit's cycles); left-aligned in the framer's register, under the
//! kind's CRC XOR.

use crate::front::constant::c;
use crate::link::frame_tx::PAYLOAD_BITS;
use crate::solver::stage::ID_BITS;
use rust_hdl::prelude::*;

/// The kind's frame: `pad` bits of padding below the record, `bytes` in all, its CRC under
/// `crc_xor` (the requests' XOR too).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub pad: usize,
    pub bytes: usize,
    pub crc_xor: u8,
}

/// Queue entries of E bits (the unit id above the record), words of W bits.
#[derive(LogicBlock)]
pub struct Frame<const E: usize, const W: usize> {
    /// The entry and its unit's word; the kind's bits above the word, already in place.
    pub entry: Signal<In, Bits<E>>,
    pub word: Signal<In, Bits<W>>,
    pub above: Signal<In, Bits<PAYLOAD_BITS>>,
    pub payload: Signal<Out, Bits<PAYLOAD_BITS>>,
    pub nbytes: Signal<Out, Bits<5>>,
    pub crc_xor: Signal<Out, Bits<8>>,

    /// Where the word and the record land in the payload, and the record's bits of an entry.
    word_to: Constant<Bits<8>>,
    record_to: Constant<Bits<8>>,
    record: Constant<Bits<E>>,
    bytes: Constant<Bits<5>>,
    crc: Constant<Bits<8>>,
}

impl<const E: usize, const W: usize> Frame<E, W> {
    pub fn new(layout: Layout) -> Self {
        let bits = 8 * layout.bytes;
        let align = PAYLOAD_BITS - bits;
        let record_to = align + layout.pad;
        assert!(
            record_to + E - ID_BITS + W <= PAYLOAD_BITS,
            "the word and record fit"
        );
        Self {
            entry: Default::default(),
            word: Default::default(),
            above: Default::default(),
            payload: Default::default(),
            nbytes: Default::default(),
            crc_xor: Default::default(),
            word_to: c(record_to + E - ID_BITS),
            record_to: c(record_to),
            record: Constant::new((0..E - ID_BITS).fold(Bits::<E>::default(), |m, i| m.replace_bit(i, true))),
            bytes: c(layout.bytes),
            crc: Constant::new((layout.crc_xor as u64).to_bits()),
        }
    }
}

impl<const E: usize, const W: usize> Logic for Frame<E, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.payload.next = (bit_cast::<PAYLOAD_BITS, W>(self.word.val()) << self.word_to.val())
            | (bit_cast::<PAYLOAD_BITS, E>(self.entry.val() & self.record.val()) << self.record_to.val())
            | self.above.val();
        self.nbytes.next = self.bytes.val();
        self.crc_xor.next = self.crc.val();
    }
}
