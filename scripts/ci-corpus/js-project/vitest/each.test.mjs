import { describe, expect, test } from 'vitest';
import { parseAmount } from '../helpers/parse.js';

describe('amounts', () => {
  test.each([
    ['1', 1],
    ['2.50', 2.5],
    ['3,5', 3.5],
    ['', 0],
  ])('parses %s as %s', (text, want) => {
    expect(parseAmount(text)).toBe(want);
  });
});
