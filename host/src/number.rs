//! Numbers as the reports, the logs and the status page print them.

/// A whole number with its thousands separated by commas: 1234567 -> "1,234,567".
pub fn thousands(v: u128) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_separated_from_the_right() {
        let t = super::thousands;
        assert_eq!(
            [t(0), t(999), t(1_000), t(1_234_567), t(u64::MAX as u128)],
            ["0", "999", "1,000", "1,234,567", "18,446,744,073,709,551,615"]
        );
    }
}
