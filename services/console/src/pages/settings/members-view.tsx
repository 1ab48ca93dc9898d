/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { CreatedInvitation, Invitation, Member, MemberRole } from '../../gateway-client/api-types.ts';
import { Confirm, Field, PostForm, ProblemNotice, Select, Submit, type FormProblem, type FormValues } from '../components/form.tsx';
import { PageHeader, ShownOnce, Table, Time } from '../components/ui.tsx';

export const ROLES: MemberRole[] = ['Owner', 'Admin', 'Member'];

export interface MembersPageProps {
  members: Member[];
  invitations: Invitation[];
  /** The signed-in member: an Admin cannot make or unmake Owners, nobody removes themselves here. */
  me: { userId: string; role: MemberRole };
  csrf: string;
  invited?: CreatedInvitation;
  problem?: FormProblem;
  values?: FormValues;
}

/** The roles the signed-in member may hand out (the console's API says the same, with a 403). */
export const grantable = (role: MemberRole): MemberRole[] => (role === 'Owner' ? ROLES : ROLES.filter((r) => r !== 'Owner'));

const roleOptions = (roles: MemberRole[]) => roles.map((r) => ({ value: r, label: r }));

function MemberActions({ member, me, csrf, problem }: { member: Member; me: MembersPageProps['me']; csrf: string; problem?: FormProblem }) {
  if (member.userId === me.userId) return <span class="muted">You</span>;
  if (member.role === 'Owner' && me.role !== 'Owner') return <span class="muted">Only an Owner changes an Owner</span>;
  const form = `member-${member.userId}`;
  return (
    <div class="button-row">
      <PostForm action={`/console/settings/members/${member.userId}/role`} csrf={csrf} class="inline-form" label={`Change ${member.email}'s role`}>
        <Select form={form} name="role" label={`Role of ${member.email}`} options={roleOptions(grantable(me.role))} value={member.role} problem={problem} />
        <Submit variant="secondary">Change role</Submit>
      </PostForm>
      <Confirm
        summary="Remove…"
        question={`Remove ${member.email} from the organisation? They are signed out at once.`}
        action={`/console/settings/members/${member.userId}/remove`}
        csrf={csrf}
        button="Remove member"
      />
    </div>
  );
}

/** /console/settings/members: members and roles, invitations. */
export function MembersPage({ members, invitations, me, csrf, invited, problem, values }: MembersPageProps) {
  return (
    <>
      <PageHeader title="Members" />
      <p>Owners and Admins manage keys, webhooks, integrations and members; Members file and work issues.</p>
      {invited ? (
        <ShownOnce
          id="invitation-link"
          label={`Invitation for ${invited.email} (${invited.role})`}
          value={invited.url}
          note={`Send this link to ${invited.email}: it works once, until ${invited.expiresAt.slice(0, 10)}, and is shown only this once.`}
        />
      ) : null}
      {problem && problem.form?.startsWith('member-') ? <ProblemNotice problem={problem} form={problem.form} /> : null}
      <Table caption="Members" head={['Name', 'E-mail', 'Role', 'Joined', 'Last sign-in', '']} empty="No members.">
        {members.map((m) => (
          <tr>
            <th scope="row">{m.name ?? m.email}</th>
            <td>{m.email}</td>
            <td>{m.role}</td>
            <td>
              <Time iso={m.joinedAt} />
            </td>
            <td>
              <Time iso={m.lastSignInAt} empty="Never" />
            </td>
            <td>
              <MemberActions member={m} me={me} csrf={csrf} problem={problem} />
            </td>
          </tr>
        ))}
      </Table>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <ProblemNotice problem={problem} form="invite" />
        <PostForm action="/console/settings/members/invitations" csrf={csrf} label="Invite someone">
          <Field form="invite" name="email" label="E-mail" type="email" required problem={problem} value={typeof values?.email === 'string' ? values.email : undefined} />
          <Select form="invite" name="role" label="Role" required problem={problem} options={roleOptions(grantable(me.role))} value={typeof values?.role === 'string' ? values.role : 'Member'} />
          <Submit>Create invitation</Submit>
        </PostForm>
      </section>
      <Table caption="Pending invitations" head={['E-mail', 'Role', 'Sent', 'Expires', '']} empty="No pending invitations.">
        {invitations.map((inv) => (
          <tr>
            <td>{inv.email}</td>
            <td>{inv.role}</td>
            <td>
              <Time iso={inv.createdAt} />
            </td>
            <td>
              <Time iso={inv.expiresAt} />
            </td>
            <td>
              <Confirm
                summary="Revoke…"
                question={`Revoke the invitation for ${inv.email}? Its link stops working.`}
                action={`/console/settings/members/invitations/${inv.id}/revoke`}
                csrf={csrf}
                button="Revoke invitation"
              />
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
