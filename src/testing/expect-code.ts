import { expect } from 'vitest';
import { CairnError, type ErrorCode } from '../errors.js';

/** Awaits a call that must fail with a CairnError of `code`; returns the error. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CairnError);
    expect((error as CairnError).code).toBe(code);
    return error as CairnError;
  }
  throw new Error(`expected the call to fail with ${code}, but it succeeded`);
}
