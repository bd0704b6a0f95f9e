/**
 * The structure rules a reviewer would otherwise check by hand: no import cycle in runtime/ or
 * src/ (type imports count, since they tie the files together for a reader too), runtime/
 * imports nothing from src/, and every source file opens with a comment on what it owns.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const files = [...sourceFiles(join(REPO, 'runtime')), ...sourceFiles(join(REPO, 'src'))];

/** Every relative specifier of `import … from`, `export … from` and `import('…')`, type-only ones included. */
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[1] ?? match[2]!;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    found.push(target);
  }
  return found;
}

const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => target !== file)]));

/** Every cycle, as the list of files around it (Tarjan's strongly connected components). */
function cycles(): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(relative(REPO, member));
      } while (member !== node);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return out;
}

describe('the structure of runtime/ and src/', () => {
  it('finds the imports it checks (the parser is not blind)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(REPO, 'runtime', 'app.ts'))).toContain(join(REPO, 'runtime', 'request', 'handle.ts'));
    // A type-only import is an edge too.
    expect(graph.get(join(REPO, 'runtime', 'request', 'exchange.ts'))).toContain(
      join(REPO, 'runtime', 'request', 'router.ts'),
    );
  });

  it('has no import cycle, type imports included', () => {
    expect(cycles()).toEqual([]);
  });

  it('keeps runtime/ free of src/: what is deployed does not depend on the tooling', () => {
    const crossing = [...graph]
      .filter(([file]) => file.startsWith(join(REPO, 'runtime') + '/'))
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => t.startsWith(join(REPO, 'src') + '/'))
          .map((t) => `${relative(REPO, file)} -> ${relative(REPO, t)}`),
      );
    expect(crossing).toEqual([]);
  });

  it('opens every source file with a comment saying what it owns', () => {
    // A shebang line may come first.
    const opening = (file: string): string => readFileSync(file, 'utf8').replace(/^#!.*\n/, '');
    const bare = files
      .filter((file) => !/^\s*(\/\*\*|\/\*|\/\/)/.test(opening(file)))
      .map((file) => relative(REPO, file));
    expect(bare).toEqual([]);
  });
});
