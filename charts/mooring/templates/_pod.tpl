{{/*
The agent's pod, shared by its Deployment and the `helm test` Pod that runs `mooring check` with
the very same settings: environment, mounts, volumes and security contexts.
*/}}

{{/* Environment of the agent container (a list of EnvVar). */}}
{{- define "mooring.agentEnv" -}}
- name: MOORING_CONTROL_PLANE_URL
  value: {{ .Values.controlPlane.url | quote }}
- name: MOORING_API_KEY_FILE
  value: /var/run/secrets/mooring/api-key
{{- with .Values.controlPlane.tenantId }}
- name: MOORING_TENANT_ID
  value: {{ . | quote }}
{{- end }}
- name: MOORING_LISTENER_ID
  value: {{ .Values.listenerId | quote }}
- name: MOORING_NAMESPACES
  value: {{ join "," .Values.namespaces | quote }}
- name: MOORING_POLL_INTERVAL
  value: {{ .Values.pollIntervalSeconds | quote }}
{{- with .Values.resyncIntervalSeconds }}
- name: MOORING_RESYNC_INTERVAL
  value: {{ . | quote }}
{{- end }}
- name: MOORING_HEARTBEAT_INTERVAL
  value: {{ .Values.heartbeatIntervalSeconds | quote }}
- name: MOORING_CONCURRENCY
  value: {{ .Values.concurrency | quote }}
- name: MOORING_RECONCILE_TIMEOUT
  value: {{ .Values.reconcileTimeoutSeconds | quote }}
- name: MOORING_KUBE_QPS
  value: {{ .Values.kubeQps | quote }}
- name: MOORING_KUBE_BURST
  value: {{ .Values.kubeBurst | quote }}
- name: MOORING_SHUTDOWN_GRACE_PERIOD
  value: {{ .Values.shutdownGracePeriodSeconds | quote }}
- name: MOORING_OPS_PORT
  value: "8080"
# The ops port listens on the pod's IP (probes, Prometheus) and on 127.0.0.1 (port-forward,
# exec), not on every interface; /status answers loopback clients only.
- name: MOORING_POD_IP
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
- name: MOORING_LEADER_ELECTION
  value: {{ .Values.leaderElection.enabled | quote }}
{{- if .Values.leaderElection.enabled }}
- name: MOORING_LEASE_NAME
  value: {{ .Values.leaderElection.leaseName | quote }}
- name: MOORING_LEASE_NAMESPACE
  value: {{ .Release.Namespace | quote }}
- name: MOORING_SHARDS
  value: {{ .Values.sharding.shards | quote }}
{{- end }}
{{- if .Values.restartMemo.enabled }}
- name: MOORING_RESTART_MEMO
  value: {{ .Values.restartMemo.name | quote }}
{{- end }}
- name: MOORING_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: MOORING_POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: MOORING_DRY_RUN
  value: {{ .Values.dryRun | quote }}
- name: MOORING_DELETE_VOLUMES
  value: {{ .Values.deleteVolumes | quote }}
- name: MOORING_RECREATE_STATEFULSETS
  value: {{ .Values.recreateStatefulSets | quote }}
- name: MOORING_WATCH
  value: {{ ne .Values.watch false | quote }}
# The rendering ConfigMap; the variables below, when set, override its members.
- name: MOORING_SETTINGS
  value: /etc/mooring/rendering/settings.yaml
{{- with .Values.components.redisImage }}
- name: MOORING_REDIS_IMAGE
  value: {{ . | quote }}
{{- end }}
{{- with .Values.components.postgresImage }}
- name: MOORING_POSTGRES_IMAGE
  value: {{ . | quote }}
{{- end }}
{{- with .Values.components.storageClass }}
- name: MOORING_STORAGE_CLASS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.components.clusterDomain }}
- name: MOORING_CLUSTER_DOMAIN
  value: {{ . | quote }}
{{- end }}
- name: MOORING_POD_SECURITY
  value: {{ .Values.policy.podSecurity | quote }}
- name: MOORING_ALLOW_HOST_PATH
  value: {{ .Values.policy.allowHostPath | quote }}
- name: MOORING_ALLOW_PRIVILEGED
  value: {{ .Values.policy.allowPrivileged | quote }}
