/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { Request, Response, Router } from 'express';
import type { CampaignStatus } from '@preflight/contract';
import { pathId } from '@preflight/http';
import { requireRole, requireSession, type PageDeps } from '../context.ts';
import { backTo, Form, idField, memberOf, submit, type Member } from '../page.tsx';
import { showCampaign } from './show-campaign.tsx';
import { completeFormKey, type TesterOutcome } from './testers-view.tsx';

type Guard = typeof requireSession;

/**
 * The campaign page's forms. Each posts one admin call; success goes back to the page (303) or
 * shows what was made, a 409/422 re-renders the page with the problem beside its form.
 */
export function registerCampaignForms(router: Router, deps: PageDeps): void {
  const on = <T,>(
    path: string,
    guard: Guard,
    form: string | ((f: Form) => string),
    call: (m: Member, id: string, f: Form) => Promise<T>,
    after: { anchor: string } | { outcome: (result: T) => TesterOutcome },
  ) => {
    router.post(`/campaigns/:id/${path}`, guard, async (req: Request, res: Response) => {
      const m = memberOf(deps.context(res));
      const id = pathId(req.params.id, 'campaign');
      const f = Form.of(req);
      await submit(
        () => call(m, id, f),
        (result) => ('anchor' in after ? backTo(res, `/console/campaigns/${id}#${after.anchor}`) : showCampaign(res, m, id, { outcome: after.outcome(result) })),
        (problem, status) => showCampaign(res, m, id, { problem, status }),
        typeof form === 'string' ? form : form(f),
      );
    });
  };
  const admin = requireRole('Admin');

  on('status', admin, 'status', (m, id, f) => m.api.campaigns.changeStatus(id, { to: f.text('to') as Exclude<CampaignStatus, 'Draft'>, reason: f.optional('reason') }), { anchor: 'main' });
  on(
    'stamps',
    requireSession,
    'stamp',
    (m, id, f) => m.api.campaigns.addStamp(id, { signerId: f.text('signerId'), version: f.integer('version') as number, decision: f.text('decision') as 'approve' | 'reject', note: f.optional('note') }),
    { anchor: 'report-heading' },
  );
  on('waivers', admin, 'waiver', (m, id, f) => m.api.campaigns.addWaiver(id, { signerId: f.text('signerId'), version: f.integer('version') as number, reason: f.optional('reason') }), {
    anchor: 'report-heading',
  });
  on('signers', admin, 'signer', (m, id, f) => m.api.campaigns.addSigner(id, { name: f.text('name'), email: f.text('email') }), { anchor: 'report-heading' });
  on('tasks', admin, 'task', (m, id, f) => m.api.campaigns.createTask(id, { title: f.text('title'), required: f.checked('required') }), { outcome: (task) => ({ task }) });
  on('testers', admin, 'tester', (m, id, f) => m.api.campaigns.createTester(id, { name: f.text('name'), email: f.text('email'), preview: f.checked('preview') }), {
    outcome: (tester) => ({ tester }),
  });
  on(
    'complete-task',
    requireSession,
    // Each tester has its own form: the refusal goes beside the one that was sent.
    (f) => completeFormKey(f.text('testerId').trim().toLowerCase()),
    (m, _id, f) => m.api.campaigns.completeTask(idField(f, 'testerId'), idField(f, 'taskId'), { verdict: f.optional('verdict') }),
    { outcome: (progress) => ({ progress }) },
  );
}
