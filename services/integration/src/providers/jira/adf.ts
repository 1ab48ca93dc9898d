import { markerOf, type IssueDetail } from '../provider.ts';

/**
 * The description of a Jira issue as an Atlassian Document Format document (Jira Cloud REST v3
 * takes no markdown): every field of the Preflight issue and, last, its marker.
 */

type Mark = { type: 'strong' } | { type: 'code' } | { type: 'link'; attrs: { href: string } };
type Inline = { type: 'text'; text: string; marks?: Mark[] } | { type: 'hardBreak' };
type Block =
  | { type: 'heading'; attrs: { level: number }; content: Inline[] }
  | { type: 'paragraph'; content: Inline[] }
  | { type: 'bulletList'; content: Array<{ type: 'listItem'; content: Block[] }> }
  | { type: 'rule' };

export interface AdfDocument {
  type: 'doc';
  version: 1;
  content: Block[];
}

const isWebUrl = (url: string) => /^https?:\/\//i.test(url);

/** ADF refuses empty text nodes, so empty strings give no node at all. */
function text(value: string, marks?: Mark[]): Inline[] {
  if (!value) return [];
  return [marks ? { type: 'text', text: value, marks } : { type: 'text', text: value }];
}

/** A link for http(s) URLs; anything else is shown as plain text. */
const link = (label: string, url: string): Inline[] => (isWebUrl(url) ? text(label, [{ type: 'link', attrs: { href: url } }]) : text(url));

/** User text: blank lines separate paragraphs, single newlines become line breaks. */
function paragraphs(value: string): Block[] {
  return value
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((para) => para.split('\n').filter((line) => line.trim()))
    .filter((lines) => lines.length > 0)
    .map((lines) => ({ type: 'paragraph', content: lines.flatMap((line, i): Inline[] => (i === 0 ? text(line) : [{ type: 'hardBreak' }, ...text(line)])) }));
}

function section(heading: string, value: string | null): Block[] {
  if (!value?.trim()) return [];
  return [{ type: 'heading', attrs: { level: 3 }, content: text(heading) }, ...paragraphs(value.trim())];
}

const oneLine = (value: string | null | undefined): string => (value ?? '').replace(/\s+/g, ' ').trim();

function facts(issue: IssueDetail): Block[] {
  const browser = oneLine([issue.browserName, issue.browserVersion].filter(Boolean).join(' '));
  const page: Inline[] = [
    ...text(oneLine(issue.pageTitle)),
    ...(issue.pageTitle?.trim() && issue.pageUrl ? text(' — ') : []),
    ...(issue.pageUrl ? link(issue.pageUrl, issue.pageUrl) : []),
  ];
  const rows: Array<[string, Inline[]]> = [
    ['Severity', text(oneLine(issue.severity))],
    ['Type', text(oneLine(issue.type))],
    ['Campaign', text(oneLine(issue.campaignName) || issue.campaignId)],
    ['Reported by', text(oneLine(issue.reporter))],
    ['Page', page],
    ['Browser', text(browser)],
    ['Operating system', text(oneLine(issue.operatingSystem))],
    ['Device', text(oneLine(issue.deviceType))],
    ['Screen resolution', text(oneLine(issue.screenResolution))],
  ];
  const items = rows
    .filter(([, value]) => value.length > 0)
    .map(([name, value]) => ({ type: 'listItem' as const, content: [{ type: 'paragraph' as const, content: [...text(`${name}: `, [{ type: 'strong' }]), ...value] }] }));
  return [{ type: 'heading', attrs: { level: 3 }, content: text('Details') }, { type: 'bulletList', content: items }];
}

export function issueDescriptionAdf(issue: IssueDetail): AdfDocument {
  const content: Block[] = [
    ...section('Description', issue.description),
    ...section('Steps to reproduce', issue.stepsToReproduce),
    ...section('Expected behaviour', issue.expectedBehavior),
    ...section('Actual behaviour', issue.actualBehavior),
    ...facts(issue),
  ];
  if (issue.screenshotUrl) {
    content.push({ type: 'heading', attrs: { level: 3 }, content: text('Screenshot') }, { type: 'paragraph', content: link(issue.screenshotUrl, issue.screenshotUrl) });
  }
  content.push(
    { type: 'rule' },
    { type: 'paragraph', content: link(`Open issue #${issue.seqNumber} in Preflight`, issue.link) },
    { type: 'paragraph', content: [...text('Preflight marker: '), ...text(markerOf(issue.issueId), [{ type: 'code' }])] },
  );
  return { type: 'doc', version: 1, content };
}
