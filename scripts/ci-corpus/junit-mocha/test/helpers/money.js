const assert = require('assert');

function assertTotal(actual, expected) {
  assert.strictEqual(actual, expected, `expected total ${expected}, got ${actual}`);
}

module.exports = { assertTotal };
