/**
 * The types of a client that stands alone: each function's params and result, computed by the
 * project's own TypeScript (its compiler API, 5.x or 6.x) from the same `ClientParams` and
 * `ClientResult` the `typeof import` client uses, then written out structurally (objects,
 * arrays, unions, literals), so the mini-program's `tsc` reads none of the server's files or
 * packages (`@open-dy/node-server-sdk`, zod, the server's interfaces). A recursive type, or one
 * deeper than `MAX_DEPTH`, is written `unknown` where it recurs.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import type * as TS from 'typescript';
import { findTypeScript } from '../typecheck/find-typescript.js';
import { selfTypePaths } from '../typecheck/self-types.js';
import { type ClientFunction, TYPE_HELPERS } from './client-source.js';

/** A function's params and result, as TypeScript type text that names nothing of the server. */
export interface InlineTypes {
  params: string;
  result: string;
}

/** Nesting written out before a type is cut to `unknown`. */
const MAX_DEPTH = 12;

/**
 * Each function's params and result as standalone type text, by function name; or the reason
 * they cannot be computed (no tsconfig.json, no TypeScript, or TypeScript 7's native compiler,
 * which has no API to ask).
 * @example const types = inlineTypes('/srv/game', functions); if (types.ok) types.byName.get('leaderboard')
 */
