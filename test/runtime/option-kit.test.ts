/**
 * The option kit (runtime/option-kit.ts): the order of the layers, what counts as unset, how a
 * refused value becomes the area's error, and the areas built from it.
 */
import { describe, expect, it } from 'vitest';
import {
  blankIsUnset,
  envArea,
  type OptionArea,
  type OptionSpec,
  readOption,
  readOptions,
  trimmed,
} from '../../runtime/option-kit.js';

const count: OptionSpec<number> = {
  env: 'APP_COUNT',
  default: 3,
  parse: (raw, where) => {
    const value = Number(raw);
    if (!Number.isInteger(value)) throw new TypeError(`must be an integer, got ${JSON.stringify(raw)} (from ${where})`);
    return value;
  },
};

const area: OptionArea = {
  flag: (name) => `--${name}`,
  config: (name) => `config ${name}`,
  fail: (name, where, detail) => new RangeError(`${name}|${where}|${detail}`),
};

describe('readOption', () => {
  it.each([
    [{}, [3, 'the default']],
    [{ config: { count: 7 } }, [7, 'config count']],
    [{ env: { APP_COUNT: '5' }, config: { count: 7 } }, [5, 'APP_COUNT']],
    [{ flags: { count: '9' }, env: { APP_COUNT: '5' }, config: { count: 7 } }, [9, '--count']],
    // An empty value is unset by default, so the next layer answers.
    [{ flags: { count: '' }, env: { APP_COUNT: '' }, config: { count: 7 } }, [7, 'config count']],
  ])('takes the first layer that gives a value: %j', (layers, expected) => {
    expect(readOption('count', count, layers, area)).toEqual(expected);
  });

  it("throws the area's error with the option, where the value came from and the validator's detail", () => {
    expect(() => readOption('count', count, { env: { APP_COUNT: 'x' } }, area)).toThrow(
      new RangeError('count|APP_COUNT|must be an integer, got "x" (from APP_COUNT)'),
    );
  });

  it("lets an area say per layer what is unset (here: a config field's '' is a value)", () => {
    const strict: OptionArea = {
      ...area,
      unset: (raw, layer) => raw === undefined || (layer !== 'config' && raw === ''),
    };
    expect(() => readOption('count', count, { env: { APP_COUNT: '' }, config: { count: '' } }, strict)).not.toThrow();
    expect(readOption('count', count, { env: { APP_COUNT: '' }, config: { count: '' } }, strict)).toEqual([
      0,
      'config count',
    ]);
  });
});

describe('readOptions and envArea', () => {
  const settings = {
    name: { env: 'APP_NAME', parse: trimmed, default: 'app' },
    count,
  };
  const env = envArea((_name, where, detail) => new Error(`${where} ${detail}`));

  it('reads a whole table; a blank variable is unset and text is trimmed', () => {
    expect(readOptions(settings, { env: { APP_NAME: '  ', APP_COUNT: ' 4 ' } }, env)).toEqual({
      name: 'app',
      count: 4,
    });
    expect(readOptions(settings, { env: { APP_NAME: ' svc ' } }, env)).toEqual({ name: 'svc', count: 3 });
  });

  it('names a refused variable in the error', () => {
    expect(() => readOptions(settings, { env: { APP_COUNT: '4.5' } }, env)).toThrow(
      'APP_COUNT must be an integer, got "4.5" (from APP_COUNT)',
    );
  });

  it('counts undefined and whitespace as blank, and nothing else', () => {
    expect([undefined, '', ' \t', '0', 0, false].map(blankIsUnset)).toEqual([true, true, true, false, false, false]);
  });
});
