{{/*
Prometheus Operator scrape of /metrics. honorLabels keeps the `service` label the process sets
(gateway, campaign, ...) instead of renaming it exported_service; the relabeling gives `up` the
same `service` label, so one selector finds a service's series and its scrape health.
*/}}
{{- define "preflight-lib.servicemonitor" -}}
{{- if and .Values.serviceMonitor.enabled (include "preflight-lib.monitoringApi" .) -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    {{- with .Values.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "preflight-lib.selectorLabels" . | nindent 6 }}
  namespaceSelector:
    matchNames: [{{ .Release.Namespace }}]
  endpoints:
    - port: http
      path: /metrics
      interval: {{ .Values.serviceMonitor.interval }}
      scrapeTimeout: {{ .Values.serviceMonitor.scrapeTimeout }}
      honorLabels: true
      relabelings:
        - action: replace
          targetLabel: service
          replacement: {{ include "preflight-lib.component" . }}
{{- end -}}
{{- end -}}
