import type { IssueStatus } from '@preflight/contract';
import type { LinearDocument } from '@linear/sdk';
import { ProviderError, type ExternalIssue, type IssueDetail, type SafeFetch, type TrackerClient } from '../provider.ts';
import { trackerMarkdown, trackerTitle } from '../tracker-text.ts';
import { isNotFound, linearGraphql } from './graphql.ts';
import { linearApiUrlOf, linearIssueIdOf, linearStatusMapping, type LinearConfig, type LinearCredentials } from './schema.ts';

/** Linear's priorities: 1 urgent … 4 low, 0 none. */
const PRIORITY_OF_SEVERITY: Record<string, number> = { Critical: 1, High: 2, Medium: 3, Low: 4, Trivial: 0 };
/** Linear's titles are long-form; the same cut as GitHub's keeps the card readable. */
const TITLE_MAX = 256;

interface WorkflowState {
  id: string;
  name: string;
  type: string;
  position: number;
}
interface LinearIssue {
  id: string;
  identifier: string;
  url: string;
  state: WorkflowState;
}
interface IssuePayload {
  success: boolean;
  issue: LinearIssue | null;
}

const ISSUE_FIELDS = 'id identifier url state { id name type position }';
const TEAM_QUERY = 'query PreflightTeam($id: String!) { team(id: $id) { id name key } }';
const ISSUE_QUERY = `query PreflightIssue($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} } }`;
const STATES_QUERY = `query PreflightIssueStates($issueId: String!, $teamId: String!) {
  issue(id: $issueId) { ${ISSUE_FIELDS} }
  team(id: $teamId) { states(first: 250) { nodes { id name type position } } }
}`;
const CREATE_MUTATION = `mutation PreflightIssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { ${ISSUE_FIELDS} } } }`;
const UPDATE_MUTATION = `mutation PreflightIssueUpdate($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success issue { ${ISSUE_FIELDS} } } }`;

/**
 * Which state of a kind a status moves to: "Todo" before "Backlog" (accepted work), and within a
 * type Linear's own order.
 */
const TYPE_PREFERENCE = ['unstarted', 'started', 'completed', 'canceled', 'backlog', 'triage'];
const rank = (s: WorkflowState) => {
  const i = TYPE_PREFERENCE.indexOf(s.type);
  return i === -1 ? TYPE_PREFERENCE.length : i;
};
const inPreferredOrder = (states: WorkflowState[]) => [...states].sort((a, b) => rank(a) - rank(b) || a.position - b.position);

const external = (issue: LinearIssue): ExternalIssue => ({ externalId: issue.id, externalKey: issue.identifier, url: issue.url, state: issue.state.name });

function madeIssue(payload: IssuePayload, what: string): LinearIssue {
  if (!payload.success || !payload.issue) throw new ProviderError('rejected', `${what}: Linear did not report success`);
  return payload.issue;
}

export function createLinearTrackerClient(config: LinearConfig, credentials: LinearCredentials, fetch: SafeFetch): TrackerClient {
  const graphql = linearGraphql(fetch, linearApiUrlOf(config), credentials.apiKey);
  const mapping = linearStatusMapping(config);

  const issueById = async (id: string): Promise<LinearIssue | null> => {
    try {
      return (await graphql<{ issue: LinearIssue }>({ what: 'Linear issue', query: ISSUE_QUERY, variables: { id } })).issue;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  };

  return {
    async test() {
      const { team } = await graphql<{ team: { key: string; name: string } }>({ what: 'Linear team', query: TEAM_QUERY, variables: { id: config.teamId } });
      return { statusCode: 200, detail: `Team ${team.key} (${team.name}) is readable.` };
    },

    async findByMarker(issueId) {
      const issue = await issueById(linearIssueIdOf(issueId));
      return issue ? external(issue) : null;
    },

    async create(issue: IssueDetail) {
      const id = linearIssueIdOf(issue.issueId);
      const priority = issue.severity ? PRIORITY_OF_SEVERITY[issue.severity] : undefined;
      const input: LinearDocument.IssueCreateInput = {
        id,
        teamId: config.teamId,
        title: trackerTitle(issue, TITLE_MAX),
        description: trackerMarkdown(issue),
        ...(priority !== undefined ? { priority } : {}),
      };
      try {
        const { issueCreate } = await graphql<{ issueCreate: IssuePayload }>({ what: 'Linear issue create', query: CREATE_MUTATION, variables: { input } });
        return external(madeIssue(issueCreate, 'Linear issue create'));
      } catch (err) {
        // Linear refuses an id it already has: an earlier try made the issue, so that one is the answer.
        if (err instanceof ProviderError && err.kind === 'rejected') {
          const existing = await issueById(id);
          if (existing) return external(existing);
        }
        throw err;
      }
    },

    async syncStatus(link, status: IssueStatus) {
      const { issue, team } = await graphql<{ issue: LinearIssue; team: { states: { nodes: WorkflowState[] } } }>({
        what: 'Linear workflow states',
        query: STATES_QUERY,
        variables: { issueId: link.externalId, teamId: config.teamId },
      });
      const byType = (s: WorkflowState) => ({ ...s, category: s.type });
      const current = byType(issue.state);
      const target = mapping.pick(status, current, inPreferredOrder(team.states.nodes).map(byType));
      if (!target) throw new ProviderError('rejected', `Linear issue ${issue.identifier} is in "${issue.state.name}" and the team has no workflow state meaning ${status} (see the connection's stateMap)`);
      if (target === current || target.id === current.id) return null;
      const input: LinearDocument.IssueUpdateInput = { stateId: target.id };
      const { issueUpdate } = await graphql<{ issueUpdate: IssuePayload }>({ what: 'Linear issue update', query: UPDATE_MUTATION, variables: { id: issue.id, input } });
      return external(madeIssue(issueUpdate, 'Linear issue update'));
    },
  };
}
