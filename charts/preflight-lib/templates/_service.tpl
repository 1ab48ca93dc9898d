{{- define "preflight-lib.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "preflight-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "preflight-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: server
  {{- with .Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .Values.service.type }}
  selector:
    {{- include "preflight-lib.selectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
{{- end -}}
