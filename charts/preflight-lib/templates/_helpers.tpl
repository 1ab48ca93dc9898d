{{/*
Naming, labels and the small values every resource shares. A service chart's values name the
service once (`component`); everything else derives from it.
*/}}

{{/* The service this chart runs: gateway, campaign, issue... */}}
{{- define "preflight-lib.component" -}}
{{- required "component is required (the service's name, e.g. campaign)" .Values.component -}}
{{- end -}}

{{- define "preflight-lib.name" -}}
{{- default (include "preflight-lib.component" .) .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-<component>, or the release name alone when it already contains the component. */}}
{{- define "preflight-lib.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "preflight-lib.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "preflight-lib.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object. `role` is server (the Deployment's pods) or migrations (the hook Job). */}}
{{- define "preflight-lib.labels" -}}
helm.sh/chart: {{ include "preflight-lib.chart" . }}
app.kubernetes.io/name: {{ include "preflight-lib.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "preflight-lib.imageTag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: preflight
{{- end -}}

{{/* Every pod of this service in this release: server pods and migration Job pods (NetworkPolicy). */}}
{{- define "preflight-lib.podSelectorLabels" -}}
app.kubernetes.io/name: {{ include "preflight-lib.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The pods that serve traffic (Deployment, Service, PDB, HPA); never the migration Job's. */}}
{{- define "preflight-lib.selectorLabels" -}}
{{ include "preflight-lib.podSelectorLabels" . }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "preflight-lib.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "preflight-lib.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Image tag: the chart value, else the umbrella's global.imageTag, else the chart's appVersion. */}}
{{- define "preflight-lib.imageTag" -}}
{{- $g := .Values.global | default dict -}}
{{- .Values.image.tag | default $g.imageTag | default .Chart.AppVersion | toString -}}
{{- end -}}

{{- define "preflight-lib.image" -}}
{{- $g := .Values.global | default dict -}}
{{- $registry := .Values.image.registry | default $g.imageRegistry -}}
{{- $repo := ternary (printf "%s/%s" $registry .Values.image.repository) .Values.image.repository (not (empty $registry)) -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (include "preflight-lib.imageTag" .) -}}
{{- end -}}
{{- end -}}

{{- define "preflight-lib.imagePullSecrets" -}}
{{- $g := .Values.global | default dict -}}
{{- $secrets := concat (.Values.imagePullSecrets | default list) ($g.imagePullSecrets | default list) | uniq -}}
{{- if $secrets -}}
imagePullSecrets:
{{- range $secrets }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* The Secret (created outside the chart) that holds this service's credentials. */}}
{{- define "preflight-lib.secretName" -}}
{{- $g := .Values.global | default dict -}}
{{- .Values.existingSecret | default $g.existingSecret | default "preflight-secrets" -}}
{{- end -}}

{{/* The process: the bundle the image was built with (scripts/build-service.mjs). */}}
{{- define "preflight-lib.entrypoint" -}}
["node", "services/{{ include "preflight-lib.component" . }}/dist/main.js"]
{{- end -}}

{{/*
Plain (non-secret) environment: `config` values rendered through `tpl` (so they may refer to
{{ .Release.Name }}), empty ones left out, plus the port and MIGRATE_ON_START the chart owns.
*/}}
{{- define "preflight-lib.configData" -}}
{{- $data := dict -}}
{{- range $key, $value := .Values.config -}}
{{- if hasKey $.Values.secretEnv $key -}}
{{- fail (printf "config.%s is also in secretEnv: credentials come from the Secret only" $key) -}}
{{- end -}}
{{- if not (kindIs "invalid" $value) -}}
{{- $v := tpl (toString $value) $ -}}
{{- if ne $v "" -}}{{- $_ := set $data $key $v -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- $_ := set $data (printf "%s_PORT" (include "preflight-lib.component" . | upper | replace "-" "_")) (toString .Values.containerPort) -}}
{{- $_ := set $data "MIGRATE_ON_START" (ternary "false" "true" (.Values.migrations.enabled | default false)) -}}
{{- toYaml $data -}}
{{- end -}}

{{/* Credentials, each a secretKeyRef into the existing Secret: never a value in values.yaml. */}}
{{- define "preflight-lib.secretEnv" -}}
{{- $secret := include "preflight-lib.secretName" . -}}
{{- range $name, $key := .Values.secretEnv }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
{{- end }}
{{- end -}}

{{- define "preflight-lib.podSecurityContext" -}}
{{- toYaml .Values.podSecurityContext -}}
{{- end -}}

{{- define "preflight-lib.containerSecurityContext" -}}
{{- toYaml .Values.securityContext -}}
{{- end -}}

{{/* Selector for the prometheus rules: this service's series in this namespace. */}}
{{- define "preflight-lib.promSelector" -}}
namespace="{{ .Release.Namespace }}",service="{{ include "preflight-lib.component" . }}"
{{- end -}}

{{- define "preflight-lib.runbookUrl" -}}
{{- $g := .root.Values.global | default dict -}}
{{- $base := .root.Values.prometheusRule.runbookBaseUrl | default $g.runbookBaseUrl | default "https://preflight.example.com/docs/operations.md" -}}
{{- printf "%s#%s" $base (lower .alert) -}}
{{- end -}}
