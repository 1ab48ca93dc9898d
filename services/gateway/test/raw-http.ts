import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

/** What came back on a raw connection: the status, the whole text, and whether the server closed. */
export interface RawExchange {
  socket: Socket;
  /** Resolves with the status of the first response, once its head has arrived. */
  status: Promise<number>;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
}

/**
 * Opens a connection and writes `text` as is: the way to send what fetch refuses to (a GET
 * with a body, two Authorization headers) or to trickle a request.
 */
export async function rawRequest(baseUrl: string, text: string): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let buffer = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  const status = new Promise<number>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(buffer);
      if (m) resolve(Number(m[1]));
    });
    void closed.then(() => reject(new Error(`connection closed before a response: ${JSON.stringify(buffer)}`)));
  });
  status.catch(() => undefined);
  socket.write(text);
  return { socket, status, received: () => buffer, closed };
}

/** Resolves once `promise` settles, failing when that takes longer than `ms`. */
export async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
