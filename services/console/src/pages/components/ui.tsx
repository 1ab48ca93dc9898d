/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { ComponentChildren } from 'preact';

/** Small pieces every page shows: times, status badges, notices, secrets shown once. */

/** `2026-11-27 14:35 UTC`: one unambiguous form, whatever the reader's zone. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function Time({ iso, empty = '—' }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span class="muted">{empty}</span>;
  return <time datetime={iso}>{formatTime(iso)}</time>;
}

/** Kebab-cased value for a CSS class: the badge's colour comes from the stylesheet, the meaning from the text. */
const tone = (value: string) => value.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase().replace(/[^a-z0-9-]/g, '-');

export function Badge({ value, kind }: { value: string | null | undefined; kind: string }) {
  if (!value) return <span class="muted">—</span>;
  return <span class={`badge badge-${kind} badge-${kind}-${tone(value)}`}>{value}</span>;
}

const READINESS_LABEL: Record<string, string> = {
  ReadyToLaunch: 'Ready to launch',
  ReadyWithIssues: 'Ready with issues',
  AtRisk: 'At risk',
  DoNotLaunch: 'Do not launch',
};

const GATE_LABEL: Record<string, string> = {
  cleared: 'Cleared',
  'awaiting-signoff': 'Awaiting sign-off',
  'not-cleared': 'Not cleared',
};

export function Readiness({ level }: { level: string | null }) {
  if (!level) return <span class="muted">No verdict</span>;
  return <span class={`badge badge-readiness badge-readiness-${tone(level)}`}>{READINESS_LABEL[level] ?? level}</span>;
}

export function Gate({ gate }: { gate: string | null }) {
  if (!gate) return <span class="muted">—</span>;
  return <span class={`badge badge-gate badge-gate-${tone(gate)}`}>{GATE_LABEL[gate] ?? gate}</span>;
}

export function Notice({ children, kind = 'info' }: { children: ComponentChildren; kind?: 'info' | 'success' | 'error' }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/**
 * A secret shown this once (API key, signing secret, invitation link), with a copy button that
 * public/console.js wires to the clipboard (no inline script: the CSP forbids it).
 */
export function ShownOnce({ id, label, value, note }: { id: string; label: string; value: string; note?: string }) {
  return (
    <section class="shown-once" aria-labelledby={`${id}-label`}>
      <h2 id={`${id}-label`}>{label}</h2>
      <p>{note ?? 'Copy it now: it is shown only this once.'}</p>
      <div class="secret">
        <code id={id}>{value}</code>
        <button type="button" class="button button-secondary" data-copy={id}>
          Copy
        </button>
        <span class="copy-status" role="status" aria-live="polite"></span>
      </div>
      <script src="/console/static/console.js" defer></script>
    </section>
  );
}

/** A table that scrolls sideways on a phone instead of overflowing the page. */
export function Table({ caption, head, children, empty }: { caption: string; head: string[]; children: ComponentChildren[]; empty: string }) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {head.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {children.length ? (
            children
          ) : (
            <tr>
              <td colSpan={head.length} class="muted">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <h1>{title}</h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </div>
  );
}
