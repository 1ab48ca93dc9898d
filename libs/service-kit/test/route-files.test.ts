import type { Express, RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { routesFromFiles, type RouteEntry } from '../src/route-files.ts';

/** An app that records each route's method, path and how many handlers run before the endpoint's own. */
function recordingApp() {
  const routes: Array<{ method: string; path: string; handlers: number }> = [];
  const app = new Proxy({} as Express, {
    get: (_target, method: string) => (path: string, ...handlers: RequestHandler[]) => routes.push({ method, path, handlers: handlers.length }),
  });
  return { app, routes };
}

const files: Record<string, unknown> = {
  'public-list-things': { register: (app: Express) => app.get('/api/v1/things', () => undefined) },
  'internal-get-thing': { register: (app: Express) => app.get('/internal/v1/things/:id', () => undefined) },
  'public-thing-hook': { register: (app: Express) => app.post('/things/v1/hooks/:id', () => undefined) },
  'admin-no-export': { registerThings: () => undefined },
};
const load = async (file: string) => {
  if (!(file in files)) throw new Error(`Cannot find module './${file}.ts'`);
  return files[file];
};

describe('routesFromFiles', () => {
  it("registers each entry's route file, guarding internal entries by their callers and open ones as the gateway's", async () => {
    const entries: RouteEntry[] = [
      { id: 'listThings', file: 'public-list-things', auth: 'api-key' },
      { id: 'internalGetThing', file: 'internal-get-thing', auth: 'internal', callers: ['issue'] },
      { id: 'thingHook', file: 'public-thing-hook', auth: 'none' },
    ];
    const { app, routes } = recordingApp();
    for (const register of await routesFromFiles(entries, load)) register(app, {});
    expect(routes).toEqual([
      { method: 'get', path: '/api/v1/things', handlers: 1 },
      { method: 'get', path: '/internal/v1/things/:id', handlers: 2 },
      { method: 'post', path: '/things/v1/hooks/:id', handlers: 2 },
    ]);
  });

  it('refuses to start without the route file of an entry, or without its register export, naming the entry', async () => {
    await expect(routesFromFiles([{ id: 'adminGetThing', file: 'admin-get-thing', auth: 'admin' }], load)).rejects.toThrow(
      'route file admin-get-thing.ts of the manifest entry adminGetThing could not be loaded',
    );
    await expect(routesFromFiles([{ id: 'adminNoExport', file: 'admin-no-export', auth: 'admin' }], load)).rejects.toThrow(
      'route file admin-no-export.ts exports no register function for the manifest entry adminNoExport',
    );
  });
});
