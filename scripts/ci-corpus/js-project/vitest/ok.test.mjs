import { describe, expect, test } from 'vitest';

describe('ok', () => {
  test('handles error', () => {
    console.error(new Error('expected failure path, logged on purpose'));
    expect(() => {
      throw new Error('boom');
    }).toThrow('boom');
  });

  test('handles FAILED input', () => {
    console.log('FAILED: input rejected as expected');
    process.stderr.write('Error: TypeError: x is not a function (handled)\n    at handler (src/app.js:3:9)\n');
    expect(() => JSON.parse('{')).toThrow(SyntaxError);
  });

  test('adds', () => {
    expect(1 + 1).toBe(2);
  });
});
