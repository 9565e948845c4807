/**
 * `NO_PROXY` matching as Go's `golang.org/x/net/http/httpproxy` does it (kubectl, client-go and
 * most cluster tooling share it), so one value in a pod's environment means the same to the agent
 * as to everything beside it. undici's own matcher knows no CIDR rules and treats `*.x` and `.x`
 * as `x`, hence this one.
 *
 * Entries are separated by commas. Each is `*` (never proxy), an IP (`10.1.2.3`, optionally with a
 * port), a CIDR (`10.0.0.0/8`), or a domain with an optional port: `example.com` matches it and its
 * subdomains, `.example.com` and `*.example.com` its subdomains only. Malformed entries are
 * ignored. `localhost` and loopback addresses are never proxied.
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

interface DomainRule {
  /** With a leading dot. */
  suffix: string;
  /** The bare name matches too (no leading dot or `*.` was written). */
  matchesBare: boolean;
  port: string;
}

interface IpRule {
  ip: string;
  port: string;
}

/** A parsed `NO_PROXY` value. */
export interface NoProxy {
  /** True when a request to `host` (a name or IP, IPv6 with or without brackets) on `port` goes direct. */
  bypasses(host: string, port: string | number): boolean;
}

/** Splits `host:port` / `[v6]:port`; undefined when there is no port. */
function splitHostPort(entry: string): { host: string; port: string } | undefined {
  const bracketed = /^\[([^\]]*)\]:(\d*)$/.exec(entry);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ?? '' };
  const plain = /^([^:[\]]*):(\d*)$/.exec(entry);
  if (plain) return { host: plain[1] ?? '', port: plain[2] ?? '' };
  return undefined;
}

function isLoopback(ip: string): boolean {
  const loopback = new BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addAddress('::1', 'ipv6');
  return loopback.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6');
}

/** Parses a `NO_PROXY` value (empty or undefined: nothing bypasses but loopback). */
export function parseNoProxy(value: string | undefined): NoProxy {
  const cidrs = new BlockList();
  const ips: IpRule[] = [];
  const domains: DomainRule[] = [];
  let all = false;
  for (const raw of (value ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') {
      all = true;
      break;
    }
    const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = isIP(cidr[1] ?? '');
      const bits = Number(cidr[2]);
      if (family !== 0 && bits <= (family === 4 ? 32 : 128))
        cidrs.addSubnet(cidr[1] ?? '', bits, family === 4 ? 'ipv4' : 'ipv6');
      continue;
    }
    const split = splitHostPort(entry);
    let host = split ? split.host : entry;
    const port = split?.port ?? '';
    if (split && host === '') continue;
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    if (isIP(host) !== 0) {
      ips.push({ ip: host, port });
      continue;
    }
    if (host === '') continue;
    if (host.startsWith('*.')) host = host.slice(1);
    const matchesBare = !host.startsWith('.');
    const name = matchesBare ? host : host.slice(1);
    // Internationalized names compare in their ASCII (punycode) form, as the URL parser gives hosts.
    domains.push({ suffix: `.${domainToASCII(name) || name}`, matchesBare, port });
  }
  return {
    bypasses(hostIn, portIn) {
      const port = String(portIn);
      let host = hostIn.trim().toLowerCase();
      if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
      if (host === 'localhost') return true;
      const family = isIP(host);
      if (family !== 0 && isLoopback(host)) return true;
      if (all) return true;
      if (family !== 0) {
        if (cidrs.check(host, family === 4 ? 'ipv4' : 'ipv6')) return true;
        // A BlockList of one address compares IPs by value, so `::1` equals `0:0::1`.
        const same = new BlockList();
        same.addAddress(host, family === 4 ? 'ipv4' : 'ipv6');
        for (const rule of ips) {
          if (isIP(rule.ip) !== family || (rule.port !== '' && rule.port !== port)) continue;
          if (same.check(rule.ip, family === 4 ? 'ipv4' : 'ipv6')) return true;
        }
      }
      for (const rule of domains) {
        const hit = host.endsWith(rule.suffix) || (rule.matchesBare && host === rule.suffix.slice(1));
        if (hit && (rule.port === '' || rule.port === port)) return true;
      }
      return false;
    },
  };
}
