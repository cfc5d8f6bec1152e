const assert = require('node:assert');
const { parseAmount } = require('../helpers/parse');

function total(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

describe('cart', function () {
  describe('totals', function () {
    it('sums line items', function () {
      const items = [
        { price: 2, qty: 3 },
        { price: 5, qty: 1 },
      ];
      assert.strictEqual(total(items), 12);
    });

    it('builds a receipt object', function () {
      const receipt = { lines: 2, total: 11, currency: 'EUR', tags: ['a', 'b'] };
      assert.deepStrictEqual(receipt, { lines: 2, total: 11, currency: 'USD', tags: ['a', 'c'] });
    });
  });

  for (const [text, want] of [['1.50', 1.5], ['2,00', 2], ['abc', 0]]) {
    it(`parses amount ${text} as ${want}`, function () {
      assert.strictEqual(parseAmount(text), want);
    });
  }

  it('handles error', function () {
    assert.throws(() => parseAmount(42), TypeError);
  });

  it('logs but passes', function () {
    console.error('Error: something noisy happened (this test still passes)');
    assert.ok(true);
  });
});
