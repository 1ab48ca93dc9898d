{{/*
KEDA ScaledObject (keda.enabled, off by default; needs KEDA installed, keda.sh/v1alpha1): scales
the Deployment on what a consumer is waiting on rather than on CPU, through Prometheus queries
(keda.triggers: each a query over this service's series and the value per replica). It creates
its own HorizontalPodAutoscaler, so autoscaling.enabled must be off (the HPA template refuses
both). `<selector>` in a query is replaced by this service's label matchers
(namespace="…",service="…").
*/}}
{{- define "preflight-lib.scaledobject" -}}
{{- $k := .Values.keda | default dict -}}
{{- if $k.enabled -}}
{{- if gt (int $k.minReplicas) (int $k.maxReplicas) -}}
{{- fail (printf "keda.minReplicas %v is above keda.maxReplicas %v" $k.minReplicas $k.maxReplicas) -}}
{{- end -}}
{{- if not $k.triggers -}}
{{- fail "keda.enabled needs at least one keda.triggers entry" -}}
{{- end -}}
{{- $sel := include "preflight-lib.promSelector" . -}}
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "preflight-lib.fullname" . }}
  minReplicaCount: {{ $k.minReplicas }}
  maxReplicaCount: {{ $k.maxReplicas }}
  pollingInterval: {{ $k.pollingInterval }}
  cooldownPeriod: {{ $k.cooldownPeriod }}
  advanced:
    horizontalPodAutoscalerConfig:
      behavior:
        scaleDown:
          stabilizationWindowSeconds: {{ .Values.autoscaling.scaleDownStabilizationSeconds }}
          policies:
            - type: Pods
              value: 1
              periodSeconds: 60
  triggers:
    {{- range $k.triggers }}
    - type: prometheus
      name: {{ .name }}
      metadata:
        serverAddress: {{ $k.prometheusAddress | quote }}
        query: {{ .query | replace "<selector>" $sel | quote }}
        threshold: {{ .threshold | toString | quote }}
        {{- with .activationThreshold }}
        activationThreshold: {{ . | toString | quote }}
        {{- end }}
    {{- end }}
{{- end -}}
{{- end -}}
