// Every config key the docs list is accepted by cloudfn.config.json: the keys are read from the
// docs' own tables and prose, so a documented option the loader refuses fails here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../runtime/options.js';
import { loadConfigFile } from '../../../runtime/serve/config-file.js';
import { TOOL_CONFIG_KEYS } from '../../../src/build/project-config.js';

const docs = join(import.meta.dirname, '../../../docs');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-doc-keys-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'cloudfn.config.json'), JSON.stringify(config));
  return dir;
}

interface Row {
  key: string;
  /** The documented default as a JSON value, or undefined when the docs give none (`unset`). */
  value: unknown;
  /** `option` for a top-level key, `limit` for a key under `limits`. */
  kind: string;
}

/** Markdown tables as header cells and rows of cells. */
function tables(text: string): { header: string[]; rows: string[][] }[] {
  const found: { header: string[]; rows: string[][] }[] = [];
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  let current: string[][] | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim().startsWith('|')) {
      current = undefined;
      continue;
    }
    if (current === undefined) {
      current = [];
      found.push({ header: cells(line), rows: current });
    } else if (!/^\|[-| :]+\|$/.test(line.trim())) current.push(cells(line));
  }
  return found;
}

function jsonValue(cell: string): unknown {
  const code = /^`([^`]*)`/.exec(cell)?.[1];
  if (code !== undefined) return /^(\d+|true|false)$/.test(code) ? JSON.parse(code) : code;
  const number = /^\d+/.exec(cell)?.[0];
  return number === undefined ? undefined : Number(number);
}

/** The keys of docs/configuration.md's option and limit tables and of "`key` in cloudfn.config" in prose. */
function documentedKeys(): Row[] {
  const rows: Row[] = [];
  for (const page of ['configuration.md', 'build.md']) {
    const text = readFileSync(join(docs, page), 'utf8');
    for (const table of tables(text)) {
      const kind = table.header[0];
      if (kind !== 'option' && kind !== 'limit') continue;
      for (const row of table.rows) {
        const key = /^`([a-zA-Z]+)`$/.exec(row[0] ?? '')?.[1];
        // A row whose setting is an environment variable only ("`CLOUDFN_...` only") is no config key.
        if (/\bonly\b/.test(row[1] ?? '')) continue;
        if (key !== undefined) rows.push({ key, value: jsonValue(row[2] ?? ''), kind });
      }
    }
    for (const match of text.matchAll(/`([a-zA-Z]+)` in `?cloudfn\.config/g)) {
      rows.push({ key: match[1]!, value: undefined, kind: 'option' });
    }
  }
  return rows;
}

describe('the config keys the docs list', () => {
  const rows = documentedKeys();

  it('are found in the docs (the tables were parsed)', () => {
    const keys = rows.map((row) => row.key);
    expect(keys).toEqual(expect.arrayContaining(['port', 'healthPath', 'pingPath', 'metrics', 'maxBodySize']));
    expect(rows.filter((row) => row.kind === 'limit').length).toBeGreaterThan(5);
  });

  it.each(rows.map((row) => [row.key, row] as const))('accepts %s in cloudfn.config.json', async (key, row) => {
    const value = row.value ?? 'x-example';
    const config =
      row.kind === 'limit' ? { limits: { [key]: typeof value === 'number' ? value : 1000 } } : { [key]: value };
    // The docs list the tooling's keys too (devUser, liveData): every command reads them.
    const loaded = await loadConfigFile(project(config), { configKeys: TOOL_CONFIG_KEYS });
    if (row.value !== undefined) expect(() => resolveOptions({ config: loaded })).not.toThrow();
  });

  it('accepts an extension key only when told of it, and names it in the refusal otherwise', async () => {
    const root = project({ liveData: { path: '/live' } });
    await expect(loadConfigFile(root)).rejects.toThrow(/liveData is not an option/);
    await expect(loadConfigFile(root, { configKeys: ['liveData'] })).resolves.toMatchObject({
      liveData: { path: '/live' },
    });
  });

  it('applies healthPath and pingPath from the file', async () => {
    const loaded = await loadConfigFile(project({ healthPath: '/healthz', pingPath: 'off' }));
    const options = resolveOptions({ config: loaded });
    expect(options.healthPath).toBe('/healthz');
    expect(options.pingPath).toBeUndefined();
  });

  it('accepts the example file of docs/configuration.md', async () => {
    const text = readFileSync(join(docs, 'configuration.md'), 'utf8');
    const example = /## The config file\s+```json\n([\s\S]*?)```/.exec(text)?.[1];
    expect(example).toBeDefined();
    const loaded = await loadConfigFile(project(JSON.parse(example!)));
    expect(resolveOptions({ config: loaded }).port).toBe(8000);
  });
});
