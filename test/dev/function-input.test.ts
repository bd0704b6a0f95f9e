/** The rule by which the console pre-selects POST for a function it has not sent to yet. */
import { expect, it } from 'vitest';
import { functionInput } from '../../src/dev/function-input.js';

it.each([
  ['hello', undefined, 'query'],
  ['hello', { timeout: 5000 }, 'query'],
  ['hello', { maxParams: 10 }, 'query'],
  ['hello', { maxBodySize: 1024 }, 'body'],
  ['upload', undefined, 'multipart'],
  ['videos/upload-cover', {}, 'multipart'],
  ['uploads/list', {}, 'query'],
  ['avatar', { maxFileSize: 5 * 1024 * 1024 }, 'multipart'],
  ['avatar', { maxFiles: 1, maxBodySize: 1024 }, 'multipart'],
] as const)('%s with config %j reads %s', (name, config, expected) => {
  expect(functionInput(name, config)).toBe(expected);
});