export function inlineTypes(
  root: string,
  functions: readonly ClientFunction[],
): { ok: true; byName: Map<string, InlineTypes> } | { ok: false; reason: string } {
  const setup = findTypeScript(root);
  if (!setup.ok) return { ok: false, reason: setup.reason };
  if (setup.engine !== 'api')
    return { ok: false, reason: `TypeScript ${setup.version} has no compiler API to read the types from` };
  const ts = createRequire(setup.typescript)(setup.typescript) as typeof TS;
  const dir = join(root, '.cloudfn', 'client');
  const probe = join(dir, `probe-${process.pid}.ts`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(probe, probeSource(probe, root, functions));
  try {
    const read = ts.readConfigFile(setup.tsconfig, (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, dirname(setup.tsconfig));
    const self = selfTypePaths(root);
    const options: TS.CompilerOptions = {
      ...parsed.options,
      ...(self === undefined ? {} : { paths: { ...parsed.options.paths, ...self } }),
      noEmit: true,
    };
    const program = ts.createProgram([...parsed.fileNames, probe], options);
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(probe);
    if (source === undefined) return { ok: false, reason: 'TypeScript did not read the probe file' };
    const aliases = new Map<string, TS.Type>();
    for (const statement of source.statements)
      if (ts.isTypeAliasDeclaration(statement))
        aliases.set(statement.name.text, checker.getTypeFromTypeNode(statement.type));
    const printer = new TypePrinter(ts, checker);
    const byName = new Map<string, InlineTypes>();
    functions.forEach((fn, i) => {
      const params = aliases.get(`P${i}`);
      const result = aliases.get(`R${i}`);
      byName.set(fn.name, {
        params: params === undefined ? 'unknown' : printer.print(params),
        result: result === undefined ? 'unknown' : printer.print(result),
      });
    });
    return { ok: true, byName };
  } finally {
    rmSync(probe, { force: true });
  }
}

/** The probe: each function's module type, and its client params and result as aliases. */
function probeSource(probe: string, root: string, functions: readonly ClientFunction[]): string {
  const lines = functions.map((fn, i) => {
    let path = relative(dirname(probe), join(root, fn.file)).split(sep).join('/');
    path = path
      .replace(/\.mts$/, '.mjs')
      .replace(/\.cts$/, '.cjs')
      .replace(/\.ts$/, '.js');
    return `type M${i} = typeof import(${JSON.stringify(path.startsWith('.') ? path : `./${path}`)});\nexport type P${i} = ClientParams<M${i}>;\nexport type R${i} = ClientResult<M${i}>;`;
  });
  return `${TYPE_HELPERS}\n${lines.join('\n')}\n`;
}

/** Writes a type as text that refers to no declaration. */
class TypePrinter {
  readonly #ts: typeof TS;
  readonly #checker: TS.TypeChecker;

  constructor(ts: typeof TS, checker: TS.TypeChecker) {
    this.#ts = ts;
    this.#checker = checker;
  }

  print(type: TS.Type): string {
    return this.#print(type, 0, new Set());
  }

  #print(type: TS.Type, depth: number, open: Set<TS.Type>): string {
    const { TypeFlags } = this.#ts;
    const f = type.flags;
    if (f & TypeFlags.Any) return 'any';
    if (f & TypeFlags.Unknown) return 'unknown';
    if (f & TypeFlags.Never) return 'never';
    if (f & TypeFlags.String) return 'string';
    if (f & TypeFlags.Number) return 'number';
    if (f & TypeFlags.BigInt) return 'bigint';
    if (f & TypeFlags.Boolean) return 'boolean';
    if (f & TypeFlags.Null) return 'null';
    if (f & TypeFlags.Undefined) return 'undefined';
    if (f & TypeFlags.Void) return 'void';
    if (f & TypeFlags.ESSymbolLike) return 'symbol';
    if (f & TypeFlags.StringLiteral) return JSON.stringify((type as TS.StringLiteralType).value);
    if (f & TypeFlags.NumberLiteral) return String((type as TS.NumberLiteralType).value);
    if (f & (TypeFlags.BooleanLiteral | TypeFlags.BigIntLiteral | TypeFlags.TemplateLiteral))
      return this.#checker.typeToString(type);
    if (f & TypeFlags.NonPrimitive) return 'object';
    if (depth > MAX_DEPTH || open.has(type)) return 'unknown';
    if (type.isUnion()) return this.#union(type.types, depth, open);
    if (type.isIntersection()) return this.#joined(type.types, ' & ', depth, open);
    if (!(f & TypeFlags.Object)) return 'unknown';
    open.add(type);
    try {
      return this.#object(type as TS.ObjectType, depth, open);
    } finally {
      open.delete(type);
    }
  }

  /** `true | false` is written `boolean`, as TypeScript writes it. */
  #union(types: readonly TS.Type[], depth: number, open: Set<TS.Type>): string {
    const { TypeFlags } = this.#ts;
    const booleans = types.filter((t) => t.flags & TypeFlags.BooleanLiteral);
    const rest = booleans.length === 2 ? types.filter((t) => !(t.flags & TypeFlags.BooleanLiteral)) : types;
    const parts = rest.map((t) => this.#member(t, depth, open));
    if (booleans.length === 2) parts.push('boolean');
    return [...new Set(parts)].join(' | ');
  }

  #joined(types: readonly TS.Type[], glue: string, depth: number, open: Set<TS.Type>): string {
    return types.map((t) => this.#member(t, depth, open)).join(glue);
  }

  /** A member of a union or intersection, in parentheses when it is one itself. */
  #member(type: TS.Type, depth: number, open: Set<TS.Type>): string {
    const text = this.#print(type, depth + 1, open);
    return type.isUnionOrIntersection() ? `(${text})` : text;
  }

  #object(type: TS.ObjectType, depth: number, open: Set<TS.Type>): string {
    const checker = this.#checker;
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type as TS.TypeReference)[0];
      const text = element === undefined ? 'unknown' : this.#print(element, depth + 1, open);
      return element?.isUnionOrIntersection() || /^\(|=>/.test(text) ? `(${text})[]` : `${text}[]`;
    }
    if (checker.isTupleType(type)) {
      const elements = checker.getTypeArguments(type as TS.TypeReference);
      return `[${elements.map((t) => this.#print(t, depth + 1, open)).join(', ')}]`;
    }
    if (type.getCallSignatures().length > 0) return 'unknown';
    const members: string[] = [];
    for (const info of checker.getIndexInfosOfType(type))
      members.push(`[key: ${this.#print(info.keyType, depth + 1, open)}]: ${this.#print(info.type, depth + 1, open)};`);
    for (const property of checker.getPropertiesOfType(type)) {
      const optional = (property.flags & this.#ts.SymbolFlags.Optional) !== 0;
      const valueType = checker.getTypeOfSymbol(property);
      const key = /^[A-Za-z_$][\w$]*$/.test(property.name) ? property.name : JSON.stringify(property.name);
      members.push(`${key}${optional ? '?' : ''}: ${this.#print(valueType, depth + 1, open)};`);
    }
    return members.length === 0 ? '{}' : `{ ${members.join(' ')} }`;
  }
}
