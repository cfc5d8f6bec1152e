import { describe, expect, test } from 'vitest';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { loadUser, neverSettles, parseAmount } = require('../helpers/parse.js');

describe('users', () => {
  test('loads an existing user', async () => {
    const user = await loadUser(1);
    expect(user.name).toBe('user-1');
  });

  test('loads a missing user', async () => {
    const user = await loadUser(0);
    expect(user).toBeDefined();
  });

  test('rejects with a code', async () => {
    await expect(loadUser(0)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  test('waits for the slow service', async () => {
    await neverSettles();
  }, 200);

  test('parses a user balance', () => {
    const balance = parseAmount(undefined);
    expect(balance).toBe(0);
  });
});

test('top-level test outside describe', () => {
  expect([1, 2, 3]).toContain(4);
});
