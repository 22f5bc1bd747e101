//! Faults a year-long campaign meets: a disk that fills. The run stops with a message that
//! names the disk and what it needs, keeps every result it had, and resumes once there is
//! room, to an exact total.

use crate::common::{ok_json, queens};
use crate::errors::in_namespace;

/// Lines `KEY=value` of a script's output.
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("{key} not in: {out}"))
}

#[test]
fn a_full_disk_stops_a_campaign_cleanly_and_it_resumes_once_there_is_room() {
    // A 3.5 MB file system: the campaign of N = 13 (2.6 MB) fits, its cycle counts and
    // summary do not all. The logs and reports are written elsewhere.
    let o = in_namespace(
        r#"d=$(mktemp -d); l=$(mktemp -d)
        mount -t tmpfs -o size=3500k tmpfs "$d"
        "$QUEENS" subproblems 13 --out "$d/q13.campaign" >/dev/null
        echo "DISK=$d"
        if "$QUEENS" run 13 --campaign "$d/q13.campaign" --json >"$l/r1" 2>"$l/e1"; then
            echo FULL=no; fi
        echo "ERROR=$(grep -v '^ *[0-9]*: \|^ *at ' "$l/e1" | tr '\n' ' ')"
        echo "STATS=$("$QUEENS" db stats "$d/q13.campaign" --json)"
        mount -o remount,size=8m "$d"
        echo "RESUMED=$("$QUEENS" run 13 --campaign "$d/q13.campaign" --json 2>"$l/e2")"
        "$QUEENS" db verify "$d/q13.campaign" --entries --json >"$l/v" && echo "VERIFY=$(cat "$l/v")"
        "#,
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !out.contains("FULL=no"),
        "the run did not meet the full disk: {out}"
    );
    let disk = field(&out, "DISK");
    let err = field(&out, "ERROR");
    for w in [
        format!("the disk that holds {disk}/q13.campaign"),
        format!("({disk}) is full"),
        "free at least".into(),
        "run the same command again".into(),
    ] {
        assert!(err.contains(&w), "{w:?} not in: {err}");
    }
    assert!(!err.contains("panicked") && !err.contains(".partial"), "{err}");
    let stats: serde_json::Value = serde_json::from_str(field(&out, "STATS")).unwrap();
    let kept = stats["solved"].as_u64().unwrap();
    let entries = stats["subproblems"].as_u64().unwrap();
    assert!(kept > 0 && kept < entries, "{stats}");
    // Every result the first run recorded is there at the resume, none counted again.
    let r: serde_json::Value = serde_json::from_str(field(&out, "RESUMED")).unwrap();
    assert_eq!(r["solved_before"].as_u64(), Some(kept), "{r}");
    assert_eq!(
        r["solved_before"].as_u64().unwrap() + r["solved"].as_u64().unwrap(),
        entries
    );
    assert_eq!(r["complete"], true);
    let software = ok_json(&queens().args(["count", "13", "--json"]).output().unwrap());
    assert_eq!(r["total"], software["total"], "{r}");
    let v: serde_json::Value = serde_json::from_str(field(&out, "VERIFY")).unwrap();
    assert_eq!(v["total"].as_str().unwrap(), software["total"].to_string(), "{v}");
    assert_eq!(v["summary_agrees"], true);
}
