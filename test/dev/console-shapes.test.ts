/**
 * The console page is compiled for the browser without Node's types, so it imports the shapes
 * the dev server sends from the protocol module (src/dev/console/protocol.ts) that the server
 * imports too. The source check fails when the page declares a copy of a protocol type again; the
 * type checks, in console-shapes.test-d.ts, fail when a server module's type drifts from the protocol's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
it('declares no protocol type again in the page', () => {
  const console = resolve(import.meta.dirname, '../../src/dev/console');
  const protocol = readFileSync(join(console, 'protocol.ts'), 'utf8');
  const names = [...protocol.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!);
  const reexported = [...protocol.matchAll(/^export type \{ ([^}]+) \}/gm)].flatMap((m) => m[1]!.split(/,\s*/));
  expect(names).toContain('ConsoleMeta');
  expect(reexported).toContain('RequestInfo');
  const page = join(console, 'page');
  const copies: string[] = [];
  for (const file of readdirSync(page).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(page, file), 'utf8');
    for (const name of [...names, ...reexported])
      if (new RegExp(`^(?:export )?(?:interface|type) ${name}\\b`, 'm').test(text)) copies.push(`${file}: ${name}`);
  }
  expect(copies).toEqual([]);
});
