import { truncatePath } from './paths.js';

/**
 * Refusals of requests without a valid branch handle, audited in bounded
 * form. Anyone who can reach the proxy can send them, so each must cost
 * almost nothing: per client address and window, the first `burst` are
 * audited one by one (awaited, so a lone mistake is on record before the
 * agent reads its 403), the rest only counted, and one summary entry with
 * the count (and the first and last path, cut short) closes the window. A
 * flood of any size adds at most `burst + 1` entries per address per window.
 */
export interface RefusalRecord {
  address: string;
  method: string;
  credential: string;
  path: string;
  reason: string;
  /** 1 for a single refusal; the number of refusals a summary stands for. */
  count: number;
  windowStart?: number;
  windowEnd?: number;
  lastPath?: string;
}

export interface RefusalSink {
  recordHandleRefusal(record: RefusalRecord): Promise<void>;
}

interface Bucket {
  sink: RefusalSink;
  address: string;
  start: number;
  audited: number;
  suppressed: number;
  first?: RefusalRecord;
  last?: RefusalRecord;
  timer: NodeJS.Timeout;
}

export class RefusalLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sinkIds = new WeakMap<RefusalSink, number>();
  private nextSinkId = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      windowMs: number;
      burst: number;
      /** Past this many addresses in a window, new ones share one bucket. */
      maxAddresses: number;
      onError: (error: unknown) => void;
      now?: () => number;
    },
  ) {}

  /** Records one refusal; resolves once it is audited, or at once when it is only counted. */
  refuse(sink: RefusalSink, refusal: Omit<RefusalRecord, 'count'>): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    let sinkId = this.sinkIds.get(sink);
    if (sinkId === undefined) {
      sinkId = this.nextSinkId++;
      this.sinkIds.set(sink, sinkId);
    }
    let address = refusal.address;
    let key = `${sinkId} ${address}`;
    if (!this.buckets.has(key) && this.buckets.size >= this.options.maxAddresses) {
      address = '*';
      key = `${sinkId} *`;
    }
    let bucket = this.buckets.get(key);
    if (!bucket) {
      const timer = setTimeout(() => this.close(key), this.options.windowMs);
      timer.unref();
      bucket = { sink, address, start: now, audited: 0, suppressed: 0, timer };
      this.buckets.set(key, bucket);
    }
    const record: RefusalRecord = {
      ...refusal,
      address,
      path: truncatePath(refusal.path),
      reason: refusal.reason.slice(0, 300),
      count: 1,
    };
    if (bucket.audited < this.options.burst) {
      bucket.audited++;
      return this.track(sink.recordHandleRefusal(record));
    }
    bucket.suppressed++;
    bucket.first ??= record;
    bucket.last = record;
    return Promise.resolve();
  }

  private track(write: Promise<void>): Promise<void> {
    const done = write.catch(this.options.onError).finally(() => this.pending.delete(done));
    this.pending.add(done);
    return done;
  }

  /** Ends a window: the refusals only counted in it become one audit entry. */
  private close(key: string): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    this.buckets.delete(key);
    clearTimeout(bucket.timer);
    if (bucket.suppressed === 0 || !bucket.first) return;
    const end = (this.options.now ?? Date.now)();
    void this.track(
      bucket.sink.recordHandleRefusal({
        ...bucket.first,
        address: bucket.address,
        reason: `${bucket.suppressed} more requests without a valid branch handle (first: ${bucket.first.reason})`,
        count: bucket.suppressed,
        windowStart: bucket.start,
        windowEnd: end,
        lastPath: bucket.last?.path ?? '',
      }),
    );
  }

  /** Closes every window (their summaries are written) and waits for pending audit writes. */
  async flush(): Promise<void> {
    for (const key of [...this.buckets.keys()]) this.close(key);
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
