const { attempt } = require('../helpers/attempts');

jest.retryTimes(2, { logErrorsBeforeRetry: true });

describe('retried', () => {
  test('passes on the second attempt', () => {
    expect(attempt('jest-flaky-second')).toBeGreaterThan(1);
  });

  test('fails on every attempt', () => {
    attempt('jest-flaky-always');
    expect('red').toBe('green');
  });
});
