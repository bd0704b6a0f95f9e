/**
 * The dev server's terminal output: the same records as `cloudfn start`'s JSON lines, printed
 * for a person. A request line reads `POST /hello 200 3.1 ms 512 B logid=…`; a function's line
 * reads `hello info  message key=value logid=…`; multi-line messages and stacks keep their lines.
 * Colours follow the usual conventions: on for a TTY, off when `NO_COLOR` is set (non-empty) or
 * `TERM=dumb`, and `FORCE_COLOR` (non-zero) forces them on.
 */
import { inspect } from 'node:util';
import type { LogLevel, LogRecord, LogSink } from '../../runtime/log/record.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';

/** Whether to colour output written to `stream`, from the stream and the environment. */
export function shouldColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env['TERM'] === 'dumb') return false;
  return stream.isTTY === true;
}

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  gray: [90, 39],
} as const;
type Style = keyof typeof CODES;
type Paint = (style: Style, text: string) => string;

const plain: Paint = (_style, text) => text;
const ansi: Paint = (style, text) => `\x1b[${CODES[style][0]}m${text}\x1b[${CODES[style][1]}m`;

const LEVEL_STYLE: Record<LogLevel, Style> = {
  log: 'blue',
  info: 'green',
  debug: 'gray',
  warn: 'yellow',
  error: 'red',
};
/** Fields every record has, printed in their own places rather than as key=value. */
const OWN_FIELDS = new Set(['level', 'time', 'logid', 'trace_id', 'span_id', 'function', 'msg', 'stack']);

function isRequestLine(record: LogRecord): boolean {
  return (
    typeof record['method'] === 'string' &&
    typeof record['status'] === 'number' &&
    typeof record['durationMs'] === 'number' &&
    typeof record['bytes'] === 'number'
  );
}

function statusStyle(status: number): Style {
  return status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green';
}

function formatRequest(record: LogRecord, paint: Paint, trace: boolean): string {
  const status = record['status'] as number;
  const head = `${paint('bold', String(record['method']))} ${String(record['path'])} ${paint(statusStyle(status), String(status))} ${String(record['durationMs'])} ms ${String(record['bytes'])} B`;
  const error = typeof record['error'] === 'string' ? ' ' + paint('dim', firstLine(record['error'], 160)) : '';
  const trigger = record['trigger'] === 'console_debug' ? ' ' + paint('dim', 'from console') : '';
  const traced =
    trace && typeof record['trace_id'] === 'string' ? ' ' + paint('dim', `trace=${record['trace_id']}`) : '';
  return `${head} ${paint('dim', 'logid=' + record.logid)}${traced}${trigger}${error}`;
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n', 1)[0]!;
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

function formatFields(record: LogRecord, color: boolean): string {
  const parts: string[] = [];
  for (const key of Object.keys(record)) {
    if (OWN_FIELDS.has(key)) continue;
    const value = record[key];
    const shown =
      typeof value === 'string' && !/[\s"=]/.test(value) && value !== ''
        ? value
        : inspect(value, { colors: color, depth: 4, breakLength: Infinity, compact: true });
    parts.push(`${key}=${shown}`);
  }
  return parts.join(' ');
}

/**
 * Formats one record as the terminal shows it (without the trailing newline).
 * @example formatRecord({ level: 'info', logid: 'a1', function: 'hello', time: 0, msg: 'hi' }, false) // 'hello info  hi logid=a1'
 */
export function formatRecord(record: LogRecord, color: boolean, trace = false): string {
  const paint = color ? ansi : plain;
  if (isRequestLine(record)) return formatRequest(record, paint, trace);
  const level = record.level;
  const style = LEVEL_STYLE[level] ?? 'blue';
  const runtime = record.function === RUNTIME_FUNCTION || record.function === '';
  const who = paint(runtime ? 'cyan' : 'magenta', record.function || RUNTIME_FUNCTION);
  const label = runtime && level === 'info' ? '' : paint(style, level.padEnd(5)) + ' ';
  let text = record.msg ?? '';
  if (level === 'error' && text !== '') text = paint('red', text);
  // The runtime's own lines say everything in their message; their fields are for machines.
  const fields = runtime ? '' : formatFields(record, color);
  let line = `${who} ${label}${text}${text !== '' && fields !== '' ? ' ' : ''}${fields}`;
  if (record.logid !== '') line += ' ' + paint('dim', 'logid=' + record.logid);
  if (typeof record['stack'] === 'string') line += '\n' + paint('dim', indent(record['stack']));
  return line;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => '  ' + l)
    .join('\n');
}

let stdoutBroken: boolean | undefined;

/**
 * Writes to stdout until its reader goes away (`cloudfn dev | head`): then the lines are
 * dropped. Without the error listener, each failed write would raise an uncaught EPIPE, whose
 * report is written to stdout again, in a loop.
 */
function writeStdout(text: string): void {
  if (stdoutBroken === undefined) {
    stdoutBroken = false;
    process.stdout.on('error', () => {
      stdoutBroken = true;
    });
  }
  if (!stdoutBroken) process.stdout.write(text);
}

/** Options of `createPrettySink`. */
export interface PrettySinkOptions {
  /** Where text goes. @default process.stdout.write */
  write?: (text: string) => void;
  /** Colour the output. @default shouldColor(process.stdout) */
  color?: boolean;
  /**
   * Show each request line's trace id (`trace=…`), so that a call between services reads as
   * one trace in both services' lines. @default false (on in a session of several services)
   */
  trace?: boolean;
}

/**
 * A log sink printing records for a person, one record per write (the dev server has little
 * traffic, and a crash should not lose the lines before it).
 * @example new Logger(createPrettySink({ color: false }))
 */
export function createPrettySink(options: PrettySinkOptions = {}): LogSink {
  const write = options.write ?? writeStdout;
  const color = options.color ?? shouldColor(process.stdout);
  const trace = options.trace === true;
  return { write: (record) => write(formatRecord(record, color, trace) + '\n') };
}
