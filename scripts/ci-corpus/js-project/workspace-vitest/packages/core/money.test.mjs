import { describe, expect, test } from 'vitest';

describe('money', () => {
  test('adds cents', () => {
    expect(0.1 * 100 + 0.2 * 100).toBe(30);
  });

  test('handles FAILED conversions', () => {
    console.error('Error: conversion FAILED (handled)');
    expect(Number('x')).toBeNaN();
  });
});
