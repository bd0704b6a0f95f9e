/**
 * The `.env` file of a project, for `cloudfn dev`: parsed here (no dependency) and applied to
 * `process.env` with one precedence, documented in docs/dev.md: values injected by the caller
 * (`startDevServer({ env })`) win, then the real environment, then `.env`.
 *
 * Grammar, one assignment per line: `[export ] KEY = value`. KEY is letters, digits, `_`, `.`
 * and `-`, not starting with a digit. A value is unquoted (trimmed; the first `#` starts a
 * comment, as in dotenv and `node --env-file`, so `A=a#b` is `a`),
 * single-quoted or backquoted (literal, may span lines), or double-quoted (may span lines;
 * `\n`, `\r`, `\t`, `\"` and `\\` are escapes). `#` lines and blank lines are skipped. There is
 * no `${VAR}` expansion. A later assignment of the same key wins.
 */
import { readFileSync } from 'node:fs';

/** What a `.env` text holds: the values, and lines that could not be read. */
export interface ParsedDotenv {
  values: Record<string, string>;
  /** e.g. `line 3: expected KEY=value, got "oops"` */
  problems: string[];
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_.-][\w.-]*)\s*=\s*/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Parses the text of a `.env` file.
 * @example parseDotenv('A=1\nB="two words" # comment') // { values: { A: '1', B: 'two words' }, problems: [] }
 */
export function parseDotenv(text: string): ParsedDotenv {
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  const problems: string[] = [];
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let at = 0;
  let line = 1;
  while (at < source.length) {
    let end = source.indexOf('\n', at);
    if (end === -1) end = source.length;
    const current = source.slice(at, end);
    const startLine = line;
    if (current.trim() === '' || current.trimStart().startsWith('#')) {
      at = end + 1;
      line++;
      continue;
    }
    const head = ASSIGNMENT.exec(current);
    if (head === null) {
      problems.push(`line ${startLine}: expected KEY=value, got ${JSON.stringify(current.trim())}`);
      at = end + 1;
      line++;
      continue;
    }
    const key = head[1]!;
    const valueStart = at + head[0].length;
    const quote = source[valueStart];
    if (quote === '"' || quote === "'" || quote === '`') {
      const closed = findClosingQuote(source, valueStart + 1, quote);
      if (closed === -1) {
        problems.push(`line ${startLine}: the value of ${key} opens a ${quote} quote that is never closed`);
        at = end + 1;
        line++;
        continue;
      }
      const raw = source.slice(valueStart + 1, closed);
      values[key] = quote === '"' ? raw.replace(/\\([nrt"\\])/g, (_m, c: string) => ESCAPES[c]!) : raw;
      line += countNewlines(source, at, closed);
      const after = source.indexOf('\n', closed);
      const rest = source.slice(closed + 1, after === -1 ? source.length : after).trim();
      if (rest !== '' && !rest.startsWith('#'))
        problems.push(`line ${line}: unexpected ${JSON.stringify(rest)} after the quoted value of ${key}`);
      at = after === -1 ? source.length : after + 1;
      line++;
      continue;
    }
    let value = source.slice(valueStart, end);
    // dotenv and `node --env-file` both end an unquoted value at its first `#`, with or without
    // a space before it; production reads .env with one of them, so dev must cut in the same place.
    const comment = value.indexOf('#');
    if (comment !== -1) value = value.slice(0, comment);
    values[key] = value.trim();
    at = end + 1;
    line++;
  }
  return { values, problems };
}

function findClosingQuote(source: string, from: number, quote: string): number {
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (c === '\\' && quote === '"') {
      i++;
      continue;
    }
    if (c === quote) return i;
  }
  return -1;
}

function countNewlines(source: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (source.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * Applies `.env` values to an environment under the dev precedence, and re-applies them when
 * the file changes: keys it set earlier and no longer holds are removed, keys the caller or the
 * real environment set are never touched.
 */
export class DotenvLayer {
  readonly file: string;
  readonly #env: NodeJS.ProcessEnv;
  /** Keys present before this layer (real environment and injected values): never overwritten. */
  readonly #protected: Set<string>;
  /** The values of the file's last read. */
  #values: Readonly<Record<string, string>> = {};
  /** Keys this layer set, with the value it set. */
  readonly #owned = new Map<string, string>();

  /**
   * @param file path of the `.env` file
   * @param env the environment to write into @default process.env
   */
  constructor(file: string, env: NodeJS.ProcessEnv = process.env) {
    this.file = file;
    this.#env = env;
    this.#protected = new Set(Object.keys(env));
  }

  /**
   * Reads the file (a missing file is empty) and applies it. Returns the problems found and
   * the keys whose value changed.
   * @example new DotenvLayer('/srv/app/.env').load() // { problems: [], changed: ['DB_URL'] }
   */
  load(): { problems: string[]; changed: string[]; skipped: string[] } {
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        return { problems: [`cannot read: ${(error as Error).message}`], changed: [], skipped: [] };
    }
    const { values, problems } = parseDotenv(text);
    this.#values = values;
    const changed: string[] = [];
    const skipped: string[] = [];
    for (const [key, value] of this.#owned) {
      if (!(key in values)) {
        // The key is gone from the file: if the layer still owns the value, remove it.
        if (this.#env[key] === value) delete this.#env[key];
        this.#owned.delete(key);
        changed.push(key);
      }
    }
    for (const [key, value] of Object.entries(values)) {
      if (this.#protected.has(key)) {
        skipped.push(key);
        continue;
      }
      if (this.#owned.get(key) !== value) changed.push(key);
      this.#env[key] = value;
      this.#owned.set(key, value);
    }
    return { problems, changed, skipped };
  }

  /** Removes every key this layer set (when the dev server closes). */
  /** The value the file gave `key` at its last read, applied or not. */
  fileValue(key: string): string | undefined {
    return this.#values[key];
  }

  /**
   * Hands `key` to another layer that sets it later and wins: this layer stops owning it and
   * never writes it again. Returns true when this layer had set it (so nothing was there before).
   */
  release(key: string): boolean {
    this.#protected.add(key);
    return this.#owned.delete(key);
  }

  unload(): void {
    for (const [key, value] of this.#owned) if (this.#env[key] === value) delete this.#env[key];
    this.#owned.clear();
  }
}
