{{- define "type_members" -}}
{{- $field := . -}}
{{- if eq $field.Name "metadata" -}}
Standard object metadata; see the Kubernetes API documentation for `metadata`.
{{- else -}}
{{ $field.Doc | trim | replace "<" "&lt;" | replace ">" "&gt;" | replace "\n" " " | markdownRenderFieldDoc }}
{{- end -}}
{{- end -}}

{{- define "validation" -}}
{{- $first := true -}}
{{- range . -}}
{{- if ne . "Optional: {}" -}}
{{- if not $first }}<br />{{ end -}}
{{- $first = false -}}
{{- if eq . "Required: {}" }}required{{ else }}{{ markdownRenderFieldDoc . }}{{ end -}}
{{- end -}}
{{- end -}}
{{- end -}}
