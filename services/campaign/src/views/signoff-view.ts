import type { AdminReport, AdminReportEntry, AdminTester, ResponseOf } from '@preflight/contract';
import type { CompletedTask } from '../storage/testers.ts';
import type { ReportView } from '../storage/report.ts';
import type { ReportEntry, Signer, Task, Tester } from '../storage/schema.ts';

/** Shapes of the admin API's launch sign-off and testers sections (admin-api-v1.md). */

export function toAdminSigner(signer: Signer): ResponseOf<'adminAddSigner'> {
  return { id: signer.id, name: signer.name, email: signer.email, createdAt: signer.createdAt.toISOString() };
}

export function toReportEntry(entry: ReportEntry): AdminReportEntry {
  return { signerId: entry.signerId, version: entry.version, kind: entry.kind, decision: entry.decision, note: entry.note, at: entry.at.toISOString() };
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

export function toAdminTask(task: Task): ResponseOf<'adminCreateTask'> {
  return { id: task.id, title: task.title, required: task.required };
}

/** `id` is the campaignTesterId of events. */
export function toAdminTester(tester: Tester): AdminTester {
  return { id: tester.id, name: tester.name, email: tester.email, preview: tester.preview, status: tester.status };
}

/** The tester with the tasks it has completed (the answer of a completion). */
export function toAdminTesterProgress(tester: Tester, tasks: CompletedTask[]): ResponseOf<'adminCompleteTask'> {
  return {
    ...toAdminTester(tester),
    verdict: tester.verdict,
    completedAt: tester.completedAt?.toISOString() ?? null,
    completedTasks: tasks.map((t) => ({ id: t.taskId, title: t.title, required: t.required, verdict: t.verdict, completedAt: t.completedAt.toISOString() })),
  };
}
