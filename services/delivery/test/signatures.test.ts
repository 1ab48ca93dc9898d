import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, signingKeysOf } from '../src/domain/signatures.ts';

/** X-Service-Signature as the spec defines it, computed without the service's code. */
const specSignature = (secret: string, body: Buffer) => `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;

function signedBy(endpoint: { secret: string }, body: Buffer) {
  return deliveryHeaders({ keys: signingKeysOf(endpoint), eventType: 'issue.created', envelopeId: 'evt_1', attemptId: 'att_1', body });
}

describe('signing with the keys cached per endpoint', () => {
  const body = Buffer.from(JSON.stringify({ id: 'evt_1', data: { title: 'Käse' } }), 'utf8');

  it('gives the signatures a receiver computes from the secret', () => {
    const endpoint = { secret: randomBytes(32).toString('base64') };
    for (let i = 0; i < 2; i++) {
      // The second round signs with the keys made by the first.
      const headers = signedBy(endpoint, body);
      expect(headers['x-service-signature']).toBe(specSignature(endpoint.secret, body));
      expect(new Webhook(`whsec_${endpoint.secret}`).verify(body.toString('utf8'), headers)).toEqual(JSON.parse(body.toString('utf8')));
    }
  });

  it('signs with the new secret once the endpoint cache holds an endpoint with another one', () => {
    const before = { secret: randomBytes(32).toString('base64') };
    signedBy(before, body);
    const after = { ...before, secret: randomBytes(32).toString('base64') };
    const headers = signedBy(after, body);
    expect(headers['x-service-signature']).toBe(specSignature(after.secret, body));
    expect(() => new Webhook(`whsec_${before.secret}`).verify(body.toString('utf8'), headers)).toThrow();
    expect(() => new Webhook(`whsec_${after.secret}`).verify(body.toString('utf8'), headers)).not.toThrow();
  });

  it('accepts a secret given with the whsec_ prefix for the Standard Webhooks signature', () => {
    const raw = randomBytes(32).toString('base64');
    const headers = signedBy({ secret: `whsec_${raw}` }, body);
    expect(() => new Webhook(`whsec_${raw}`).verify(body.toString('utf8'), headers)).not.toThrow();
  });

  it('during a rotation\'s grace signs X-Service-Signature with the previous secret, the new one in -Next, and both in webhook-signature', () => {
    const previousSecret = randomBytes(32).toString('base64');
    const secret = randomBytes(32).toString('base64');
    const inGrace = { secret, previousSecret, previousSecretExpiresAt: new Date(Date.now() + 60_000).toISOString() };
    const headers = signedBy(inGrace, body);
    expect(headers['x-service-signature']).toBe(specSignature(previousSecret, body));
    expect(headers['x-service-signature-next']).toBe(specSignature(secret, body));
    for (const s of [previousSecret, secret]) expect(() => new Webhook(`whsec_${s}`).verify(body.toString('utf8'), headers)).not.toThrow();

    const expired = { secret, previousSecret, previousSecretExpiresAt: new Date(Date.now() - 1).toISOString() };
    const after = signedBy(expired, body);
    expect(after['x-service-signature']).toBe(specSignature(secret, body));
    expect(after['x-service-signature-next']).toBeUndefined();
    expect(() => new Webhook(`whsec_${previousSecret}`).verify(body.toString('utf8'), after)).toThrow();
  });
});
