//! The circuits' widths are const generics; a board size chosen at run time picks one of the
//! supported instantiations here, in one place.

/// Evaluates `$body` with consts `$M` (inner width, 2..=28), `$M1` = M + 1 and `$D` = 2M - 1
/// in scope, for the inner width `$m` given at run time.
#[macro_export]
macro_rules! with_width {
    ($m:expr, |$M:ident, $M1:ident, $D:ident| $body:expr) => {
        $crate::with_width!(@arms $m, $M, $M1, $D, $body,
            2 3 3, 3 4 5, 4 5 7, 5 6 9, 6 7 11, 7 8 13, 8 9 15, 9 10 17, 10 11 19, 11 12 21,
            12 13 23, 13 14 25, 14 15 27, 15 16 29, 16 17 31, 17 18 33, 18 19 35, 19 20 37,
            20 21 39, 21 22 41, 22 23 43, 23 24 45, 24 25 47, 25 26 49, 26 27 51, 27 28 53, 28 29 55)
    };
    (@arms $m:expr, $M:ident, $M1:ident, $D:ident, $body:expr, $($a:literal $b:literal $c:literal),*) => {
        match $m {
            $( $a => {
                #[allow(non_upper_case_globals)]
                const $M: usize = $a;
                #[allow(non_upper_case_globals)]
                const $M1: usize = $b;
                #[allow(non_upper_case_globals)]
                const $D: usize = $c;
                $body
            } )*
            other => panic!("no circuit built for inner width {other}"),
        }
    };
}

/// As [`with_width!`] for a unit that walks a south group (issue 50): `$D` = 2M + 1 (M + 2
/// lines). Built so far for the tests' N = 8 to 11 and for N = 27 and 28 only
/// ([`GROUPED_N`]): each width is another copy of the unit's generated code.
#[macro_export]
macro_rules! with_grouped_width {
    ($m:expr, |$M:ident, $M1:ident, $D:ident| $body:expr) => {
        $crate::with_width!(@arms $m, $M, $M1, $D, $body,
            4 5 9, 5 6 11, 6 7 13, 7 8 15, 23 24 47, 24 25 49)
    };
}

/// The board sizes [`with_grouped_width!`] builds grouped circuits for.
pub const GROUPED_N: [u32; 6] = [8, 9, 10, 11, 27, 28];

pub use queens_core::board::RINGS;

/// The wire word's width in bits for inner width `m`: whole bytes of coordinates
/// (`queens_core::board::coord_bits`), so that [`crate::with_board_widths!`] fixes it per width at
/// compile time.
pub const fn wire_word_width(m: usize) -> usize {
    8 * queens_core::board::coord_bits(m as u32 + 2 * queens_core::board::RINGS) as usize
}

/// As [`with_width!`] for board size `$n` (6..=32), with `$W` the wire word width in bits
/// (8 ceil(log2 N)) also in scope. W follows from M at compile time: picked at run time, it
/// had instantiated the front end and the core three times for every width.
#[macro_export]
macro_rules! with_board_widths {
    ($n:expr, |$M:ident, $M1:ident, $D:ident, $W:ident| $body:expr) => {{
        let n: usize = $n;
        $crate::with_width!(n - 2 * $crate::width::RINGS as usize, |$M, $M1, $D| {
            #[allow(non_upper_case_globals)]
            const $W: usize = $crate::width::wire_word_width($M);
            $body
        })
    }};
}
