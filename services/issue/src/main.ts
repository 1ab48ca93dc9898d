import { serviceMain } from '@preflight/service-kit';
import { issueService } from './app.ts';
import { loadIssueConfig } from './config.ts';

await serviceMain(issueService, () => loadIssueConfig());
