import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EndpointStats } from '@preflight/contract';

/** How the stand-in answers `POST /internal/v1/endpoint-stats`. */
export type StandInBehaviour = 'answer' | 'fail' | 'garble' | 'hang';

export interface DeliveryStandIn {
  url: string;
  /** Stats it answers per id; ids it does not know get zeros and nulls, like the real service. */
  stats: Map<string, EndpointStats>;
  behaviour: StandInBehaviour;
  /** Every call it got: the ids asked for and the traceparent sent. */
  calls: Array<{ ids: string[]; traceparent: string | undefined }>;
  close(): Promise<void>;
}

export const NO_STATS: EndpointStats = { attempts24h: 0, succeeded24h: 0, p50Ms: null, p99Ms: null, lastSuccessAt: null, lastFailureAt: null };

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** A real HTTP server on loopback playing the delivery service's stats route. */
export async function startDeliveryStandIn(): Promise<DeliveryStandIn> {
  const standIn: DeliveryStandIn = {
    url: '',
    stats: new Map(),
    behaviour: 'answer',
    calls: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/internal/v1/endpoint-stats') return void res.writeHead(404).end();
    void readJson(req).then((body: { ids: string[] }) => {
      standIn.calls.push({ ids: body.ids, traceparent: req.headers.traceparent as string | undefined });
      const send = (status: number, text: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      if (standIn.behaviour === 'hang') return; // never answers; the client's timeout must end the call
      if (standIn.behaviour === 'fail') return send(500, JSON.stringify({ status: 500 }));
      if (standIn.behaviour === 'garble') return send(200, JSON.stringify({ stats: { [body.ids[0]!]: { attempts24h: 'many' } } }));
      send(200, JSON.stringify({ stats: Object.fromEntries(body.ids.map((id) => [id, standIn.stats.get(id) ?? NO_STATS])) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
