import { markerOf, type IssueDetail } from './provider.ts';

/**
 * The text of a tracker issue made from a Preflight issue, as markdown (GitHub and Linear
 * both render it). It carries the issue's marker exactly once, so `findByMarker` can find it.
 */

const MARKER_PREFIX = markerOf('');

/**
 * Text a user wrote must never read as a marker: another issue's description quoting
 * `preflight-issue:<id>` would otherwise be found as that issue's tracker issue.
 */
function defused(text: string): string {
  return text.split(MARKER_PREFIX).join(`${MARKER_PREFIX.slice(0, -1)}\u200b:`);
}

/** A one-line value: markdown syntax characters are escaped so the value shows as typed. */
function inline(text: string): string {
  return defused(text)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`);
}

/** A link only for http(s) URLs; anything else is shown as text. */
function link(label: string, url: string): string {
  if (!/^https?:\/\//i.test(url)) return inline(url);
  // Characters that would end a markdown link destination are percent-encoded.
  const target = url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${inline(label)}](${target})`;
}

function section(heading: string, text: string | null): string[] {
  if (!text?.trim()) return [];
  return [`### ${heading}`, '', defused(text.trim()), ''];
}

/** The line that marks a tracker issue as made for `issueId`. */
export function trackerMarkerLine(issueId: string): string {
  return `Preflight marker: \`${markerOf(issueId)}\``;
}

/** Whether `text` carries the marker of `issueId` itself (not one that merely starts with it). */
export function carriesMarker(text: string | null | undefined, issueId: string): boolean {
  const marker = markerOf(issueId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${marker}(?![\\w-])`).test(text ?? '');
}

/** `[#12] Title`, cut to `max` characters (GitHub allows 256). */
export function trackerTitle(issue: Pick<IssueDetail, 'seqNumber' | 'title'>, max = 256): string {
  const full = `[#${issue.seqNumber}] ${issue.title.replace(/\s+/g, ' ').trim()}`;
  return full.length <= max ? full : `${full.slice(0, max - 1)}…`;
}

/**
 * Every non-empty field of the issue as a markdown body, ending with the marker line. When
 * `maxChars` is given (GitHub takes 65536), the written-out sections are cut so the details,
 * the link and the marker always fit.
 */
export function trackerMarkdown(issue: IssueDetail, maxChars = Number.POSITIVE_INFINITY): string {
  const prose = [
    ...section('Description', issue.description),
    ...section('Steps to reproduce', issue.stepsToReproduce),
    ...section('Expected behaviour', issue.expectedBehavior),
    ...section('Actual behaviour', issue.actualBehavior),
  ]
    .map((line) => `${line}\n`)
    .join('');
  const rest = detailLines(issue).join('\n');
  return `${prose.length + rest.length <= maxChars ? prose : cut(prose, maxChars - rest.length)}${rest}`;
}

const CUT_NOTE = '\n\n_(Cut short: the full text is in Preflight.)_\n\n';

/** `text` cut to `room` characters with a note; a code block left open is closed so the rest renders. */
function cut(text: string, room: number): string {
  const fence = '\n```';
  let kept = text.slice(0, Math.max(0, room - CUT_NOTE.length - fence.length));
  if ((kept.match(/^\s*```/gm)?.length ?? 0) % 2 === 1) kept += fence;
  return `${kept}${CUT_NOTE}`;
}

function detailLines(issue: IssueDetail): string[] {
  const browser = [issue.browserName, issue.browserVersion].filter((v) => v?.trim()).join(' ');
  const pageLink = issue.pageUrl ? link(issue.pageUrl, issue.pageUrl) : null;
  const pageTitle = issue.pageTitle?.trim() ? inline(issue.pageTitle) : null;
  const page = [pageTitle, pageLink].filter(Boolean).join(' — ') || null;
  const facts: Array<[string, string | null]> = [
    ['Severity', issue.severity && inline(issue.severity)],
    ['Type', issue.type && inline(issue.type)],
    ['Campaign', inline(issue.campaignName?.trim() || issue.campaignId)],
    ['Reported by', issue.reporter && inline(issue.reporter)],
    ['Page', page],
    ['Browser', browser ? inline(browser) : null],
    ['Operating system', issue.operatingSystem && inline(issue.operatingSystem)],
    ['Device', issue.deviceType && inline(issue.deviceType)],
    ['Screen resolution', issue.screenResolution && inline(issue.screenResolution)],
  ];
  const lines = ['### Details', '', ...facts.filter((f): f is [string, string] => Boolean(f[1])).map(([name, value]) => `- **${name}:** ${value}`), ''];
  if (issue.screenshotUrl) {
    const shot = /^https?:\/\//i.test(issue.screenshotUrl) ? `!${link('Screenshot', issue.screenshotUrl)}` : inline(issue.screenshotUrl);
    lines.push('### Screenshot', '', shot, '');
  }
  lines.push('---', '', link(`Open issue #${issue.seqNumber} in Preflight`, issue.link), '', trackerMarkerLine(issue.issueId), '');
  return lines;
}
