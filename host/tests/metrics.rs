//! `queens run --metrics ADDR`: a running host scraped as Prometheus would, its exposition
//! read line by line against the format, its counters against the run's own report.

use crate::common::queens;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

/// GET `path` of `addr` over plain HTTP/1.0: the status line and the body.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    let (head, body) = all.split_once("\r\n\r\n").expect("an HTTP answer");
    (head.lines().next().unwrap().to_string(), body.to_string())
}

/// The samples of an exposition in the text format (OpenMetrics, as prometheus-client
/// writes it), each line checked against the format: `# HELP`/`# TYPE` lines naming a family
/// before its samples, samples `name{label="value",...} number`, and `# EOF` last. Keyed by
/// name and labels as written.
fn parse(text: &str) -> HashMap<String, f64> {
    let mut families: HashMap<String, String> = HashMap::new();
    let mut samples = HashMap::new();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "the exposition ends with # EOF");
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            && !n.starts_with(|c: char| c.is_ascii_digit())
    };
    for l in &lines[..lines.len() - 1] {
        if let Some(rest) = l.strip_prefix("# ") {
            let mut w = rest.splitn(3, ' ');
            let (kind, name, what) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap_or(""));
            assert!(name_ok(name), "{l}");
            match kind {
                "HELP" => assert!(!what.is_empty(), "{l}"),
                "TYPE" => {
                    assert!(
                        ["counter", "gauge", "info", "histogram", "summary", "unknown"].contains(&what),
                        "{l}"
                    );
                    families.insert(name.to_string(), what.to_string());
                }
                "UNIT" => {}
                _ => panic!("not a descriptor: {l}"),
            }
            continue;
        }
        let (series, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {l}"));
        let v: f64 = value.parse().unwrap_or_else(|_| panic!("not a number: {l}"));
        let name = series.split('{').next().unwrap();
        assert!(name_ok(name), "{l}");
        if let Some(labels) = series.strip_prefix(name).filter(|s| !s.is_empty()) {
            let inner = labels
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .unwrap_or_else(|| panic!("labels: {l}"));
            for pair in inner.split("\",").filter(|p| !p.is_empty()) {
                let (k, v) = pair.split_once("=\"").unwrap_or_else(|| panic!("label: {l}"));
                assert!(name_ok(k) && !v.contains('\n'), "{l}");
            }
        }
        let family = families
            .keys()
            .filter(|f| name == f.as_str() || name.strip_prefix(f.as_str()).is_some_and(|s| s == "_total"))
            .max_by_key(|f| f.len());
        let family = family.unwrap_or_else(|| panic!("a sample before its # TYPE: {l}"));
        if families[family] == "counter" {
            assert!(name.ends_with("_total"), "a counter's sample is NAME_total: {l}");
        }
        samples.insert(series.to_string(), v);
    }
    samples
}

#[test]
fn a_scraped_host_counts_what_its_report_says() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("q10.campaign");
    let mut host = queens()
        .args([
            "run",
            "10",
            "--json",
            "--metrics",
            "127.0.0.1:0",
            "--metrics-linger",
            "60",
        ])
        .args([
            "--link",
            "sim:8",
            "--link",
            "sim:9",
            "--sim-faults",
            "corrupt=0.02,drop=0.02",
        ])
        .args(["--timeout", "0.2", "--campaign"])
        .arg(&campaign)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(host.stderr.take().unwrap());
    let mut line = String::new();
    let addr = loop {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "the host ended first");
        if let Some(url) = line.trim().strip_prefix("serving metrics at http://") {
            break url.strip_suffix("/metrics").unwrap().to_string();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    // While it runs: the page answers and parses.
    let (status, body) = get(&addr, "/metrics");
    assert!(status.contains("200"), "{status}");
    parse(&body);
    assert!(get(&addr, "/").0.contains("404"));
    // The report, then the last scrape, while the host lingers.
    let mut report = String::new();
    BufReader::new(host.stdout.take().unwrap())
        .read_line(&mut report)
        .unwrap();
    let r: serde_json::Value = serde_json::from_str(&report).unwrap();
    let m = parse(&get(&addr, "/metrics").1);
    let _ = host.kill();
    let _ = host.wait();
    let metric = |k: &str| *m.get(k).unwrap_or_else(|| panic!("{k} not in {m:?}"));
    let count = |k: &str| r[k].as_u64().unwrap() as f64;
    assert_eq!(r["complete"], true, "{r}");
    assert_eq!(metric("queens_solved_total"), count("solved"));
    assert_eq!(metric("queens_resent_total"), count("reissued"));
    assert_eq!(metric("queens_rejected_frames_total"), count("rejected_frames"));
    // The faults were seen, so the equalities above are of counts that moved.
    assert!(count("reissued") > 0.0 && count("rejected_frames") > 0.0, "{r}");
    assert_eq!(metric("queens_campaign_solved"), count("subproblems"));
    assert_eq!(metric("queens_campaign_subproblems"), count("subproblems"));
    assert_eq!(metric("queens_in_flight"), 0.0);
    assert_eq!(metric("queens_store_uncommitted_results"), 0.0);
    assert_eq!(metric("queens_store_online"), 1.0);
    let boards: f64 = r["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let solved = l["solved"].as_u64().unwrap() as f64;
            let key = format!(
                "queens_board_solved_total{{link=\"{}\",solver=\"{}\"}}",
                l["link"].as_str().unwrap(),
                l["solver"]
            );
            assert_eq!(metric(&key), solved, "{key}");
            solved
        })
        .sum();
    assert_eq!(boards, count("solved"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let last = metric("queens_last_result_timestamp_seconds");
    assert!(last > now - 120.0 && last <= now, "{last} against {now}");
}
