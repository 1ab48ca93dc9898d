{{/*
A service chart's NOTES.txt (shown after `helm install` of the chart alone; the umbrella prints
its own): where the service answers, and who owns the event stream. A chart installed without
global.events only checks that the stream exists (`external`), so the operator learns here that
something must create it; `services` warns that this release edits a stream others may share.
*/}}
{{- define "preflight-lib.notes" -}}
{{- $fullname := include "preflight-lib.fullname" . -}}
{{- $config := include "preflight-lib.configData" . | fromYaml -}}
{{- $g := .Values.global | default dict -}}
{{- $e := $g.events | default dict -}}
{{ $fullname }} ({{ include "preflight-lib.image" . }}) in namespace {{ .Release.Namespace }}:
  http://{{ $fullname }}.{{ .Release.Namespace }}:{{ .Values.service.port }}  (helm test {{ .Release.Name }} -n {{ .Release.Namespace }})
{{- with $config.EVENTS_STREAM_MANAGED }}
{{- $stream := $config.EVENTS_STREAM }}
{{- if eq . "external" }}

Event stream: this release does not create or change the stream {{ $stream }} (global.events.provisioning: {{ $e.provisioning | default "unset, so external" }}).
The umbrella's hook Job, NACK or an operator owns it; the pods stop at start while it is missing. Create it once with:
  nats stream add {{ $stream }} --subjects '{{ $config.EVENTS_SUBJECT_PREFIX }}.>' --replicas {{ $config.EVENTS_STREAM_REPLICAS }} --max-age {{ $config.EVENTS_STREAM_MAX_AGE_HOURS }}h --dupe-window 2m --storage file --retention limits --discard old
{{- else }}

WARNING: global.events.provisioning is `services`: every pod of this release creates the stream {{ $stream }} or edits it to these settings at start.
Any other release on the same NATS with different global.events settings makes the stream flap between them; use it only where nothing else owns the stream.
{{- end }}
{{- end }}
{{- end -}}
