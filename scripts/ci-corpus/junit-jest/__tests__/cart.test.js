describe('cart', () => {
  it('adds items', () => {
    const items = [];
    items.push('apple');
    expect(items).toHaveLength(2);
  });

  it('is empty at first', () => {
    expect([]).toHaveLength(0);
  });

  it('times out waiting for stock', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }, 50);
});
