//! Where a PostgreSQL campaign lives and how to log in: the campaign URL completed from the
//! variables libpq reads (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGPASSFILE,
//! PGCONNECT_TIMEOUT, PGSSLMODE, PGSSLROOTCERT) and the password file, so a password never has
//! to be typed on a command line, where shell history and `ps` would keep it.
//!
//! TLS (rustls): `sslmode=require`, `verify-ca` and `verify-full` all encrypt and verify the
//! server's certificate and name, against `sslrootcert` / PGSSLROOTCERT /
//! ~/.postgresql/root.crt when there is one, else the system's roots. `prefer` (the default),
//! `allow` and `disable` connect without TLS.

use postgres::config::{Host, SslMode};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres_rustls::MakeRustlsConnect;

#[derive(Debug, thiserror::Error)]
pub enum ConnError {
    #[error("campaign URL {url}: {reason}")]
    Url { url: String, reason: String },
    #[error("{var}={value}: {reason}")]
    Env {
        var: &'static str,
        value: String,
        reason: &'static str,
    },
    #[error("sslmode={0}: not an sslmode (disable, allow, prefer, require, verify-ca, verify-full)")]
    SslMode(String),
    #[error("root certificates {path}: {reason}")]
    Roots { path: String, reason: String },
}

/// A campaign's database: the connection settings and a printable name without the password.
#[derive(Clone)]
pub struct Target {
    pub config: postgres::Config,
    /// `postgres://user@host:port/db`, safe to print and to log.
    pub shown: String,
    /// The URL itself carried a password (worth a warning: it is in the shell's history).
    pub password_in_url: bool,
    /// The TLS connector, when the sslmode asks for TLS.
    tls: Option<MakeRustlsConnect>,
}

/// As [`Target::parse`], for command-line arguments.
impl FromStr for Target {
    type Err = ConnError;

