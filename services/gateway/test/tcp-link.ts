import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of a real server (Postgres here) that a test can cut and restore: while
 * cut, open connections are reset and new ones refused, as in an outage of the server itself.
 */
export interface TcpLink {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpLink(targetHost: string, targetPort: number): Promise<TcpLink> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (s === client ? upstream : client).destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cut = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: async () => {
      if (!server.listening) await listen(port);
    },
    close: cut,
  };
}

/** A link in front of the database at `databaseUrl`, and the URL that reaches it through the link (cut it to cut the database off). */
export async function databaseThroughLink(databaseUrl: string): Promise<{ link: TcpLink; url: string }> {
  const target = new URL(databaseUrl);
  const link = await startTcpLink(target.hostname, Number(target.port || 5432));
  const viaLink = new URL(databaseUrl);
  viaLink.hostname = '127.0.0.1';
  viaLink.port = String(link.port);
  return { link, url: viaLink.toString() };
}
