/**
 * Combining runs: `npm run bench` runs run-once.mjs several times on each Node version, and
 * this module folds those results into one row per benchmark with, for each Node, the median
 * over runs, the range (lowest–highest run) and whether the goal is met; then prints the goals
 * and peers tables with one group of columns per Node version.
 * A goal is met on a Node when the median over runs meets it and no run was invalid.
 */
import { median, round } from './stats.mjs';

/** The number a row is judged by: a ratio row's ratio, a value row's own median. */
function judgedValue(row) {
  if (row.status === 'skipped') return undefined;
  return row.ratio ?? row.cloudfn?.median;
}

/** `>= 0.95×`, `<= 60 kB`, `<= 250 ms (median)` → { op, value }; undefined without a goal. */
export function parseGoal(goal) {
  const m = goal === undefined ? null : /^(>=|<=) ([\d.]+)/.exec(goal);
  return m === null ? undefined : { op: m[1], value: Number(m[2]) };
}

function meets(goal, value) {
  return goal.op === '>=' ? value >= goal.value : value <= goal.value;
}

/** Median, lowest and highest of some runs' figures; undefined for none. */
function spreadOf(values) {
  if (values.length === 0) return undefined;
  return { value: round(median(values), 3), min: round(Math.min(...values), 3), max: round(Math.max(...values), 3) };
}

/** `0.95×`, or `0.95× (0.90×–0.99×)` when the runs differ. */
function timesRange(s) {
  return s.min === s.max
    ? `${s.value.toFixed(2)}×`
    : `${s.value.toFixed(2)}× (${s.min.toFixed(2)}×–${s.max.toFixed(2)}×)`;
}

/** One Node's cell of a goals row, from that row in each run. */
function goalCell(runs) {
  const measured = runs.filter((row) => row !== undefined && row.status !== 'skipped');
  if (measured.length === 0) {
    const skipped = runs.find((row) => row !== undefined);
    return { status: 'skipped', reason: skipped?.reason ?? 'not run' };
  }
  const values = measured.map(judgedValue);
  const problems = measured.flatMap((row) => row.problems ?? []);
  const goal = parseGoal(measured[0].goal);
  const value = median(values);
  return {
    status: problems.length === 0 ? 'measured' : 'invalid',
    // A ratio row shows ratios (×); a value row shows its unit.
    kind: measured[0].ratio === undefined ? 'value' : 'ratio',
    unit: measured[0].unit,
    value: round(value, 3),
    min: round(Math.min(...values), 3),
    max: round(Math.max(...values), 3),
    runs: values.map((v) => round(v, 3)),
    cpuRatio: spreadOf(measured.map((row) => row.cpuRatio).filter((x) => x !== undefined)),
    met: goal === undefined ? undefined : problems.length === 0 && meets(goal, value),
    problems,
  };
}

/** One Node's cell of a peer row. */
function peerCell(runs) {
  const measured = runs.filter((row) => row !== undefined && row.status !== 'skipped');
  if (measured.length === 0) return { status: 'skipped', reason: runs.find((r) => r)?.reason ?? 'not run' };
  const spread = (key) => spreadOf(measured.map((row) => row[key]));
  const problems = measured.flatMap((row) => row.problems ?? []);
  return {
    status: problems.length === 0 ? 'measured' : 'invalid',
    ratioToRaw: spread('ratioToRaw'),
    cloudfnRatio: spread('cloudfnRatio'),
    problems,
  };
}

/**
 * @param {{ label: string, runs: { rows: object[] }[] }[]} nodes each Node version's runs, as
 *   written by run-once.mjs
 * @returns {object[]} one row per benchmark: its id, benchmark, baseline, goal and `byNode`
 *   (label → cell)
 */
export function combineRuns(nodes) {
  const order = [];
  const first = new Map();
  for (const node of nodes)
    for (const run of node.runs)
      for (const row of run.rows)
        if (!first.has(row.id)) {
          first.set(row.id, row);
          order.push(row.id);
        }
  return order.map((id) => {
    const template = first.get(id);
    const peer = template.table === 'peers';
    const byNode = {};
    for (const node of nodes) {
      const rows = node.runs.map((run) => run.rows.find((row) => row.id === id));
      byNode[node.label] = peer ? peerCell(rows) : goalCell(rows);
    }
    const measured = nodes.flatMap((node) => node.runs.map((run) => run.rows.find((row) => row.id === id)));
    const goal = measured.find((row) => row?.goal !== undefined)?.goal;
    return peer
      ? { id, table: 'peers', benchmark: template.benchmark, peer: template.peer, request: template.request, byNode }
      : { id, benchmark: template.benchmark, baseline: template.baseline, goal, byNode };
  });
}

function show(cell) {
  const times = (x) => `${x.toFixed(2)}×`;
  if (cell.kind === 'ratio')
    return cell.min === cell.max ? times(cell.value) : `${times(cell.value)} (${times(cell.min)}–${times(cell.max)})`;
  const unit = cell.unit === undefined ? '' : ` ${cell.unit}`;
  const n = (x) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
  return cell.min === cell.max ? `${n(cell.value)}${unit}` : `${n(cell.value)}${unit} (${n(cell.min)}–${n(cell.max)})`;
}

function metOf(cell) {
  if (cell.status === 'skipped') return '—';
  if (cell.met === undefined) return cell.problems.length ? `invalid: ${cell.problems.join('; ')}` : '—';
  if (cell.met) return 'met';
  return cell.problems.length ? `not met: ${cell.problems.join('; ')}` : 'not met';
}

/**
 * The goals table: per Node, the median over runs with the range in brackets, met / not met,
 * and the ratio by CPU time per request (what a quiet machine would show; HTTP rows only).
 * @param {object[]} rows from combineRuns
 * @param {string[]} labels the Node versions, in column order
 */
export function formatCombinedTable(rows, labels) {
  const head = [
    'benchmark',
    'baseline',
    'goal',
    ...labels.flatMap((l) => [`${l} (range over runs)`, `${l} met`, `${l} by CPU time`]),
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const row of rows) {
    if (row.table === 'peers') continue;
    const cells = labels.flatMap((label) => {
      const cell = row.byNode[label];
      if (cell === undefined || cell.status === 'skipped') return [cell?.reason ?? 'not run', '—', '—'];
      return [show(cell), metOf(cell), cell.cpuRatio === undefined ? '—' : timesRange(cell.cpuRatio)];
    });
    lines.push(`| ${[row.benchmark, row.baseline, row.goal ?? '—', ...cells].join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The peers table: per Node, peer ÷ raw and cloudfn ÷ peer, medians over runs with ranges. */
export function formatCombinedPeerTable(rows, labels) {
  const head = ['peer', 'request', ...labels.flatMap((l) => [`${l}: peer ÷ raw`, `${l}: cloudfn ÷ peer`])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const times = (s) =>
    s.min === s.max ? `${s.value.toFixed(2)}×` : `${s.value.toFixed(2)}× (${s.min.toFixed(2)}×–${s.max.toFixed(2)}×)`;
  for (const row of rows) {
    if (row.table !== 'peers') continue;
    const cells = labels.flatMap((label) => {
      const cell = row.byNode[label];
      if (cell === undefined || cell.status === 'skipped') return [cell?.reason ?? 'not run', '—'];
      const invalid = cell.problems.length ? ` (invalid: ${cell.problems.join('; ')})` : '';
      return [`${times(cell.ratioToRaw)}${invalid}`, times(cell.cloudfnRatio)];
    });
    lines.push(`| ${[row.peer, row.request, ...cells].join(' | ')} |`);
  }
  return lines.join('\n');
}
