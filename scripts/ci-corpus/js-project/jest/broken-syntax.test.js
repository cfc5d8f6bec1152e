// Deliberately not valid JavaScript: jest reports "Test suite failed to run".
describe('broken syntax', () => {
  test('never runs', () => {
    const total = ;
    expect(total).toBe(1);
  });
});
