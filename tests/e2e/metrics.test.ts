import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/lib/services.ts';

// Every metric the charts' alert rules and Grafana dashboard read must really be exported by a
// running service, or an alert would silently never fire.
const sys = inject('system');
const used = JSON.parse(readFileSync(`${REPO_ROOT}/charts/metrics-used.json`, 'utf8')) as { exported: Record<string, string[]> };

/** Metric family names a /metrics page declares (histogram series map to their family). */
function families(page: string): Set<string> {
  const names = new Set<string>();
  for (const line of page.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)/.exec(line);
    if (!m) continue;
    names.add(m[1]!);
    if (m[2] === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${m[1]}${suffix}`);
  }
  return names;
}

describe('metrics used by alerts and dashboards', () => {
  const services = Object.keys(sys.serviceUrls);
  for (const [owner, metrics] of Object.entries(used.exported)) {
    const exporters = owner === 'all' ? services : [owner];
    it(`are exported by ${owner === 'all' ? 'every service' : `the ${owner} service`}`, async () => {
      for (const service of exporters) {
        const url = sys.serviceUrls[service as keyof typeof sys.serviceUrls];
        expect(url, `no running service named ${service}`).toBeDefined();
        const page = await (await fetch(`${url}/metrics`)).text();
        const declared = families(page);
        for (const metric of metrics) expect(declared.has(metric), `${service} does not export ${metric}`).toBe(true);
      }
    });
  }
});
