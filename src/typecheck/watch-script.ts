/**
 * The program the type-check child runs (`node -e`), as text: it loads the project's own
 * TypeScript, watches with `createWatchProgram` (incremental, no emit) and sends each
 * finished check's errors to the dev server over IPC. It is a string so it runs the same from
 * the sources (tests) and from dist/, and it exits when the dev server goes away.
 */
export const WATCH_SCRIPT = String.raw`
const path = require('node:path');
const ts = require(process.env.CLOUDFN_TS_PATH);
const root = process.env.CLOUDFN_TS_ROOT;
process.on('disconnect', () => process.exit(0));
let pending = [];
let started = performance.now();
function plain(d) {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const code = 'TS' + d.code;
  if (d.file === undefined || d.start === undefined) return { file: '', line: 0, column: 0, code, message, lineText: '', length: 0 };
  const at = d.file.getLineAndCharacterOfPosition(d.start);
  const lineText = d.file.text.split(/\r?\n/)[at.line] || '';
  return { file: path.relative(root, d.file.fileName).split(path.sep).join('/'), line: at.line + 1, column: at.character + 1, code, message, lineText, length: d.length || 1 };
}
const host = ts.createWatchCompilerHost(
  process.env.CLOUDFN_TS_CONFIG,
  { noEmit: true, incremental: true, tsBuildInfoFile: process.env.CLOUDFN_TS_BUILDINFO },
  ts.sys,
  ts.createSemanticDiagnosticsBuilderProgram,
  (d) => { if (d.category === ts.DiagnosticCategory.Error) pending.push(plain(d)); },
  (status, _newLine, _options, errorCount) => {
    if (errorCount === undefined) {
      pending = [];
      started = performance.now();
      process.send({ type: 'checking' });
      return;
    }
    process.send({ type: 'report', diagnostics: pending, ms: Math.round(performance.now() - started) });
    pending = [];
  },
);
ts.createWatchProgram(host);
`;
