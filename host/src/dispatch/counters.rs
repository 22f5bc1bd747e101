//! The figures the dispatcher keeps of each link: results counted, resent, rejected, disputed.

/// Figures of one link, or of the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Results counted.
    pub solved: u64,
    /// Subproblems sent again after a timeout, a link going down or a conflict.
    pub reissued: u64,
    /// Frames that failed their CRC or a check of their content.
    pub rejected_frames: u64,
    /// Identical results of a subproblem already counted.
    pub duplicates: u64,
    /// Results that contradicted a counted one.
    pub conflicts: u64,
    /// Results of no subproblem sent to this link and outstanding (late answers of an earlier
    /// session, or answers for another link's work).
    pub unknown: u64,
    /// Bytes skipped while hunting for a frame.
    pub skipped_bytes: u64,
    /// Counted results a second source recomputed and agreed with.
    pub verified: u64,
    /// Counted results withdrawn when the link was quarantined.
    pub withdrawn: u64,
}

impl Counters {
    pub(super) fn add(&mut self, o: &Counters) {
        self.solved += o.solved;
        self.reissued += o.reissued;
        self.rejected_frames += o.rejected_frames;
        self.duplicates += o.duplicates;
        self.conflicts += o.conflicts;
        self.unknown += o.unknown;
        self.skipped_bytes += o.skipped_bytes;
        self.verified += o.verified;
        self.withdrawn += o.withdrawn;
    }
}