    fn from_str(url: &str) -> Result<Self, ConnError> {
        Self::parse(url)
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

/// A campaign URL: `postgres://` or `postgresql://`.
pub(super) fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// Reads a variable of the environment, as libpq does (unset and empty are the same).
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The login name of this process, libpq's default user.
fn os_user() -> Option<String> {
    var("USER").or_else(|| var("LOGNAME"))
}

impl Target {
    pub fn parse(url: &str) -> Result<Self, ConnError> {
        Self::parse_with(url, &var)
    }

    /// `env` stands for the environment (tests give their own).
    pub fn parse_with(url: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Self, ConnError> {
        let bad = |reason: String| ConnError::Url {
            url: redact(url),
            reason,
        };
        if !is_url(url) {
            return Err(bad("expected postgres://[user@]host[:port]/database".into()));
        }
        // Read only where the URL leaves the port open, as libpq does.
        let pgport = || {
            env("PGPORT")
                .map(|p| {
                    p.parse::<u16>().map_err(|_| ConnError::Env {
                        var: "PGPORT",
                        value: p,
                        reason: "not a port number",
                    })
                })
                .transpose()
        };
        // (Read as libpq reads it, not with the url crate: its WHATWG parser refuses URLs that
        // libpq and the postgres crate take, such as a user without a host for a socket
        // directory, `postgres://ann@/q?host=/run/pg`, or several hosts with ports.)
        // The postgres crate fills in 5432 for a host without a port, so PGPORT goes in first.
        let url = match authority(url) {
            Some((start, end)) if !has_port(&url[start..end]) && start < end => match pgport()? {
                Some(port) => format!("{}:{port}{}", &url[..end], &url[end..]),
                None => url.to_owned(),
            },
            _ => url.to_owned(),
        };
        // TLS settings are ours (the postgres crate knows no verify-* modes and no sslrootcert).
        let (url, mode) = take_param(&url, "sslmode");
        let (url, root) = take_param(&url, "sslrootcert");
        let mode = mode
            .or_else(|| env("PGSSLMODE"))
            .unwrap_or_else(|| "prefer".into());
        let tls = match mode.as_str() {
            "disable" | "allow" | "prefer" => None,
            "require" | "verify-ca" | "verify-full" => Some(connector(
                root.or_else(|| env("PGSSLROOTCERT"))
                    .map(PathBuf::from)
                    .or_else(|| {
                        env("HOME")
                            .map(|h| Path::new(&h).join(".postgresql/root.crt"))
                            .filter(|p| p.is_file())
                    }),
            )?),
            _ => return Err(ConnError::SslMode(mode)),
        };
        let mut c = postgres::Config::from_str(&url).map_err(|e| bad(e.to_string()))?;
        c.ssl_mode(if tls.is_some() {
            SslMode::Require
        } else {
            SslMode::Disable
        });
        let password_in_url = c.get_password().is_some();
        if c.get_hosts().is_empty() {
            // libpq's default on Debian: the server's Unix socket directory.
            c.host(&env("PGHOST").unwrap_or_else(|| "/var/run/postgresql".into()));
        }
        if c.get_ports().is_empty() {
            c.port(pgport()?.unwrap_or(5432));
        }
        if c.get_user().is_none() {
            let user = env("PGUSER")
                .or_else(os_user)
                .ok_or_else(|| bad("no user: give one in the URL or PGUSER".into()))?;
            c.user(&user);
        }
        if c.get_dbname().is_none() {
            let db = env("PGDATABASE").unwrap_or_else(|| c.get_user().expect("set above").to_owned());
            c.dbname(&db);
        }
        if c.get_password().is_none() {
            if let Some(p) = env("PGPASSWORD") {
                c.password(p);
            } else if let Some(p) = passfile(env).and_then(|f| lookup(&f, &c)) {
                c.password(p);
            }
        }
        if c.get_connect_timeout().is_none() {
            let secs = match env("PGCONNECT_TIMEOUT") {
                Some(v) => v.parse::<u64>().map_err(|_| ConnError::Env {
                    var: "PGCONNECT_TIMEOUT",
                    value: v,
                    reason: "not a number of seconds",
                })?,
                None => 10,
            };
            c.connect_timeout(Duration::from_secs(secs.max(2)));
        }
        if c.get_application_name().is_none() {
            c.application_name("queens");
        }
        // A dead server or cable shows within a minute instead of hanging a query forever.
        c.keepalives_idle(Duration::from_secs(30));
        let shown = show(&c);
        Ok(Self {
            config: c,
            shown,
            password_in_url,
            tls,
        })
    }

    /// Opens a connection, with TLS when the sslmode asks for it.
    pub fn connect(&self) -> Result<postgres::Client, postgres::Error> {
        match &self.tls {
            Some(t) => self.config.connect(t.clone()),
            None => self.config.connect(postgres::NoTls),
        }
    }

    pub fn uses_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// Whether the server is on this machine (a Unix socket, or a loopback address).
    pub fn is_local(&self) -> bool {
        self.config.get_hosts().iter().all(|h| match h {
            Host::Unix(_) => true,
            Host::Tcp(name) => {
                let bare = name.trim_start_matches('[').trim_end_matches(']');
                bare.eq_ignore_ascii_case("localhost")
                    || bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
            }
        })
    }

    /// The warning for a server elsewhere reached without TLS, if it is one: its counts and
    /// password would cross the network readable and changeable.
    pub fn plain_warning(&self) -> Option<String> {
        (!self.uses_tls() && !self.is_local()).then(|| {
            format!(
                "{} is not on this machine and the URL asks for no TLS: results and logins cross the network in clear; add sslmode=verify-full (with sslrootcert=CA.crt or PGSSLROOTCERT)",
                self.shown
            )
        })
    }

    /// This database's URL for another user, as one types it (no password; TLS asked for
    /// when the server is elsewhere): for the commands a message suggests.
    pub fn url_as(&self, user: &str) -> String {
        let db = self.config.get_dbname().unwrap_or("");
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        let host = match self.config.get_hosts().first() {
            // A socket directory goes in the query, and the url crate writes no user without
            // a host: written out.
            Some(Host::Unix(dir)) => {
                let port = if port == 5432 {
                    String::new()
                } else {
                    format!("&port={port}")
                };
                return format!("postgres://{user}@/{db}?host={}{port}", dir.display());
            }
            Some(Host::Tcp(h)) if h.contains(':') && !h.starts_with('[') => format!("[{h}]"),
            Some(Host::Tcp(h)) => h.clone(),
            None => "localhost".into(),
        };
        let mut u = url::Url::parse("postgres://localhost/").expect("a URL");
        // (Each setter refuses only what a host taken from a working URL cannot be.)
        let _ = u.set_host(Some(&host));
        let _ = u.set_username(user);
        let _ = u.set_port((port != 5432).then_some(port));
        u.set_path(db);
        if !self.is_local() {
            u.set_query(Some("sslmode=verify-full"));
        }
        u.into()
    }

    /// Logs [`Target::plain_warning`].
    pub fn warn_if_plain(&self) {
        if let Some(w) = self.plain_warning() {
            tracing::warn!("{w}");
        }
    }
}

/// The URL without the query parameter `key`, and its value. (The others stay as written:
/// the postgres crate decodes them as libpq does, where a form decoder would read a `+` as a
/// space.)
fn take_param(url: &str, key: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.into(), None);
    };
    let mut value = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|kv| match kv.split_once('=') {
            Some((k, v)) if k == key => {
                value = Some(v.to_owned());
                false
            }
            _ => true,
        })
        .collect();
    let url = if rest.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    (url, value)
}

