//! Where a campaign is kept, as a user names it: a file, or a PostgreSQL database. Parsed
//! once (a command-line argument), so that every command tells the two apart the same way.

use super::pg_conn::{self, ConnError, Target};
use std::path::PathBuf;
use std::str::FromStr;

#[derive(Clone, Debug)]
pub enum Location {
    /// A campaign file, with its history, cycle counts and summary beside it.
    File(PathBuf),
    /// A shared campaign's database: `postgres://…` or `postgresql://…`.
    Postgres(Database),
}

/// A database's URL as given. Its settings (the PG* variables, the TLS root certificates)
/// are read when it is opened, not when a command line is parsed.
#[derive(Clone, Debug)]
pub struct Database(String);

impl Database {
    /// Where and how to connect: the URL with the environment's settings and certificates.
    pub fn target(&self) -> Result<Target, ConnError> {
        Target::parse(&self.0)
    }
}

impl FromStr for Location {
    type Err = ConnError;

    fn from_str(s: &str) -> Result<Self, ConnError> {
        Ok(if pg_conn::is_url(s) {
            // The URL is checked now; its certificates are read when it is opened.
            match Target::parse(s) {
                Ok(_) | Err(ConnError::Roots { .. }) => Location::Postgres(Database(s.to_string())),
                Err(e) => return Err(e),
            }
        } else {
            Location::File(PathBuf::from(s))
        })
    }
}

impl Location {
    /// The file or the database, as it is shown (no password).
    pub fn shown(&self) -> String {
        match self {
            Location::File(path) => path.display().to_string(),
            Location::Postgres(db) => pg_conn::redact(&db.0),
        }
    }

    /// The files the campaign consists of: the campaign file, its history, its cycle counts
    /// and its summary; none for a database.
    pub fn files(&self) -> Vec<PathBuf> {
        match self {
            Location::File(c) => vec![
                c.clone(),
                super::history::path_of(c),
                super::file::cycles_path(c),
                super::file::summary::path_of(c),
            ],
            Location::Postgres(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_a_database_and_anything_else_a_file() {
        for url in ["postgres://ann@db.lab/q", "postgresql://ann@db.lab:5433/q"] {
            assert!(matches!(url.parse(), Ok(Location::Postgres(_))), "{url}");
        }
        for file in ["q27.campaign", "postgres", "./postgres://x"] {
            match file.parse() {
                Ok(Location::File(p)) => assert_eq!(p, PathBuf::from(file)),
                other => panic!("{file}: {other:?}"),
            }
        }
        let e = "postgres://ann@db.lab:notaport/q"
            .parse::<Location>()
            .unwrap_err();
        assert!(e.to_string().contains("campaign URL"), "{e}");
    }

    #[test]
    fn a_database_has_no_files() {
        let db: Location = "postgres://ann@db.lab/q".parse().unwrap();
        assert!(db.files().is_empty());
        assert!(db.shown().starts_with("postgres://ann@db.lab") && db.shown().ends_with("/q"));
        let file: Location = "q9.campaign".parse().unwrap();
        assert_eq!(file.files().len(), 4);
        assert_eq!(file.shown(), "q9.campaign");
    }
}
