/**
 * `seedDatabase` and `readDatabase` from the built `cloudfn/testing`: a function called with
 * `invoke` reads what the test seeded and its writes are read back, each seed is a store of its
 * own (nothing leaks between tests, nothing reaches the project's .cloudfn), and bad data is
 * refused naming the collection and document.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Testing from '../../src/testing/index.js';
import { ensureDist, REPO } from './ensure-dist.js';
import { tempProject, type TempProject } from './project.js';

let testing: typeof Testing;
let project: TempProject;

beforeAll(async () => {
  ensureDist();
  testing = (await import(`${REPO}/dist/src/testing/index.js`)) as typeof Testing;
  project = tempProject({
    'functions/todos.ts': `import { dySDK } from '@open-dy/node-server-sdk';
export default async (params: { title?: string }) => {
  const todos = dySDK.database().collection('todos');
  if (params.title !== undefined) await todos.add({ _id: params.title, title: params.title, at: new Date('2026-03-01T00:00:00Z') });
  return (await todos.orderBy('_id', 'asc').get()).data.map((d) => d._id);
};
`,
  });
});
afterAll(() => project?.remove());

describe('seedDatabase and readDatabase', () => {
  it('seeds what a function reads, and reads back what it wrote, dates as Date', async () => {
    const { dataDir } = await testing.seedDatabase({
      todos: [
        { _id: 'a', title: 'a', due: new Date('2026-01-31T08:00:00Z') },
        { _id: 'b', title: 'b' },
      ],
    });
    const res = await testing.invoke(join(project.root, 'functions/todos.ts'), { query: { title: 'c' } });
    expect(res.json).toEqual(['a', 'b', 'c']);
    const data = await testing.readDatabase();
    expect(data['todos']).toHaveLength(3);
    expect(data['todos']![0]!['due']).toEqual(new Date('2026-01-31T08:00:00Z'));
    expect(data['todos']![2]).toEqual({ _id: 'c', title: 'c', at: new Date('2026-03-01T00:00:00Z') });
    expect(dataDir.startsWith(`${project.root}/`), `${dataDir} in ${project.root}`).toBe(false);
    expect(existsSync(join(project.root, '.cloudfn/platform'))).toBe(false);
  });

  it('gives each seed a store of its own: the previous test left nothing', async () => {
    await testing.seedDatabase({ scores: [{ points: 1 }] });
    const res = await testing.invoke(join(project.root, 'functions/todos.ts'));
    expect(res.json).toEqual([]);
    const data = await testing.readDatabase();
    expect(Object.keys(data)).toEqual(['scores']);
    expect(data['scores']![0]!['_id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refuses bad data naming the collection and the document', async () => {
    await expect(testing.seedDatabase({ todos: [{ _id: 'a' }, { _id: 'a' }] })).rejects.toThrow(
      'seedDatabase(): collection "todos", document 1 (_id "a"): another document of the collection has this _id; nothing was written',
    );
    await expect(testing.seedDatabase({ 'bad/name': [] })).rejects.toThrow(/collection "bad\/name"/);
  });
});
