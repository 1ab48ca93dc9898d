import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

/**
 * The console's own files (public/: CSS, small scripts). From the sources they are
 * services/console/public; a bundle (scripts/build-service.mjs) carries a copy in
 * dist/public, next to dist/chunks where this code then runs.
 */
export function publicDir(): string {
  for (const candidate of ['../../public/', '../public/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}console.css`)) return dir;
  }
  throw new Error('services/console/public (or dist/public in a bundle) is missing: the console has no static files to serve');
}

/** htmx, served as is from its package (a production dependency, so images install it). */
export const HTMX_FILE = createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js');

/**
 * `/console/static/*`: htmx and public/. Served before the session is read (no Redis round
 * trip per file); cached briefly by browsers, since names carry no version.
 */
export function staticFiles(router: Router): void {
  const options = { maxAge: '5m', index: false, dotfiles: 'ignore', fallthrough: true, etag: true } as const;
  router.get('/static/htmx.min.js', (_req, res, next) => {
    res.sendFile(HTMX_FILE, options, (err) => err && next(err));
  });
  router.use('/static', express.static(publicDir(), options));
}
