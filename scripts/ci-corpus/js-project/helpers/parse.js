// Helpers the tests call into, so that stacks pass through a non-test file first.
function parseAmount(text) {
  if (typeof text !== 'string') {
    throw new TypeError(`expected a string, got ${typeof text}`);
  }
  const value = Number.parseFloat(text.replace(/[^0-9.-]/g, ''));
  if (Number.isNaN(value)) {
    throw new RangeError(`not an amount: ${JSON.stringify(text)}`);
  }
  return value;
}

function loadUser(id) {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      if (id === 0) {
        reject(new Error(`user ${id} not found`));
      } else {
        resolve({ id, name: `user-${id}`, roles: ['reader'] });
      }
    }, 5);
  });
}

function neverSettles() {
  return new Promise(() => {});
}

module.exports = { parseAmount, loadUser, neverSettles };
