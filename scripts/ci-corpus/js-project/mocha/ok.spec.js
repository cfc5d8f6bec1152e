const assert = require('node:assert');

describe('ok', function () {
  it('handles FAILED input', function () {
    try {
      assert.strictEqual('FAILED', 'ok', 'input rejected');
    } catch (err) {
      // A handled error, printed on purpose: the test passes.
      console.error(err);
      console.log('AssertionError [ERR_ASSERTION]: handled, 1 failing check ignored');
    }
  });

  it('test_error_handling', function () {
    assert.throws(() => JSON.parse('{'), SyntaxError);
  });
});
