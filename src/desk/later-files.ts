/**
 * Files read and hashed during a scan whose guard verdicts come from another
 * thread (see ScanContext.later in model.ts): the scan reads on while the
 * worker scans, and settles them here, in read order, before any tree is
 * sealed.
 */
/** Files read and hashed ahead of their verdicts: at most this many, or this many bytes held, at once. */
const LATER_FILES = 2048;
const LATER_BYTES = 32 * 1024 * 1024;

export interface LaterFile {
  /** Bytes held in memory until the verdict. */
  bytes: number;
  /** Waits for the verdict and stores what it admits; false when the verdict withheld the file. */
  finish: () => Promise<boolean>;
  /** Takes the entry out of its directory (the verdict withheld it). */
  remove: () => void;
}

/**
 * Files whose verdicts are out, in the order they were read. Each is in the
 * model already (its directory marked changed); settling stores what its
 * verdict admits (a redacted copy under its own digest) or takes the entry
 * out. What they hold waits in memory, bounded: past LATER_FILES or
 * LATER_BYTES, all outstanding are settled.
 */
export class LaterFiles {
  private items: LaterFile[] = [];
  private bytes = 0;

  /** `onFile`: called for each file stored (progress). */
  constructor(private readonly onFile?: () => void) {}

  get size(): number {
    return this.items.length;
  }

  async add(item: LaterFile): Promise<void> {
    this.items.push(item);
    this.bytes += item.bytes;
    if (this.items.length >= LATER_FILES || this.bytes >= LATER_BYTES) await this.settle();
  }

  /** Settles every file still out, in the order they were read. */
  async settle(): Promise<void> {
    const items = this.items;
    this.items = [];
    this.bytes = 0;
    for (const item of items) {
      if (await item.finish()) this.onFile?.();
      else item.remove();
    }
  }
}
