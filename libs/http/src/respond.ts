import type { Request, Response } from 'express';

/** Response media types the public contract offers (spec section 1, rule 5). */
const OFFERED = ['application/json', 'text/json', 'text/plain'] as const;

/**
 * Sends `body` as JSON under the media type the client prefers among those offered. A client
 * that accepts none of them still gets application/json: answering 406 to a strict Accept
 * header helps nobody read the response.
 */
export function sendJson(req: Request, res: Response, status: number, body: unknown): void {
  sendJsonText(req, res, status, JSON.stringify(body));
}

/** `sendJson` of a body already serialised (by Postgres, for a long list). */
export function sendJsonText(req: Request, res: Response, status: number, json: string): void {
  const chosen = req.accepts([...OFFERED]) || 'application/json';
  res.status(status).setHeader('Content-Type', `${chosen}; charset=utf-8`);
  res.send(json);
}
