/**
 * The console page's "Paste curl" parser (src/dev/console/page/curl.ts), as a table: the shell
 * words a pasted command is made of (quotes, `$'…'`, line continuations) and the draft each kind
 * of curl command becomes. The page test (test/e2e/console.test.ts) pastes one command through
 * the browser and runs a copied one with the real curl; these cases cover the parser's corners.
 */
import { describe, expect, it } from 'vitest';
import { parseCurl, shellQuote, shellWords, toCurl } from '../../src/dev/console/page/curl.js';

describe('shellWords', () => {
  it.each([
    [`curl -H 'a: b' "x y"`, ['curl', '-H', 'a: b', 'x y']],
    [`curl \\\n  -d 'it'\\''s'`, ['curl', '-d', "it's"]],
    [`curl \\\r\n  x`, ['curl', 'x']],
    [`curl $'a\\nb\\x41\\''`, ['curl', "a\nbA'"]],
    [`curl "a\\"b\\$c\\d"`, ['curl', 'a"b$c\\d']],
    [`curl a\\ b`, ['curl', 'a b']],
    [`curl ''`, ['curl', '']],
  ])('splits %j', (command, words) => {
    expect(shellWords(command)).toEqual(words);
  });

  it.each([
    [`curl 'open`, 'unclosed single quote'],
    [`curl "open`, 'unclosed double quote'],
    [`curl $'open`, "unclosed $' quote"],
  ])('names the quote left open in %j', (command, message) => {
    expect(() => shellWords(command)).toThrow(message);
  });
});

describe('parseCurl', () => {
  it('reads the method, the URL and its query, headers and a JSON body', () => {
    const draft = parseCurl(
      `curl -X POST 'http://127.0.0.1:9/echo?lang=en&q=a%20b' \\\n  -H 'x-pasted: 1' -H 'Content-Type: application/json' \\\n  --data-raw '{"pasted":true}'`,
    );
    expect(draft.method).toBe('POST');
    expect(draft.path).toBe('/echo');
    expect(draft.query.filter((r) => r.name !== '').map((r) => [r.name, r.value])).toEqual([
      ['lang', 'en'],
      ['q', 'a b'],
    ]);
    // The editor sets application/json from the body type: the pasted header is dropped.
    expect(draft.headers.filter((r) => r.name !== '').map((r) => [r.name, r.value])).toEqual([['x-pasted', '1']]);
    expect(draft.bodyType).toBe('json');
    expect(draft.json).toBe('{"pasted":true}');
  });

  it('takes POST from a body, a form body from -d, and --data-urlencode encoded', () => {
    const draft = parseCurl(`curl localhost:8000/hello -d a=1 --data-urlencode 'b=x y'`);
    expect(draft.method).toBe('POST');
    expect(draft.path).toBe('/hello');
    expect(draft.bodyType).toBe('urlencoded');
    expect(draft.form.filter((r) => r.name !== '').map((r) => [r.name, r.value])).toEqual([
      ['a', '1'],
      ['b', 'x y'],
    ]);
  });

  it('moves -d into the query with -G', () => {
    const draft = parseCurl(`curl -G http://h/list -d page=2 -d 'q=a b'`);
    expect(draft.method).toBe('GET');
    expect(draft.query.filter((r) => r.name !== '').map((r) => [r.name, r.value])).toEqual([
      ['page', '2'],
      ['q', 'a b'],
    ]);
  });

  it('reads --json, glued short options and --opt=value', () => {
    const draft = parseCurl(`curl -XPOST -HAccept:text/plain --url=http://h/a --json '{"a":1}'`);
    expect(draft.method).toBe('POST');
    expect(draft.path).toBe('/a');
    expect(draft.bodyType).toBe('json');
    expect(draft.headers.filter((r) => r.name !== '').map((r) => [r.name, r.value])).toEqual([
      ['Accept', 'text/plain'],
    ]);
  });

  it('reads -F fields and file parts as a multipart body', () => {
    const draft = parseCurl(`curl -F title=trip -F 'video=@clip.mp4;type=video/mp4' http://localhost:8000/echo`);
    expect(draft.bodyType).toBe('multipart');
    expect(draft.parts).toEqual([
      { name: 'title', value: 'trip', enabled: true, kind: 'field' },
      { name: 'video', value: 'clip.mp4', enabled: true, kind: 'file' },
    ]);
  });

  it('keeps a text body and its own content type', () => {
    const draft = parseCurl(`curl http://h/t -H 'content-type: text/csv' -d 'a,b'`);
    expect(draft.bodyType).toBe('text');
    expect(draft.text).toBe('a,b');
    expect(draft.headers.some((r) => r.name === 'content-type' && r.value === 'text/csv')).toBe(true);
  });

  it('skips the options it does not know, and their values when they take one', () => {
    const draft = parseCurl(`curl -s -o out.json --compressed -m 5 -u ann:pw http://h/x`);
    expect(draft.path).toBe('/x');
    expect(draft.method).toBe('GET');
  });

  it.each([
    ['wget http://h/', 'starts with curl'],
    ['curl -s', 'no URL'],
    ['curl http://h/ -H', '-H needs a value'],
    ['curl http://h/ -F novalue', '-F needs name=value'],
  ])('refuses %j, saying why', (command, message) => {
    expect(() => parseCurl(command)).toThrow(message);
  });

  it('reads back the command it copies', () => {
    const draft = parseCurl(`curl -X POST 'http://h/echo?x=1' -H 'x-a: b' -d '{"n":1}'`);
    const again = parseCurl(toCurl(draft, 'http://127.0.0.1:8000'));
    expect(again).toEqual(draft);
  });
});

describe('shellQuote', () => {
  it.each([
    ['plain/path-1.txt', 'plain/path-1.txt'],
    ['a b', `'a b'`],
    [`it's`, `'it'\\''s'`],
  ])('quotes %j for a shell', (word, quoted) => {
    expect(shellQuote(word)).toBe(quoted);
    expect(shellWords(`x ${quoted}`)).toEqual(['x', word]);
  });
});
