import type { PageRegistration } from './context.ts';

/** Every page module's registration, mounted by app.ts on the /console router after the session and CSRF middleware. */
export const pageRegistrations: PageRegistration[] = [];
