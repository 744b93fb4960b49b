// dist/log/pages.js
/** Every event of a branch path from `from` to the head, page by page, and the head it ended at. */
async function readAll(read, from = 1) {
	const events = [];
	let head = "";
	let next = from;
	while (next !== null) {
		const page = await read(next);
		events.push(...page.events);
		head = page.head;
		next = page.next;
	}
	return {
		events,
		head
	};
}
/**
* The events after `at` on a branch path; none when `at` is not on that
* path (a snapshot or checkpoint recorded on another branch).
*/
async function eventsAfter(read, at) {
	return (await afterOnPath(read, at))?.events ?? [];
}
/** The events after `at` and the head, or null when `at` is not on the path. */
async function afterOnPath(read, at) {
	const first = await read(at.seq);
	if (first.events[0]?.id !== at.id) return null;
	if (first.next === null) return {
		events: first.events.slice(1),
		head: first.head
	};
	const rest = await readAll(read, first.next);
	return {
		events: [...first.events.slice(1), ...rest.events],
		head: rest.head
	};
}
/**
* How moving a head from the path `current` reads to the event `at` (whose
* own path `target` reads) changes the path: the head it leaves, the events
* taken off it and the events brought back — both after the last event the
* two paths share. Reads both paths whole only when `at` is off the current one.
*/
async function pathChange(current, target, at) {
	const after = await afterOnPath(current, at);
	if (after) return {
		head: after.head,
		off: after.events,
		back: []
	};
	const now = await readAll(current);
	const there = (await readAll(target)).events;
	let shared = 0;
	while (shared < now.events.length && now.events[shared]?.id === there[shared]?.id) shared++;
	return {
		head: now.head,
		off: now.events.slice(shared),
		back: there.slice(shared)
	};
}
export { pathChange as n, readAll as r, eventsAfter as t };
