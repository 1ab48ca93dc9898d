/**
 * Domain events carry the public enumerations as their exact strings (public-api-v1.md 2.1)
 * instead of proto enums, so no consumer needs a mapping; the lists live in the contract.
 */
export { CAMPAIGN_STATUSES, ISSUE_STATUSES, type CampaignStatus, type IssueStatus } from '@preflight/contract';
