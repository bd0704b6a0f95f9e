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
// cloudfn imports the project cannot resolve are checked against the serving copy (self-types.ts),
// merged over the project's own paths.
const selfPaths = JSON.parse(process.env.CLOUDFN_TS_SELF_PATHS || 'null');
let extra = {};
if (selfPaths !== null) {
  const read = ts.readConfigFile(process.env.CLOUDFN_TS_CONFIG, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, path.dirname(process.env.CLOUDFN_TS_CONFIG));
  extra = { paths: Object.assign({}, parsed.options.paths, selfPaths) };
}
const host = ts.createWatchCompilerHost(
  process.env.CLOUDFN_TS_CONFIG,
  Object.assign({ noEmit: true, incremental: true, tsBuildInfoFile: process.env.CLOUDFN_TS_BUILDINFO }, extra),
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
