{{/*
The public Ingress (`ingress`) and, on the gateway, the internal one (`adminIngress`): the admin
API (/admin/v1) is never on the public entry. `ingress.paths` lists public prefixes (literal
segments, Prefix or Exact); a path under /admin, or one /admin/v1 starts with (`/`, `/a`), would
route it too, since the gateway serves both on one port: it fails here and in the values schema.
`adminIngress` (off by default) serves /admin/v1 through its own class and annotations, e.g. an
internal-only controller or a source-range allowlist. Without it, reach /admin/v1 with
`kubectl port-forward svc/<instance>-gateway 8080` (docs/operations.md).
*/}}
{{- define "preflight-lib.ingressObject" -}}
{{- $root := .root -}}
{{- $ing := .ingress -}}
{{- $fullname := include "preflight-lib.fullname" $root -}}
{{- $port := $root.Values.service.port -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .role }}
  {{- with $ing.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with $ing.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with $ing.tls }}
  tls:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    {{- range $ing.hosts }}
    - http:
        paths:
          {{- range $ing.paths }}
          - path: {{ .path }}
            pathType: {{ .pathType | default "Prefix" }}
            backend:
              service:
                name: {{ $fullname }}
                port:
                  number: {{ $port }}
          {{- end }}
      {{- with .host }}
      host: {{ . | quote }}
      {{- end }}
    {{- end }}
{{- end -}}

{{- define "preflight-lib.ingress" -}}
{{- $fullname := include "preflight-lib.fullname" . -}}
{{- if .Values.ingress.enabled }}
{{- range .Values.ingress.paths }}
{{- $path := lower (toString .path) }}
{{- if or (hasPrefix "/admin" $path) (hasPrefix $path "/admin/v1") }}
{{- fail (printf "ingress.paths: %s would route the admin API (/admin/v1, on the gateway's one port); the public ingress lists public prefixes only (/api/v1, /integrations/v1, /console), adminIngress serves /admin/v1" .path) }}
{{- end }}
{{- if not (regexMatch "^(/[A-Za-z0-9_~-]+)+/?$" (toString .path)) }}
{{- fail (printf "ingress.paths: %s is not a literal prefix (/segment/...): a controller could read it as a pattern wider than meant" .path) }}
{{- end }}
{{- if eq (toString .pathType) "ImplementationSpecific" }}
{{- fail (printf "ingress.paths: %s has pathType ImplementationSpecific, which lets the controller match more than the prefix; use Prefix or Exact on the public ingress" .path) }}
{{- end }}
{{- end }}
{{ include "preflight-lib.ingressObject" (dict "root" . "ingress" .Values.ingress "name" $fullname "role" "public-ingress") }}
{{- end }}
{{- with .Values.adminIngress }}
{{- if .enabled }}
{{- if and $.Values.ingress.enabled (eq (toString .className) (toString $.Values.ingress.className)) (not .allowSameClass) }}
{{- fail "adminIngress.className is the public ingress's class: give the admin API an internal-only class (or set adminIngress.allowSameClass with a source-range allowlist annotation)" }}
{{- end }}
---
{{ include "preflight-lib.ingressObject" (dict "root" $ "ingress" . "name" (printf "%s-admin" $fullname | trunc 63 | trimSuffix "-") "role" "admin-ingress") }}
{{- end }}
{{- end }}
{{- end -}}
