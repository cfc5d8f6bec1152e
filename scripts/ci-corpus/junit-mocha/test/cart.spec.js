const assert = require('assert');
const { total, charge } = require('../lib/cart');
const { assertTotal } = require('./helpers/money');

describe('cart', function () {
  describe('totals', function () {
    it('adds one item', function () {
      assert.strictEqual(total([{ price: 3, qty: 1 }]), 3);
    });
    it('sums line items', function () {
      const items = [{ price: 10, qty: 2 }, { price: 10, qty: 1 }];
      assertTotal(total(items), 31);
    });
    it('applies the discount', function () {
      assert.strictEqual(total([{ price: 100, qty: 1 }]) * 0.9, 91);
    });
  });
  describe('checkout', function () {
    it('charges the card', function () {
      charge({}, 30);
    });
  });
});
