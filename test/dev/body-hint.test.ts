// A body whose Content-Type does not match it gets a hint in dev, naming the likely type; the
// params stay what the Content-Type says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyHint, likelyContentType } from '../../src/dev/body-hint.js';
import { startProject, type DevProject } from './project.js';

describe('likelyContentType', () => {
  it.each([
    ['application/x-www-form-urlencoded', '{"name":"Ada"}', 'application/json'],
    ['text/plain;charset=utf-8', ' [1, 2] ', 'application/json'],
    ['text/plain', 'a=1&b=x+y', 'application/x-www-form-urlencoded'],
    ['application/x-www-form-urlencoded', 'a=1&b=2', undefined],
    ['text/plain', 'hello world', undefined],
    ['text/plain', '{not json', undefined],
    ['application/json', '{"a":1}', undefined],
    [undefined, '{"a":1}', undefined],
    ['text/plain', '', undefined],
  ])('%s with %j → %s', (type, body, likely) => {
    expect(likelyContentType(type, Buffer.from(body))).toBe(likely);
  });

  it('says what params became and how to send the likely type', () => {
    expect(bodyHint('application/x-www-form-urlencoded', Buffer.from('{"a":1}'))).toBe(
      "the body looks like application/json but was sent as Content-Type application/x-www-form-urlencoded, so params is a form (its keys are the JSON text); if you meant application/json, send -H 'Content-Type: application/json' (curl --json '...' sets it; fetch: headers: { 'Content-Type': 'application/json' })",
    );
  });
});

describe('cloudfn dev with a mismatched body', () => {
  let p: DevProject;
  beforeAll(async () => {
    p = await startProject();
  });
  afterAll(() => p?.close());

  it('logs the hint with the request logid, and keeps the data as its type says', async () => {
    // What `curl -d '{"name":"Ada"}'` sends.
    const form = await p.get('/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-platform-logid': 'hint-form' },
      body: '{"name":"Ada"}',
    });
    expect(form.json.params).toEqual({ '{"name":"Ada"}': '' });
    const hint = p.records.find((r) => r.logid === 'hint-form' && r['hint'] === 'content-type');
    expect(hint).toMatchObject({ level: 'warn', function: 'echo' });
    expect(hint?.msg).toMatch(
      /looks like application\/json but was sent as Content-Type application\/x-www-form-urlencoded/,
    );

    const text = await p.get('/echo', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-platform-logid': 'hint-text' },
      body: '{"name":"Ada"}',
    });
    expect(text.json.params).toBe('{"name":"Ada"}');
    expect(p.records.find((r) => r.logid === 'hint-text' && r['hint'] === 'content-type')?.msg).toMatch(
      /looks like application\/json but was sent as Content-Type text\/plain, so params is a string/,
    );

    await p.get('/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-platform-logid': 'hint-none' },
      body: '{"name":"Ada"}',
    });
    expect(p.records.filter((r) => r.logid === 'hint-none').map((r) => r['hint'])).not.toContain('content-type');
  });
});
