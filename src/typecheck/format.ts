/**
 * How a type error is shown, in the terminal, in `cloudfn build` and on the console page:
 * `file:line:column: message TS2322` and a code frame, like esbuild's compile errors.
 */

/** One type error, in plain data (it crosses from the checker's process). */
export interface TypeDiagnostic {
  /** Relative to the project root, `/`-separated; empty for a global error (a bad tsconfig). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** `TS2322` */
  code: string;
  message: string;
  /** The source line, for the code frame. */
  lineText: string;
  /** Characters underlined from `column`. */
  length: number;
}

/**
 * `functions/hello.ts:3:9: Type 'string' is not assignable to type 'number'. TS2322` and a frame.
 * @example formatDiagnostic({ file: 'functions/hello.ts', line: 3, column: 9, code: 'TS2322', message: '...', lineText: '  const n: number = name;', length: 1 })
 */
export function formatDiagnostic(d: TypeDiagnostic): string {
  if (d.file === '') return `${d.message} ${d.code}`;
  const gutter = ' '.repeat(String(d.line).length);
  const pointer =
    ' '.repeat(Math.max(0, d.column - 1)) +
    '^'.repeat(Math.max(1, Math.min(d.length, d.lineText.length - d.column + 1)));
  return `${d.file}:${d.line}:${d.column}: ${d.message} ${d.code}\n  ${d.line} | ${d.lineText}\n  ${gutter} | ${pointer}`;
}

/**
 * Every diagnostic formatted, under a heading counting them.
 * @example formatReport(diagnostics) // '2 type errors:\nfunctions/a.ts:1:7: ...'
 */
export function formatReport(diagnostics: readonly TypeDiagnostic[]): string {
  const count = `${diagnostics.length} type error${diagnostics.length === 1 ? '' : 's'}`;
  return `${count}:\n${diagnostics.map(formatDiagnostic).join('\n')}`;
}
