// Imports a module that does not exist: vitest cannot load the file.
import { expect, test } from 'vitest';
import { missing } from '../helpers/does-not-exist.mjs';

test('never runs either', () => {
  expect(missing()).toBe(true);
});
