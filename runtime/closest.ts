/**
 * `closest`: the known name a mistyped one most likely meant, for "did you mean" messages of
 * the CLI's flags and the config file's keys.
 */

/** The edit distance of two short strings (insertions, deletions, substitutions, swaps). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `name` when it is a likely typo (at most a third of its letters
 * off, at least one), else undefined.
 * @example closest('prot', ['port', 'host']) // 'port'
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && name.length > 1 && bestDistance <= Math.max(1, Math.floor(best.length / 3))
    ? best
    : undefined;
}
