//! Byte classes of 64-byte blocks as bit masks, for the two scans of a
//! webhook body: the nesting-depth check and the fast path's structural
//! index (`scan`).

/// Bit `k` set when byte `k` of a 64-byte block is of that class.
pub(crate) struct BlockMasks {
    pub(crate) quote: u64,
    pub(crate) backslash: u64,
    /// `[` and `{`.
    pub(crate) open: u64,
    /// `]` and `}`.
    pub(crate) close: u64,
    /// `:` and `,`.
    pub(crate) separator: u64,
    /// Bytes below 0x20 (never allowed inside a string).
    pub(crate) control: u64,
}

impl BlockMasks {
    /// The masks of a block of exactly 64 bytes.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    pub(crate) fn of(block: &[u8]) -> BlockMasks {
        // SAFETY: SSE2 is part of the x86_64 baseline: every CPU this target
        // runs on has it, so the target-feature function may be called.
        unsafe { BlockMasks::of_sse2(block) }
    }

    /// The masks of a block of exactly 64 bytes.
    #[cfg(target_arch = "aarch64")]
    #[allow(unsafe_code)]
    pub(crate) fn of(block: &[u8]) -> BlockMasks {
        // SAFETY: NEON (Advanced SIMD) is part of the AArch64 baseline: every
        // CPU the aarch64 targets run on has it, so the target-feature
        // function may be called.
        unsafe { BlockMasks::of_neon(block) }
    }

    /// The masks of a block of exactly 64 bytes.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(crate) fn of(block: &[u8]) -> BlockMasks {
        BlockMasks::of_words(block)
    }

    /// SSE2 (every x86-64 CPU has it): sixteen bytes per compare, a few
    /// times the speed of the word version below, which other targets use.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    fn of_sse2(block: &[u8]) -> BlockMasks {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
            _mm_set_epi64x,
        };
        let mut m = BlockMasks::EMPTY;
        for (k, chunk) in block.chunks_exact(16).enumerate().take(4) {
            let half = |from: usize| {
                let mut word = [0u8; 8];
                word.copy_from_slice(&chunk[from..from + 8]);
                i64::from_le_bytes(word)
            };
            // Built from two words (no raw pointer): LLVM emits one load.
            let v = _mm_set_epi64x(half(8), half(0));
            // '[' and '{' (and ']' and '}') differ only in bit 0x20.
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let mask = |m| u64::from(_mm_movemask_epi8(m) as u16);
            let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            let shift = 16 * k;
            m.quote |= mask(eq(b'"')) << shift;
            m.backslash |= mask(eq(b'\\')) << shift;
            m.open |= mask(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8))) << shift;
            m.close |= mask(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8))) << shift;
            m.separator |= mask(_mm_or_si128(eq(b':'), eq(b','))) << shift;
            // max(v, 0x1f) == 0x1f exactly for the bytes 0x00..=0x1f.
            let low = _mm_set1_epi8(0x1f);
            m.control |= mask(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)) << shift;
        }
        m
    }

    /// NEON (every AArch64 CPU has it, and the aarch64 targets enable it):
    /// the four sixteen-byte vectors of the block compared at once. NEON has
    /// no `movemask`, so each class's compare results are ANDed with each
    /// byte's bit of its half (1, 2, .. 128) and summed pairwise three times
    /// (`addp`), which leaves byte `j` of the low 64 bits holding the bits of
    /// block bytes `8j..8j + 8`, as simdjson does it.
    #[cfg(target_arch = "aarch64")]
    #[target_feature(enable = "neon")]
    #[allow(unsafe_code)]
    fn of_neon(block: &[u8]) -> BlockMasks {
        use std::arch::aarch64::{
            uint8x16_t, vandq_u8, vceqq_u8, vcltq_u8, vcombine_u8, vcreate_u8, vdupq_n_u8,
            vgetq_lane_u64, vld1q_u8, vorrq_u8, vpaddq_u8, vreinterpretq_u64_u8,
        };
        let mut v = [vdupq_n_u8(b' '); 4];
        for (k, chunk) in block.chunks_exact(16).enumerate().take(4) {
            // SAFETY: `chunk` holds the 16 bytes the load reads.
            v[k] = unsafe { vld1q_u8(chunk.as_ptr()) };
        }
        let bits = vcombine_u8(
            vcreate_u8(0x8040_2010_0804_0201),
            vcreate_u8(0x8040_2010_0804_0201),
        );
        // Bit `k` of the result set where byte `k` of the class is 0xff.
        let mask = |class: [uint8x16_t; 4]| {
            let [a, b, c, d] = class.map(|x| vandq_u8(x, bits));
            let sum = vpaddq_u8(vpaddq_u8(a, b), vpaddq_u8(c, d));
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(sum, sum)))
        };
        let eq = |of: [uint8x16_t; 4], c: u8| of.map(|x| vceqq_u8(x, vdupq_n_u8(c)));
        // '[' and '{' (and ']' and '}') differ only in bit 0x20.
        let folded = v.map(|x| vorrq_u8(x, vdupq_n_u8(0x20)));
        let (colon, comma) = (eq(v, b':'), eq(v, b','));
        BlockMasks {
            quote: mask(eq(v, b'"')),
            backslash: mask(eq(v, b'\\')),
            open: mask(eq(folded, b'{')),
            close: mask(eq(folded, b'}')),
            separator: mask([0, 1, 2, 3].map(|k| vorrq_u8(colon[k], comma[k]))),
            // Unsigned: exactly the bytes 0x00..=0x1f.
            control: mask(v.map(|x| vcltq_u8(x, vdupq_n_u8(0x20)))),
        }
    }

    /// Eight bytes per step in a `u64`, for targets without SSE2 or NEON
    /// (and the tests that check the vector versions against it).
    #[cfg(any(test, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
    pub(crate) fn of_words(block: &[u8]) -> BlockMasks {
        let mut m = BlockMasks::EMPTY;
        for (k, chunk) in block.chunks_exact(8).enumerate().take(8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let w = u64::from_le_bytes(word);
            let shift = 8 * k;
            let class = |x: u64| gather(zero_bytes(x)) << shift;
            m.quote |= class(w ^ splat(b'"'));
            m.backslash |= class(w ^ splat(b'\\'));
            // '[' and '{' (and ']' and '}') differ only in bit 0x20.
            let folded = w | splat(0x20);
            m.open |= class(folded ^ splat(b'{'));
            m.close |= class(folded ^ splat(b'}'));
            m.separator |= class(w ^ splat(b':')) | class(w ^ splat(b','));
            // A byte below 0x20 has none of the top three bits.
            m.control |= class(w & splat(0xe0));
        }
        m
    }

    #[cfg(any(test, not(target_arch = "aarch64")))]
    const EMPTY: BlockMasks = BlockMasks {
        quote: 0,
        backslash: 0,
        open: 0,
        close: 0,
        separator: 0,
        control: 0,
    };
}

