const { parseAmount } = require('../helpers/parse');

describe('amounts', () => {
  test.each([
    ['1', 1],
    ['2.50', 2.5],
    ['3,5', 3.5],
    ['', 0],
  ])('parses %p as %p', (text, want) => {
    expect(parseAmount(text)).toBe(want);
  });
});
