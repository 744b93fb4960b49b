import { EventEmitter } from 'node:events';
import { type CairnError, unavailable } from '../errors.js';

/** Seconds a client refused for want of room is told to wait (Retry-After). */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * The bytes of request bodies a server holds at once: a body takes its share
 * before it is read (its declared length, or chunk by chunk when it has none)
 * and gives it back when its request ends, answered or cut. Past the budget
 * — all requests together, or one owner's (a tenant's) share of it — a request
 * is refused (UNAVAILABLE, 503 with Retry-After), so stalled or concurrent
 * uploads never hold more than the budget, and one tenant never all of it.
 */
export class BodyBudget extends EventEmitter<{ taken: [held: number]; released: [held: number] }> {
  private heldBytes = 0;
  private readonly byOwner = new Map<string, number>();
  /** The most one owner holds at once; default half the budget. */
  readonly perOwner: number;

  /** `limit`: the bytes all bodies in flight may hold together. */
  constructor(
    readonly limit: number,
    options: { perOwner?: number } = {},
  ) {
    super();
    this.perOwner = options.perOwner ?? Math.ceil(limit / 2);
  }

  /** Bytes taken now by bodies in flight: all, or one owner's. */
  held(owner?: string): number {
    return owner === undefined ? this.heldBytes : (this.byOwner.get(owner) ?? 0);
  }

  /** Takes `bytes` for `owner`, or refuses when the budget or the owner's share cannot spare them. */
  take(bytes: number, owner: string): void {
    const mine = this.byOwner.get(owner) ?? 0;
    if (this.heldBytes + bytes > this.limit) throw busy(this.limit, 'the server');
    if (mine + bytes > this.perOwner) throw busy(this.perOwner, 'your tenant');
    this.heldBytes += bytes;
    this.byOwner.set(owner, mine + bytes);
    this.emit('taken', this.heldBytes);
  }

  give(bytes: number, owner: string): void {
    this.heldBytes -= bytes;
    const mine = (this.byOwner.get(owner) ?? 0) - bytes;
    if (mine > 0) this.byOwner.set(owner, mine);
    else this.byOwner.delete(owner);
    this.emit('released', this.heldBytes);
  }
}

function busy(limit: number, whose: string): CairnError {
  return unavailable(
    `${whose} has as many request bodies in flight as the server takes (${limit} bytes): retry in ${BUSY_RETRY_AFTER_SECONDS} s`,
    { reason: 'busy', limit, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
  );
}
