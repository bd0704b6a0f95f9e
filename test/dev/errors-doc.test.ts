import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { devErrors } from '../../src/dev/index.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const section = /<!-- dev:begin -->([\s\S]*)<!-- dev:end -->/.exec(doc)?.[1] ?? '';

describe('the dev error table', () => {
  it('has a heading in the dev section of docs/errors.md for every code, and no other', () => {
    const headings = [...section.matchAll(/^### ([A-Z0-9_]+)\s*$/gm)].map((m) => m[1]);
    expect(headings.sort()).toEqual(Object.keys(devErrors).sort());
  });

  it('documents each code with its status', () => {
    for (const [code, spec] of Object.entries(devErrors)) {
      const entry = section.split(`### ${code}`)[1]?.split('### ')[0] ?? '';
      expect(entry, code).toContain(`Status ${spec.status}`);
    }
  });
});
