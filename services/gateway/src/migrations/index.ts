import type { MigrationSet } from '@preflight/db';
import * as identity from './0001_identity.ts';
import * as operatorTokens from './0002_operator_tokens_audit_log.ts';
import * as auditMemberActor from './0003_audit_log_member_actor.ts';

/** Applied in this order; listed statically so a bundle keeps them. */
export const migrations: MigrationSet = {
  '0001_identity': identity,
  '0002_operator_tokens_audit_log': operatorTokens,
  '0003_audit_log_member_actor': auditMemberActor,
};
