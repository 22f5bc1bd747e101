//! The expansion of [`super::frontier::expand`] in AVX2 lanes: eight nodes at a time, each
//! round taking every lane's lowest candidate and packing the lanes that had one to the end
//! of the next level. A chunk costs as many rounds as its busiest lane has candidates, and no
//! branch depends on a single node.

use super::frontier::Level;

/// Whether this machine runs [`expand`].
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
pub use x86::expand;

/// Never called: [`available`] is false off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub unsafe fn expand(chunk: usize, ring: u32, shift: u32, src: &mut Level, dst: &mut Level) {
    super::frontier::expand(chunk, ring, shift, src, dst)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// For each 8-bit lane mask, the lanes it selects, lowest first: a permutation that
    /// packs them to the front.
    static PACK: [[u32; 8]; 256] = {
        let mut table = [[0u32; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut lane, mut to) = (0, 0);
            while lane < 8 {
                if mask >> lane & 1 != 0 {
                    table[mask][to] = lane as u32;
                    to += 1;
                }
                lane += 1;
            }
            mask += 1;
        }
        table
    };

    /// # Safety
    /// The machine must have AVX2 ([`available`]).
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn expand(chunk: usize, ring: u32, shift: u32, src: &mut Level, dst: &mut Level) {
        let start = src.len.saturating_sub(chunk);
        let ring = _mm256_set1_epi32(ring as i32);
        let shift = _mm_cvtsi32_si128(shift as i32);
        let zero = _mm256_setzero_si256();
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mut out = dst.len;
        for j in (start..src.len).step_by(8) {
            // Lanes past the last node read stale words: give them no free column.
            let live = _mm256_cmpgt_epi32(_mm256_set1_epi32((src.len - j) as i32), lanes);
            // SAFETY (loads): each column has 8 words of slack past its capacity.
            let free = _mm256_loadu_si256(src.free.as_ptr().add(j) as *const __m256i);
            let free = _mm256_and_si256(free, live);
            let a = _mm256_loadu_si256(src.a.as_ptr().add(j) as *const __m256i);
            let b = _mm256_loadu_si256(src.b.as_ptr().add(j) as *const __m256i);
            let mut cand = _mm256_andnot_si256(_mm256_or_si256(_mm256_or_si256(a, b), ring), free);
            loop {
                let q = _mm256_and_si256(cand, _mm256_sub_epi32(zero, cand));
                let empty = _mm256_cmpeq_epi32(q, zero);
                let busy = !_mm256_movemask_ps(_mm256_castsi256_ps(empty)) as u32 & 0xFF;
                if busy == 0 {
                    break;
                }
                cand = _mm256_xor_si256(cand, q);
                let pack = _mm256_loadu_si256(PACK[busy as usize].as_ptr() as *const __m256i);
                let child = [
                    (_mm256_xor_si256(free, q), &mut dst.free),
                    (_mm256_sll_epi32(_mm256_or_si256(a, q), shift), &mut dst.a),
                    (_mm256_srl_epi32(_mm256_or_si256(b, q), shift), &mut dst.b),
                ];
                for (v, column) in child {
                    debug_assert!(out + 8 <= column.len());
                    // SAFETY: a level's columns have room for a chunk's children plus slack.
                    _mm256_storeu_si256(
                        column.as_mut_ptr().add(out) as *mut __m256i,
                        _mm256_permutevar8x32_epi32(v, pack),
                    );
                }
                out += busy.count_ones() as usize;
            }
        }
        dst.len = out;
        src.len = start;
    }
}
