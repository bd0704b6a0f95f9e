/**
 * From a Standard Schema issue to the `issues` of a 400 body: its path as a JSON Pointer
 * (RFC 6901: `/items/0/qty`, `~` written `~0` and `/` written `~1`, the whole params `""`).
 */
import type { StandardSchemaV1 } from './standard-schema.js';

/** One issue of a refused request, as the error body carries it. */
export interface ParamsIssue {
  /** A JSON Pointer into params (RFC 6901); `""` is the params as a whole. */
  path: string;
  message: string;
}

/**
 * The JSON Pointer of an issue's path.
 * @example jsonPointer(['items', 0, 'qty']) // '/items/0/qty'
 */
export function jsonPointer(path: StandardSchemaV1.Issue['path']): string {
  if (path === undefined || path.length === 0) return '';
  let out = '';
  for (const segment of path) {
    const key =
      typeof segment === 'object' && segment !== null ? (segment as StandardSchemaV1.PathSegment).key : segment;
    const text = typeof key === 'symbol' ? (key.description ?? '') : String(key);
    out += `/${text.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  return out;
}

/** The issues of a failed validation, as the error body carries them. */
export function toIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): ParamsIssue[] {
  return issues.map((issue) => ({ path: jsonPointer(issue.path), message: issue.message }));
}

/** `/a: message; /b: message`, for log lines. */
export function issuesText(issues: readonly ParamsIssue[]): string {
  return issues.map((issue) => `${issue.path === '' ? '(params)' : issue.path}: ${issue.message}`).join('; ');
}
