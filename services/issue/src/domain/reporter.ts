/** Who filed an issue, as stored in `issues.reporter` (public-api-v1.md section 1, rule 2). */
export function apiKeyReporter(keyName: string): string {
  return `API key ${keyName}`;
}

/** A dashboard issue is reported by the tester who found it, when the dashboard names one. */
export function dashboardReporter(testerEmail: string | null): string {
  return testerEmail ?? 'Dashboard';
}
