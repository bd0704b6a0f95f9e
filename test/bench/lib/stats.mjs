/**
 * Small statistics for the benchmark: the median of rounds and the ratio of two medians.
 */

/** The median of a list of numbers (the mean of the two middle ones for an even count). */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rounds to `digits` decimals, keeping numbers (not strings) in results.json. */
export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
