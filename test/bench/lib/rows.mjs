/**
 * Rows of the results table: a ratio row (cloudfn against a baseline measured in the same
 * run), a value row (a goal without a baseline, such as the dev reload), and a skipped row.
 * The ratio of a row is the median of its per-round ratios: each round pairs the two sides
 * measured a few seconds apart, which cancels a slow drift of a shared machine.
 */
import { median, round } from './stats.mjs';

/**
 * @param {object} o
 * @param {string} o.id
 * @param {string} o.benchmark
 * @param {string} o.baseline
 * @param {string} o.unit e.g. 'req/s'
 * @param {number[]} o.subject cloudfn's value in each round
 * @param {number[]} o.base the baseline's value in each round
 * @param {{ op: '>=' | '<=', value: number } | undefined} o.goal
 * @param {string[]} [o.problems] anything that makes the row invalid (non-2xx answers, socket errors)
 * @param {{ subject: number[], base: number[] }} [o.cpu] CPU µs per request of each side and round:
 *   the row also shows base/subject, the ratio a quiet machine would give
 * @param {string} [o.note]
 */
export function ratioRow({ id, benchmark, baseline, unit, subject, base, goal, problems = [], cpu, note }) {
  const ratios = subject.map((value, i) => value / base[i]);
  const ratio = median(ratios);
  const cpuRatio = cpu === undefined ? undefined : round(median(cpu.subject.map((value, i) => cpu.base[i] / value)), 3);
  const met =
    goal === undefined
      ? undefined
      : problems.length === 0 && (goal.op === '>=' ? ratio >= goal.value : ratio <= goal.value);
  return {
    id,
    benchmark,
    baseline,
    unit,
    status: problems.length === 0 ? 'measured' : 'invalid',
    cloudfn: { median: round(median(subject)), rounds: subject.map((v) => round(v)) },
    base: { median: round(median(base)), rounds: base.map((v) => round(v)) },
    ratio: round(ratio, 3),
    ratios: ratios.map((r) => round(r, 3)),
    cpuMicrosPerRequest:
      cpu === undefined
        ? undefined
        : { cloudfn: cpu.subject.map((v) => round(v)), base: cpu.base.map((v) => round(v)) },
    cpuRatio,
    goal: goal === undefined ? undefined : `${goal.op} ${goal.value}×`,
    met,
    problems,
    note,
  };
}

/** A row with a goal on cloudfn's own value (the dev reload). */
export function valueRow({ id, benchmark, unit, subject, goal, problems = [], note }) {
  const value = median(subject);
  const met = problems.length === 0 && (goal.op === '<=' ? value <= goal.value : value >= goal.value);
  return {
    id,
    benchmark,
    baseline: '—',
    unit,
    status: problems.length === 0 ? 'measured' : 'invalid',
    cloudfn: { median: round(value), rounds: subject.map((v) => round(v)) },
    goal: `${goal.op} ${goal.value} ${unit}`,
    met,
    problems,
    note,
  };
}

/** A row that could not run here, with the reason shown in the table. */
export function skippedRow({ id, benchmark, baseline, goal, reason }) {
  return { id, benchmark, baseline, status: 'skipped', goal, met: undefined, reason };
}

function show(value, unit) {
  if (unit === 'MB') return `${value.toFixed(1)} MB`;
  if (unit === 'ms') return `${value.toFixed(value < 100 ? 1 : 0)} ms`;
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
}

/** The results as a Markdown table (also printed by `npm run bench`). */
export function formatTable(rows) {
  const lines = [
    '| benchmark | cloudfn (median) | baseline (median) | ratio | goal | met | ratio by CPU time |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    if (row.status === 'skipped') {
      lines.push(`| ${row.benchmark} | ${row.reason} | ${row.baseline} | — | ${row.goal ?? '—'} | — | — |`);
      continue;
    }
    const cloudfn = show(row.cloudfn.median, row.unit);
    const base = row.base === undefined ? '—' : `${show(row.base.median, row.unit)} (${row.baseline})`;
    const ratio = row.ratio === undefined ? '—' : `${row.ratio.toFixed(2)}×`;
    const met =
      row.met === undefined
        ? row.problems?.length
          ? `invalid: ${row.problems.join('; ')}`
          : '—'
        : row.met
          ? 'yes'
          : row.problems.length
            ? `no: ${row.problems.join('; ')}`
            : 'no';
    const cpuRatio = row.cpuRatio === undefined ? '—' : `${row.cpuRatio.toFixed(2)}×`;
    lines.push(`| ${row.benchmark} | ${cloudfn} | ${base} | ${ratio} | ${row.goal ?? '—'} | ${met} | ${cpuRatio} |`);
  }
  return lines.join('\n');
}
