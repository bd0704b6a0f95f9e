/**
 * `cliReference`: docs/cli.md, the CLI reference, generated from every command's help (the
 * same `CommandHelp` that `--help` prints), so the page cannot say something the CLI does not.
 * `npm run reference` writes it; test/cli/reference.test.ts fails when it is stale.
 */
import { commands } from './commands.js';
import { formatHelp } from './help.js';

/** Where the page lives, relative to the package root. */
export const CLI_REFERENCE_PATH = 'docs/cli.md';

/**
 * The text of docs/cli.md.
 * @example writeFileSync('docs/cli.md', await cliReference())
 */
export async function cliReference(): Promise<string> {
  const sections: string[] = [];
  for (const [name, command] of Object.entries(commands)) {
    const { HELP } = await command.load();
    const { pages, ...rest } = HELP;
    const links = pages.filter((page) => page !== 'cli.md');
    sections.push(
      [
        `## cloudfn ${name}`,
        command.summary.charAt(0).toUpperCase() + command.summary.slice(1) + '.',
        '```text\n' + formatHelp({ ...rest, pages: [] }).trimEnd() + '\n```',
        links.length === 0 ? '' : `See ${links.map((page) => `[${page.replace(/\.md$/, '')}](${page})`).join(', ')}.`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
  }
  const index = Object.entries(commands)
    .map(([name, command]) => `| [\`${name}\`](#cloudfn-${name}) | ${command.summary} |`)
    .join('\n');
  return `<!-- Generated from the commands' help by \`npm run reference\` (src/cli/reference.ts); do not edit. -->

# CLI reference

Every command prints this help with \`cloudfn <command> --help\` or \`cloudfn help <command>\`.
Options, then environment variables, then \`cloudfn.config.*\`, then defaults: see
[configuration](configuration.md). A bad flag or value prints one line, \`cloudfn: <message>\`, on
stderr and exits 1.

## --json

\`build\`, \`keys\`, \`verify\`, \`doctor\` and \`trigger\` take \`--json\`: stdout is then exactly one
JSON object and a newline, whose shape is given under each command and kept stable (keys are only
ever added). The exit code is the same as without \`--json\`. A usage error (a bad flag, a missing
file) is still one line on stderr with exit 1 and nothing on stdout.

| command | what it does |
| --- | --- |
${index}

${sections.join('\n\n')}
`;
}
