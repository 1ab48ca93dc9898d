import type { RequestHandler, Response } from 'express';

/**
 * Only the console's own files run and load: no inline script or style (htmx reads its
 * configuration from attributes), no framing, forms post only here.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/** On every console response (pages, fragments, static files, redirects). */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

/** Pages hold one member's data: never kept by a browser or any cache in between. */
export function sendHtml(res: Response, status: number, html: string): void {
  res.status(status).setHeader('Cache-Control', 'no-store');
  res.type('text/html; charset=utf-8').send(html);
}
