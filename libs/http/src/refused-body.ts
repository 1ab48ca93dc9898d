import type { Request, Response } from 'express';

/** The most of a refused body read and dropped; a larger declared body closes the connection at once. */
const DISCARD_MAX_BYTES = 8 * 1024 * 1024;
/** How long the rest may pause, and take in all, before the connection is closed anyway. */
const DISCARD_IDLE_MS = 1_000;
const DISCARD_TOTAL_MS = 10_000;

/**
 * Prepares the answer to a request refused before its body arrived whole. Closing at once would
 * reset the connection under a client still sending, and a reset can destroy the answer before
 * the client reads it; so, as nginx's lingering close does, the rest of a body up to
 * DISCARD_MAX_BYTES is read and dropped after the answer, within idle and total deadlines, and
 * the connection stays usable. A 408 (the body is what is late) or a larger declared body closes
 * the connection with the answer.
 */
export function answerBeforeBody(req: Request, res: Response, status: number): void {
  const declared = req.headers['transfer-encoding'] === undefined ? Number(req.headers['content-length'] ?? 0) : 0;
  if (status === 408 || req.destroyed || declared > DISCARD_MAX_BYTES) {
    res.setHeader('Connection', 'close');
    return;
  }
  const socket = req.socket;
  const close = () => socket.destroy();
  const idle = setTimeout(close, DISCARD_IDLE_MS);
  const total = setTimeout(close, DISCARD_TOTAL_MS);
  let discarded = 0;
  const done = () => {
    clearTimeout(idle);
    clearTimeout(total);
  };
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_MAX_BYTES) close();
    else idle.refresh();
  });
  req.once('end', done);
  req.once('close', done);
}
