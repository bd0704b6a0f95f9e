/**
 * `printJson`: how every command's `--json` writes: one JSON object and a newline on stdout,
 * nothing else there, and the exit code the command would have had without it.
 */

/**
 * Writes `value` as one line of JSON and returns `code`, for `return printJson(...)`.
 * @example return printJson({ valid: true }, 0);
 */
export function printJson(value: unknown, code: number): number {
  process.stdout.write(`${JSON.stringify(value)}\n`);
  return code;
}
