import { describe, expect, test } from 'vitest';

describe('ok', () => {
  test('handles error', () => {
    console.error(new Error('expected failure path, logged on purpose'));
    expect(() => {
      throw new Error('boom');
    }).toThrow('boom');
  });

  test('adds', () => {
    expect(1 + 1).toBe(2);
  });
});
