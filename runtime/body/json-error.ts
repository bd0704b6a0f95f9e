/**
 * Where a JSON text goes wrong, as "line L, column C": V8's own message carries a position
 * only on some Node versions, so on failure (the cold path) the text is scanned again by
 * this small RFC 8259 validator. It uses an explicit stack, so deep nesting cannot
 * overflow the call stack.
 */

enum Expect {
  Value,
  ValueOrEnd, // after '['
  KeyOrEnd, // after '{'
  Key, // after ',' in an object
  Colon,
  CommaOrEnd,
}

/**
 * Describes the first syntax error of `text`, e.g.
 * `unexpected '}' at line 1, column 6 (position 5)`, or `undefined` if the text is valid.
 * @example describeJsonError('{"a":}') // "unexpected '}' at line 1, column 6 (position 5)"
 */
export function describeJsonError(text: string): string | undefined {
  const at = findJsonError(text);
  if (at === -1) return undefined;
  const { line, column } = lineColumn(text, at);
  const what = at >= text.length ? 'end of input' : describeChar(text.codePointAt(at) as number);
  return `unexpected ${what} at line ${line}, column ${column} (position ${at})`;
}

/** The index of the first offending character (text.length for a premature end), or -1. */
export function findJsonError(text: string): number {
  const n = text.length;
  const stack: number[] = []; // 0x5b '[' or 0x7b '{'
  let expect = Expect.Value;
  let i = skipSpace(text, 0);
  while (i < n) {
    const c = text.charCodeAt(i);
    switch (expect) {
      case Expect.Colon:
        if (c !== 0x3a) return i;
        i = skipSpace(text, i + 1);
        expect = Expect.Value;
        continue;
      case Expect.CommaOrEnd: {
        const open = stack[stack.length - 1];
        if (open === undefined) return i;
        if (c === 0x2c) {
          expect = open === 0x7b ? Expect.Key : Expect.Value;
        } else if ((c === 0x5d && open === 0x5b) || (c === 0x7d && open === 0x7b)) {
          stack.pop();
        } else {
          return i;
        }
        i = skipSpace(text, i + 1);
        continue;
      }
      case Expect.KeyOrEnd:
      case Expect.Key:
        if (c === 0x7d && expect === Expect.KeyOrEnd) {
          stack.pop();
          expect = Expect.CommaOrEnd;
          i = skipSpace(text, i + 1);
          continue;
        }
        if (c !== 0x22) return i;
        i = scanString(text, i);
        if (i < 0) return -i - 1;
        expect = Expect.Colon;
        i = skipSpace(text, i);
        continue;
      case Expect.ValueOrEnd:
      case Expect.Value:
        if (c === 0x5d && expect === Expect.ValueOrEnd) {
          stack.pop();
          expect = Expect.CommaOrEnd;
          i = skipSpace(text, i + 1);
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          stack.push(c);
          expect = c === 0x7b ? Expect.KeyOrEnd : Expect.ValueOrEnd;
          i = skipSpace(text, i + 1);
          continue;
        }
        i = scanScalar(text, i);
        if (i < 0) return -i - 1;
        expect = Expect.CommaOrEnd;
        i = skipSpace(text, i);
        continue;
    }
  }
  return expect === Expect.CommaOrEnd && stack.length === 0 ? -1 : n;
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** Scans a string, a number or a literal starting at i: the index after it, or -(bad index)-1. */
function scanScalar(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return scanString(text, i);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return scanNumber(text, i);
  for (const word of ['true', 'false', 'null']) {
    if (c === word.charCodeAt(0)) {
      for (let k = 1; k < word.length; k++) {
        if (text.charCodeAt(i + k) !== word.charCodeAt(k)) return -(i + k) - 1;
      }
      return i + word.length;
    }
  }
  return -i - 1;
}

function scanString(text: string, i: number): number {
  const n = text.length;
  for (i++; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -i - 1;
    if (c === 0x5c) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(text.charCodeAt(i + k))) return -Math.min(i + k, n) - 1;
        }
        i += 5;
      } else if ('"\\/bfnrt'.includes(text[i + 1] ?? '') && i + 1 < n) {
        i++;
      } else {
        return -Math.min(i + 1, n) - 1;
      }
    }
  }
  return -n - 1;
}

function scanNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30) {
    i++;
  } else {
    if (!isDigit(text.charCodeAt(i))) return -i - 1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return -i - 1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return -i - 1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

function describeChar(code: number): string {
  if (code < 0x20 || code === 0x7f) return `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(code)}'`;
}
