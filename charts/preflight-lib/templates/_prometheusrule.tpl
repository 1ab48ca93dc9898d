{{/*
Alert rules for one service. Every alert carries a runbook_url pointing at its section of
docs/operations.md (anchor = the alert name in lower case).

SLOs use multi-window, multi-burn-rate alerts (Google SRE workbook, ch. 5): page when the
error budget burns 14.4x too fast over 1h (confirmed over 5m) or 6x over 6h (confirmed over
30m). The ratios are recorded per window first, so the alert expressions stay readable.
*/}}
{{- define "preflight-lib.prometheusrule" -}}
{{- if and .Values.prometheusRule.enabled (include "preflight-lib.monitoringApi" .) -}}
{{- $component := include "preflight-lib.component" . -}}
{{- $sel := include "preflight-lib.promSelector" . -}}
{{- $pr := .Values.prometheusRule -}}
{{- $slo := $pr.slo -}}
{{- $route := printf "route=~\"%s\"" $slo.routeRegex -}}
{{- $buckets := list "0.002" "0.005" "0.01" "0.025" "0.05" "0.1" "0.25" "0.5" "1" "2.5" "5" "10" -}}
{{- $le := toString $slo.latency.thresholdSeconds -}}
{{- if not (has $le $buckets) -}}
{{- fail (printf "prometheusRule.slo.latency.thresholdSeconds %s is not a bucket of http_server_request_duration_seconds (%s)" $le (join ", " $buckets)) -}}
{{- end -}}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    {{- with $pr.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  groups:
    {{- if or $slo.availability.enabled $slo.latency.enabled }}
    - name: preflight-{{ $component }}-slo-recording
      rules:
        {{- range $w := list "5m" "30m" "1h" "6h" }}
        {{- if $slo.availability.enabled }}
        - record: preflight:http_error_ratio:rate{{ $w }}
          expr: |
            sum by (namespace, service) (rate(http_server_requests_total{ {{- $sel }},{{ $route }},status=~"5.."}[{{ $w }}]))
            /
            sum by (namespace, service) (rate(http_server_requests_total{ {{- $sel }},{{ $route }}}[{{ $w }}]))
        {{- end }}
        {{- if $slo.latency.enabled }}
        - record: preflight:http_slow_ratio:rate{{ $w }}
          expr: |
            1 - (
              sum by (namespace, service) (rate(http_server_request_duration_seconds_bucket{ {{- $sel }},{{ $route }},le="{{ $le }}"}[{{ $w }}]))
              /
              sum by (namespace, service) (rate(http_server_request_duration_seconds_bucket{ {{- $sel }},{{ $route }},le="+Inf"}[{{ $w }}]))
            )
        {{- end }}
        {{- end }}
    {{- end }}
    - name: preflight-{{ $component }}-alerts
      rules:
        {{- if $slo.availability.enabled }}
        {{- $budget := printf "(1 - %v)" $slo.availability.objective }}
        - alert: PreflightErrorBudgetBurn
          expr: |
            (
              preflight:http_error_ratio:rate1h{ {{- $sel }}} > (14.4 * {{ $budget }})
              and
              preflight:http_error_ratio:rate5m{ {{- $sel }}} > (14.4 * {{ $budget }})
            )
            or
            (
              preflight:http_error_ratio:rate6h{ {{- $sel }}} > (6 * {{ $budget }})
              and
              preflight:http_error_ratio:rate30m{ {{- $sel }}} > (6 * {{ $budget }})
            )
          for: 2m
          labels:
            severity: {{ $slo.availability.severity }}
            slo: availability
          annotations:
            summary: {{ $component }} is burning its availability error budget too fast
            description: >-
              More than {{ "{{" }} $value | humanizePercentage {{ "}}" }} of {{ $component }} requests on
              {{ $slo.routeRegex }} answer 5xx; the {{ $slo.availability.objective }} objective's 30-day budget
              would be gone in days at this rate.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightErrorBudgetBurn") }}
        {{- end }}
        {{- if $slo.latency.enabled }}
        {{- $budget := printf "(1 - %v)" $slo.latency.objective }}
        - alert: PreflightLatencyBudgetBurn
          expr: |
            (
              preflight:http_slow_ratio:rate1h{ {{- $sel }}} > (14.4 * {{ $budget }})
              and
              preflight:http_slow_ratio:rate5m{ {{- $sel }}} > (14.4 * {{ $budget }})
            )
            or
            (
              preflight:http_slow_ratio:rate6h{ {{- $sel }}} > (6 * {{ $budget }})
              and
              preflight:http_slow_ratio:rate30m{ {{- $sel }}} > (6 * {{ $budget }})
            )
          for: 2m
          labels:
            severity: {{ $slo.latency.severity }}
            slo: latency
          annotations:
            summary: {{ $component }} answers too many requests slower than {{ $le }}s
            description: >-
              {{ "{{" }} $value | humanizePercentage {{ "}}" }} of {{ $component }} requests on {{ $slo.routeRegex }}
              take longer than {{ $le }}s; the objective is {{ $slo.latency.objective }} under it.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightLatencyBudgetBurn") }}
        {{- end }}
        {{- with $pr.rules.serviceDown }}
        {{- if .enabled }}
        - alert: PreflightServiceDown
          expr: |
            (sum by (namespace, service) (up{ {{- $sel }}}) == 0)
            or
            absent(up{ {{- $sel }}})
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: No {{ $component }} instance is being scraped successfully
            description: Prometheus has not scraped any healthy {{ $component }} pod in {{ $.Release.Namespace }} for {{ .for }}.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightServiceDown") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.rateLimitedSpike }}
        {{- if .enabled }}
        - alert: PreflightRateLimitedSpike
          expr: |
            (
              sum by (namespace, service) (rate(gateway_rate_limited_total{ {{- $sel }}}[5m]))
              /
              sum by (namespace, service) (rate(http_server_requests_total{ {{- $sel }},{{ $route }}}[5m]))
            ) > {{ .ratio }}
            and
            sum by (namespace, service) (rate(gateway_rate_limited_total{ {{- $sel }}}[5m])) > {{ .minRatePerSecond }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: The gateway rejects an unusual share of API requests with 429
            description: '{{ "{{" }} $value | humanizePercentage {{ "}}" }} of public API requests are rate limited.'
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightRateLimitedSpike") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.rateLimiterDegraded }}
        {{- if .enabled }}
        - alert: PreflightRateLimiterDegraded
          expr: max by (namespace, service) (gateway_rate_limiter_degraded{ {{- $sel }}}) > 0
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: The gateway's rate limiter cannot reach Redis
            description: Rate limits are not shared between gateway pods while Redis is unavailable.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightRateLimiterDegraded") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.circuitBreakerOpen }}
        {{- if .enabled }}
        - alert: PreflightUpstreamCircuitOpen
          expr: max by (namespace, service, upstream) (gateway_circuit_breaker_state{ {{- $sel }}}) == 2
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: 'The gateway''s circuit breaker to {{ "{{" }} $labels.upstream {{ "}}" }} is open'
            description: 'Requests routed to {{ "{{" }} $labels.upstream {{ "}}" }} fail fast with 503 until the breaker closes.'
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightUpstreamCircuitOpen") }}
        {{- end }}
        {{- end }}
        {{- /*
        Events (libs/bus): every service with a transactional outbox exports
        outbox_oldest_unpublished_age_seconds and outbox_backlog (the relay's view of its own
        table, so every pod reports the same value: max, not sum); every durable consumer
        exports consumer_lag{consumer} (num_pending in JetStream).
        */}}
        {{- with $pr.rules.outboxBacklogAge }}
        {{- if .enabled }}
        - alert: PreflightOutboxBacklogAge
          expr: max by (namespace, service) (outbox_oldest_unpublished_age_seconds{ {{- $sel }}}) > {{ .thresholdSeconds }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ $component }}''s oldest unpublished outbox event is {{ "{{" }} $value | humanizeDuration {{ "}}" }} old'
            description: Events committed by {{ $component }} are not reaching NATS; subscribers (and webhooks) fall behind.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightOutboxBacklogAge") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.consumerLag }}
        {{- if .enabled }}
        - alert: PreflightConsumerLag
          expr: max by (namespace, service, consumer) (consumer_lag{ {{- $sel }}}) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ $component }}''s consumer {{ "{{" }} $labels.consumer {{ "}}" }} is {{ "{{" }} $value {{ "}}" }} events behind'
            description: A durable consumer of {{ $component }} is not keeping up with its stream.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightConsumerLag") }}
        {{- end }}
        {{- end }}
        {{- /*
        Webhook deliveries (services/delivery/src/worker/metrics.ts and breakers.ts):
        - webhook_deliveries_total{event_type,outcome}: final deliveries, outcome delivered,
          failed or cancelled (endpoint deleted, disabled or unsubscribed: nothing was sent, so
          cancelled ones are left out of the failure ratio);
        - webhook_endpoints_auto_disabled_total: counted by the replica that reported the failure;
        - delivery_circuit_breakers_open: open or half-open breakers in THIS replica. Breakers
          are per replica and every replica sees roughly every busy endpoint, so max over
          replicas approximates the number of failing endpoints (sum would scale with replicas);
        - webhook_deliveries_due_late: read from the database at scrape, so every replica
          reports the same global figure: max, never sum.
        */}}
        {{- with $pr.rules.webhookFailureRatio }}
        {{- if .enabled }}
        - alert: PreflightWebhookFailureRatio
          expr: |
            (
              sum by (namespace, service) (rate(webhook_deliveries_total{ {{- $sel }},outcome="failed"}[15m]))
              /
              sum by (namespace, service) (rate(webhook_deliveries_total{ {{- $sel }},outcome=~"delivered|failed"}[15m]))
            ) > {{ .ratio }}
            and
            sum by (namespace, service) (increase(webhook_deliveries_total{ {{- $sel }},outcome="failed"}[15m])) >= {{ .minFailures | default 0 }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value | humanizePercentage {{ "}}" }} of webhook deliveries fail'
            description: >-
              More than {{ .ratio }} of {{ $component }}'s final webhook deliveries (over 15 min, cancelled
              ones aside) failed after all their attempts, across endpoints.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightWebhookFailureRatio") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.webhookEndpointsAutoDisabled }}
        {{- if .enabled }}
        - alert: PreflightWebhookEndpointsAutoDisabled
          expr: sum by (namespace, service) (increase(webhook_endpoints_auto_disabled_total{ {{- $sel }}}[1h])) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value | humanize {{ "}}" }} webhook endpoints were disabled automatically in the last hour'
            description: Endpoints whose deliveries kept failing were switched off by the webhook service; their owners stop receiving events until an operator re-enables them (POST /admin/v1/webhooks/:id/enable).
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightWebhookEndpointsAutoDisabled") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.deliveryBreakersOpen }}
        {{- if .enabled }}
        - alert: PreflightDeliveryBreakersOpen
          expr: max by (namespace, service) (delivery_circuit_breakers_open{ {{- $sel }}}) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value {{ "}}" }} delivery circuit breakers are open (busiest replica)'
            description: Many webhook endpoints fail at once, which points at our egress (NetworkPolicy, NAT, DNS) rather than at the receivers.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightDeliveryBreakersOpen") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.webhookDeliveriesLate }}
        {{- if .enabled }}
        - alert: PreflightWebhookDeliveriesLate
          expr: max by (namespace, service) (webhook_deliveries_due_late{ {{- $sel }}}) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value {{ "}}" }} webhook deliveries are past their due time'
            description: Deliveries (first attempts and retries) due more than 5 s ago have not been attempted; {{ $component }} does not keep up and receivers get events late.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightWebhookDeliveriesLate") }}
        {{- end }}
        {{- end }}
        {{- /*
        Integration jobs (services/integration/src/worker/metrics.ts, libs/breakers):
        - integration_jobs_due and integration_connections_needing_attention: read from the
          database at scrape, so every replica reports the same global figure: max, never sum;
        - integration_circuit_breakers_open: open or half-open breakers in THIS replica (per
          connection, per replica): max over replicas approximates the failing connections;
        - integration_jobs_total{action,outcome}: one per try that ended (succeeded, skipped,
          rate-limited, credentials, rejected, unavailable); rejected (the provider refused the
          request for good) and unavailable (no usable answer) are the failures.
        */}}
        {{- with $pr.rules.integrationJobsBacklog }}
        {{- if .enabled }}
        - alert: PreflightIntegrationJobsBacklog
          expr: max by (namespace, service) (integration_jobs_due{ {{- $sel }}}) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value {{ "}}" }} integration jobs are due and not running'
            description: Jobs whose time has come (chat announcements, tracker creates and status syncs) are waiting; {{ $component }} does not keep up, or cannot claim.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightIntegrationJobsBacklog") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.integrationConnectionsNeedAttention }}
        {{- if .enabled }}
        - alert: PreflightIntegrationConnectionsNeedAttention
          expr: max by (namespace, service) (integration_connections_needing_attention{ {{- $sel }}}) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value {{ "}}" }} integration connections need new credentials'
            description: A provider refused these connections' credentials (or they cannot be decrypted); nothing is sent for them until they are replaced (PATCH /admin/v1/integrations/:id with new credentials).
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightIntegrationConnectionsNeedAttention") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.integrationBreakersOpen }}
        {{- if .enabled }}
        - alert: PreflightIntegrationBreakersOpen
          expr: max by (namespace, service) (integration_circuit_breakers_open{ {{- $sel }}}) > {{ .threshold }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value {{ "}}" }} integration circuit breakers are open (busiest replica)'
            description: Many connections' providers give no usable answer at once, which points at our egress (NetworkPolicy, NAT, DNS) or a provider outage.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightIntegrationBreakersOpen") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.integrationJobFailures }}
        {{- if .enabled }}
        - alert: PreflightIntegrationJobFailures
          expr: |
            (
              sum by (namespace, service) (rate(integration_jobs_total{ {{- $sel }},outcome=~"rejected|unavailable"}[15m]))
              /
              sum by (namespace, service) (rate(integration_jobs_total{ {{- $sel }}}[15m]))
            ) > {{ .ratio }}
            and
            sum by (namespace, service) (increase(integration_jobs_total{ {{- $sel }},outcome=~"rejected|unavailable"}[15m])) >= {{ .minFailures | default 0 }}
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $value | humanizePercentage {{ "}}" }} of integration job tries fail'
            description: >-
              More than {{ .ratio }} of {{ $component }}'s job tries over 15 min were rejected by the provider or got
              no usable answer, across connections.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightIntegrationJobFailures") }}
        {{- end }}
        {{- end }}
        {{/*
        At-rest secrets (issue 22, finding 8; libs/secret-box):
        - secrets_undecryptable{kind}: stored secrets no key of THIS replica's ring opens, as of
          its last check of every row (webhook: signing-secret, previous-signing-secret;
          integration: credentials, inbound-secret). Per replica, so a replica given the wrong
          key shows alone: max, never sum;
        - secret_decrypt_failures_total{kind} (webhook): each time a route needed a secret and
          could not open it;
        - webhook_deliveries_held_for_key_total{trigger} (delivery): due deliveries put back,
          no attempt made, because their endpoint's secret cannot be opened.
        */}}
        {{- with $pr.rules.secretsUndecryptable }}
        {{- if .enabled }}
        - alert: PreflightSecretsUndecryptable
          expr: |
            max by (namespace, service, kind) (secrets_undecryptable{ {{- $sel }}}) > 0
            or
            sum by (namespace, service, kind) (increase(secret_decrypt_failures_total{ {{- $sel }}}[10m])) > 0
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: '{{ "{{" }} $labels.service {{ "}}" }}: stored {{ "{{" }} $labels.kind {{ "}}" }} secrets no configured key opens'
            description: >-
              A replica of {{ $component }} cannot decrypt stored secrets with its key ring (a key removed too early, or
              a replica given the wrong one). What needs them waits (webhook deliveries stay pending, integration jobs
              wait) and resumes once the key is back; nothing is dropped.
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightSecretsUndecryptable") }}
        {{- end }}
        {{- end }}
        {{- with $pr.rules.webhookDeliveriesHeldForKey }}
        {{- if .enabled }}
        - alert: PreflightWebhookDeliveriesHeldForKey
          expr: sum by (namespace, service) (increase(webhook_deliveries_held_for_key_total{ {{- $sel }}}[10m])) > 0
          for: {{ .for }}
          labels:
            severity: {{ .severity }}
          annotations:
            summary: 'Webhook deliveries wait: their endpoints'' secrets cannot be decrypted'
            description: >-
              {{ $component }} holds deliveries pending, no attempt made, because the webhook service cannot open their
              endpoints' signing secrets. They go out once the key is back (PreflightSecretsUndecryptable names it).
            runbook_url: {{ include "preflight-lib.runbookUrl" (dict "root" $ "alert" "PreflightSecretsUndecryptable") }}
        {{- end }}
        {{- end }}
{{- end -}}
{{- end -}}
