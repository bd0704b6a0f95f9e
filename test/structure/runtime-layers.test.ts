/**
 * The layers of runtime/ that docs/architecture.md draws: each room (a folder, or a file at the
 * top level) imports at run time only the layers below it; a type-only import may point up,
 * since it loads nothing (imports.test.ts still refuses it in a cycle). Two rooms promise more:
 * log/ imports nothing of the runtime but types, and trace/ nothing at all. A new room has to be
 * placed in a layer here, and on the page.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const RUNTIME = resolve(import.meta.dirname, '..', '..', 'runtime');

/** Top to bottom, as the page draws them: a room imports values only from the layers after its own. */
const LAYERS: readonly (readonly string[])[] = [
  ['index.ts'],
  // all-errors.ts: every runtime error table joined, for cloudfn/runtime and the docs test (issue 44).
  ['all-errors.ts'],
  ['serve/'],
  // intranet/: the hook answering the platform's intranet hosts (issue 40), below serve/ which installs it.
  ['metrics/', 'function-service/', 'intranet/'],
  ['app.ts'],
  // admission/: the memory budget, the connection limit and shedding under overload (issue 39).
  ['admission/'],
  ['request/'],
  ['body/', 'contract/', 'log/', 'trace/'],
  ['options.ts'],
  ['options/'],
  ['errors.ts', 'types.ts', 'lazy-import.ts', 'closest.ts'],
  // option-kit.ts and error-table.ts: the option kit and the error-table helper (issue 34, item 2).
  ['shapes.ts', 'option-kit.ts', 'error-table.ts'],
];

/** Value imports against the layers, each with its reason. */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  // The primary's metrics reach workers that may have exited: the same guarded send as serve/.
  'metrics/cluster.ts -> serve/worker-message.ts': 'the guarded IPC send',
};

/** Rooms whose imports from the rest of the runtime must all be type-only, or absent. */
const TYPES_ONLY = ['log/'];
const NOTHING = ['trace/'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The room of a file: its folder under runtime/ (`request/`), or its name at the top level. */
const roomOf = (file: string): string => {
  const path = relative(RUNTIME, file);
  return path.includes('/') ? `${path.split('/')[0]}/` : path;
};

const layerOf = (room: string): number => LAYERS.findIndex((layer) => layer.includes(room));

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const STATEMENT =
  /(?:^|\n)\s*(?:import|export)\b([^'";]*?)\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** `import type …`, or braces whose every name is marked `type`: erased, loads nothing. */
function isTypeOnly(clause: string): boolean {
  if (/^\s*type\b/.test(clause)) return true;
  const names = /\{([^}]*)\}/
    .exec(clause)?.[1]
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return (
    !/^\s*\*/.test(clause) &&
    !/^\s*\w+\s*,/.test(clause) &&
    !!names?.length &&
    names.every((n) => n.startsWith('type '))
  );
}

const edges: Edge[] = sourceFiles(RUNTIME).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(STATEMENT)].map((match) => ({
    from: relative(RUNTIME, file),
    to: relative(RUNTIME, resolve(dirname(file), match[2] ?? match[3]!).replace(/\.js$/, '.ts')),
    typeOnly: match[3] === undefined && isTypeOnly(match[1]!),
  })),
);
const crossing = edges.filter((edge) => roomOf(join(RUNTIME, edge.from)) !== roomOf(join(RUNTIME, edge.to)));
const show = (edge: Edge): string => `${edge.from} -> ${edge.to}${edge.typeOnly ? ' (type)' : ''}`;

describe('the layers of runtime/', () => {
  it('reads the imports it checks (the parser is not blind)', () => {
    expect(crossing.map(show)).toContain('app.ts -> request/handle.ts');
    expect(crossing.map(show)).toContain('log/console-capture.ts -> request/exchange.ts (type)');
    expect(isTypeOnly(' { type A, type B } ')).toBe(true);
    expect(isTypeOnly(' { type A, B } ')).toBe(false);
    expect(isTypeOnly(' * as all ')).toBe(false);
  });

  it('places every room in a layer', () => {
    const rooms = [...new Set(sourceFiles(RUNTIME).map(roomOf))];
    expect(rooms.filter((room) => layerOf(room) < 0)).toEqual([]);
  });

  it('imports values only from the layers below, but for the listed exceptions', () => {
    const upward = crossing
      .filter((edge) => !edge.typeOnly && !(`${edge.from} -> ${edge.to}` in EXCEPTIONS))
      .filter((edge) => layerOf(roomOf(join(RUNTIME, edge.to))) <= layerOf(roomOf(join(RUNTIME, edge.from))));
    expect(upward.map(show)).toEqual([]);
    const used = new Set(crossing.map((edge) => `${edge.from} -> ${edge.to}`));
    expect(Object.keys(EXCEPTIONS).filter((exception) => !used.has(exception))).toEqual([]);
  });

  it('keeps log/ to types of the runtime, and trace/ to nothing of it', () => {
    const out = (rooms: string[]) =>
      crossing.filter((edge) => rooms.includes(roomOf(join(RUNTIME, edge.from))) && !edge.to.startsWith('..'));
    expect(
      out(TYPES_ONLY)
        .filter((edge) => !edge.typeOnly)
        .map(show),
    ).toEqual([]);
    expect(out(NOTHING).map(show)).toEqual([]);
  });
});
