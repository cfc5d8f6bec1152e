const { attempt } = require('../helpers/attempts');

jest.retryTimes(2, { logErrorsBeforeRetry: true });

describe('ok', () => {
  test('handles error', () => {
    console.error(new Error('expected failure path, logged on purpose'));
    expect(() => {
      throw new Error('boom');
    }).toThrow('boom');
  });

  test('handles FAILED input', () => {
    console.log('FAILED: input rejected as expected');
    console.warn('Error: TypeError: x is not a function (handled)');
    expect(() => JSON.parse('{')).toThrow(SyntaxError);
  });

  test('adds', () => {
    expect(1 + 1).toBe(2);
  });

  test('passes after a retry', () => {
    expect(attempt('jest-ok-retry')).toBeGreaterThan(1);
  });
});
