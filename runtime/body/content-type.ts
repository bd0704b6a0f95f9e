/**
 * Reading a Content-Type header (RFC 9110 §8.3): `type/subtype *( OWS ";" OWS name=value )`,
 * where a value is a token or a quoted-string with backslash escapes. The media type is
 * compared lower-cased; parameter names are case-insensitive, values are kept as sent.
 */

/**
 * The lower-cased `type/subtype` of a Content-Type header, or `''` when there is none.
 * @example mediaType('Application/JSON; charset=utf-8') // 'application/json'
 */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  const type = semi === -1 ? contentType : contentType.slice(0, semi);
  return type.trim().toLowerCase();
}

/**
 * The value of one parameter of a Content-Type header (quotes and escapes removed), or
 * `undefined` when absent. The name is matched case-insensitively.
 * @example contentTypeParam('multipart/form-data; boundary="a b"', 'boundary') // 'a b'
 */
export function contentTypeParam(contentType: string | undefined, name: string): string | undefined {
  if (contentType === undefined) return undefined;
  let i = contentType.indexOf(';');
  if (i === -1) return undefined;
  const n = contentType.length;
  const wanted = name.toLowerCase();
  while (i < n) {
    // i is on a ';' (or past a value): skip separators and whitespace.
    while (i < n && isSeparatorOrSpace(contentType.charCodeAt(i))) i++;
    const nameStart = i;
    while (i < n && contentType.charCodeAt(i) !== 0x3d /* = */ && contentType.charCodeAt(i) !== 0x3b /* ; */) i++;
    const paramName = contentType.slice(nameStart, i).trim().toLowerCase();
    if (i >= n || contentType.charCodeAt(i) === 0x3b) continue;
    i++; // '='
    let value: string;
    if (contentType.charCodeAt(i) === 0x22 /* " */) {
      i++;
      value = '';
      while (i < n) {
        const c = contentType.charCodeAt(i);
        if (c === 0x22) {
          i++;
          break;
        }
        if (c === 0x5c /* \ */ && i + 1 < n) i++;
        value += contentType[i];
        i++;
      }
      while (i < n && contentType.charCodeAt(i) !== 0x3b) i++;
    } else {
      const valueStart = i;
      while (i < n && contentType.charCodeAt(i) !== 0x3b) i++;
      value = contentType.slice(valueStart, i).trim();
    }
    if (paramName === wanted) return value;
  }
  return undefined;
}

function isSeparatorOrSpace(c: number): boolean {
  return c === 0x3b || c === 0x20 || c === 0x09;
}
