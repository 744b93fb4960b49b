/**
 * The worker side of {@link ScanWorker}: scans large files' windows, and
 * batches of small files, off the thread that reads, hashes and stores them. One {@link StreamScan} per file
 * in flight; messages are handled strictly in order, since a stream scan's
 * state (its encoding, what it has seen) depends on the windows before.
 */
import { parentPort } from 'node:worker_threads';
import { lineCounter, StreamScan, scanWhole } from './scan.js';
import type { ScanReply, ScanRequest } from './scan-pool.js';

const port = parentPort;
if (!port) throw new Error('scan-worker.js runs as a worker thread only');
const scans = new Map<number, StreamScan>();
let queue: Promise<void> = Promise.resolve();

async function handle(request: ScanRequest): Promise<ScanReply | null> {
  if (request.type === 'end') {
    scans.delete(request.file);
    return null;
  }
  if (request.type === 'batch') {
    // Moved here for this message: each file is a view of the batch's bytes.
    const { buffer, byteOffset } = request.bytes;
    const results = [];
    let start = 0;
    for (const [i, path] of request.paths.entries()) {
      const end = request.ends[i] as number;
      results.push(await scanWhole(path, Buffer.from(buffer, byteOffset + start, end - start)));
      start = end;
    }
    return { id: request.id, results };
  }
  let scan = scans.get(request.file);
  if (!scan) {
    scan = new StreamScan(request.path, { lineAt: lineCounter(request.abs) });
    scans.set(request.file, scan);
  }
  // The window was moved here for this message: view it, and move it back with the answer.
  const { buffer, byteOffset, byteLength } = request.window;
  await scan.feed(Buffer.from(buffer, byteOffset, byteLength), request.offset);
  return { id: request.id, findings: scan.findings, window: request.window };
}

port.on('message', (request: ScanRequest) => {
  queue = queue.then(async () => {
    try {
      const reply = await handle(request);
      if (reply) port.postMessage(reply, 'window' in reply ? [reply.window.buffer as ArrayBuffer] : []);
    } catch (error) {
      if (request.type !== 'end')
        port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
