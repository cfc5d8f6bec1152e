import { describe, expect, test } from 'vitest';

describe('button', () => {
  test('renders a label', () => {
    const label = ['Save', 'changes'].join('');
    expect(label).toBe('Save changes');
  });

  test('is enabled', () => {
    expect({ disabled: false }).toEqual({ disabled: false });
  });
});
