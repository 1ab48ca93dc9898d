import { Counter, type Registry } from 'prom-client';

/** The campaign service's own metrics (the bus libs add outbox_* and consumer_* to the same registry). */
export interface CampaignMetrics {
  /** Verdict recomputations, by trigger (event, policy) and outcome (changed, unchanged, missing). */
  readinessRecomputed: Counter<'trigger' | 'outcome'>;
}

export function campaignMetrics(registry: Registry): CampaignMetrics {
  return {
    readinessRecomputed: new Counter({
      name: 'campaign_readiness_recomputed_total',
      help: "Readiness verdicts recomputed, by trigger (event: once per campaign per consumer batch that changed an issue projection; policy) and outcome (changed, unchanged, missing = campaign unknown).",
      labelNames: ['trigger', 'outcome'],
      registers: [registry],
    }),
  };
}
