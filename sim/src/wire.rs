//! The host's side of the wire, reduced to what a check needs: send every subproblem as a
//! frame, keep a bounded number outstanding (as the real host does), and match the result
//! frames that come back by their echoed word. Used by the engines that run the whole core
//! (frame parser, array, framer) rather than a bare unit. Given the identity the design was
//! built with, it also asks for it once the first subproblems are under way, so that the
//! answer has to find its way out between result frames.

use crate::model::UnitRun;
use queens_core::deframe::{Deframed, Deframer};
use queens_core::frame;
use queens_core::ident::{self, Ident};
use queens_core::result::ResultRecord;
use queens_core::{word, BoardSize, Subproblem};
use std::collections::{HashMap, VecDeque};

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the board sent a frame with a bad CRC (computed {computed:#04x}, received {received:#04x})")]
    BadCrc { computed: u8, received: u8 },
    #[error("the board sent {0} bytes outside any frame")]
    Skipped(usize),
    #[error("bad result frame: {0}")]
    Result(#[from] queens_core::ModelError),
    #[error("a result for word {0:#x}, which is not outstanding")]
    Unexpected(u64),
    #[error("the board sent nothing for {cycles} cycles with {in_flight} subproblems in flight")]
    Silent { cycles: u64, in_flight: usize },
    #[error("no result cycle counter in the frames (the core was built without it)")]
    NoCycles,
    #[error("the board identified itself as {got:?}; it was built as {expected:?}")]
    Ident { got: Ident, expected: Ident },
    #[error("the board sent an identification answer ({0:?}) no one asked for")]
    Unasked(Ident),
    #[error("the board sent a second identification answer for one request")]
    IdentTwice,
    #[error("every result came back but no identification answer ({expected:?} was asked)")]
    NoIdent { expected: Ident },
}

pub struct WireDriver {
    size: BoardSize,
    words: Vec<u64>,
    next: usize,
    window: usize,
    outstanding: HashMap<u64, usize>,
    results: Vec<Option<UnitRun>>,
    received: usize,
    deframer: Deframer,
    /// The identity to ask for and expect, whether it was asked, and the answer.
    ident: Option<Ident>,
    asked: bool,
    answered: bool,
}

impl WireDriver {
    /// `window`: subproblems in flight at most (the units plus a few queued on the board).
    pub fn new(size: BoardSize, subproblems: &[Subproblem], window: usize) -> Self {
        let words = subproblems
            .iter()
            .map(|sp| word::encode_wire(&sp.pre).expect("canonical pre-placements encode"))
            .collect::<Vec<_>>();
        Self {
            size,
            results: vec![None; words.len()],
            words,
            next: 0,
            window: window.max(1),
            outstanding: HashMap::new(),
            received: 0,
            deframer: Deframer::new(ResultRecord::payload_len(size, true)).with_ident(),
            ident: None,
            asked: false,
            answered: false,
        }
    }

    /// Asks the board who it is once the first window is sent, and expects `ident`.
    pub fn expect_ident(mut self, ident: Ident) -> Self {
        self.ident = Some(ident);
        self
    }

    /// Frames to send now: as many new subproblems as the window allows.
    pub fn frames_to_send(&mut self, out: &mut VecDeque<u8>) {
        while self.next < self.words.len() && self.outstanding.len() < self.window {
            let w = self.words[self.next];
            self.outstanding.insert(w, self.next);
            out.extend(frame::encode(&word::wire_to_bytes(self.size, w)));
            self.next += 1;
        }
        if self.ident.is_some() && !self.asked {
            out.extend(ident::request(self.size));
            self.asked = true;
        }
    }

    /// Bytes received from the board.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        let mut frames = Vec::new();
        let mut answers = Vec::new();
        let mut err = None;
        self.deframer.push(bytes, |d| match d {
            Deframed::Frame(p) => frames.push(p),
            Deframed::Ident(i) => answers.push(i),
            Deframed::BadCrc { computed, received } => {
                err.get_or_insert(WireError::BadCrc { computed, received });
            }
            Deframed::Skipped(n) => {
                err.get_or_insert(WireError::Skipped(n));
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        for got in answers {
            match self.ident {
                Some(expected) if got != expected => return Err(WireError::Ident { got, expected }),
                Some(_) if self.answered => return Err(WireError::IdentTwice),
                Some(_) => self.answered = true,
                None => return Err(WireError::Unasked(got)),
            }
        }
        for p in frames {
            let r = ResultRecord::decode(self.size, &p, true)?;
            let i = self
                .outstanding
                .remove(&r.wire)
                .ok_or(WireError::Unexpected(r.wire))?;
            self.results[i] = Some(UnitRun {
                solutions: r.true_count()?,
                cycles: r.cycles.ok_or(WireError::NoCycles)?,
            });
            self.received += 1;
        }
        Ok(())
    }

    /// Every result is in (and the answer, if one was asked for).
    pub fn done(&self) -> bool {
        self.received == self.words.len() && (self.ident.is_none() || self.answered)
    }

    /// Every result is in but no answer came: the error to report once the board is quiet.
    pub fn missing_ident(&self) -> Option<WireError> {
        match self.ident {
            Some(expected) if self.received == self.words.len() && !self.answered => {
                Some(WireError::NoIdent { expected })
            }
            _ => None,
        }
    }

    /// Subproblems sent whose result has not come back.
    pub fn in_flight(&self) -> usize {
        self.outstanding.len()
    }

    /// The results in the order of the subproblems (once [`done`](Self::done)).
    pub fn into_runs(self) -> Vec<UnitRun> {
        self.results
            .into_iter()
            .map(|r| r.expect("every subproblem has a result"))
            .collect()
    }
}

/// Runs subproblems through a board simulated one clock cycle at a time: `step` offers a
/// received byte (or none) and returns whether the board took it and the byte it
/// transmitted in that cycle, if any.
pub fn run_stepped(
    size: BoardSize,
    subproblems: &[Subproblem],
    window: usize,
    max_idle_cycles: u64,
    ident: Ident,
    mut step: impl FnMut(Option<u8>) -> (bool, Option<u8>),
) -> Result<Vec<UnitRun>, WireError> {
    let mut driver = WireDriver::new(size, subproblems, window).expect_ident(ident);
    let mut to_send = VecDeque::new();
    let mut quiet = 0u64;
    while !driver.done() {
        driver.frames_to_send(&mut to_send);
        let (taken, tx) = step(to_send.front().copied());
        if taken {
            to_send.pop_front();
        }
        match tx {
            Some(b) => {
                driver.receive(&[b])?;
                quiet = 0;
            }
            None => {
                quiet += 1;
                if quiet > max_idle_cycles {
                    if let Some(e) = driver.missing_ident() {
                        return Err(e);
                    }
                    return Err(WireError::Silent {
                        cycles: quiet,
                        in_flight: driver.in_flight(),
                    });
                }
            }
        }
    }
    Ok(driver.into_runs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use queens_core::enumerate::canonical;

    fn id(units: u32) -> Ident {
        Ident {
            n: 8,
            units,
            clock_hz: 0,
            design_hash: 7,
            with_cycles: true,
            unit: queens_core::UnitKind::Plain,
        }
    }

    #[test]
    fn the_request_goes_out_after_the_first_window_and_a_wrong_answer_is_named() {
        let size = BoardSize::new(8).unwrap();
        let subs: Vec<_> = canonical(size).take(3).collect();
        let mut d = WireDriver::new(size, &subs, 2).expect_ident(id(2));
        let mut out = VecDeque::new();
        d.frames_to_send(&mut out);
        let out: Vec<u8> = out.into();
        assert!(out.ends_with(&ident::request(size)));
        assert_eq!(
            out.len(),
            2 * (word::wire_bytes(size) + 2) + ident::request(size).len()
        );
        let e = d.receive(&id(3).encode()).unwrap_err();
        assert!(matches!(e, WireError::Ident { .. }), "{e}");
        assert!(d.receive(&id(2).encode()).is_ok());
        assert!(matches!(d.receive(&id(2).encode()), Err(WireError::IdentTwice)));
    }
}