/// `b` in each byte of a word.
#[inline(always)]
pub(crate) fn splat(b: u8) -> u64 {
    0x0101_0101_0101_0101 * u64::from(b)
}

/// The high bit of each zero byte of `v`, exactly (no borrow between
/// bytes).
#[inline(always)]
pub(crate) fn zero_bytes(v: u64) -> u64 {
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((v & LOWS) + LOWS) | v | LOWS)
}

/// Gathers the eight high bits of `x` into the low byte, byte 0 as bit 0.
#[cfg(any(test, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
#[inline(always)]
fn gather(x: u64) -> u64 {
    (x >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bit `k` of the result is the XOR of bits `0..=k`: set from an opening quote
/// up to (not including) its closing quote.
pub(crate) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_mask_builders_agree() {
        const ALPHABET: &[u8] = b"\"\\[]{}:,az \xd0\x80\x7f\x1f\x00\x20\t\n";
        let mut rng = fastrand::Rng::with_seed(11);
        for _ in 0..4000 {
            let block: Vec<u8> = (0..64)
                .map(|_| ALPHABET[rng.usize(..ALPHABET.len())])
                .collect();
            let a = BlockMasks::of(&block);
            let b = BlockMasks::of_words(&block);
            assert_eq!(
                (
                    a.quote,
                    a.backslash,
                    a.open,
                    a.close,
                    a.separator,
                    a.control
                ),
                (
                    b.quote,
                    b.backslash,
                    b.open,
                    b.close,
                    b.separator,
                    b.control
                )
            );
        }
    }

    #[test]
    fn masks_mark_exactly_their_bytes() {
        let block: Vec<u8> = (0..64u8)
            .map(|i| b"\"\\[{]}:\x1f"[usize::from(i % 8)])
            .collect();
        let m = BlockMasks::of(&block);
        let every = |k: u64| (0..8).fold(0u64, |acc, i| acc | (1 << (8 * i + k)));
        assert_eq!(m.quote, every(0));
        assert_eq!(m.backslash, every(1));
        assert_eq!(m.open, every(2) | every(3));
        assert_eq!(m.close, every(4) | every(5));
        assert_eq!(m.separator, every(6));
        assert_eq!(m.control, every(7));
        let other: Vec<u8> = (0..64u8)
            .map(|i| b", \x20\x7f\x80a\t0"[usize::from(i % 8)])
            .collect();
        let m = BlockMasks::of(&other);
        assert_eq!(m.separator, every(0));
        assert_eq!(m.control, every(6));
        // Quotes at 2 and 4: bytes 2 and 3 are inside; a quote at 7 opens a
        // string that runs to the end of the block.
        assert_eq!(prefix_xor(0b0001_0100), 0b0000_1100);
        assert_eq!(prefix_xor(0b1001_0100), !0u64 << 7 | 0b0000_1100);
    }
}
