/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { PublicCampaign, ReadinessReport, Signer } from '../../gateway-client/api-types.ts';
import { Choices, Field, PostForm, ProblemNotice, Select, Submit, TextArea, type FormProblem } from '../components/form.tsx';
import { Badge, Gate, Readiness, Table, Time } from '../components/ui.tsx';
import { fingerprint } from '../live.ts';

/** Seconds between two polls of the readiness verdict. */
export const READINESS_POLL_SECONDS = 3;

export interface ReadinessProps {
  campaign: PublicCampaign;
  report: ReadinessReport;
}

/** What the readiness poll compares: a new report version or verdict changes it. */
export const readinessFingerprint = ({ campaign, report }: ReadinessProps) =>
  fingerprint([campaign.status, campaign.readinessLevel, campaign.gate, report.version, report.sealState, report.signedCount, report.waivedCount, report.requiredCount]);

/**
 * The verdict at a glance, polled every few seconds by htmx. The poll names what it last showed
 * (`seen`); the console answers 204 while nothing changed, so the region (a polite live region)
 * is replaced, and announced, only when the verdict, gate or sign-offs move.
 */
export function ReadinessPanel(props: ReadinessProps) {
  const { campaign, report } = props;
  const poll = `/console/campaigns/${campaign.id}/readiness?seen=${readinessFingerprint(props)}`;
  return (
    <div id="readiness" class="readiness" hx-get={poll} hx-trigger={`every ${READINESS_POLL_SECONDS}s`} hx-swap="outerHTML">
      <dl class="facts">
        <div>
          <dt>Readiness</dt>
          <dd>
            <Readiness level={campaign.readinessLevel ?? report.readinessLevel} />
          </dd>
        </div>
        <div>
          <dt>Gate</dt>
          <dd>
            <Gate gate={campaign.gate ?? report.gate} />
          </dd>
        </div>
        <div>
          <dt>Report version</dt>
          <dd>{report.version}</dd>
        </div>
        <div>
          <dt>Seal</dt>
          <dd>
            <Badge kind="seal" value={report.sealState} />
            {report.sealedVersion !== null ? <span class="muted"> (version {report.sealedVersion})</span> : null}
          </dd>
        </div>
        <div>
          <dt>Sign-offs</dt>
          <dd>
            {report.signedCount} signed, {report.waivedCount} waived of {report.requiredCount} required
          </dd>
        </div>
      </dl>
    </div>
  );
}

export interface ReportSectionProps extends ReadinessProps {
  signers: Signer[];
  canManage: boolean;
  csrf: string;
  problem?: FormProblem;
}

const signerOptions = (signers: Signer[]) => signers.map((s) => ({ value: s.id, label: `${s.name} <${s.email}>` }));

/** The readiness report: the live verdict, every stamp and waiver, and the forms to add them. */
export function ReportSection(props: ReportSectionProps) {
  const { campaign, report, signers, canManage, csrf, problem } = props;
  const base = `/console/campaigns/${campaign.id}`;
  const nameOf = new Map(signers.map((s) => [s.id, s.name]));
  return (
    <section aria-labelledby="report-heading">
      <h2 id="report-heading">Readiness report</h2>
      <div aria-live="polite">
        <ReadinessPanel campaign={campaign} report={report} />
      </div>
      <Table caption="Stamps and waivers" head={['Signer', 'Kind', 'Decision', 'Note', 'Version', 'When']} empty="No stamps or waivers yet.">
        {report.entries.map((e) => (
          <tr>
            <td>{nameOf.get(e.signerId) ?? e.signerId}</td>
            <td>{e.kind}</td>
            <td>{e.decision ?? '—'}</td>
            <td>{e.note ?? ''}</td>
            <td>{e.version}</td>
            <td>
              <Time iso={e.at} />
            </td>
          </tr>
        ))}
      </Table>
      <div class="grid-2">
        {signers.length > 0 ? (
          <div>
            <h3>Stamp version {report.version}</h3>
            <ProblemNotice problem={problem} form="stamp" />
            <PostForm action={`${base}/stamps`} csrf={csrf} label="Add a stamp">
              <input type="hidden" name="version" value={String(report.version)} />
              <Select form="stamp" name="signerId" label="Signer" required problem={problem} options={signerOptions(signers)} />
              <Choices form="stamp" name="decision" legend="Decision" radio problem={problem} options={[{ value: 'approve', label: 'Approve' }, { value: 'reject', label: 'Reject' }]} checked={['approve']} />
              <TextArea form="stamp" name="note" label="Note" rows={2} problem={problem} />
              <Submit>Add stamp</Submit>
            </PostForm>
          </div>
        ) : (
          <p class="muted">No required signers: add one to start the sign-off.</p>
        )}
        {canManage && signers.length > 0 ? (
          <div>
            <h3>Waive a signer on version {report.version}</h3>
            <ProblemNotice problem={problem} form="waiver" />
            <PostForm action={`${base}/waivers`} csrf={csrf} label="Add a waiver">
              <input type="hidden" name="version" value={String(report.version)} />
              <Select form="waiver" name="signerId" label="Signer" required problem={problem} options={signerOptions(signers)} />
              <TextArea form="waiver" name="reason" label="Reason" rows={2} problem={problem} />
              <Submit>Add waiver</Submit>
            </PostForm>
          </div>
        ) : null}
        {canManage ? (
          <div>
            <h3>Add a required signer</h3>
            <ProblemNotice problem={problem} form="signer" />
            <PostForm action={`${base}/signers`} csrf={csrf} label="Add a signer">
              <Field form="signer" name="name" label="Name" required problem={problem} />
              <Field form="signer" name="email" label="E-mail" type="email" required problem={problem} />
              <Submit>Add signer</Submit>
            </PostForm>
          </div>
        ) : null}
      </div>
    </section>
  );
}
