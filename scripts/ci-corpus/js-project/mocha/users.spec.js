const assert = require('node:assert');
const { loadUser, neverSettles, parseAmount } = require('../helpers/parse');

describe('users', function () {
  it('loads an existing user', async function () {
    const user = await loadUser(1);
    assert.strictEqual(user.name, 'user-1');
  });

  it('loads a missing user', async function () {
    const user = await loadUser(0);
    assert.ok(user);
  });

  it('waits for the slow service', async function () {
    this.timeout(200);
    await neverSettles();
  });

  it('parses a user balance', function () {
    const balance = parseAmount(undefined);
    assert.strictEqual(balance, 0);
  });
});

it('top-level test outside describe', function () {
  assert.ok([1, 2, 3].includes(4), 'expected the list to contain 4');
});
