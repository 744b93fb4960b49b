import type { CairnEvent, EventPage } from '../types.js';

/** Reads one page of a branch from a sequence number (an embedded transaction or a fabric call). */
export type PageReader = (from: number) => Promise<EventPage>;

/** Every event of a branch path from `from` to the head, page by page, and the head it ended at. */
export async function readAll(read: PageReader, from = 1): Promise<{ events: CairnEvent[]; head: string }> {
  const events: CairnEvent[] = [];
  let head = '';
  let next: number | null = from;
  while (next !== null) {
    const page: EventPage = await read(next);
    events.push(...page.events);
    head = page.head;
    next = page.next;
  }
  return { events, head };
}

/**
 * The events after `at` on a branch path; none when `at` is not on that
 * path (a snapshot or checkpoint recorded on another branch).
 */
export async function eventsAfter(read: PageReader, at: CairnEvent): Promise<CairnEvent[]> {
  const first = await read(at.seq);
  if (first.events[0]?.id !== at.id) return [];
  const rest = first.next === null ? [] : (await readAll(read, first.next)).events;
  return [...first.events.slice(1), ...rest];
}
