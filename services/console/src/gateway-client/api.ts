import type { CampaignStatus, IssueSeverity, IssueStatus, ResponseOf } from '@preflight/contract';
import type {
  AdminIssue,
  AdminWebhook,
  ApiKey,
  CreatedApiKey,
  CreatedIntegration,
  CreatedInvitation,
  CreatedIssue,
  CreatedWebhook,
  DeliveryAttempt,
  Integration,
  IntegrationActivity,
  IntegrationSettings,
  IntegrationTestResult,
  IntegrationUpdate,
  Invitation,
  IssueFields,
  IssueLink,
  IssuePage,
  Member,
  MemberRole,
  NewApiKey,
  NewInvitation,
  PublicCampaign,
  QueuedDelivery,
  ReadinessReport,
  ReportEntry,
  RotatedSecret,
  SendOf,
  Signer,
  Site,
  StatusChange,
  Task,
  Tester,
  TesterProgress,
} from './api-types.ts';
import type { AdminFetch } from './fetch.ts';

/** Path segments come from the browser's URL: encoded, so `..` or `/` can never reach another route. */
const seg = encodeURIComponent;

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') q.set(name, String(value));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export interface IssueListFilter {
  status?: IssueStatus;
  severity?: IssueSeverity;
  page?: number;
  pageSize?: number;
}

/**
 * The typed admin API the pages use, for one member's organisation: every call goes through the
 * gateway (the same routes, events, audit log and rate limits as the operator's), which refuses
 * what the member's role does not allow and answers 404 for another organisation's resources.
 */
