//! `queens serve` on a shared campaign in PostgreSQL (the throwaway server of
//! ./scripts/test.sh): the page in headless Chromium against `db stats --json`, cross-checks
//! included, for a campaign two hosts of their own roles finished.

use crate::common::pg::{client, database};
use crate::common::{ok_json, queens};
use crate::serve::{by_id, dump_dom, serve, thousands};
use std::process::Stdio;

const PW: &str = "serve-pw-5";

#[test]
fn the_status_page_of_a_shared_campaign_shows_what_db_stats_says() {
    let url = database("q_serve");
    ok_json(
        &queens()
            .args([
                "db",
                "init",
                &url,
                "--hosts",
                "q_serve_hosts",
                "--owner",
                "q_serve_owner",
                "--n",
                "12",
            ])
            .output()
            .unwrap(),
    );
    let mut admin = client(&url);
    for r in ["q_serve_a", "q_serve_b"] {
        admin
            .batch_execute(&format!(
                "DROP ROLE IF EXISTS {r}; CREATE ROLE {r} LOGIN PASSWORD '{PW}' IN ROLE q_serve_hosts"
            ))
            .unwrap();
    }
    let hosts: Vec<_> = ["q_serve_a", "q_serve_b"]
        .iter()
        .map(|r| {
            queens()
                .args([
                    "run",
                    "12",
                    "--json",
                    "--link",
                    "sim:8",
                    "--lease",
                    "20",
                    "--campaign",
                ])
                .arg(url.replacen("queens@", &format!("{r}@"), 1))
                .env("PGPASSWORD", PW)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for h in hosts {
        let out = h.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let stats = ok_json(&queens().args(["db", "stats", &url, "--json"]).output().unwrap());
    let server = serve(std::path::Path::new(&url), &[]);
    let dom = dump_dom(&format!("http://{}/", server.addr));
    drop(server);
    assert_eq!(stats["complete"], true, "{stats}");
    assert_eq!(
        by_id(&dom, "solved"),
        thousands(stats["solved"].as_u64().unwrap())
    );
    assert_eq!(
        by_id(&dom, "subproblems"),
        thousands(stats["subproblems"].as_u64().unwrap())
    );
    assert_eq!(by_id(&dom, "total"), thousands(stats["total"].as_u64().unwrap()));
    let x = &stats["cross_checked"];
    assert!(x["agreed"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(by_id(&dom, "confirmed"), thousands(x["agreed"].as_u64().unwrap()));
    assert_eq!(
        by_id(&dom, "checks-pending"),
        thousands(x["pending"].as_u64().unwrap())
    );
    assert_eq!(
        by_id(&dom, "disputes"),
        stats["disputes"].as_array().unwrap().len().to_string()
    );
    assert!(dom.contains("every subproblem solved"), "{dom}");
}
