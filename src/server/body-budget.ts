import { EventEmitter } from 'node:events';
import { type CairnError, unavailable } from '../errors.js';

/** Seconds a client refused for want of room is told to wait (Retry-After). */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * The bytes of request bodies a server holds at once, all requests together:
 * a body takes its share before it is read (its declared length, or chunk by
 * chunk when it has none) and gives it back when its request ends, answered
 * or cut. Past the budget a request is refused (UNAVAILABLE, 503 with
 * Retry-After), so stalled or concurrent uploads never hold more than it.
 */
export class BodyBudget extends EventEmitter<{ taken: [held: number]; released: [held: number] }> {
  private heldBytes = 0;

  /** `limit`: the bytes all bodies in flight may hold together. */
  constructor(readonly limit: number) {
    super();
  }

  /** Bytes taken now by bodies in flight. */
  get held(): number {
    return this.heldBytes;
  }

  /** Takes `bytes`, or refuses when the budget cannot spare them. */
  take(bytes: number): void {
    if (this.heldBytes + bytes > this.limit) throw busy(this.limit);
    this.heldBytes += bytes;
    this.emit('taken', this.heldBytes);
  }

  give(bytes: number): void {
    this.heldBytes -= bytes;
    this.emit('released', this.heldBytes);
  }
}

export function busy(limit: number): CairnError {
  return unavailable(
    `the server holds as many request bodies as it takes (${limit} bytes in flight): retry in ${BUSY_RETRY_AFTER_SECONDS} s`,
    { reason: 'busy', limit, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
  );
}
