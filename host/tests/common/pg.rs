//! The throwaway PostgreSQL server of `./scripts/test.sh`, for the tests of shared campaigns.

use queens_host::store::pg_conn::Target;

/// The server's URL (`QUEENS_TEST_POSTGRES`, set by `scripts/test-postgres.sh start`).
pub fn server() -> String {
    std::env::var("QUEENS_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "QUEENS_TEST_POSTGRES is not set: these tests need a PostgreSQL server; \
             ./scripts/test.sh starts one (scripts/test-postgres.sh)"
        )
    })
}

pub fn client(url: &str) -> postgres::Client {
    let t = Target::parse(url).unwrap();
    t.connect().unwrap_or_else(|e| panic!("{}: {e}", t.shown))
}

/// A fresh database of its own for one test (tests run in parallel; campaigns are per N).
pub fn database(name: &str) -> String {
    let url = server();
    let mut c = client(&url);
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let (base, _) = url.rsplit_once('/').unwrap();
    format!("{base}/{name}")
}
