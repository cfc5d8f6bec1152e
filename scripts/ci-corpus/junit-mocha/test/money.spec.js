const assert = require('assert');

describe('money', function () {
  it('rounds half up', function () {
    assert.strictEqual(Math.round(2.5 * 100) / 100, 2.6);
  });
});
