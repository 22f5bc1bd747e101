//! Links to boards: a byte stream each way carrying the wire frames. One module per
//! transport; [`LinkSpec`] is what the user writes after `--link`; [`framing`] tells the
//! result frames of a stream apart.

pub mod framing;
pub mod pcie;
pub mod serial;
pub mod sim;
pub mod tcp;

use std::io::{Read, Write};
use std::path::PathBuf;

pub const DEFAULT_BAUD: u32 = 115_200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkSpec {
    /// `serial:/dev/ttyUSB0[@115200]`
    Serial { path: PathBuf, baud: u32 },
    /// `pcie:/dev/xdma0`: the XDMA driver's `_h2c_0` and `_c2h_0` character devices.
    Pcie { base: PathBuf },
    /// `tcp:HOST:PORT`
    Tcp { addr: String },
    /// `sim[:K]`: a simulated board with K units in this process.
    Sim { units: Option<usize> },
}

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("link {0:?}: expected serial:PATH[@BAUD], pcie:PATH, tcp:HOST:PORT or sim[:UNITS]")]
    Syntax(String),
    #[error("link {link:?}: {what} {value:?} is not valid: {reason}")]
    Field {
        link: String,
        what: &'static str,
        value: String,
        reason: String,
    },
    #[error("{link}: cannot open: {reason}")]
    Open { link: String, reason: String },
}

impl std::str::FromStr for LinkSpec {
    type Err = LinkError;

    fn from_str(s: &str) -> Result<Self, LinkError> {
        let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
        let field = |what, value: &str, reason: String| LinkError::Field {
            link: s.into(),
            what,
            value: value.into(),
            reason,
        };
        match kind {
            "serial" if !rest.is_empty() => {
                let (path, baud) = match rest.rsplit_once('@') {
                    Some((p, b)) => (
                        p,
                        b.parse::<u32>()
                            .ok()
                            .filter(|&b| b > 0)
                            .ok_or_else(|| field("baud rate", b, "a positive whole number".into()))?,
                    ),
                    None => (rest, DEFAULT_BAUD),
                };
                Ok(LinkSpec::Serial {
                    path: path.into(),
                    baud,
                })
            }
            "pcie" if !rest.is_empty() => Ok(LinkSpec::Pcie { base: rest.into() }),
            "tcp" if !rest.is_empty() => {
                let (host, port) = rest
                    .rsplit_once(':')
                    .ok_or_else(|| field("address", rest, "expected HOST:PORT".into()))?;
                if host.is_empty() || port.parse::<u16>().is_err() {
                    return Err(field(
                        "address",
                        rest,
                        "expected HOST:PORT with a port 0..=65535".into(),
                    ));
                }
                Ok(LinkSpec::Tcp { addr: rest.into() })
            }
            "sim" => {
                if rest.is_empty() {
                    return Ok(LinkSpec::Sim { units: None });
                }
                match rest.parse::<usize>() {
                    Ok(k) if k > 0 => Ok(LinkSpec::Sim { units: Some(k) }),
                    _ => Err(field("unit count", rest, "a positive whole number".into())),
                }
            }
            _ => Err(LinkError::Syntax(s.into())),
        }
    }
}

impl std::fmt::Display for LinkSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkSpec::Serial { path, baud } => write!(f, "serial:{}@{baud}", path.display()),
            LinkSpec::Pcie { base } => write!(f, "pcie:{}", base.display()),
            LinkSpec::Tcp { addr } => write!(f, "tcp:{addr}"),
            LinkSpec::Sim { units: Some(k) } => write!(f, "sim:{k}"),
            LinkSpec::Sim { units: None } => write!(f, "sim"),
        }
    }
}

/// An open link: what the board sends, and a way to send to it.
pub struct Connection {
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn Write + Send>,
}

/// What the in-process simulated board is built with.
#[derive(Debug, Clone)]
pub struct SimSettings {
    pub size: queens_core::BoardSize,
    pub units: usize,
    pub with_cycles: bool,
    /// Its units: group requests in and a record per south side out, or a pre-placement in
    /// and its result out.
    pub unit: queens_core::UnitKind,
    pub clock_hz: Option<f64>,
    pub faults: queens_sim::board::Faults,
    pub seed: u64,
}

impl LinkSpec {
    /// Opens the link. `sim` describes the simulated board a `sim` link starts.
    pub fn open(&self, sim: &SimSettings) -> Result<Connection, LinkError> {
        let label = self.to_string();
        let fail = |reason: String| LinkError::Open {
            link: label.clone(),
            reason,
        };
        match self {
            LinkSpec::Serial { path, baud } => serial::open(path, *baud).map_err(fail),
            LinkSpec::Pcie { base } => pcie::open(base).map_err(fail),
            LinkSpec::Tcp { addr } => tcp::open(addr).map_err(fail),
            LinkSpec::Sim { units } => {
                let mut s = sim.clone();
                if let Some(k) = units {
                    s.units = *k;
                }
                sim::open(s).map_err(fail)
            }
        }
    }

    /// Units of the board behind the link, when the link itself says.
    pub fn units(&self) -> Option<usize> {
        match self {
            LinkSpec::Sim { units } => *units,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for s in [
            "serial:/dev/ttyUSB0@115200",
            "pcie:/dev/xdma0",
            "tcp:127.0.0.1:7027",
            "sim:64",
            "sim",
        ] {
            assert_eq!(s.parse::<LinkSpec>().unwrap().to_string(), s);
        }
        assert_eq!(
            "serial:/dev/ttyUSB1".parse::<LinkSpec>().unwrap(),
            LinkSpec::Serial {
                path: "/dev/ttyUSB1".into(),
                baud: 115_200
            }
        );
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let e = |s: &str| s.parse::<LinkSpec>().unwrap_err().to_string();
        assert!(e("usb:/dev/x").contains("expected serial:"));
        assert!(e("serial:/dev/ttyUSB0@fast").contains("baud rate \"fast\""));
        assert!(e("tcp:localhost").contains("HOST:PORT"));
        assert!(e("tcp:localhost:99999").contains("port"));
        assert!(e("sim:0").contains("unit count \"0\""));
    }
}
