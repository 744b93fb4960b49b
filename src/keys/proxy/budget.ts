/**
 * How much request body the proxy holds at once. Every body that is read
 * (in memory, then spooled to a file) takes its share before the first byte
 * is read — the declared length, or the body limit when chunked — and gives
 * it back when the request ends. Past `maxBytes` for the whole proxy, or
 * past `perHandle` bodies of one branch handle, a request is refused at
 * once, its body unread: a flood of large bodies cannot fill the disk or
 * the descriptor table, and one branch cannot take every slot.
 */
export const DEFAULT_SPOOL_BYTES = 256 * 1024 * 1024;
export const DEFAULT_BODIES_PER_HANDLE = 4;

export type BudgetVerdict =
  | { ok: true; release: () => void }
  | { ok: false; rule: 'spool_full' | 'spool_per_handle'; message: string; limit: number };

export class SpoolBudget {
  private bytes = 0;
  private readonly perKey = new Map<string, number>();

  constructor(private readonly options: { maxBytes: number; perHandle: number }) {}

  /** Takes `bytes` for a body of `key` (a branch handle), or says why not. */
  take(key: string, bytes: number): BudgetVerdict {
    const held = this.perKey.get(key) ?? 0;
    if (held >= this.options.perHandle)
      return {
        ok: false,
        rule: 'spool_per_handle',
        limit: this.options.perHandle,
        message: `this branch already has ${held} request bodies in flight (at most ${this.options.perHandle}): wait for one to finish (a held write, for its approval) and send again`,
      };
    if (this.bytes + bytes > this.options.maxBytes)
      return {
        ok: false,
        rule: 'spool_full',
        limit: this.options.maxBytes,
        message: `the proxy holds ${this.bytes} bytes of request bodies (at most ${this.options.maxBytes}): send again shortly, or ask an admin for a larger cairn proxy --max-spool-bytes`,
      };
    this.bytes += bytes;
    this.perKey.set(key, held + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.bytes -= bytes;
        const left = (this.perKey.get(key) ?? 1) - 1;
        if (left <= 0) this.perKey.delete(key);
        else this.perKey.set(key, left);
      },
    };
  }

  /** Bytes taken now (for tests and logs). */
  get taken(): number {
    return this.bytes;
  }
}
