import type { CreateIssueRequest, IssueSeverity, IssueType } from '@preflight/contract';

/** Everything a reporter may write when filing an issue; unset text is null, never omitted. */
export interface IssueFields {
  title: string;
  description: string | null;
  stepsToReproduce: string | null;
  expectedBehavior: string | null;
  actualBehavior: string | null;
  severity: IssueSeverity;
  type: IssueType;
  pageUrl: string | null;
  pageTitle: string | null;
  browserName: string | null;
  browserVersion: string | null;
  operatingSystem: string | null;
  deviceType: string | null;
  screenResolution: string | null;
  screenshotUrl: string | null;
  testerEmail: string | null;
}

/** The public API files a subset of the fields; the rest stay empty. */
export function fieldsFromPublicRequest(body: CreateIssueRequest): IssueFields {
  return {
    title: body.title,
    description: body.description,
    stepsToReproduce: null,
    expectedBehavior: null,
    actualBehavior: null,
    severity: body.severity,
    type: body.type,
    pageUrl: body.pageUrl,
    pageTitle: null,
    browserName: null,
    browserVersion: null,
    operatingSystem: null,
    deviceType: null,
    screenResolution: null,
    screenshotUrl: null,
    testerEmail: null,
  };
}
