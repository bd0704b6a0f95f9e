/**
 * The rooms of src/ (a folder, or a file at the top level) and which way they import: the dev
 * server is an assembly at the top, so nothing it assembles (the local services of
 * src/platform and src/schedule, the build, the config's tooling, cloudfn/testing) imports
 * from src/dev, types included; and the drawing of src/ in docs/architecture.md holds exactly
 * the imports there are, so a new edge is drawn when it is made (as runtime-layers.test.ts
 * does for runtime/).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const SRC = join(REPO, 'src');
const RUNTIME = join(REPO, 'runtime');

/** The rooms that must not import from src/dev. */
const BELOW_DEV = ['platform', 'schedule', 'build', 'config', 'testing'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** The room of a path under src/ (`platform`, `own-package`), or `runtime` for runtime/. */
function roomOf(path: string): string | undefined {
  if (path.startsWith(RUNTIME + '/')) return 'runtime';
  if (!path.startsWith(SRC + '/')) return undefined;
  const rest = relative(SRC, path);
  return rest.includes('/') ? rest.split('/')[0]! : rest.replace(/\.ts$/, '');
}

interface Import {
  file: string;
  target: string;
}

const imports: Import[] = sourceFiles(SRC).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => ({
    file,
    target: resolve(dirname(file), match[1] ?? match[2]!).replace(/\.js$/, '.ts'),
  })),
);

/** Every room-to-room edge, as `from -> to`. */
function actualEdges(): string[] {
  const edges = new Set<string>();
  for (const { file, target } of imports) {
    const from = roomOf(file);
    const to = roomOf(target);
    if (from !== undefined && to !== undefined && from !== to) edges.add(`${from} -> ${to}`);
  }
  return [...edges].sort();
}

/**
 * The edges of the mermaid drawing under "Which way dependencies point" that names src/'s
 * rooms: nodes are `id["src/room"]` (or `id["runtime/"]`), an edge line is `a & b --> c & d`,
 * chains allowed.
 */
function drawnEdges(doc: string): string[] {
  const block = /```mermaid\n(flowchart LR\n[\s\S]*?)```/g;
  const drawing = [...doc.matchAll(block)].map((m) => m[1]!).find((text) => text.includes('["src/dev"]'));
  if (drawing === undefined) throw new Error('docs/architecture.md has no mermaid drawing naming src/dev');
  const labels = new Map<string, string>();
  for (const [, id, label] of drawing.matchAll(/(\w+)\["([^"]+)"\]/g))
    labels.set(id!, label === 'runtime/' ? 'runtime' : label!.replace(/^src\//, '').replace(/\.ts$/, ''));
  const edges = new Set<string>();
  for (const line of drawing.split('\n').slice(1)) {
    const steps = line
      .replace(/\["[^"]*"\]/g, '')
      .split('-->')
      .map((side) =>
        side
          .split('&')
          .map((id) => id.trim())
          .filter(Boolean),
      );
    for (let i = 0; i + 1 < steps.length; i++)
      for (const from of steps[i]!)
        for (const to of steps[i + 1]!) edges.add(`${labels.get(from) ?? from} -> ${labels.get(to) ?? to}`);
  }
  return [...edges].sort();
}

describe('the rooms of src/', () => {
  it('reads the imports it checks (the parser is not blind)', () => {
    expect(actualEdges()).toContain('dev -> platform');
    expect(actualEdges()).toContain('platform -> runtime');
    expect(drawnEdges('```mermaid\nflowchart LR\n  a["src/dev"] & b["src/cli"] --> c["runtime/"]\n```')).toEqual([
      'cli -> runtime',
      'dev -> runtime',
    ]);
  });

  it(`keeps ${BELOW_DEV.join(', ')} free of src/dev, types included`, () => {
    const upward = imports
      .filter(({ file, target }) => BELOW_DEV.includes(roomOf(file)!) && roomOf(target) === 'dev')
      .map(({ file, target }) => `${relative(REPO, file)} -> ${relative(REPO, target)}`);
    expect(upward).toEqual([]);
  });

  it('draws in docs/architecture.md exactly the imports between the rooms', () => {
    const doc = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
    const drawn = drawnEdges(doc);
    const actual = actualEdges();
    expect({
      missing: actual.filter((e) => !drawn.includes(e)),
      extra: drawn.filter((e) => !actual.includes(e)),
    }).toEqual({
      missing: [],
      extra: [],
    });
  });
});
