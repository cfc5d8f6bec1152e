function parsePrice(text) {
  const n = Number(text);
  if (Number.isNaN(n)) {
    throw new TypeError(`not a price: ${text}`);
  }
  return n;
}

module.exports = { parsePrice };
