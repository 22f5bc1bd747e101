//! The yardstick for the software counter's speed: a plain whole-board N-Queens counter on one
//! thread. Bitboards for the columns and both diagonals, one queen per row, one call per
//! queen placed; the only symmetry used is the left-right mirror of the first row (a queen in
//! the left half counts twice, the middle column of an odd board once). No rings, no classes,
//! nothing shared with `queens count`.
//!
//! ```sh
//! cargo build --release -p queens-core --example plain_count
//! target/release/examples/plain_count 16
//! ```
//!
//! It prints Q(N), checks it against the known count (docs/spec/known-counts.md, OEIS
//! A000170; N <= 27) and prints the time the count took. The exit status is 1 when the count
//! is wrong, 2 for a bad argument. docs/design/software-counter.md compares it with
//! `queens count N --threads 1`, whole process against whole process.

use std::process::ExitCode;
use std::time::Instant;

/// Q(N) for N = 0..=27 (docs/spec/known-counts.md; Q(0) is not used).
const KNOWN: [u64; 28] = [
    0,
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2_680,
    14_200,
    73_712,
    365_596,
    2_279_184,
    14_772_512,
    95_815_104,
    666_090_624,
    4_968_057_848,
    39_029_188_884,
    314_666_222_712,
    2_691_008_701_644,
    24_233_937_684_440,
    227_514_171_973_736,
    2_207_893_435_808_352,
    22_317_699_616_364_044,
    234_907_967_154_122_528,
];

/// The largest board the u32 bitboards hold.
const MAX_N: u32 = 31;

/// Completions of a partial placement whose rows above are filled: `taken` the occupied
/// columns, `down_left` and `down_right` the squares of the next row that the queens above
/// attack along the two diagonals. `board` has one bit per column.
fn completions(board: u32, taken: u32, down_left: u32, down_right: u32) -> u64 {
    if taken == board {
        return 1;
    }
    let mut open = board & !(taken | down_left | down_right);
    let mut total = 0;
    while open != 0 {
        let queen = open & open.wrapping_neg();
        open &= open - 1;
        total += completions(
            board,
            taken | queen,
            ((down_left | queen) << 1) & board,
            (down_right | queen) >> 1,
        );
    }
    total
}

/// Q(n): the first row's queen in each column of the left half, doubled for its mirror
/// image, plus the middle column once when n is odd.
fn count(n: u32) -> u64 {
    let board = (1u32 << n) - 1;
    let first_row = |column: u32| {
        let queen = 1u32 << column;
        completions(board, queen, (queen << 1) & board, queen >> 1)
    };
    let left_half: u64 = (0..n / 2).map(first_row).sum();
    let middle = if n % 2 == 1 { first_row(n / 2) } else { 0 };
    2 * left_half + middle
}

/// Digits in groups of three, as the rest of the project prints counts.
fn grouped(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    let n = match arg.as_deref().map(str::parse::<u32>) {
        Some(Ok(n)) if (1..=MAX_N).contains(&n) => n,
        None => 8,
        _ => {
            eprintln!("usage: plain_count [N]   (1..={MAX_N}, default 8)");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let q = count(n);
    let seconds = start.elapsed().as_secs_f64();
    let verdict = match KNOWN.get(n as usize) {
        Some(&known) if known == q => "equals the known count".to_string(),
        Some(&known) => format!("WRONG: the known count is {}", grouped(known)),
        None => "no known count to check against".to_string(),
    };
    // One write, so that a reader that stops early (`| head -1`) costs no panic.
    println!(
        "Q({n}) = {}\n{verdict}\n{seconds:.3} s, plain bitboard counter, one thread",
        grouped(q)
    );
    if verdict.starts_with("WRONG") {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
