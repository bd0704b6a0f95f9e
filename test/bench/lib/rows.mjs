/**
 * Rows of the results tables: a ratio row (cloudfn against a baseline measured in the same
 * run), a value row (a goal without a baseline, such as the dev reload or the bundle size), a
 * skipped row, and the peer rows of the second table (a framework against raw node:http, and
 * cloudfn against the framework, from the same rounds).
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
  if (unit === 'MB' || unit === 'kB' || unit === 'µs') return `${value.toFixed(1)} ${unit}`;
  if (unit === 'ms') return `${value.toFixed(value < 100 ? 1 : 0)} ms`;
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
}

/**
 * A peer row: `peer` (a framework) against raw node:http, and cloudfn against the peer, each a
 * median of per-round ratios from the same rounds; `cpu` holds CPU µs per request of the three
 * sides, round by round, for the same ratios by CPU time.
 * @param {object} o
 * @param {string} o.id e.g. 'peer-fastify-get'
 * @param {string} o.peer the peer's label, e.g. 'fastify 5, logger off'
 * @param {string} o.request e.g. 'GET'
 * @param {string} o.unit
 * @param {number[]} o.subject the peer's value in each round
 * @param {number[]} o.raw raw node:http's value in each round
 * @param {number[]} o.cloudfn cloudfn's value in each round
 * @param {{ subject: number[], raw: number[], cloudfn: number[] }} [o.cpu]
 * @param {string[]} [o.problems]
 */
export function peerRow({ id, peer, request, unit, subject, raw, cloudfn, cpu, problems = [] }) {
  const ratioOf = (top, bottom) => round(median(top.map((value, i) => value / bottom[i])), 3);
  return {
    id,
    table: 'peers',
    benchmark: `${request} on ${peer}`,
    peer,
    request,
    unit,
    status: problems.length === 0 ? 'measured' : 'invalid',
    subject: { median: round(median(subject)), rounds: subject.map((v) => round(v)) },
    raw: { median: round(median(raw)), rounds: raw.map((v) => round(v)) },
    cloudfn: { median: round(median(cloudfn)), rounds: cloudfn.map((v) => round(v)) },
    ratioToRaw: ratioOf(subject, raw),
    cloudfnRatio: ratioOf(cloudfn, subject),
    // Less CPU per request is faster: the CPU ratios divide the other side by this one.
    cpuRatioToRaw: cpu === undefined ? undefined : ratioOf(cpu.raw, cpu.subject),
    cpuCloudfnRatio: cpu === undefined ? undefined : ratioOf(cpu.subject, cpu.cloudfn),
    problems,
  };
}

/** A peer row that did not run, with the reason shown in the peers table. */
export function skippedPeerRow({ id, peer, request, reason }) {
  return { id, table: 'peers', benchmark: `${request} on ${peer}`, peer, request, status: 'skipped', reason };
}

/** The peer rows as a Markdown table: each peer against raw, and cloudfn against each peer. */
export function formatPeerTable(rows) {
  const lines = [
    '| peer | request | peer (median) | peer ÷ raw | cloudfn ÷ peer | by CPU time: peer ÷ raw | by CPU time: cloudfn ÷ peer |',
    '|---|---|---|---|---|---|---|',
  ];
  const times = (x) => (x === undefined ? '—' : `${x.toFixed(2)}×`);
  for (const row of rows.filter((r) => r.table === 'peers')) {
    if (row.status === 'skipped') {
      lines.push(`| ${row.peer} | ${row.request} | ${row.reason} | — | — | — | — |`);
      continue;
    }
    const invalid = row.problems.length ? ` (invalid: ${row.problems.join('; ')})` : '';
    lines.push(
      `| ${row.peer} | ${row.request} | ${show(row.subject.median, row.unit)}${invalid} | ${times(row.ratioToRaw)} | ${times(row.cloudfnRatio)} | ${times(row.cpuRatioToRaw)} | ${times(row.cpuCloudfnRatio)} |`,
    );
  }
  return lines.join('\n');
}

/** The results as a Markdown table (also printed by `npm run bench`); peer rows are left to `formatPeerTable`. */
export function formatTable(rows) {
  const lines = [
    '| benchmark | cloudfn (median) | baseline (median) | ratio | goal | met | ratio by CPU time |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    if (row.table === 'peers') continue;
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
