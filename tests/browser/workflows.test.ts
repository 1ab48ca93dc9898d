import { describe, expect, it } from 'vitest';
import { CAMPAIGN_TRANSITIONS } from '../../services/campaign/src/domain/campaign-lifecycle.ts';
import { CAMPAIGN_MOVES, ISSUE_MOVES } from '../../services/console/src/pages/workflows.ts';
import { ISSUE_TRANSITIONS } from '../../services/issue/src/domain/issue-workflow.ts';

// The console offers only the moves the services allow; it may not import them, so its copies
// (pages/workflows.ts) are checked against the services' own tables here.
describe('the moves the console offers', () => {
  it('are the campaign lifecycle of the campaign service', () => {
    expect(CAMPAIGN_MOVES).toEqual(CAMPAIGN_TRANSITIONS);
  });

  it('are the issue workflow of the issue service', () => {
    expect(ISSUE_MOVES).toEqual(ISSUE_TRANSITIONS);
  });
});
