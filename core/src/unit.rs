//! The two kinds of solver unit a board can be built of. The kind decides what a board takes
//! and answers on the wire (docs/spec/protocol.md), so it is part of the problem model: the
//! circuits, the simulator and the host all match on this one type.

use std::fmt;
use std::str::FromStr;

/// Which solver unit a board's array is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    /// Queens@TUD's walk: a request per pre-placement, its count (and cycles) in one result.
    Plain,
    /// Issue 50: one walk per south group (every pre-placement sharing a west, north and
    /// east side), a request per group and a record per south side, then an end record.
    #[default]
    Grouped,
}

impl UnitKind {
    pub const ALL: [UnitKind; 2] = [UnitKind::Grouped, UnitKind::Plain];

    /// The name a user types and a report prints.
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Plain => "plain",
            UnitKind::Grouped => "grouped",
        }
    }

    /// XORed into the CRC of the requests a board of this kind takes and of the answers it
    /// sends (a board of one kind drops the other's requests as frames whose CRC fails).
    pub fn crc_xor(self) -> u8 {
        match self {
            UnitKind::Plain => 0,
            UnitKind::Grouped => crate::group::GROUP_CRC_XOR,
        }
    }

    /// Payload bytes of one answer frame: a result (with or without the cycle counter), or a
    /// group record (which always carries it).
    pub fn answer_payload_len(self, size: crate::BoardSize, with_cycles: bool) -> usize {
        match self {
            UnitKind::Plain => crate::ResultRecord::payload_len(size, with_cycles),
            UnitKind::Grouped => crate::group::GroupRecord::payload_len(size),
        }
    }

    /// Whether results may leave out the cycle counter (the protocol's optional variant): a
    /// group's end record always carries its walk's cycles.
    pub fn cycles_optional(self) -> bool {
        self == UnitKind::Plain
    }
}

impl fmt::Display for UnitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A unit kind's name that is none of [`UnitKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown unit {0:?}: use grouped or plain")]
pub struct UnknownUnit(pub String);

impl FromStr for UnitKind {
    type Err = UnknownUnit;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UnitKind::ALL
            .into_iter()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| UnknownUnit(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_a_wrong_one_is_named() {
        for k in UnitKind::ALL {
            assert_eq!(k.name().parse::<UnitKind>(), Ok(k));
        }
        let e = "groups".parse::<UnitKind>().unwrap_err();
        assert_eq!(e.to_string(), "unknown unit \"groups\": use grouped or plain");
        assert!(!UnitKind::Grouped.cycles_optional() && UnitKind::Plain.cycles_optional());
    }
}
