//! Frames in: the frame parser and the word queue, the part of the front end both kinds of
//! unit share. The stream stalls only between frames, so that a source that cannot wait (a
//! UART) loses whole frames, never part of one.

use crate::front::queue::Queue;
use crate::link::frame_rx::FrameRx;
use rust_hdl::prelude::*;

/// Address bits of the word queue.
pub(crate) const WORD_QUEUE_BITS: usize = 4;
const WORD_QUEUE_BITS1: usize = WORD_QUEUE_BITS + 1;

#[derive(LogicBlock)]
pub struct Intake<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    /// The byte offered is taken (see `Front::rx_ready`).
    pub rx_ready: Signal<Out, Bit>,
    /// Take the queue's head; `word` shows the next one a cycle later.
    pub take: Signal<In, Bit>,
    pub word: Signal<Out, Bits<W>>,
    pub empty: Signal<Out, Bit>,
    /// An identification request was received (a strobe).
    pub request: Signal<Out, Bit>,
    /// A frame is under way.
    pub busy: Signal<Out, Bit>,

    rx: FrameRx<W>,
    words: Queue<Bits<W>, WORD_QUEUE_BITS, WORD_QUEUE_BITS1>,
    /// The word queue's flags, registered (see below).
    queue_open: DFF<Bit>,
    queue_room: DFF<Bit>,
}

impl<const W: usize> Intake<W> {
    /// Frames whose CRC is their payload's XOR `crc_xor` (a kind's requests).
    pub fn new(crc_xor: u8) -> Self {
        assert!(
            W >= 24,
            "frames at least five bytes apart (the word queue's registered flags)"
        );
        Self {
            clock: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            rx_ready: Default::default(),
            take: Default::default(),
            word: Default::default(),
            empty: Default::default(),
            request: Default::default(),
            busy: Default::default(),
            rx: FrameRx::new(crc_xor),
            words: Default::default(),
            queue_open: Default::default(),
            queue_room: Default::default(),
        }
    }
}

impl<const W: usize> Logic for Intake<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, queue_open, queue_room);
        clock!(self, clock, rx, words);
        // Checked words into the queue (a frame without room is dropped whole). The queue's
        // flags are registered, so that its read side (dispatch) and the parser are apart by
        // a register: they then lag a write by up to three cycles, and frames are at least
        // five bytes apart (W >= 24), so at most one word is unseen: the one slot of slack of
        // `almost_full` covers it.
        self.queue_open.d.next = !self.words.almost_full.val();
        self.queue_room.d.next = !self.words.full.val();
        self.rx_ready.next = !self.rx.hunting.val() | self.queue_open.q.val();
        self.rx.data.next = self.rx_data.val();
        self.rx.data_valid.next = self.rx_valid.val() & self.rx_ready.val();
        self.rx.room.next = self.queue_room.q.val();
        self.words.write.next = self.rx.word_valid.val();
        self.words.data_in.next = self.rx.word.val();
        self.words.read.next = self.take.val();
        self.word.next = self.words.data_out.val();
        self.empty.next = self.words.empty.val();
        self.request.next = self.rx.request.val();
        self.busy.next = self.rx.busy.val();
    }
}
