import { conflict, notFound, validationFailed } from '@preflight/http';
import { toReportEntry } from '../views/signoff-view.ts';
import type { AddEntry } from '../storage/report.ts';

/** The entry, or the problem: unknown campaign 404, a signer not of this campaign 422, stale or repeated 409. */
export function entryOrThrow(added: AddEntry, campaignId: string, signerId: string, version: number) {
  switch (added.outcome) {
    case 'not_found':
      throw notFound('campaign', campaignId);
    case 'unknown_signer':
      throw validationFailed({ signerId: ['Is not a signer of this campaign.'] });
    case 'stale':
      throw conflict(`The report is at version ${added.current}; version ${version} is not the current one.`, { currentVersion: added.current });
    case 'duplicate':
      throw conflict(`Signer ${signerId} has already stamped or been waived on version ${version}.`, { currentVersion: added.current });
    case 'created':
      return toReportEntry(added.entry);
  }
}
