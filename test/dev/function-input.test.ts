/**
 * The rules by which the console pre-selects POST for a function it has not sent to yet, and
 * shows its Connections panel for a function that answers the WebSocket gateway.
 */
import { expect, it } from 'vitest';
import { answersGateway, functionInput } from '../../src/dev/function-input.js';

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

it.each([
  ['websocket_callback', 'export default () => ({})', true],
  ['game', "const event = service.headers['x-tt-event-type'];", true],
  ['game', "headers['X-TT-EVENT-TYPE']", true],
  ['hello', 'export default () => ({ hello: 1 })', false],
  ['start_game', "service.headers['x-room-id']", false],
] as const)('%s with %j answers the gateway: %s', (name, source, expected) => {
  expect(answersGateway(name, source)).toBe(expected);
});
