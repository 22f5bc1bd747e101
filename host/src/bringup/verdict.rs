//! What a check can find wrong, each with the likely cause and the next step that fit it.
//! Every failure of [`super::check`] is one of these; the report carries its text and kind.

use super::Frames;
use serde::Serialize;

/// One failed check, by kind, with what the evidence showed.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The board says it was built for another N.
    OtherN { said: u32, asked: u32 },
    /// `--design` was given and the board does not identify itself.
    NoIdentity { design_hash: u32 },
    /// The board identifies as another build than `--design`: the fields that differ.
    OtherDesign { differ: Vec<String> },
    /// Not one byte came back.
    Silent,
    /// The board's frames are results of another N.
    FramesOfOtherN { text: String },
    /// The bytes are no frames of this protocol.
    NotFrames { text: String },
    /// The link closed while the check was sending.
    LinkClosed,
    /// Answers with wrong counts: how many, of how many, and the first subproblems.
    WrongCounts {
        wrong: usize,
        answered: usize,
        first: Vec<u64>,
    },
    /// A board that identifies as ours whose cycle counts differ from our cycle model.
    OtherUnitVersion { differ: usize },
    /// Frames lost or corrupted where the check sent no more than the board holds: of the
    /// known-answer set (and subproblems never answered) and of the probes.
    LinkLoses {
        known: Frames,
        unanswered: usize,
        probes: Frames,
        bad_crc: u64,
    },
    /// Fewer units answer than the board says it has.
    FewerUnits { answer: usize, said: usize },
    /// The units run slower than the clock the board says it was built for, measured where
    /// the units (not the link or the host) set the pace.
    SlowerThanBuilt { measured_hz: f64, built_hz: f64 },
}

/// A verdict as the report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// Which verdict (snake case of [`Verdict`]'s variant).
    pub kind: &'static str,
    pub what: String,
    pub cause: String,
    pub next: String,
}

impl Verdict {
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::OtherN { .. } => "other_n",
            Verdict::NoIdentity { .. } => "no_identity",
            Verdict::OtherDesign { .. } => "other_design",
            Verdict::Silent => "silent",
            Verdict::FramesOfOtherN { .. } => "frames_of_other_n",
            Verdict::NotFrames { .. } => "not_frames",
            Verdict::LinkClosed => "link_closed",
            Verdict::WrongCounts { .. } => "wrong_counts",
            Verdict::OtherUnitVersion { .. } => "other_unit_version",
            Verdict::LinkLoses { .. } => "link_loses",
            Verdict::FewerUnits { .. } => "fewer_units",
            Verdict::SlowerThanBuilt { .. } => "slower_than_built",
        }
    }

    /// What the check found.
    pub fn what(&self) -> String {
        match self {
            Verdict::OtherN { said, asked } => {
                format!("the board says it was built for N = {said}, not {asked}")
            }
            Verdict::NoIdentity { design_hash } => {
                format!("the board does not identify itself; the design is {design_hash:08x}")
            }
            Verdict::OtherDesign { differ } => {
                format!("the board is another design: {}", differ.join(", "))
            }
            Verdict::Silent => "the board sent nothing".into(),
            Verdict::FramesOfOtherN { text } | Verdict::NotFrames { text } => text.clone(),
            Verdict::LinkClosed => "the link closed while sending".into(),
            Verdict::WrongCounts {
                wrong,
                answered,
                first,
            } => {
                let first: Vec<String> = first.iter().map(|i| format!("#{i}")).collect();
                format!(
                    "{wrong} of {answered} answers have wrong counts (first: {})",
                    first.join(", ")
                )
            }
            Verdict::OtherUnitVersion { differ } => format!(
                "{differ} answers took other unit cycles than this version's cycle model"
            ),
            Verdict::LinkLoses {
                known,
                unanswered,
                probes,
                bad_crc,
            } => format!(
                "the link lost frames: {} of {} known-answer frames ({} sent again, {unanswered} never answered) and {} of {} probe copies lost, {bad_crc} with bad CRC",
                known.lost, known.sent, known.resent, probes.lost, probes.sent
            ),
            Verdict::FewerUnits { answer, said } => {
                format!("{answer} units answer; the board says it has {said}")
            }
            Verdict::SlowerThanBuilt {
                measured_hz,
                built_hz,
            } => format!(
                "the units run at {:.3} MHz; the design was built for {:.3} MHz",
                measured_hz / 1e6,
                built_hz / 1e6
            ),
        }
    }

    /// The likely cause.
    pub fn cause(&self) -> &'static str {
        match self {
            Verdict::OtherN { .. } | Verdict::FramesOfOtherN { .. } => "a bitstream built for another N",
            Verdict::NoIdentity { .. } => {
                "a bitstream built before identification, a Queens@TUD one, or no bitstream"
            }
            Verdict::OtherDesign { .. } => {
                "another bitstream is loaded, or the design was built again with other settings since"
            }
            Verdict::Silent => {
                "no bitstream loaded, no power, TX and RX swapped, or a board built for another N that drops every frame"
            }
            Verdict::NotFrames { .. } => "the wrong baud rate or crossed wiring: the bytes are not frames",
            Verdict::LinkClosed => "the board or the cable went away",
            Verdict::WrongCounts { .. } => {
                "the board computes wrong: a design that differs from this build, or a board out of spec (power, cooling, timing)"
            }
            Verdict::OtherUnitVersion { .. } => {
                "the bitstream is of another version of this project's unit than this host"
            }
            Verdict::LinkLoses { .. } => {
                "a link that drops or corrupts frames (cable, baud rate at the edge, a busy USB hub)"
            }
            Verdict::FewerUnits { .. } => {
                "fewer units than the design has: another bitstream, or units that hang"
            }
            Verdict::SlowerThanBuilt { .. } => {
                "slower than built: the PLL is not locked to its reference, or another bitstream"
            }
        }
    }

    /// The next step.
    pub fn next(&self) -> String {
        match self {
            Verdict::OtherN { said, asked } => format!(
                "check it for its own N (--n {said}), or rebuild it for N = {asked} (queens hdl emit --n {asked})"
            ),
            Verdict::FramesOfOtherN { .. } => "rebuild for this N, or give the board's N with --n".into(),
            Verdict::NoIdentity { .. } | Verdict::OtherDesign { .. } => {
                "program the board with the bitstream built next to that design.json".into()
            }
            Verdict::Silent => {
                "program the board (see its README) and check the cable; give the N it was built for with --n".into()
            }
            Verdict::NotFrames { .. } => {
                "give the board's baud rate (serial:PATH@BAUD) and check TX/RX and ground".into()
            }
            Verdict::LinkClosed => "check the cable and the board's power".into(),
            Verdict::WrongCounts { .. } => {
                "simulate the design's netlist (queens sim check N --engine netlist --board B); if that passes, the board is at fault".into()
            }
            Verdict::OtherUnitVersion { .. } => "rebuild the bitstream with this version of queens".into(),
            Verdict::LinkLoses { .. } => {
                "use a shorter cable or a lower baud rate; `queens run` resends, but every loss costs time".into()
            }
            Verdict::FewerUnits { .. } => {
                "reprogram the board with the bitstream of this design; if it persists, simulate its netlist".into()
            }
            Verdict::SlowerThanBuilt { .. } => "check the reference clock and reprogram the board".into(),
        }
    }

    pub fn failure(&self) -> Failure {
        Failure {
            kind: self.kind(),
            what: self.what(),
            cause: self.cause().into(),
            next: self.next(),
        }
    }
}
