import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** When its body had arrived (epoch ms). */
  at: number;
}

/** How the receiver answers a delivery whose body has arrived; the default is 200 `ok`. */
export type ReceiverAnswer = (res: ServerResponse, req: IncomingMessage) => void;

const ok: ReceiverAnswer = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');

/**
 * A webhook receiver on a loopback port that records every POST. `answer` may be swapped
 * while it runs (an endpoint that is down and comes back).
 */
export async function startReceiver(answer: ReceiverAnswer = ok) {
  const received: ReceivedDelivery[] = [];
  const receiver = { url: '', received, answer, close: async () => undefined as void };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      receiver.answer(res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
