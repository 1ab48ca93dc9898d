{{- define "preflight-lib.deployment" -}}
{{- $component := include "preflight-lib.component" . -}}
{{- include "preflight-lib.checkShutdown" . -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: server
spec:
  {{- /* An HPA (autoscaling) or KEDA's owns the count: helm upgrade must not reset it. */}}
  {{- if not (or .Values.autoscaling.enabled (.Values.keda | default dict).enabled) }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 25%
  selector:
    matchLabels:
      {{- include "preflight-lib.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "preflight-lib.labels" . | nindent 8 }}
        app.kubernetes.io/component: server
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include "preflight-lib.configData" . | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "preflight-lib.serviceAccountName" . }}
      automountServiceAccountToken: {{ .Values.serviceAccount.automountToken }}
      {{- with include "preflight-lib.imagePullSecrets" . }}
      {{- . | nindent 6 }}
      {{- end }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
      securityContext:
        {{- include "preflight-lib.podSecurityContext" . | nindent 8 }}
      {{- if .Values.topologySpread.enabled }}
      topologySpreadConstraints:
        - topologyKey: topology.kubernetes.io/zone
          maxSkew: {{ .Values.topologySpread.maxSkew }}
          whenUnsatisfiable: {{ .Values.topologySpread.zoneWhenUnsatisfiable }}
          labelSelector:
            matchLabels:
              {{- include "preflight-lib.selectorLabels" . | nindent 14 }}
          matchLabelKeys: [pod-template-hash]
        - topologyKey: kubernetes.io/hostname
          maxSkew: {{ .Values.topologySpread.maxSkew }}
          whenUnsatisfiable: {{ .Values.topologySpread.hostWhenUnsatisfiable }}
          labelSelector:
            matchLabels:
              {{- include "preflight-lib.selectorLabels" . | nindent 14 }}
          matchLabelKeys: [pod-template-hash]
      {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.initContainers }}
      initContainers:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ $component }}
          image: {{ include "preflight-lib.image" . | quote }}
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          command: {{ include "preflight-lib.entrypoint" . }}
          ports:
            - name: http
              containerPort: {{ .Values.containerPort }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "preflight-lib.fullname" . }}
            {{- with .Values.extraEnvFrom }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          env:
            {{- include "preflight-lib.secretEnv" . | trim | nindent 12 }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          startupProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: {{ .Values.probes.startup.periodSeconds }}
            timeoutSeconds: {{ .Values.probes.startup.timeoutSeconds }}
            failureThreshold: {{ .Values.probes.startup.failureThreshold }}
          readinessProbe:
            httpGet: { path: /readyz, port: http }
            periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
            timeoutSeconds: {{ .Values.probes.readiness.timeoutSeconds }}
            failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
          livenessProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
            timeoutSeconds: {{ .Values.probes.liveness.timeoutSeconds }}
            failureThreshold: {{ .Values.probes.liveness.failureThreshold }}
          {{- if .Values.preStopSleepSeconds }}
          lifecycle:
            # Keeps serving while endpoints and load balancers forget this pod; then SIGTERM
            # makes /readyz answer 503 and the server drain (libs/http).
            preStop:
              exec:
                command: ["sleep", "{{ .Values.preStopSleepSeconds }}"]
          {{- end }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            {{- include "preflight-lib.containerSecurityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
        {{- with .Values.sidecars }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ .Values.tmpSizeLimit }}
        {{- with .Values.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}
