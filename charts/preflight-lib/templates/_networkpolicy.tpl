{{/*
Default-deny for this service's pods (server and migration Job), then only:
  ingress  from the Preflight components named in networkPolicy.ingressFromComponents (same
           namespace), from Prometheus (metricsFrom), and from networkPolicy.extraIngress peers;
  egress   to DNS, Postgres/Redis/NATS (ports, optionally narrowed by `to` peers), the
           components in networkPolicy.egressToComponents, and networkPolicy.extraEgress.
*/}}
{{- define "preflight-lib.networkpolicy" -}}
{{- if .Values.networkPolicy.enabled -}}
{{- $np := .Values.networkPolicy -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "preflight-lib.podSelectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- range $np.ingressFromComponents }}
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ . }}
              app.kubernetes.io/part-of: preflight
              app.kubernetes.io/component: server
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- with $np.metricsFrom }}
    - from:
        {{- toYaml . | nindent 8 }}
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- if (.Values.tests | default dict).enabled }}
    # helm test: the readiness probe Pod (preflight-lib.test)
    - from:
        - podSelector:
            matchLabels:
              {{- include "preflight-lib.testLabels" . | nindent 14 }}
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- with $np.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  egress:
    {{- if $np.egress.dns.enabled }}
    - to:
        {{- toYaml $np.egress.dns.to | nindent 8 }}
      ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    {{- end }}
    {{- range $name := list "postgres" "redis" "nats" }}
    {{- $rule := get $np.egress $name }}
    {{- if and $rule $rule.enabled }}
    # {{ $name }}
    - ports:
        - port: {{ $rule.port }}
          protocol: TCP
      {{- with $rule.to }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- end }}
    {{- range $np.egressToComponents }}
    - to:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ .name }}
              app.kubernetes.io/part-of: preflight
              app.kubernetes.io/component: server
      ports:
        - port: {{ .port }}
          protocol: TCP
    {{- end }}
    {{- with $np.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
{{- end -}}
