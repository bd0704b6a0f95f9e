/**
 * Turning the TypeScript compiler's diagnostics into `TypeDiagnostic`s. The compiler is passed
 * in (the project's own copy, loaded at run time), so cloudfn never imports typescript itself.
 */
import { relative, sep } from 'node:path';
import type { TypeDiagnostic } from './format.js';

/** The few members of a diagnostic this module reads (structurally, from any TypeScript 4.x/5.x). */
interface TsDiagnostic {
  file?: {
    fileName: string;
    text: string;
    getLineAndCharacterOfPosition(pos: number): { line: number; character: number };
  };
  start?: number;
  length?: number;
  code: number;
  category: number;
  messageText: string | { messageText: string; next?: unknown[] };
}

/** The TypeScript members used: message flattening and the error category. */
export interface TsApi {
  flattenDiagnosticMessageText(text: TsDiagnostic['messageText'], newLine: string): string;
  DiagnosticCategory: { Error: number };
}

/**
 * The errors (not warnings or suggestions) among `diagnostics`, as plain data.
 * @example toTypeDiagnostics(ts, program.getSemanticDiagnostics(), root)
 */
export function toTypeDiagnostics(ts: TsApi, diagnostics: readonly unknown[], root: string): TypeDiagnostic[] {
  const out: TypeDiagnostic[] = [];
  for (const raw of diagnostics as readonly TsDiagnostic[]) {
    if (raw.category !== ts.DiagnosticCategory.Error) continue;
    const message = ts.flattenDiagnosticMessageText(raw.messageText, '\n');
    const code = `TS${raw.code}`;
    if (raw.file === undefined || raw.start === undefined) {
      out.push({ file: '', line: 0, column: 0, code, message, lineText: '', length: 0 });
      continue;
    }
    const { line, character } = raw.file.getLineAndCharacterOfPosition(raw.start);
    const lineText = raw.file.text.split(/\r?\n/)[line] ?? '';
    out.push({
      file: relative(root, raw.file.fileName).split(sep).join('/'),
      line: line + 1,
      column: character + 1,
      code,
      message,
      lineText,
      length: raw.length ?? 1,
    });
  }
  return out;
}
