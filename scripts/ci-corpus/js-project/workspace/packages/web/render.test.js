describe('render', () => {
  test('escapes html', () => {
    const escape = (s) => s.replace(/</g, '&lt;');
    expect(escape('<b>')).toBe('&lt;b&gt;');
  });

  test('renders a title', () => {
    expect('Widgets').toMatch(/^Widgets$/);
  });
});
