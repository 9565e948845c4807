{{/*
How the agent reaches the outside: proxy settings, the control plane's CA and client certificate,
and the agent's own NetworkPolicy.
*/}}

{{/* Cross-field rules of the proxy, CA and NetworkPolicy values. */}}
{{- define "mooring.validateNetwork" -}}
{{- if and .Values.controlPlane.ca.configMap .Values.controlPlane.ca.secret }}
{{- fail "mooring: set only one of controlPlane.ca.configMap and controlPlane.ca.secret" }}
{{- end }}
{{- if and .Values.proxy.https .Values.proxy.existingSecret }}
{{- fail "mooring: set only one of proxy.https and proxy.existingSecret" }}
{{- end }}
{{- $proxyValues := or .Values.proxy.https .Values.proxy.http .Values.proxy.noProxy .Values.proxy.existingSecret }}
{{- range .Values.extraEnv }}
{{- if and $proxyValues (has (upper .name) (list "HTTPS_PROXY" "HTTP_PROXY" "NO_PROXY")) }}
{{- fail (printf "mooring: extraEnv sets %s while proxy values are set: use proxy.https, proxy.http and proxy.noProxy (or proxy.existingSecret) alone" .name) }}
{{- end }}
{{- end }}
{{- if and .Values.networkPolicy.enabled .Values.proxy.existingSecret (not .Values.networkPolicy.controlPlane.ports) }}
{{- fail "mooring: networkPolicy.controlPlane.ports must name the proxy's port when proxy.existingSecret holds the proxy URL" }}
{{- end }}
{{- end }}

{{/* The environment of the proxy settings (a list of EnvVar), empty when none is set. */}}
{{- define "mooring.proxyEnv" -}}
{{- if .Values.proxy.existingSecret }}
- name: HTTPS_PROXY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.proxy.existingSecret }}
      key: {{ .Values.proxy.existingSecretKey }}
{{- else if .Values.proxy.https }}
- name: HTTPS_PROXY
  value: {{ .Values.proxy.https | quote }}
{{- end }}
{{- with .Values.proxy.http }}
- name: HTTP_PROXY
  value: {{ . | quote }}
{{- end }}
{{- with .Values.proxy.noProxy }}
- name: NO_PROXY
  value: {{ . | quote }}
{{- end }}
{{- end }}

{{/*
The port the agent's traffic to the control plane leaves on: the proxy's when one is set for the
control plane's scheme, else the control plane's own.
*/}}
{{- define "mooring.controlPlaneEgressPort" -}}
{{- $cp := urlParse (.Values.controlPlane.url | default "https://unset") }}
{{- $target := ternary .Values.proxy.https .Values.proxy.http (eq $cp.scheme "https") | default .Values.controlPlane.url | default "https://unset" }}
{{- $u := urlParse $target }}
{{- $port := regexFind ":[0-9]+$" $u.host | trimPrefix ":" }}
{{- if not $port }}{{ $port = ternary "443" "80" (eq $u.scheme "https") }}{{ end }}
{{- $port }}
{{- end }}
