/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import { ISSUE_SEVERITIES, ISSUE_TYPES } from '@preflight/contract';
import type { PublicCampaign } from '../../gateway-client/api-types.ts';
import { Field, PostForm, ProblemNotice, Select, Submit, TextArea, options, type FormProblem, type FormValues } from '../components/form.tsx';
import { PageHeader } from '../components/ui.tsx';

/** Every writable field of the admin create, in the order a reporter thinks of them. */
export const ISSUE_TEXT_FIELDS = ['title', 'description', 'stepsToReproduce', 'expectedBehavior', 'actualBehavior', 'pageUrl', 'pageTitle', 'browserName', 'browserVersion', 'operatingSystem', 'deviceType', 'screenResolution', 'screenshotUrl', 'testerEmail'] as const;

const str = (v: FormValues[string]) => (typeof v === 'string' ? v : undefined);

/** /console/campaigns/:id/issues/new: files an issue through the same pipeline as the public API. */
export function NewIssuePage({ campaign, csrf, problem, values = {} }: { campaign: PublicCampaign; csrf: string; problem?: FormProblem; values?: FormValues }) {
  const f = { form: undefined, problem };
  return (
    <>
      <p class="breadcrumbs">
        <a href="/console/campaigns">Campaigns</a> › <a href={`/console/campaigns/${campaign.id}`}>{campaign.name ?? 'Campaign'}</a>
      </p>
      <PageHeader title="File an issue" />
      <ProblemNotice problem={problem} />
      <PostForm action={`/console/campaigns/${campaign.id}/issues`} csrf={csrf} label="File an issue" class="stacked">
        <Field {...f} name="title" label="Title" required value={str(values.title)} />
        <div class="grid-2">
          <Select {...f} name="severity" label="Severity" required blank="Choose a severity" options={options(ISSUE_SEVERITIES)} value={str(values.severity)} />
          <Select {...f} name="type" label="Type" required blank="Choose a type" options={options(ISSUE_TYPES)} value={str(values.type)} />
        </div>
        <TextArea {...f} name="description" label="Description" value={str(values.description)} />
        <TextArea {...f} name="stepsToReproduce" label="Steps to reproduce" value={str(values.stepsToReproduce)} />
        <div class="grid-2">
          <TextArea {...f} name="expectedBehavior" label="Expected behaviour" rows={3} value={str(values.expectedBehavior)} />
          <TextArea {...f} name="actualBehavior" label="Actual behaviour" rows={3} value={str(values.actualBehavior)} />
        </div>
        <fieldset>
          <legend>Where</legend>
          <div class="grid-2">
            <Field {...f} name="pageUrl" label="Page URL" type="url" value={str(values.pageUrl)} />
            <Field {...f} name="pageTitle" label="Page title" value={str(values.pageTitle)} />
            <Field {...f} name="screenshotUrl" label="Screenshot URL" type="url" value={str(values.screenshotUrl)} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Environment</legend>
          <div class="grid-2">
            <Field {...f} name="browserName" label="Browser" value={str(values.browserName)} />
            <Field {...f} name="browserVersion" label="Browser version" value={str(values.browserVersion)} />
            <Field {...f} name="operatingSystem" label="Operating system" value={str(values.operatingSystem)} />
            <Field {...f} name="deviceType" label="Device type" value={str(values.deviceType)} />
            <Field {...f} name="screenResolution" label="Screen resolution" value={str(values.screenResolution)} />
            <Field {...f} name="testerEmail" label="Tester's e-mail" type="email" value={str(values.testerEmail)} />
          </div>
        </fieldset>
        <Submit>File issue</Submit>
      </PostForm>
    </>
  );
}
