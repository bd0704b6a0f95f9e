/**
 * The one help format of every command: usage lines, what it does, its options, examples, and
 * where its documentation pages are. `--help`, `cloudfn help <command>` and docs/cli.md (through
 * reference.ts) all print a command's `CommandHelp` with `formatHelp`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../own-package.js';

/** A command's help, as data. */
export interface CommandHelp {
  /** The command's name, e.g. `build`. */
  readonly name: string;
  /** Usage lines without the leading `cloudfn `, e.g. `build [root] [--outdir dist]`. */
  readonly usage: readonly string[];
  /** What the command does, one paragraph or more (already wrapped at 100 columns). */
  readonly description: string;
  /** `[flag, what it does]`, e.g. `['--outdir <dir>', 'where bundles go (default dist)']`. `--help` is added. */
  readonly options: readonly (readonly [string, string])[];
  /** `[command line without "cloudfn ", what it does]`; at least one. */
  readonly examples: readonly (readonly [string, string])[];
  /**
   * The shape of what `--json` prints, for the commands that have it: the same keys every time,
   * documented here so the help, docs/cli.md and the tests that parse it agree.
   * @default undefined (no --json)
   */
  readonly json?: string;
  /** Pages of docs/ that explain the command, most relevant first. */
  readonly pages: readonly string[];
}

/** How `formatHelp` names the pages: absolute paths on this machine, or relative links for docs/. */
export interface FormatHelpOptions {
  /** `local`: paths inside the installed package; `markdown`: links relative to docs/. @default 'local' */
  readonly pages?: 'local' | 'markdown';
}

/**
 * The absolute path of a page of cloudfn's docs/, or its repository path when the package
 * has no docs folder (a copy without it).
 * @example docsPage('dev.md') // '/home/ada/app/node_modules/cloudfn/docs/dev.md'
 */
export function docsPage(page: string): string {
  const root = packageRoot();
  const file = root === undefined ? undefined : join(root, 'docs', page);
  return file !== undefined && existsSync(file) ? file : `docs/${page} in cloudfn's repository`;
}

const HELP_OPTION = ['-h, --help', 'print this help'] as const;

/** Rows of two columns, the second aligned and wrapped under itself. */
function columns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows
    .map(([left, right]) => `  ${left.padEnd(width)}${right.replace(/\n/g, `\n  ${' '.repeat(width)}`)}`)
    .join('\n');
}

/**
 * A command's help in the one format: usage, description, options, examples, docs.
 * @example process.stdout.write(formatHelp(HELP) + '\n')
 */
export function formatHelp(help: CommandHelp, options: FormatHelpOptions = {}): string {
  const usage = help.usage.map((line, i) => `${i === 0 ? 'usage: ' : '       '}cloudfn ${line}`).join('\n');
  const examples = help.examples.map(([line, what]) => `  # ${what}\n  cloudfn ${line}`).join('\n');
  const pages =
    options.pages === 'markdown'
      ? help.pages.map((page) => `- [${page}](${page})`).join('\n')
      : help.pages.map((page, i) => `${i === 0 ? 'docs:' : '     '} ${docsPage(page)}`).join('\n');
  return [
    usage,
    help.description,
    `options:\n${columns([...help.options, HELP_OPTION])}`,
    `examples:\n${examples}`,
    ...(help.json === undefined ? [] : [`--json prints:\n${help.json.replace(/^/gm, '  ')}`]),
    pages,
  ].join('\n\n');
}
