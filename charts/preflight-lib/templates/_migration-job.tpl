{{/*
Applies the service's migrations (`main.js migrate`) before install and before every upgrade;
the new pods start only once it succeeded. A hook runs before the release's own objects exist,
so the Job carries its environment inline and brings what it needs as hooks of lower weight:
  -10  its ServiceAccount (no token) and a NetworkPolicy letting it reach DNS and Postgres, so
       a first install works in a namespace with a default-deny policy;
   -5  the Job. Its pod has migrations.podAnnotations (Istio's sidecar off by default: a sidecar
       would keep the Job from completing) and one credential, DATABASE_URL (from
       migrations.databaseUrlSecret when set: a role allowed DDL; the pods keep their own).
       `main.js migrate` reads only DATABASE_URL, DB_SCHEMA, DB_POOL_MAX and LOG_LEVEL
       (libs/service-kit migrate-config.ts), so none of the rest of secretEnv (admin token,
       Redis, NATS, service keys, secret key rings) or config reaches it; extraEnv,
       extraEnvFrom and extraVolumes do (a Postgres CA), less the volumes named in
       migrations.omitExtraVolumes (NATS credentials) and their mounts.
All three are deleted before the next attempt and once every hook succeeded; a failed Job stays
for inspection.
*/}}
{{- define "preflight-lib.migrationName" -}}
{{- printf "%s-migrate" (include "preflight-lib.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "preflight-lib.migrationServiceAccountName" -}}
{{- $sa := .Values.migrations.serviceAccount | default dict -}}
{{- if $sa.create -}}
{{- $sa.name | default (include "preflight-lib.migrationName" .) -}}
{{- else -}}
{{- $sa.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/*
The Job's only credential: DATABASE_URL from migrations.databaseUrlSecret when its key is set,
else the pods' own secretEnv DATABASE_URL.
*/}}
{{- define "preflight-lib.migrationDatabaseUrl" -}}
{{- $override := .Values.migrations.databaseUrlSecret | default dict -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- if $override.key }}
      name: {{ $override.name | default (include "preflight-lib.secretName" .) }}
      key: {{ $override.key }}
      {{- else }}
      name: {{ include "preflight-lib.secretName" . }}
      key: {{ required "secretEnv.DATABASE_URL (the Secret key of the database URL) is required by the migration Job" .Values.secretEnv.DATABASE_URL }}
      {{- end }}
{{- end -}}

{{- define "preflight-lib.migrationPodLabels" -}}
{{ include "preflight-lib.podSelectorLabels" . }}
app.kubernetes.io/component: migrations
{{- end -}}

{{- define "preflight-lib.migrationJob" -}}
{{- if .Values.migrations.enabled -}}
{{- $m := .Values.migrations -}}
{{- $name := include "preflight-lib.migrationName" . -}}
{{- $omit := $m.omitExtraVolumes | default list -}}
{{- if ($m.serviceAccount | default dict).create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "preflight-lib.migrationServiceAccountName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: migrations
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-10"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
    {{- with $m.serviceAccount.annotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
automountServiceAccountToken: false
---
{{- end }}
{{- if ($m.networkPolicy | default dict).enabled }}
{{- $egress := .Values.networkPolicy.egress }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ $name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: migrations
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-10"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  podSelector:
    matchLabels:
      {{- include "preflight-lib.migrationPodLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress: []
  egress:
    - to:
        {{- toYaml $egress.dns.to | nindent 8 }}
      ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    # postgres
    - ports:
        - port: {{ $egress.postgres.port }}
          protocol: TCP
      {{- with $egress.postgres.to }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- with $m.networkPolicy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
---
{{- end }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ $name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: migrations
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-5"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ $m.backoffLimit }}
  activeDeadlineSeconds: {{ $m.activeDeadlineSeconds }}
  template:
    metadata:
      labels:
        {{- include "preflight-lib.labels" . | nindent 8 }}
        app.kubernetes.io/component: migrations
        {{- with $m.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $m.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      restartPolicy: Never
      serviceAccountName: {{ include "preflight-lib.migrationServiceAccountName" . }}
      automountServiceAccountToken: false
      {{- with include "preflight-lib.imagePullSecrets" . }}
      {{- . | nindent 6 }}
      {{- end }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      securityContext:
        {{- include "preflight-lib.podSecurityContext" . | nindent 8 }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: migrate
          image: {{ include "preflight-lib.image" . | quote }}
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          command: {{ include "preflight-lib.entrypoint" . }}
          args: ["migrate"]
          {{- with .Values.extraEnvFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          env:
            {{- $config := include "preflight-lib.configData" . | fromYaml }}
            {{- range $key := list "DB_SCHEMA" "DB_POOL_MAX" "LOG_LEVEL" }}
            {{- if hasKey $config $key }}
            - name: {{ $key }}
              value: {{ get $config $key | quote }}
            {{- end }}
            {{- end }}
            {{- include "preflight-lib.migrationDatabaseUrl" . | nindent 12 }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          resources:
            {{- toYaml $m.resources | nindent 12 }}
          securityContext:
            {{- include "preflight-lib.containerSecurityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- range .Values.extraVolumeMounts }}
            {{- if not (has .name $omit) }}
            {{- list . | toYaml | nindent 12 }}
            {{- end }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ .Values.tmpSizeLimit }}
        {{- range .Values.extraVolumes }}
        {{- if not (has .name $omit) }}
        {{- list . | toYaml | nindent 8 }}
        {{- end }}
        {{- end }}
{{- end -}}
{{- end -}}
