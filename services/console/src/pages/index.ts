import { campaignPages } from './campaigns/routes.tsx';
import type { PageRegistration } from './context.ts';
import { issuePages } from './issues/routes.tsx';
import { apiKeyPages } from './settings/api-keys.tsx';
import { integrationPages } from './settings/integrations.tsx';
import { memberPages } from './settings/members.tsx';
import { webhookPages } from './settings/webhooks.tsx';

/** Every page module's registration, mounted by app.ts on the /console router after the session and CSRF middleware. */
export const pageRegistrations: PageRegistration[] = [campaignPages, issuePages, apiKeyPages, webhookPages, integrationPages, memberPages];
