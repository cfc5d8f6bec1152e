describe('routes', () => {
  test('lists users', () => {
    expect(['a', 'b']).toHaveLength(2);
  });

  test('handles FAILED upstream', () => {
    console.error(new Error('upstream FAILED, retrying (handled)'));
    expect(true).toBe(true);
  });
});