/// A rustls connector trusting the certificates of `root` (PEM), or the system's roots.
fn connector(root: Option<PathBuf>) -> Result<MakeRustlsConnect, ConnError> {
    let mut roots = rustls::RootCertStore::empty();
    match &root {
        Some(path) => {
            let bad = |reason: String| ConnError::Roots {
                path: path.display().to_string(),
                reason,
            };
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| bad(e.to_string()))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad(e.to_string()))?;
            if certs.is_empty() {
                return Err(bad("no certificate in it".into()));
            }
            for cert in certs {
                roots.add(cert).map_err(|e| bad(e.to_string()))?;
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(found.certs);
            if roots.is_empty() {
                return Err(ConnError::Roots {
                    path: "of the system".into(),
                    reason: "none found; give sslrootcert or PGSSLROOTCERT".into(),
                });
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ConnError::Roots {
            path: "-".into(),
            reason: e.to_string(),
        })?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

/// Where the host part of a URL's authority starts and ends (after any `user@`).
fn authority(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let end = url[start..].find(['/', '?']).map_or(url.len(), |e| start + e);
    let host = url[start..end].rfind('@').map_or(start, |at| start + at + 1);
    Some((host, end))
}

/// `host:port` or `[v6]:port`.
fn has_port(host: &str) -> bool {
    let after_v6 = host.rfind(']').map_or(host, |i| &host[i..]);
    after_v6.contains(':')
}

fn host_of(c: &postgres::Config) -> String {
    match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => String::new(),
    }
}

fn show(c: &postgres::Config) -> String {
    let host = host_of(c);
    let port = c.get_ports().first().copied().unwrap_or(5432);
    format!(
        "postgres://{}@{}:{port}/{}",
        c.get_user().unwrap_or(""),
        if host.starts_with('/') {
            format!("[{host}]")
        } else {
            host
        },
        c.get_dbname().unwrap_or("")
    )
}

/// The URL with any password replaced, for messages about a URL that did not parse (so
/// read as text, not parsed).
pub fn redact(url: &str) -> String {
    let Some(rest) = url.split_once("://").map(|(_, r)| r) else {
        return url.into();
    };
    let auth_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..auth_end].rfind('@') {
        Some(at) => match rest[..at].find(':') {
            Some(colon) => {
                let scheme = &url[..url.len() - rest.len()];
                format!("{scheme}{}:***{}", &rest[..colon], &rest[at..])
            }
            None => url.into(),
        },
        None => url.into(),
    }
}

