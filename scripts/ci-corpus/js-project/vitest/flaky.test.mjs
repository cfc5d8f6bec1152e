import { describe, expect, test } from 'vitest';
import { attempt } from '../helpers/attempts.js';

// Retried only by the run that passes --retry 2; elsewhere the first attempt fails.
describe('retried', () => {
  test('passes on the second attempt', () => {
    expect(attempt('vitest-flaky-second')).toBeGreaterThan(1);
  });

  test('fails on every attempt', () => {
    attempt('vitest-flaky-always');
    expect('red').toBe('green');
  });
});
