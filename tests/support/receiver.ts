import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a loopback port that records every POST and answers 200. */
export async function startReceiver(): Promise<{ url: string; received: ReceivedDelivery[]; close(): Promise<void> }> {
  const received: ReceivedDelivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
