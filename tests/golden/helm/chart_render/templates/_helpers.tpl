{{- define "inference.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end }}
{{- define "inference.labels" -}}
app: {{ .Chart.Name }}
{{- end }}
