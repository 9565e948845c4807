{{/*
Names and labels shared by every template.
*/}}

{{/* Chart name (or nameOverride), truncated to the 63 characters a label value allows. */}}
{{- define "mooring.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Release full name: fullnameOverride when set; else the release name when it already contains the
name, else release-name.
*/}}
{{- define "mooring.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mooring.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels: stable for the life of the release. */}}
{{- define "mooring.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mooring.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels of every object. managed-by is Helm's: the agent's own ownership label
(app.kubernetes.io/managed-by: mooring) is for the objects it creates, never for itself.
*/}}
{{- define "mooring.labels" -}}
helm.sh/chart: {{ include "mooring.chart" . }}
{{ include "mooring.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: agent
app.kubernetes.io/part-of: mooring
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "mooring.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mooring.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* registry/repository:tag, or @digest when a digest is given. */}}
{{- define "mooring.image" -}}
{{- $repo := .Values.image.repository }}
{{- if .Values.image.registry }}
{{- $repo = printf "%s/%s" .Values.image.registry .Values.image.repository }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Name of the Secret holding the API key, and its key. */}}
{{- define "mooring.apiKeySecretName" -}}
{{- if .Values.existingSecret }}
{{- .Values.existingSecret }}
{{- else }}
{{- printf "%s-api-key" (include "mooring.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "mooring.apiKeySecretKey" -}}
{{- if .Values.existingSecret }}
{{- .Values.existingSecretKey }}
{{- else -}}
api-key
{{- end }}
{{- end }}

{{/* The release namespace's Role (the Lease, the restart memo); distinct from the watched-namespace Role. */}}
{{- define "mooring.selfRoleName" -}}
{{- printf "%s-self" (include "mooring.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Cross-field rules the JSON schema cannot state with a clear message. Included by the Deployment,
so every render checks them.
*/}}
{{- define "mooring.validate" -}}
{{- if and (not .Values.apiKey) (not .Values.existingSecret) }}
{{- fail "mooring: set apiKey or existingSecret (the name of a Secret in the release namespace holding the control plane API key)" }}
{{- end }}
{{- if and .Values.apiKey .Values.existingSecret }}
{{- fail "mooring: set only one of apiKey and existingSecret, not both" }}
{{- end }}
{{- range $ns, $tenant := .Values.references.namespaceTenants }}
{{- if not (has $ns $.Values.namespaces) }}
{{- fail (printf "mooring: references.namespaceTenants binds %s, which is not one of namespaces" $ns) }}
{{- end }}
{{- end }}
{{- if and .Values.createNamespaces (has .Release.Namespace .Values.namespaces) }}
{{- fail (printf "mooring: createNamespaces cannot create the release namespace \"%s\": it exists before the release, and Helm does not take over a namespace it did not create. Run the agent in a namespace that is not one of namespaces, or leave createNamespaces off and label the namespaces yourself" .Release.Namespace) }}
{{- end }}
{{- if and (gt (int .Values.sharding.shards) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "mooring: sharding.shards is %d: more than one shard needs leaderElection.enabled (each shard has its own Lease; without them every replica would write every shard)" (int .Values.sharding.shards)) }}
{{- end }}
{{- range .Values.extraEnv }}
{{- if eq .name "MOORING_API_KEY" }}
{{- fail "mooring: extraEnv must not set MOORING_API_KEY (a plain env value); use apiKey or existingSecret, mounted as a file" }}
{{- end }}
{{- end }}
{{- end }}

{{/* references.namespaceTenants as the agent reads it: ns=uuid,ns2=uuid, sorted by namespace. */}}
{{- define "mooring.namespaceTenants" -}}
{{- $pairs := list }}
{{- range $ns, $tenant := . }}
{{- $pairs = append $pairs (printf "%s=%s" $ns $tenant) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{/*
The Pod Security Admission level to enforce on the namespaces the chart creates: the strongest
level every pod the agent may render satisfies, or nothing. allowPrivileged and allowHostPath
exempt baseline controls, so no level admits those pods; extra volume types break only
restricted's Volume Types, so baseline still holds.
*/}}
{{- define "mooring.podSecurityEnforce" -}}
{{- $p := .Values.policy }}
{{- if not (or $p.allowPrivileged $p.allowHostPath) }}
{{- if and (eq $p.podSecurity "restricted") $p.allowedVolumeTypes -}}
baseline
{{- else }}
{{- $p.podSecurity }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of the metrics Service: the `job` label of the series a ServiceMonitor scrapes. */}}
{{- define "mooring.metricsServiceName" -}}
{{- printf "%s-metrics" (include "mooring.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Label matchers of the agent's series in alerts: the value's own, else namespace and job. */}}
{{- define "mooring.metricsSelector" -}}
{{- with .Values.metrics.prometheusRule.selector }}
{{- . }}
{{- else }}
{{- printf "namespace=%q, job=%q" .Release.Namespace (include "mooring.metricsServiceName" .) }}
{{- end }}
{{- end }}

{{/* app.kubernetes.io/name of the `helm test` Pod: not the agent's, so no selector of its picks it. */}}
{{- define "mooring.checkName" -}}
{{- printf "%s-check" (include "mooring.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Resources of the agent container. With sizing.expectedDeployments, the memory limit and request
are what the agent's memory budget asks for that many deployments (heapNeeded and memoryLimitFor
in src/agent/memory-estimate.ts, with 12 objects per deployment and room for a start's listing
of them: an old generation of 60% of the limit at most three-quarters full, and room for the
young generation and Node's own memory; a test keeps the two equal), never below 256Mi. The
heap follows the limit (the image's --max-old-space-size-percentage).
*/}}
{{- define "mooring.resources" -}}
{{- $res := deepCopy .Values.resources -}}
{{- $n := int (default 0 .Values.sizing.expectedDeployments) -}}
{{- if gt $n 0 -}}
{{- $perDeployment := add 5120 (mul 12 (add 250 450)) -}}
{{- $heapKib := add (mul 28 1024) (div (mul $n $perDeployment) 1024) -}}
{{- $byShare := div (mul $heapKib 100) (mul 45 1024) -}}
{{- $withNode := add 64 12 (div (mul $heapKib 100) (mul 75 1024)) -}}
{{- $mib := max $byShare $withNode -}}
{{- $limit := max 256 (mul 32 (div (add $mib 31) 32)) -}}
{{- $_ := set $res "limits" (default (dict) $res.limits) -}}
{{- $_ := set $res.limits "memory" (printf "%dMi" $limit) -}}
{{- $_ := set $res "requests" (default (dict) $res.requests) -}}
{{- $_ := set $res.requests "memory" (printf "%dMi" $limit) -}}
{{- end -}}
{{- toYaml $res -}}
{{- end }}

{{/*
The Leases the agent reads and renews (resourceNames of its Role): the single leader Lease with
one shard; with N shards, that one too (the lock of the shard count), `<leaseName>-<i>` and the
membership slots `<leaseName>-member-<i>`.
*/}}
{{- define "mooring.leaseNames" -}}
{{- $name := .Values.leaderElection.leaseName }}
{{- $shards := int .Values.sharding.shards }}
{{- if le $shards 1 }}
{{- list $name | toJson }}
{{- else }}
{{- $names := list $name }}
{{- range $i := until $shards }}
{{- $names = append $names (printf "%s-%d" $name $i) }}
{{- end }}
{{- range $i := until $shards }}
{{- $names = append $names (printf "%s-member-%d" $name $i) }}
{{- end }}
{{- $names | toJson }}
{{- end }}
{{- end }}

{{/* The restart memo's ConfigMaps: `restartMemo.name`, or `<name>-<i>` per shard; each memo past
1 MiB goes on in `<memo>-part2` .. `<memo>-part6` or `<memo>-alt-part2` .. `<memo>-alt-part6`, the
set the stored memo does not use (MEMO_PARTS in src/kube/restart-memo-store.ts). */}}
{{- define "mooring.restartMemoNames" -}}
{{- $name := .Values.restartMemo.name }}
{{- $shards := ternary (int .Values.sharding.shards) 1 .Values.leaderElection.enabled }}
{{- $memos := list $name }}
{{- if gt $shards 1 }}
{{- $memos = list }}
{{- range $i := until $shards }}
{{- $memos = append $memos (printf "%s-%d" $name $i) }}
{{- end }}
{{- end }}
{{- $names := list }}
{{- range $memo := $memos }}
{{- $names = append $names $memo }}
{{- range $part := untilStep 2 7 1 }}
{{- $names = append $names (printf "%s-part%d" $memo $part) }}
{{- end }}
{{- range $part := untilStep 2 7 1 }}
{{- $names = append $names (printf "%s-alt-part%d" $memo $part) }}
{{- end }}
{{- end }}
{{- $names | toJson }}
{{- end }}
