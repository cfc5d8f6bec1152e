// Deliberately not valid JavaScript: vitest cannot load the file.
import { describe, expect, test } from 'vitest';

describe('broken syntax', () => {
  test('never runs', () => {
    const total = ;
    expect(total).toBe(1);
  });
});
