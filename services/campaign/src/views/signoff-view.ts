import type { AdminReport, AdminReportEntry, AdminTester, ResponseOf } from '@preflight/contract';
import type { CompletedTask } from '../storage/testers.ts';
import type { ReportView } from '../storage/report.ts';
import type { ReportEntryRow, SignerRow, TaskRow, TesterRow } from '../storage/schema.ts';

/** Shapes of the admin API's launch sign-off and testers sections (admin-api-v1.md). */

export function toAdminSigner(row: SignerRow): ResponseOf<'adminAddSigner'> {
  return { id: row.id, name: row.name, email: row.email, createdAt: row.created_at.toISOString() };
}

export function toReportEntry(row: ReportEntryRow): AdminReportEntry {
  return { signerId: row.signer_id, version: row.version, kind: row.kind, decision: row.decision, note: row.note, at: row.at.toISOString() };
}

export function toAdminReport(report: ReportView): AdminReport {
  return {
    version: report.version,
    readinessLevel: report.readinessLevel,
    gate: report.gate,
    sealState: report.sealState,
    sealedVersion: report.sealedVersion,
    requiredCount: report.requiredCount,
    signedCount: report.signedCount,
    waivedCount: report.waivedCount,
    entries: report.entries.map(toReportEntry),
  };
}

export function toAdminTask(row: TaskRow): ResponseOf<'adminCreateTask'> {
  return { id: row.id, title: row.title, required: row.required };
}

/** `id` is the campaignTesterId of events. */
export function toAdminTester(row: TesterRow): AdminTester {
  return { id: row.id, name: row.name, email: row.email, preview: row.preview, status: row.status };
}

/** The tester with the tasks it has completed (the answer of a completion). */
export function toAdminTesterProgress(row: TesterRow, tasks: CompletedTask[]): ResponseOf<'adminCompleteTask'> {
  return {
    ...toAdminTester(row),
    verdict: row.verdict,
    completedAt: row.completed_at?.toISOString() ?? null,
    completedTasks: tasks.map((t) => ({ id: t.taskId, title: t.title, required: t.required, verdict: t.verdict, completedAt: t.completedAt.toISOString() })),
  };
}
