/**
 * How dynamic API answers are compressed (decision 0265). Most are small JSON (a list page
 * of 10 rows is ~2 KB) built for one caller, so the cost that matters is per answer, not
 * the last bytes: brotli quality 2 compresses a 2 KB page in ~11 µs to 294 bytes, where
 * quality 4 (the previous setting) took ~49 µs for 265 bytes, and on a 20 KB page 767 against
 * 732 bytes; above quality 4 each level costs more again (11: ~7 ms for 2 KB). gzip, for
 * clients without brotli, stays at level 6 (~19 µs for 2 KB, deflate's own setup dominates).
 * The web build's assets are compressed once at build time at the highest levels and are
 * not affected.
 */
export const API_BROTLI_QUALITY = 2;
export const API_GZIP_LEVEL = 6;
