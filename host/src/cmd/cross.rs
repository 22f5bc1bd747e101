//! What `queens run` and `queens db stats` say of a shared campaign's cross-checks: the line
//! that states its total, and, where no host of another role can check its counts (a
//! campaign whose hosts all log in as one role, or made without `queens db init`), that
//! plainly, with the commands that give each workstation a role of its own.

use super::thousands;
use queens_core::BoardSize;
use queens_host::store::pg::Checkers;
use queens_host::store::pg_conn::Target;

/// The exit status of `queens run` when it finished a shared campaign whose total no host of
/// another role can confirm, unless `--accept-unconfirmed` says that is intended. (1 is an
/// error, 2 a command line clap refused, 130 a run stopped by Ctrl-C or SIGTERM.)
pub const UNCONFIRMED_STATUS: i32 = 3;

/// The line stating Q(N) of a complete campaign: final once no count chosen for another
/// host's recomputation waits; while some wait, awaiting them only where a host of another
/// role can give them, and saying plainly which no host can.
pub fn total_line(n: u32, total: u128, pending: u64, unconfirmable: u64) -> String {
    let total = thousands(total);
    if pending == 0 {
        format!("Q({n}) = {total}")
    } else if unconfirmable == 0 {
        format!(
            "Q({n}) = {total} once {} counts chosen for another host's recomputation are confirmed",
            thousands(pending as u128)
        )
    } else if unconfirmable >= pending {
        format!(
            "Q({n}) = {total}, unconfirmed: no host of another role can recompute the {} counts chosen for a check",
            thousands(pending as u128)
        )
    } else {
        format!(
            "Q({n}) = {total}, unconfirmed: no host of another role can recompute {} of the {} counts chosen for a check (the other {} wait for one)",
            thousands(unconfirmable as u128),
            thousands(pending as u128),
            thousands((pending - unconfirmable) as u128)
        )
    }
}

/// Why no other host checks the counts of a campaign of one role (`Checkers::one_role`).
pub fn one_role_why(c: &Checkers) -> String {
    let only = c.roles.first();
    let who = match (&c.hosts_role, only) {
        (None, Some(r)) => format!(
            "every host of this campaign logs in as database role {r} (its tables were made without `queens db init`)"
        ),
        (None, None) => {
            "its tables were made without `queens db init`, so every host logs in as their owner"
                .to_string()
        }
        (Some(g), Some(r)) => format!(
            "every host of this campaign logs in as database role {r}, and host role {g} has no other login role"
        ),
        (Some(g), None) => format!("host role {g} has no login role yet"),
    };
    format!(
        "checked by no other host: {who}; a count is confirmed only by a host of another role, so a board that lies where its own host does not check it (--verify 0) can make the total wrong unnoticed"
    )
}

/// The commands that give each workstation a login role of its own, for the campaign of
/// `size` in `target`'s database.
pub fn one_role_fix(c: &Checkers, target: &Target, size: BoardSize) -> Vec<String> {
    let admin = target.url_as("postgres");
    let group = c.hosts_role.as_deref().unwrap_or("queens_hosts");
    let mut lines =
        vec!["to have every workstation's counts checked by the others, give each its own login role (docs/sharing.md):".to_string()];
    if c.hosts_role.is_none() {
        lines.push(format!(
            "  queens db init {admin} --hosts {group}      (as a superuser, once)"
        ));
    }
    lines.push(format!(
        "  psql {admin} -c \"CREATE ROLE lab1 LOGIN PASSWORD '…' IN ROLE {group}\"      (lab1, lab2, …: one per workstation)"
    ));
    lines.push(format!(
        "  queens run {size} --campaign {}      (on workstation lab1, its password in PGPASSWORD or ~/.pgpass)",
        target.url_as("lab1")
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_awaits_only_a_confirmation_that_can_come() {
        assert_eq!(total_line(10, 724, 0, 0), "Q(10) = 724");
        assert_eq!(
            total_line(10, 724, 3739, 0),
            "Q(10) = 724 once 3,739 counts chosen for another host's recomputation are confirmed"
        );
        let none = total_line(10, 724, 3739, 3739);
        assert_eq!(
            none,
            "Q(10) = 724, unconfirmed: no host of another role can recompute the 3,739 counts chosen for a check"
        );
        assert!(!none.contains("once"));
        assert_eq!(
            total_line(10, 724, 3739, 5),
            "Q(10) = 724, unconfirmed: no host of another role can recompute 5 of the 3,739 counts chosen for a check (the other 3,734 wait for one)"
        );
    }

    #[test]
    fn the_fix_names_db_init_only_where_it_is_missing() {
        let t = Target::parse("postgres://queens@127.0.0.1:6000/lab").unwrap();
        let plain = Checkers {
            roles: vec!["queens".into()],
            hosts_role: None,
            one_role: true,
            unconfirmable: 7,
        };
        assert!(one_role_why(&plain)
            .contains("database role queens (its tables were made without `queens db init`)"));
        let fix = one_role_fix(&plain, &t, BoardSize::new(10).unwrap()).join("\n");
        assert!(
            fix.contains("queens db init postgres://postgres@127.0.0.1:6000/lab --hosts queens_hosts"),
            "{fix}"
        );
        assert!(fix.contains("IN ROLE queens_hosts"), "{fix}");
        assert!(
            fix.contains("queens run 10 --campaign postgres://lab1@127.0.0.1:6000/lab "),
            "{fix}"
        );
        let managed = Checkers {
            hosts_role: Some("lab_hosts".into()),
            ..plain
        };
        assert!(one_role_why(&managed).contains("host role lab_hosts has no other login role"));
        let fix = one_role_fix(&managed, &t, BoardSize::new(10).unwrap()).join("\n");
        assert!(
            !fix.contains("db init") && fix.contains("IN ROLE lab_hosts"),
            "{fix}"
        );
    }
}
