/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Response } from 'express';
import { pathId } from '@preflight/http';
import type { PublicCampaign } from '../../gateway-client/api-types.ts';
import type { FormProblem, FormValues } from '../components/form.tsx';
import { requireRole, requireSession, sendFragment, type PageRegistration } from '../context.ts';
import { unchanged } from '../live.ts';
import { backTo, Form, memberOf, show, submit, type Member } from '../page.tsx';
import { CampaignsPage, type CampaignRow } from './list-view.tsx';
import { ReadinessPanel, readinessFingerprint } from './report-view.tsx';
import { registerCampaignForms } from './forms.tsx';
import { issueFilter, showCampaign } from './show-campaign.tsx';

/** Reports read at once for the list's sign-off column. */
const REPORTS_AT_ONCE = 8;
/**
 * The newest campaigns whose sign-offs the list shows: each is one admin call, and every call
 * counts against the member's admin rate limit. Verdict and gate come with the list itself.
 */
export const REPORTS_SHOWN = 40;

async function withReports(m: Member, campaigns: PublicCampaign[]): Promise<CampaignRow[]> {
  const rows: CampaignRow[] = [];
  for (let i = 0; i < campaigns.length; i += REPORTS_AT_ONCE) {
    const batch = campaigns.slice(i, i + REPORTS_AT_ONCE);
    if (i >= REPORTS_SHOWN) {
      rows.push(...batch.map((campaign) => ({ campaign, report: null })));
      continue;
    }
    // A report that cannot be read leaves its column empty rather than failing the whole list.
    rows.push(...(await Promise.all(batch.map(async (campaign) => ({ campaign, report: await m.api.campaigns.report(campaign.id).catch(() => null) })))));
  }
  return rows;
}

async function showList(res: Response, m: Member, refused?: { problem: FormProblem; values: FormValues; status: number }) {
  const [campaigns, sites] = await Promise.all([m.api.campaigns.list(), m.api.sites.list()]);
  const rows = await withReports(m, campaigns);
  show(
    res,
    m,
    { title: 'Campaigns', path: '/console/campaigns', status: refused?.status },
    <CampaignsPage rows={rows} sites={sites} canManage={m.canManage} csrf={m.session.csrf} problem={refused?.problem} values={refused?.values} />,
  );
}

/** Campaigns: the list, creating sites and campaigns, the campaign page and its live verdict. */
export const campaignPages: PageRegistration = (router, deps) => {
  router.get('/campaigns', requireSession, async (_req, res) => {
    await showList(res, memberOf(deps.context(res)));
  });

  router.post('/campaigns', requireRole('Admin'), async (req, res) => {
    const m = memberOf(deps.context(res));
    const form = Form.of(req);
    await submit(
      () => m.api.campaigns.create(pathId(form.text('siteId'), 'site'), { name: form.text('name') }),
      (campaign) => backTo(res, `/console/campaigns/${campaign.id}`),
      (problem, status) => showList(res, m, { problem, status, values: form.values() }),
      'campaign',
    );
  });

  router.post('/campaigns/sites', requireRole('Admin'), async (req, res) => {
    const m = memberOf(deps.context(res));
    const form = Form.of(req);
    await submit(
      () => m.api.sites.create({ name: form.text('name'), url: form.optional('url') }),
      () => backTo(res, '/console/campaigns#new-campaign'),
      (problem, status) => showList(res, m, { problem, status, values: form.values() }),
      'site',
    );
  });

  router.get('/campaigns/:id', requireSession, async (req, res) => {
    await showCampaign(res, memberOf(deps.context(res)), pathId(req.params.id, 'campaign'), { filter: issueFilter(req.query) });
  });

  // The live verdict (report-view.tsx): 204 while what the page shows is still true.
  router.get('/campaigns/:id/readiness', requireSession, async (req, res) => {
    const m = memberOf(deps.context(res));
    const id = pathId(req.params.id, 'campaign');
    const [campaign, report] = await Promise.all([m.api.campaigns.get(id), m.api.campaigns.report(id)]);
    if (unchanged(req.query.seen, readinessFingerprint({ campaign, report }))) {
      res.status(204).setHeader('Cache-Control', 'no-store').end();
      return;
    }
    sendFragment(res, <ReadinessPanel campaign={campaign} report={report} />);
  });

  registerCampaignForms(router, deps);
};
