import { truncatePath } from './paths.js';

/**
 * Refusals of requests without a valid branch handle, audited in bounded
 * form. Anyone who can reach the proxy can send them, so each must cost
 * almost nothing: per client address and window, the first `burst` are
 * audited one by one (awaited, so a lone mistake is on record before the
 * agent reads its 403), the rest only counted, and one summary entry with
 * the count (and the first and last path, cut short) closes the window. A
 * flood of any size adds at most `burst + 1` entries per address per window.
 *
 * The same bound holds for refusals of a valid handle (a grant that does not
 * allow the request, a body over the limit, a full spool): keyed by the
 * handle, the first `burst` of a window are ordinary `keys.deny` entries
 * (`admit` says so before the decision's transaction audits one), the rest
 * are counted, by rule, into one summary.
 */
export interface RefusalRecord {
  address: string;
  method: string;
  credential: string;
  path: string;
  reason: string;
  /** The refusal's rule (a handle refusal: `handle`). */
  rule?: string;
  /** 1 for a single refusal; the number of refusals a summary stands for. */
  count: number;
  windowStart?: number;
  windowEnd?: number;
  lastPath?: string;
  /** In a summary: how many refusals of each rule it stands for. */
  rules?: Record<string, number>;
}

export interface RefusalSink {
  recordHandleRefusal(record: RefusalRecord): Promise<void>;
}

/** Writes the summary of a window's counted refusals. */
export type SummarySink = (record: RefusalRecord) => Promise<void>;

interface Bucket {
  write: SummarySink;
  /** What the summary's reason calls the refusals. */
  what: string;
  address: string;
  start: number;
  audited: number;
  suppressed: number;
  first?: RefusalRecord;
  last?: RefusalRecord;
  rules: Record<string, number>;
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

  /** Records one refusal without a valid handle; resolves once it is audited, or at once when it is only counted. */
  refuse(sink: RefusalSink, refusal: Omit<RefusalRecord, 'count'>): Promise<void> {
    const record = this.record(refusal);
    const admitted = this.admit(
      this.sinkKey(sink, refusal.address),
      (r) => sink.recordHandleRefusal(r),
      'requests without a valid branch handle',
      record,
    );
    return admitted ? this.track(sink.recordHandleRefusal(record)) : Promise.resolve();
  }

  /**
   * Whether a refusal is audited on its own: true for the first `burst` of
   * `key`'s window; otherwise it is counted (by rule) into the summary that
   * `write` records when the window closes.
   */
  admit(key: string, write: SummarySink, what: string, refusal: Omit<RefusalRecord, 'count'>): boolean {
    const now = (this.options.now ?? Date.now)();
    let bucketKey = key;
    let address = refusal.address;
    if (!this.buckets.has(bucketKey) && this.buckets.size >= this.options.maxAddresses) {
      bucketKey = `${key.split(' ')[0]} *`;
      address = '*';
    }
    let bucket = this.buckets.get(bucketKey);
    if (!bucket) {
      const timer = setTimeout(() => this.close(bucketKey), this.options.windowMs);
      timer.unref();
      bucket = { write, what, address, start: now, audited: 0, suppressed: 0, rules: {}, timer };
      this.buckets.set(bucketKey, bucket);
    }
    if (bucket.audited < this.options.burst) {
      bucket.audited++;
      return true;
    }
    const record = this.record({ ...refusal, address });
    bucket.suppressed++;
    const rule = refusal.rule ?? 'handle';
    bucket.rules[rule] = (bucket.rules[rule] ?? 0) + 1;
    bucket.first ??= record;
    bucket.last = record;
    return false;
  }

  private sinkKey(sink: RefusalSink, address: string): string {
    let sinkId = this.sinkIds.get(sink);
    if (sinkId === undefined) {
      sinkId = this.nextSinkId++;
      this.sinkIds.set(sink, sinkId);
    }
    return `${sinkId} ${address}`;
  }

  private record(refusal: Omit<RefusalRecord, 'count'>): RefusalRecord {
    return {
      ...refusal,
      path: truncatePath(refusal.path),
      reason: refusal.reason.slice(0, 300),
      count: 1,
    };
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
      bucket.write({
        ...bucket.first,
        address: bucket.address,
        reason: `${bucket.suppressed} more ${bucket.what} (first: ${bucket.first.reason})`,
        count: bucket.suppressed,
        rules: bucket.rules,
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
