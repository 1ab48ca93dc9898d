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

{{/*
The installation's name, `global.instance` (default `preflight`): the prefix of every resource
name and the `app.kubernetes.io/instance` label. Never the release name, so a service renders the
same objects in the umbrella (release `preflight`) and in a release of its own
(`preflight-issue`): its Service stays `preflight-issue`, callers' URLs stay valid, and it can
move between releases without a new selector (docs/operations.md#moving-a-service-to-its-own-release).
*/}}
{{- define "preflight-lib.instance" -}}
{{- $g := .Values.global | default dict -}}
{{- $g.instance | default "preflight" | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* <instance>-<component> (preflight-issue), or fullnameOverride. */}}
{{- define "preflight-lib.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" (include "preflight-lib.instance" .) (include "preflight-lib.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/*
Another service's base URL, for the `*_URL` config values: global.services.<name>.url when set
(a service elsewhere, another installation), else http://<instance>-<name>:<port>, the Service
that service's chart creates under the same global.instance, whichever release holds it.
Call as (list $ "issue" 8082).
*/}}
{{- define "preflight-lib.serviceUrl" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $g := $root.Values.global | default dict -}}
{{- $svc := get ($g.services | default dict) $name | default dict -}}
{{- $svc.url | default (printf "http://%s-%s:%v" (include "preflight-lib.instance" $root) $name (index . 2)) -}}
{{- end -}}

{{/*
One event-stream setting (libs/bus eventsConfigShape) for the EVENTS_* config values: from
global.events (set once in the umbrella, or in each standalone release's values), else the code's
default. Call as (list $ "replicas"). Provisioning defaults to `external`: a service chart
installed with no global.events (no umbrella, no operator's settings) only checks that the shared
stream exists, instead of editing it to its own defaults under the other releases.
*/}}
{{- define "preflight-lib.events" -}}
{{- $root := index . 0 -}}
{{- $g := $root.Values.global | default dict -}}
{{- $e := $g.events | default dict -}}
{{- $defaults := dict "stream" "PREFLIGHT_EVENTS" "subjectPrefix" "preflight" "replicas" 1 "maxAgeHours" 168 "provisioning" "external" -}}
{{- $key := index . 1 -}}
{{- if eq $key "managed" -}}
{{- ternary "service" "external" (eq (toString ($e.provisioning | default (get $defaults "provisioning"))) "services") -}}
{{- else -}}
{{- get $e $key | default (get $defaults $key) | toString -}}
{{- end -}}
{{- end -}}

{{- define "preflight-lib.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object. `role` is server (the Deployment's pods) or migrations (the hook Job). */}}
{{- define "preflight-lib.labels" -}}
helm.sh/chart: {{ include "preflight-lib.chart" . }}
app.kubernetes.io/name: {{ include "preflight-lib.name" . }}
app.kubernetes.io/instance: {{ include "preflight-lib.instance" . }}
app.kubernetes.io/version: {{ include "preflight-lib.imageTag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: preflight
{{- end -}}

{{/* Every pod of this service in this release: server pods and migration Job pods (NetworkPolicy). */}}
{{- define "preflight-lib.podSelectorLabels" -}}
app.kubernetes.io/name: {{ include "preflight-lib.name" . }}
app.kubernetes.io/instance: {{ include "preflight-lib.instance" . }}
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

{{/*
Credentials, each a secretKeyRef into the existing Secret: never a value in values.yaml. Called
with the chart's context, or with (dict "root" $ "override" {name, key}) to take DATABASE_URL from
another Secret key (the migration Job's own credentials).
*/}}
{{- define "preflight-lib.secretEnv" -}}
{{- $root := .root | default . -}}
{{- $override := .override | default dict -}}
{{- $secret := include "preflight-lib.secretName" $root -}}
{{- range $name, $key := $root.Values.secretEnv }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      {{- if and (eq $name "DATABASE_URL") $override.key }}
      name: {{ $override.name | default $secret }}
      key: {{ $override.key }}
      {{- else }}
      name: {{ $secret }}
      key: {{ $key }}
      {{- end }}
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

{{/*
"true" when the ServiceMonitor and PrometheusRule can be applied: the cluster serves
monitoring.coreos.com/v1 (the Prometheus Operator CRDs), or `monitoringApi` (this chart's, else
global.monitoringApi) is `always` (helm template for GitOps without --api-versions, or the CRDs
installed by the same pipeline). With `auto` (the default) and no CRDs they are left out instead
of failing the install.
*/}}
{{- define "preflight-lib.monitoringApi" -}}
{{- $g := .Values.global | default dict -}}
{{- $mode := .Values.monitoringApi | default $g.monitoringApi | default "auto" -}}
{{- if or (eq $mode "always") (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") -}}true{{- end -}}
{{- end -}}

{{/*
Refuses a pod that would be killed before it finished shutting down. At SIGTERM (after the preStop
sleep) the server drains for up to shutdown.drainSeconds, then the service's work in flight gets up
to shutdown.inFlightTimeouts × the config value shutdown.inFlightTimeoutKey (milliseconds; its code
default shutdown.inFlightTimeoutDefaultMs when unset): delivery's attempt timeout, integration's
call timeout. terminationGracePeriodSeconds must cover the sum.
*/}}
{{- define "preflight-lib.checkShutdown" -}}
{{- $s := .Values.shutdown | default dict -}}
{{- $need := add (int (.Values.preStopSleepSeconds | default 0)) (int ($s.drainSeconds | default 10)) -}}
{{- $inFlightMs := 0 -}}
{{- with $s.inFlightTimeoutKey -}}
{{- $config := include "preflight-lib.configData" $ | fromYaml -}}
{{- $ms := get $config . | default $s.inFlightTimeoutDefaultMs | default 0 -}}
{{- $inFlightMs = mul (int $ms) (int ($s.inFlightTimeouts | default 1)) -}}
{{- end -}}
{{- $need = add $need (div (add $inFlightMs 999) 1000) -}}
{{- if lt (int .Values.terminationGracePeriodSeconds) (int $need) -}}
{{- fail (printf "terminationGracePeriodSeconds %v is shorter than the shutdown it must cover: preStopSleepSeconds %v + drain %v s%s = %v s" .Values.terminationGracePeriodSeconds (.Values.preStopSleepSeconds | default 0) ($s.drainSeconds | default 10) (ternary (printf " + %v × %s (%v ms)" ($s.inFlightTimeouts | default 1) ($s.inFlightTimeoutKey | default "") (div $inFlightMs (int ($s.inFlightTimeouts | default 1)))) "" (gt $inFlightMs 0)) $need) -}}
{{- end -}}
{{- end -}}

{{/* The pod-level extras every pod of the service shares (server and migration Job). */}}
{{- define "preflight-lib.extraVolumes" -}}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}
