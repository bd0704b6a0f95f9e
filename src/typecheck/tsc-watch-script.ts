/**
 * The program the type-check child runs (`node -e`) for a TypeScript driven by its `tsc` (7 and
 * later): it reruns `tsc --noEmit` when a source or config file changes (its own watch, since
 * `tsc --watch` of the native 7.0 missed saves in subfolders when tried) and sends each run's
 * output over IPC; the dev server reads it with tsc-cli.ts. It exits when the dev server goes away.
 */
export const TSC_WATCH_SCRIPT = String.raw`
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const root = process.env.CLOUDFN_TS_ROOT;
const args = JSON.parse(process.env.CLOUDFN_TSC_ARGS);
process.on('disconnect', () => process.exit(0));
let running = false;
let again = false;
let timer;
function run() {
  if (running) { again = true; return; }
  running = true;
  const started = performance.now();
  process.send({ type: 'checking' });
  execFile(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout, stderr) => {
    running = false;
    process.send({ type: 'output', output: stdout + stderr, ms: Math.round(performance.now() - started) });
    if (again) { again = false; run(); }
  });
}
function changed(_event, name) {
  if (name && !/\.(ts|tsx|mts|cts|json)$/.test(String(name))) return;
  clearTimeout(timer);
  timer = setTimeout(run, 100);
}
// The root's own files, and every folder but the ones that are not sources (node_modules can be huge).
fs.watch(root, changed);
for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
  if (!entry.isDirectory() || ['node_modules', '.cloudfn', 'dist', '.git'].includes(entry.name)) continue;
  fs.watch(path.join(root, entry.name), { recursive: true }, changed);
}
run();
`;
