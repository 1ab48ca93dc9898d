import { describe, expect, it } from 'vitest';
import { pathOf } from '../src/manifest/index.ts';

describe('pathOf', () => {
  it("fills an entry's path parameters, URI-encoded", () => {
    expect(pathOf('internalGetCampaign', { id: '0b9f2f4e-5d7c-4c1e-9a51-3f8a2f1b6c7d' })).toBe('/internal/v1/campaigns/0b9f2f4e-5d7c-4c1e-9a51-3f8a2f1b6c7d');
    expect(pathOf('internalListEndpoints', { orgId: 'a/b c' })).toBe('/internal/v1/orgs/a%2Fb%20c/endpoints');
    expect(pathOf('internalDeliveryOutcomes')).toBe('/internal/v1/delivery-outcomes');
  });

  it('refuses a path parameter left out', () => {
    expect(() => pathOf('internalGetIssue')).toThrow(/no value for :id/);
  });
});
