{{- define "preflight-lib.pdb" -}}
{{- if .Values.pdb.enabled -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" .Values.pdb.minAvailable) }}
  minAvailable: {{ .Values.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ .Values.pdb.maxUnavailable }}
  {{- end }}
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "preflight-lib.selectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}
