/** Counting the event loop's turns (a count, not a time): what tests of "work gives the loop turns" measure. */

/** Counts the event loop's turns from now until `stop()`. */
export function turnCounter(): { turns(): number; stop(): void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    turns: () => turns,
    stop: () => {
      running = false;
    },
  };
}

/** Runs `work`, counting the event loop's turns meanwhile. */
export async function countTurns<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  const counter = turnCounter();
  try {
    const value = await work();
    return { value, turns: counter.turns() };
  } finally {
    counter.stop();
  }
}
