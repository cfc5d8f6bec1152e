function total(items) {
  return items.reduce((sum, i) => sum + i.price * i.qty, 0);
}
function charge(card, amount) {
  return card.gateway.charge(amount);
}
module.exports = { total, charge };
