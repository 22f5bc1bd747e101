//! Reaching the server: bad URLs and servers named, a Unix socket, TLS verified.

use super::*;

#[test]
fn bad_urls_and_servers_are_named() {
    let url = database("q_errors");
    let (base, _) = url.rsplit_once('/').unwrap();
    // Nothing listens on port 1.
    let e = err(&queens()
        .args(["run", "10", "--campaign", "postgres://queens@127.0.0.1:1/x"])
        .output()
        .unwrap());
    assert!(
        e.contains("postgres://queens@127.0.0.1:1/x") && e.contains("connecting"),
        "{e}"
    );
    // A password in the URL works when right, is warned about, and never printed.
    let with_pw = base.replacen("queens@", "queens:wrong-pw@", 1) + "/q_errors";
    let e = err(&queens()
        .args(["run", "10", "--campaign", &with_pw])
        .env_remove("PGPASSWORD")
        .output()
        .unwrap());
    assert!(e.contains("password") && !e.contains("wrong-pw"), "{e}");
    let e = err(&queens()
        .args([
            "run",
            "10",
            "--campaign",
            "postgres://queens@127.0.0.1:notaport/x",
        ])
        .output()
        .unwrap());
    assert!(e.contains("campaign URL"), "{e}");
    let e = err(&queens()
        .args(["db", "export", &url, "/nonexistent/x"])
        .output()
        .unwrap());
    assert!(e.contains("holds no campaign"), "{e}");
    let e = err(&queens()
        .args(["run", "10", "--lease", "0", "--campaign", &url])
        .output()
        .unwrap());
    assert!(e.contains("--lease"), "{e}");
    // A campaign laid out in blocks of another size is refused, not misread.
    ok(&queens()
        .args(["run", "8", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    client(&url)
        .execute("UPDATE queens_campaign SET block_size = 1024 WHERE n = 8", &[])
        .unwrap();
    let e = err(&queens().args(["run", "8", "--campaign", &url]).output().unwrap());
    assert!(e.contains("blocks of 1024 entries"), "{e}");
}

#[test]
fn a_campaign_over_the_servers_unix_socket() {
    database("q_socket");
    let dir = std::env::var("QUEENS_TEST_POSTGRES_DIR").expect("set with QUEENS_TEST_POSTGRES");
    let port = *Target::parse(&server())
        .unwrap()
        .config
        .get_ports()
        .first()
        .unwrap();
    let url = format!("postgres:///q_socket?host={dir}&port={port}&user=queens");
    let r = ok(&queens()
        .args(["run", "8", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[8], "{r}");
}

#[test]
fn a_campaign_over_tls_verifies_the_server() {
    let url = database("q_tls");
    let ca = std::env::var("QUEENS_TEST_POSTGRES_CA").expect("set with QUEENS_TEST_POSTGRES");
    // The server's certificate checked against the test CA, given by variable or in the URL.
    let r = ok(&queens()
        .args([
            "run",
            "9",
            "--json",
            "--accept-unconfirmed",
            "--campaign",
            &format!("{url}?sslmode=verify-full"),
        ])
        .env("PGSSLROOTCERT", &ca)
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[9], "{r}");
    let with_root = format!("{url}?sslmode=require&sslrootcert={ca}");
    ok(&queens().args(["db", "stats", &with_root]).output().unwrap());
    // Trusting another certificate than the CA (here the server's own, which the CA
    // signed): the handshake is refused, and said so.
    let leaf = ca.replace("ca.crt", "server.crt");
    let e = err(&queens()
        .args([
            "run",
            "9",
            "--campaign",
            &format!("{url}?sslmode=require&sslrootcert={leaf}"),
        ])
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap());
    assert!(e.contains("TLS handshake") && e.contains("UnknownIssuer"), "{e}");
}
