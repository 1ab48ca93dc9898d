/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// (Also in tsconfig.json; said here for tsx, which reads only the tsconfig of the directory it runs from.)
import type { VNode } from 'preact';
import type { MemberRole } from '@preflight/http';
import { CsrfField, Field, FormAlert } from './form.tsx';
import { Layout, type ShellSession } from './layout.tsx';
import { PASSWORD_MAX, PASSWORD_MIN } from '../auth/passwords.ts';

export interface SignInPageProps {
  csrf: string;
  email?: string | undefined;
  error?: string | undefined;
  next?: string | undefined;
  /** The single sign-on button's text, when SSO is configured. */
  sso?: string | undefined;
}

export function SignInPage({ csrf, email, error, next, sso }: SignInPageProps): VNode {
  return (
    <Layout title="Sign in">
      <section class="narrow" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Preflight</h1>
        <FormAlert message={error} />
        <form method="post" action="/console/sign-in" class="stack">
          <CsrfField token={csrf} />
          {next && <input type="hidden" name="next" value={next} />}
          <Field name="email" label="E-mail" type="email" value={email} required autocomplete="username" />
          <Field name="password" label="Password" type="password" required autocomplete="current-password" maxLength={PASSWORD_MAX} />
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        {sso && (
          <p class="sso">
            <a class="button" href={`/console/sso/start${next ? `?next=${encodeURIComponent(next)}` : ''}`}>
              {sso}
            </a>
          </p>
        )}
      </section>
    </Layout>
  );
}

export function NotAMemberPage({ email }: { email: string }): VNode {
  return (
    <Layout title="No organisation">
      <section class="narrow" aria-labelledby="no-org-title">
        <h1 id="no-org-title">You are not a member of any organisation</h1>
        <p>
          {email} signed in, but belongs to no organisation in Preflight. Ask an Owner or Admin of your organisation for an invitation.
        </p>
        <p>
          <a href="/console/sign-in">Back to sign-in</a>
        </p>
      </section>
    </Layout>
  );
}

export interface OrgChoice {
  orgId: string;
  orgName: string;
  role: MemberRole;
}

/** The organisation chooser: a member of several organisations works in one at a time. */
export function OrgChooserPage({ session, orgs, current, next }: { session: ShellSession; orgs: OrgChoice[]; current: string; next?: string | undefined }): VNode {
  return (
    <Layout title="Choose an organisation" session={session} path="/console/orgs">
      <section class="narrow" aria-labelledby="orgs-title">
        <h1 id="orgs-title">Choose an organisation</h1>
        <ul class="org-list">
          {orgs.map((org) => (
            <li key={org.orgId}>
              <form method="post" action="/console/orgs" class="org-choice">
                <CsrfField token={session.csrf} />
                <input type="hidden" name="orgId" value={org.orgId} />
                {next && <input type="hidden" name="next" value={next} />}
                <button type="submit" aria-current={org.orgId === current ? 'true' : undefined}>
                  {org.orgName}
                </button>
                <span class="role">{org.role}</span>
                {org.orgId === current && <span class="current"> (current)</span>}
              </form>
            </li>
          ))}
        </ul>
      </section>
    </Layout>
  );
}

export interface InvitationView {
  orgName: string;
  role: MemberRole;
  email: string;
}

export interface InvitationPageProps {
  token: string;
  invitation: InvitationView;
  csrf: string;
  /** An account with the invitation's e-mail exists: it signs in to accept. */
  existingUser: boolean;
  name?: string | undefined;
  errors?: Record<string, string[]> | undefined;
  error?: string | undefined;
}

/** An invitation: who invites whom to what, and the form that accepts it. */
export function InvitationPage({ token, invitation, csrf, existingUser, name, errors, error }: InvitationPageProps): VNode {
  return (
    <Layout title="Invitation">
      <section class="narrow" aria-labelledby="invitation-title">
        <h1 id="invitation-title">Join {invitation.orgName}</h1>
        <p>
          You are invited to join <strong>{invitation.orgName}</strong> as <strong>{invitation.role}</strong>, as {invitation.email}.
        </p>
        <FormAlert message={error} />
        <form method="post" action={`/console/invitations/${encodeURIComponent(token)}`} class="stack">
          <CsrfField token={csrf} />
          {existingUser ? (
            <>
              <p>You already have a Preflight account. Sign in with its password to accept.</p>
              <Field name="password" label="Password" type="password" required autocomplete="current-password" errors={errors?.password} maxLength={PASSWORD_MAX} />
              <button type="submit" class="primary">
                Sign in and accept
              </button>
            </>
          ) : (
            <>
              <Field name="name" label="Your name" value={name} required autocomplete="name" errors={errors?.name} maxLength={200} />
              <Field
                name="password"
                label="Choose a password"
                type="password"
                required
                autocomplete="new-password"
                hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}
                errors={errors?.password}
                minLength={PASSWORD_MIN}
                maxLength={PASSWORD_MAX}
              />
              <button type="submit" class="primary">
                Create account and accept
              </button>
            </>
          )}
        </form>
      </section>
    </Layout>
  );
}

const GONE: Record<'accepted' | 'revoked' | 'expired' | 'unknown', string> = {
  accepted: 'This invitation has already been used. Each invitation link works once; sign in instead.',
  revoked: 'This invitation was withdrawn. Ask an Owner or Admin of the organisation for a new one.',
  expired: 'This invitation has expired. Ask an Owner or Admin of the organisation for a new one.',
  unknown: 'This invitation link is not valid. Check that you copied all of it, or ask for a new one.',
};

export function InvitationGonePage({ reason }: { reason: keyof typeof GONE }): VNode {
  return (
    <Layout title="Invitation">
      <section class="narrow" aria-labelledby="gone-title">
        <h1 id="gone-title">This invitation cannot be used</h1>
        <p>{GONE[reason]}</p>
        <p>
          <a href="/console/sign-in">Go to sign-in</a>
        </p>
      </section>
    </Layout>
  );
}
