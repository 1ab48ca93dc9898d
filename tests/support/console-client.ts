import { parseSigningKey, serviceTokens, type ServiceTokens } from '@preflight/service-auth';
import type { MemberRole } from '@preflight/http';
import type { SystemInfo } from './system.ts';

export interface ConsoleReply {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/**
 * A browser on the console through the gateway, without a browser: a cookie jar, form posts
 * with the `_csrf` of the last page seen and the gateway's Origin, redirects not followed.
 * For end-to-end checks of the console's HTTP behaviour; the pages are tested in Chromium
 * (tests/browser).
 */
export function consoleClient(sys: SystemInfo) {
  const cookies = new Map<string, string>();
  let csrf = '';
  const origin = new URL(sys.gatewayUrl).origin;
  const send = async (method: string, path: string, form?: Record<string, string>): Promise<ConsoleReply> => {
    const res = await fetch(`${sys.gatewayUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin } : {}),
      },
      ...(form ? { body: new URLSearchParams({ _csrf: csrf, ...form }).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(pair.slice(0, eq));
      else cookies.set(pair.slice(0, eq), value);
    }
    const text = await res.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  };
  return {
    cookies,
    get: (path: string) => send('GET', path),
    post: (path: string, form: Record<string, string>) => send('POST', path, form),
    /** Opens an invitation link and accepts it as a new user. */
    async acceptInvitation(url: string, name: string, password: string): Promise<ConsoleReply> {
      const path = new URL(url).pathname;
      await send('GET', path);
      return send('POST', path, { name, password });
    },
    async signIn(email: string, password: string): Promise<ConsoleReply> {
      await send('GET', '/console/sign-in');
      return send('POST', '/console/sign-in', { email, password });
    },
  };
}

/** Per system (each has keys of its own), minted tokens cached like the console's own. */
const minters = new Map<string, ServiceTokens>();

/**
 * `Authorization` for the gateway's admin API as a console member: the console's own service
 * token carrying the member, as the console sends it (signed with the system's console key).
 */
export async function memberAuthorization(sys: SystemInfo, member: { orgId: string; userId: string; role: MemberRole }): Promise<string> {
  const key = sys.serviceAuth.keys.console!;
  let minter = minters.get(key);
  if (!minter) minters.set(key, (minter = serviceTokens(parseSigningKey('console', key))));
  return minter.authorization('gateway', { kind: 'member', ...member });
}
