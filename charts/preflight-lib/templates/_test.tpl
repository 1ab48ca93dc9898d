{{/*
`helm test <release>`: a Pod that asks the service's Service for /readyz (curl, fails on any
answer but 2xx), plus a NetworkPolicy (hook weight -1) letting it reach DNS and the service under a
namespace default-deny; the service's own NetworkPolicy admits it (networkPolicy.ingress, label
app.kubernetes.io/component: helm-test). Both are deleted before the next run and after success.
*/}}
{{- define "preflight-lib.testLabels" -}}
app.kubernetes.io/name: {{ include "preflight-lib.name" . }}-test
app.kubernetes.io/instance: {{ include "preflight-lib.instance" . }}
app.kubernetes.io/part-of: preflight
app.kubernetes.io/component: helm-test
{{- end -}}

{{- define "preflight-lib.test" -}}
{{- $t := .Values.tests | default dict -}}
{{- if $t.enabled -}}
{{- $fullname := include "preflight-lib.fullname" . -}}
{{- $name := printf "%s-test" $fullname | trunc 63 | trimSuffix "-" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ $name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
  annotations:
    helm.sh/hook: test
    helm.sh/hook-weight: "-1"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  podSelector:
    matchLabels:
      {{- include "preflight-lib.testLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress: []
  egress:
    - to:
        {{- toYaml .Values.networkPolicy.egress.dns.to | nindent 8 }}
      ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    - to:
        - podSelector:
            matchLabels:
              {{- include "preflight-lib.selectorLabels" . | nindent 14 }}
      ports:
        - port: {{ .Values.containerPort }}
          protocol: TCP
---
apiVersion: v1
kind: Pod
metadata:
  name: {{ $name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.testLabels" . | nindent 4 }}
    helm.sh/chart: {{ include "preflight-lib.chart" . }}
    app.kubernetes.io/managed-by: {{ .Release.Service }}
  annotations:
    helm.sh/hook: test
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
    {{- with $t.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  {{- with include "preflight-lib.imagePullSecrets" . }}
  {{- . | nindent 2 }}
  {{- end }}
  securityContext:
    {{- include "preflight-lib.podSecurityContext" . | nindent 4 }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: readyz
      image: {{ $t.image | quote }}
      imagePullPolicy: IfNotPresent
      command:
        - curl
        - --fail
        - --silent
        - --show-error
        - --max-time
        - "5"
        - --retry
        - "5"
        - --retry-delay
        - "2"
        - --retry-all-errors
        - http://{{ $fullname }}.{{ .Release.Namespace }}.svc:{{ .Values.service.port }}/readyz
      resources:
        requests: { cpu: 10m, memory: 16Mi }
        limits: { memory: 32Mi }
      securityContext:
        {{- include "preflight-lib.containerSecurityContext" . | nindent 8 }}
{{- end -}}
{{- end -}}
