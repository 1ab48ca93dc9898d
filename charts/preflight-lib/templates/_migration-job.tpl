{{/*
Applies the service's migrations (`main.js migrate`) before install and before every upgrade;
the new pods start only once it succeeded. A hook runs before the release's own objects exist,
so the Job carries its environment inline and uses the namespace's default ServiceAccount
(without a token); the credentials come from the existing Secret.
*/}}
{{- define "preflight-lib.migrationJob" -}}
{{- if .Values.migrations.enabled -}}
{{- $component := include "preflight-lib.component" . -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ printf "%s-migrate" (include "preflight-lib.fullname" .) | trunc 63 | trimSuffix "-" }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: migrations
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-5"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ .Values.migrations.backoffLimit }}
  activeDeadlineSeconds: {{ .Values.migrations.activeDeadlineSeconds }}
  template:
    metadata:
      labels:
        {{- include "preflight-lib.labels" . | nindent 8 }}
        app.kubernetes.io/component: migrations
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      {{- with include "preflight-lib.imagePullSecrets" . }}
      {{- . | nindent 6 }}
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
          env:
            {{- range $key, $value := (include "preflight-lib.configData" . | fromYaml) }}
            - name: {{ $key }}
              value: {{ $value | quote }}
            {{- end }}
            {{- include "preflight-lib.secretEnv" . | trim | nindent 12 }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          resources:
            {{- toYaml .Values.migrations.resources | nindent 12 }}
          securityContext:
            {{- include "preflight-lib.containerSecurityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end -}}
{{- end -}}
