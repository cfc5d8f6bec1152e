// Imports a module that does not exist: jest reports "Test suite failed to run".
const { missing } = require('../helpers/does-not-exist');

test('never runs either', () => {
  expect(missing()).toBe(true);
});
