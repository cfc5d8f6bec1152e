const { parsePrice } = require('../src/price');

describe('parsePrice', () => {
  test('reads integers', () => {
    expect(parsePrice('12')).toBe(12);
  });

  test('reads decimals', () => {
    expect(parsePrice('1.50')).toBe(1.5);
    expect(parsePrice('2.25')).toBe(2.5);
  });

  describe('with bad input', () => {
    test('throws a helpful error', () => {
      expect(parsePrice('abc')).toBeNull();
    });

    test.skip('handles currency symbols', () => {
      expect(parsePrice('$3')).toBe(3);
    });
  });
});

test('top-level test with <markup> & "quotes"', () => {
  expect({ a: 1, b: [1, 2] }).toEqual({ a: 1, b: [1, 3] });
});