fn passfile(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".pgpass")))
        .filter(|p| p.is_file())
}

/// The password of the first matching line of a password file
/// (`host:port:database:user:password`, `*` matches anything, `\` escapes `:` and `\`).
fn lookup(file: &Path, c: &postgres::Config) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let host = match c.get_hosts().first()? {
        Host::Tcp(h) => h.clone(),
        // libpq matches a socket connection against "localhost".
        Host::Unix(_) => "localhost".into(),
    };
    let want = [
        host,
        c.get_ports().first().copied().unwrap_or(5432).to_string(),
        c.get_dbname()?.to_owned(),
        c.get_user()?.to_owned(),
    ];
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .find_map(|line| {
            let fields = split_escaped(line);
            if fields.len() != 5 {
                return None;
            }
            fields[..4]
                .iter()
                .zip(&want)
                .all(|(f, w)| f == "*" || f == w)
                .then(|| fields[4].clone())
        })
}

fn split_escaped(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one").push(next);
                }
            }
            ':' => fields.push(String::new()),
            _ => fields.last_mut().expect("one").push(ch),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(url: &str, vars: &[(&str, &str)]) -> Result<Target, ConnError> {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Target::parse_with(url, &move |k| m.get(k).cloned())
    }

    #[test]
    fn the_environment_completes_the_url() {
        let t = parse(
            "postgres:///queens",
            &[
                ("PGHOST", "db.lab"),
                ("PGPORT", "5433"),
                ("PGUSER", "ann"),
                ("PGPASSWORD", "s3cret"),
            ],
        )
        .unwrap();
        assert_eq!(t.shown, "postgres://ann@db.lab:5433/queens");
        assert_eq!(t.config.get_password(), Some(&b"s3cret"[..]));
        assert!(!t.password_in_url);
        // A Unix socket directory, as a query parameter.
        let t = parse(
            "postgres:///queens?host=/var/run/postgresql",
            &[("PGUSER", "ann")],
        )
        .unwrap();
        assert_eq!(t.shown, "postgres://ann@[/var/run/postgresql]:5432/queens");
        // The URL wins over the environment.
        let t = parse(
            "postgres://bob@h:6000/q",
            &[("PGHOST", "db.lab"), ("PGUSER", "ann")],
        )
        .unwrap();
        assert_eq!(t.shown, "postgres://bob@h:6000/q");
    }

    #[test]
    fn a_url_for_another_user_parses_to_the_same_server() {
        for (url, want) in [
            (
                "postgres://ann:pw@db.lab/queens",
                "postgres://lab1@db.lab/queens?sslmode=verify-full",
            ),
            (
                "postgres://ann@127.0.0.1:6000/q",
                "postgres://lab1@127.0.0.1:6000/q",
            ),
            ("postgres:///q?host=/run/pg", "postgres://lab1@/q?host=/run/pg"),
            (
                "postgres:///q?host=/run/pg&port=6000",
                "postgres://lab1@/q?host=/run/pg&port=6000",
            ),
            ("postgres://ann@[::1]:6000/q", "postgres://lab1@[::1]:6000/q"),
        ] {
            let t = parse(url, &[("PGUSER", "ann")]).unwrap();
            assert_eq!(t.url_as("lab1"), want, "{url}");
            let back = parse(want.trim_end_matches("?sslmode=verify-full"), &[]).unwrap();
            assert_eq!(back.config.get_user(), Some("lab1"));
            assert_eq!(back.config.get_hosts(), t.config.get_hosts(), "{want}");
            assert_eq!(back.config.get_ports(), t.config.get_ports(), "{want}");
            assert_eq!(back.config.get_dbname(), t.config.get_dbname(), "{want}");
        }
    }

    #[test]
    fn the_url_keeps_what_is_not_ours_as_written() {
        // PGPORT goes into an IPv6 authority too; the TLS settings are taken out, the other
        // parameters reach the postgres crate as written (a `+` is no space there).
        let t = parse(
            "postgres://u@[::1]/q?sslmode=disable&application_name=a+b%21",
            &[("PGPORT", "6001")],
        )
        .unwrap();
        assert_eq!(t.config.get_ports(), [6001]);
        assert_eq!(t.config.get_hosts(), [Host::Tcp("::1".into())]);
        assert_eq!(t.config.get_application_name(), Some("a+b!"));
        assert!(!t.uses_tls());
        // A URL that is not one is named, its password hidden.
        let e = parse("postgres://u:pw@h:1:2/q", &[]).unwrap_err();
        assert!(
            e.to_string().starts_with("campaign URL postgres://u:***@h"),
            "{e}"
        );
    }

    #[test]
    fn a_password_file_is_read_and_a_password_never_shown() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("pass");
        std::fs::write(
            &f,
            "# comment\nother:*:*:*:no\nh:6000:q:bob:pa\\:ss\n*:*:*:*:fallback\n",
        )
        .unwrap();
        let file = f.to_str().unwrap();
        let t = parse("postgres://bob@h:6000/q", &[("PGPASSFILE", file)]).unwrap();
        assert_eq!(t.config.get_password(), Some(&b"pa:ss"[..]));
        let t = parse("postgres://eve@h:6000/q", &[("PGPASSFILE", file)]).unwrap();
        assert_eq!(t.config.get_password(), Some(&b"fallback"[..]));
        let t = parse("postgres://bob:hunter2@h/q", &[]).unwrap();
        assert!(t.password_in_url && !t.shown.contains("hunter2"), "{}", t.shown);
        assert_eq!(redact("postgres://bob:hunter2@h/q"), "postgres://bob:***@h/q");
        assert_eq!(redact("postgres://h/q"), "postgres://h/q");
    }

    #[test]
    fn a_remote_server_without_tls_is_warned_about() {
        let warned = |url: &str| parse(url, &[]).unwrap().plain_warning();
        let w = warned("postgres://u@db.lab/q").expect("remote, no TLS");
        assert!(w.contains("sslmode=verify-full") && w.contains("db.lab"), "{w}");
        assert!(warned("postgres://u@db.lab/q?sslmode=prefer").is_some());
        assert!(warned("postgres://u@db.lab/q?sslmode=disable").is_some());
        for local in [
            "postgres://u@localhost/q",
            "postgres://u@127.0.0.1/q",
            "postgres://u@127.0.0.2:5433/q",
            "postgres://u@[::1]/q",
            "postgres:///q?host=/var/run/postgresql&user=u",
        ] {
            assert_eq!(warned(local), None, "{local}");
        }
    }

    #[test]
    fn bad_settings_are_named() {
        let e = parse("postgres://h/q", &[("PGPORT", "fifty"), ("PGUSER", "u")]).unwrap_err();
        assert_eq!(e.to_string(), "PGPORT=fifty: not a port number");
        let t = parse("postgres://u@h/q", &[("PGPORT", "6001")]).unwrap();
        assert_eq!(t.shown, "postgres://u@h:6001/q");
        let e = parse("postgres://u@h/q?sslmode=sure", &[]).unwrap_err();
        assert!(e.to_string().starts_with("sslmode=sure: not an sslmode"), "{e}");
        let e = parse(
            "postgres://u@h/q?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt",
            &[],
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("root certificates /nonexistent/ca.crt"),
            "{e}"
        );
        let t = parse(
            "postgres://u@h/q?sslmode=disable&application_name=x",
            &[("PGSSLMODE", "require")],
        )
        .unwrap();
        assert!(!t.uses_tls(), "the URL's sslmode wins over PGSSLMODE");
        let e = parse("postgres://u:pw@h:notaport/q", &[]).unwrap_err();
        assert!(e.to_string().contains("u:***@h"), "{e}");
        assert!(!e.to_string().contains("pw"), "{e}");
    }
}
