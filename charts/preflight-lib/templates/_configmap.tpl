{{/* The service's plain environment. Its hash is on the pod template, so a change rolls the pods. */}}
{{- define "preflight-lib.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
data:
  {{- include "preflight-lib.configData" . | nindent 2 }}
{{- end -}}