# The agent refuses deployments that would run as its own ServiceAccount.
- name: MOORING_SERVICE_ACCOUNT
  valueFrom:
    fieldRef:
      fieldPath: spec.serviceAccountName
{{- with .Values.references.serviceAccounts }}
- name: MOORING_DEPLOYMENT_SERVICE_ACCOUNTS
  value: {{ join "," . | quote }}
{{- end }}
- name: MOORING_ALLOW_SERVICE_ACCOUNT_TOKENS
  value: {{ .Values.references.allowServiceAccountTokens | quote }}
{{- with .Values.references.namespaceTenants }}
- name: MOORING_NAMESPACE_TENANTS
  value: {{ include "mooring.namespaceTenants" . | quote }}
{{- end }}
{{- with .Values.policy.allowedVolumeTypes }}
- name: MOORING_ALLOWED_VOLUME_TYPES
  value: {{ join "," . | quote }}
{{- end }}
- name: MOORING_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with include "mooring.proxyEnv" . }}
{{- . | nindent 0 }}
{{- end }}
{{- if or .Values.controlPlane.ca.configMap .Values.controlPlane.ca.secret }}
- name: MOORING_CONTROL_PLANE_CA_FILE
  value: /etc/mooring/control-plane-ca/ca.crt
{{- end }}
{{- if .Values.controlPlane.clientCertificate.secret }}
- name: MOORING_CONTROL_PLANE_CLIENT_CERT_FILE
  value: /etc/mooring/control-plane-client/tls.crt
- name: MOORING_CONTROL_PLANE_CLIENT_KEY_FILE
  value: /etc/mooring/control-plane-client/tls.key
{{- end }}
{{- with .Values.extraEnv }}
{{- toYaml . | nindent 0 }}
{{- end }}
{{- end }}

{{/* Volume mounts of the agent container. */}}
{{- define "mooring.agentVolumeMounts" -}}
- name: api-key
  mountPath: /var/run/secrets/mooring
  readOnly: true
- name: kube-api-access
  mountPath: /var/run/secrets/kubernetes.io/serviceaccount
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- if or .Values.controlPlane.ca.configMap .Values.controlPlane.ca.secret }}
- name: control-plane-ca
  mountPath: /etc/mooring/control-plane-ca
  readOnly: true
{{- end }}
{{- if .Values.controlPlane.clientCertificate.secret }}
- name: control-plane-client
  mountPath: /etc/mooring/control-plane-client
  readOnly: true
{{- end }}
- name: rendering
  mountPath: /etc/mooring/rendering
  readOnly: true
{{- end }}

{{/* Volumes of the agent pod. */}}
{{- define "mooring.agentVolumes" -}}
- name: api-key
  secret:
    secretName: {{ include "mooring.apiKeySecretName" . }}
    defaultMode: 0440
    items:
      - key: {{ include "mooring.apiKeySecretKey" . }}
        path: api-key
# What automount would give, made explicit: a short-lived, audience-bound token that the
# kubelet rotates, the cluster CA and the namespace, for the agent container only.
- name: kube-api-access
  projected:
    defaultMode: 0444
    sources:
      - serviceAccountToken:
          path: token
          expirationSeconds: 3607
      - configMap:
          name: kube-root-ca.crt
          items:
            - key: ca.crt
              path: ca.crt
      - downwardAPI:
          items:
            - path: namespace
              fieldRef:
                fieldPath: metadata.namespace
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- with .Values.controlPlane.ca }}
{{- if .configMap }}
- name: control-plane-ca
  configMap:
    name: {{ .configMap }}
    defaultMode: 0444
    items:
      - key: {{ .key }}
        path: ca.crt
{{- else if .secret }}
- name: control-plane-ca
  secret:
    secretName: {{ .secret }}
    defaultMode: 0444
    items:
      - key: {{ .key }}
        path: ca.crt
{{- end }}
{{- end }}
{{- with .Values.controlPlane.clientCertificate.secret }}
- name: control-plane-client
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
{{- end }}
- name: rendering
  configMap:
    name: {{ include "mooring.fullname" . }}-rendering
    defaultMode: 0444
{{- end }}

{{/* The agent's replicas: leaderElection.replicas with leader election, else 1. */}}
{{- define "mooring.replicas" -}}
{{- ternary .Values.leaderElection.replicas 1 .Values.leaderElection.enabled }}
{{- end }}

{{/*
topologySpreadConstraints of the agent pods: the values' own when set; else, with more than one
replica, a soft spread over nodes, so that one node's loss does not take the leader and its
standby at once (ScheduleAnyway: a one-node cluster still runs both).
*/}}
{{- define "mooring.topologySpread" -}}
{{- if .Values.topologySpreadConstraints }}
{{- toYaml .Values.topologySpreadConstraints }}
{{- else if gt (int (include "mooring.replicas" .)) 1 }}
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "mooring.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}
