/**
 * Kubernetes' DNS-1123 name forms (apimachinery's `IsDNS1123Label` and `IsDNS1123Subdomain`): what
 * namespaces, object names, hosts and the agent's settings are checked against, in one place.
 */

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A DNS-1123 label: a namespace's name, for one. */
export function isDnsLabel(s: string): boolean {
  return s.length > 0 && s.length <= 63 && LABEL.test(s);
}

/** A DNS-1123 subdomain: most object names, and label key prefixes. */
export function isDnsSubdomain(s: string): boolean {
  return s.length > 0 && s.length <= 253 && SUBDOMAIN.test(s);
}
