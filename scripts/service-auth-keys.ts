/**
 * Key material for service-to-service tokens (docs/operations.md, "Service-to-service keys"):
 * one Ed25519 key pair per service, printed as the Secret's keys.
 *
 *   npx tsx scripts/service-auth-keys.ts                       # every service: a first install
 *   npx tsx scripts/service-auth-keys.ts --kid k202612 --services webhook --public-keys "$CUR"
 *                                                              # rotation: new pairs for the named services,
 *                                                              # the ring printed with the current one after them
 *
 * Prints `--from-literal=…` arguments for `kubectl create secret generic`, one a line; never writes a file.
 */
import { parseArgs } from 'node:util';
import { generateDeploymentKeys, parsePublicKeys } from '@preflight/service-auth';
import { SERVICES } from './lib/services.ts';

const { values } = parseArgs({
  options: {
    kid: { type: 'string', default: `k${new Date().toISOString().slice(0, 7).replace('-', '')}` },
    services: { type: 'string', default: SERVICES.map((s) => s.name).join(',') },
    'public-keys': { type: 'string', default: '' },
  },
});
const names = values.services.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = names.filter((n) => !SERVICES.some((s) => s.name === n));
if (unknown.length) throw new Error(`unknown service(s): ${unknown.join(', ')}`);
const current = values['public-keys'].trim();
// Refused early: the same kid twice for a service would make the ring ambiguous.
if (current) for (const n of names) if (parsePublicKeys(current).has(`${n}:${values.kid}`)) throw new Error(`${n}:${values.kid} is already in the ring; choose another --kid`);

const fresh = generateDeploymentKeys(names, values.kid);
const ring = [fresh.publicKeys, current].filter(Boolean).join(',');
parsePublicKeys(ring);
// One argument a line, no quotes: base64, `:` and `,` need none, so `$(npx tsx …)` splits them right.
for (const n of names) console.log(`--from-literal=service-auth-${n}=${fresh.keys[n]}`);
console.log(`--from-literal=service-auth-public-keys=${ring}`);