export function createAdminApi(call: AdminFetch, orgId: string) {
  const org = `/admin/v1/organizations/${seg(orgId)}`;
  const get = <T>(path: string) => call<T>('GET', path);
  const post = <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {});
  const del = async (path: string) => {
    await call('DELETE', path);
  };
  const campaign = (id: string) => `/admin/v1/campaigns/${seg(id)}`;
  const issue = (id: string) => `/admin/v1/issues/${seg(id)}`;
  const webhook = (id: string) => `/admin/v1/webhooks/${seg(id)}`;
  const integration = (id: string) => `/admin/v1/integrations/${seg(id)}`;

  return {
    sites: {
      list: () => get<Site[]>(`${org}/sites`),
      create: (body: SendOf<'adminCreateSite'>) => post<Site>(`${org}/sites`, body),
    },
    campaigns: {
      list: (status?: CampaignStatus) => get<PublicCampaign[]>(`${org}/campaigns${query({ status })}`),
      get: (id: string) => get<PublicCampaign>(campaign(id)),
      create: (siteId: string, body: SendOf<'adminCreateCampaign'>) => post<PublicCampaign>(`/admin/v1/sites/${seg(siteId)}/campaigns`, body),
      changeStatus: (id: string, body: SendOf<'adminChangeCampaignStatus'>) => post<PublicCampaign>(`${campaign(id)}/status`, body),
      report: (id: string) => get<ReadinessReport>(`${campaign(id)}/report`),
      signers: (id: string) => get<Signer[]>(`${campaign(id)}/signers`),
      addSigner: (id: string, body: SendOf<'adminAddSigner'>) => post<Signer>(`${campaign(id)}/signers`, body),
      addStamp: (id: string, body: SendOf<'adminAddStamp'>) =>
        post<ReportEntry>(`${campaign(id)}/report/stamps`, body),
      addWaiver: (id: string, body: SendOf<'adminAddWaiver'>) => post<ReportEntry>(`${campaign(id)}/report/waivers`, body),
      listTasks: (id: string) => get<Task[]>(`${campaign(id)}/tasks`),
      listTesters: (id: string) => get<TesterProgress[]>(`${campaign(id)}/testers`),
      createTask: (id: string, body: SendOf<'adminCreateTask'>) => post<Task>(`${campaign(id)}/tasks`, body),
      createTester: (id: string, body: SendOf<'adminCreateTester'>) => post<Tester>(`${campaign(id)}/testers`, body),
      completeTask: (campaignTesterId: string, taskId: string, body: SendOf<'adminCompleteTask'>) =>
        post<TesterProgress>(`/admin/v1/campaign-testers/${seg(campaignTesterId)}/tasks/${seg(taskId)}/complete`, body),
    },
    issues: {
      list: (campaignId: string, filter: IssueListFilter = {}) => get<IssuePage>(`${campaign(campaignId)}/issues${query({ ...filter })}`),
      create: (campaignId: string, body: IssueFields) => post<CreatedIssue>(`${campaign(campaignId)}/issues`, body),
      get: (id: string) => get<AdminIssue>(issue(id)),
      changeStatus: (id: string, body: StatusChange) => post<AdminIssue>(`${issue(id)}/status`, body),
      setAssignee: (id: string, assigneeName: string | null) => post<AdminIssue>(`${issue(id)}/assignee`, { assigneeName } satisfies SendOf<'adminSetAssignee'>),
      links: (id: string) => get<IssueLink[]>(`${issue(id)}/links`),
    },
    apiKeys: {
      list: () => get<ApiKey[]>(`${org}/api-keys`),
      create: (body: NewApiKey) => post<CreatedApiKey>(`${org}/api-keys`, body),
      revoke: (keyId: string) => del(`${org}/api-keys/${seg(keyId)}`),
    },
    webhooks: {
      list: () => get<AdminWebhook[]>(`${org}/webhooks`),
      create: (body: SendOf<'adminCreateWebhook'>) => post<CreatedWebhook>(`${org}/webhooks`, body),
      enable: (id: string) => post<ResponseOf<'adminEnableWebhook'>>(`${webhook(id)}/enable`),
      deliveries: (id: string, limit = 50) => get<DeliveryAttempt[]>(`${webhook(id)}/deliveries${query({ limit })}`),
      redeliver: (id: string, deliveryId: string) => post<QueuedDelivery>(`${webhook(id)}/deliveries/${seg(deliveryId)}/redeliver`),
      recover: (id: string, since: string) => post<ResponseOf<'adminRecoverWebhook'>>(`${webhook(id)}/recover`, { since } satisfies SendOf<'adminRecoverWebhook'>),
      test: (id: string, eventType: SendOf<'adminTestWebhook'>['eventType']) => post<QueuedDelivery>(`${webhook(id)}/test`, { eventType } satisfies SendOf<'adminTestWebhook'>),
      rotateSecret: (id: string, graceHours: number) => post<RotatedSecret>(`${webhook(id)}/secret/rotate`, { graceHours } satisfies SendOf<'adminRotateWebhookSecret'>),
    },
    integrations: {
      list: () => get<Integration[]>(`${org}/integrations`),
      create: (body: IntegrationSettings) => post<CreatedIntegration>(`${org}/integrations`, body),
      update: (id: string, body: IntegrationUpdate) => call<Integration>('PATCH', integration(id), body),
      remove: (id: string) => del(integration(id)),
      test: (id: string) => post<IntegrationTestResult>(`${integration(id)}/test`),
      activity: (id: string, limit = 50) => get<IntegrationActivity[]>(`${integration(id)}/activity${query({ limit })}`),
    },
    members: {
      list: () => get<Member[]>(`${org}/members`),
      changeRole: (userId: string, role: MemberRole) => call<Member>('PATCH', `${org}/members/${seg(userId)}`, { role } satisfies SendOf<'adminUpdateMember'>),
      remove: (userId: string) => del(`${org}/members/${seg(userId)}`),
      invitations: () => get<Invitation[]>(`${org}/invitations`),
      invite: (body: NewInvitation) => post<CreatedInvitation>(`${org}/invitations`, body),
      revokeInvitation: (invitationId: string) => del(`${org}/invitations/${seg(invitationId)}`),
    },
  };
}

export type AdminApi = ReturnType<typeof createAdminApi>;
