// The address customers reach this server at, the base of hosted invoice links. PUBLIC_URL when
// set: the name a proxy or load balancer in front serves, with its scheme (and a path prefix,
// if any). Unset, the server's own address as it listens (scheme, HOST, the port it got), which
// is right for local development and tests but reaches only this machine when HOST is a
// loopback address: production sets PUBLIC_URL. Never taken from a request's Host header: a
// link that goes out by e-mail must not point wherever a client said.
import type { Config } from '../config.ts';

/** Addresses that mean "every interface": no one can reach them by that name. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** The server's own URL for HOST and `port` (PORT, or the port it was given when PORT is 0). */
export function listeningUrl(
  config: Pick<Config, 'host' | 'port' | 'tlsCertFile'>,
  port = config.port,
): string {
  const scheme = config.tlsCertFile ? 'https' : 'http';
  const host = WILDCARDS.has(config.host)
    ? 'localhost'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host;
  return `${scheme}://${host}:${port}`;
}

/** PUBLIC_URL, else the listening address: `listening` gives it once the server listens. */
export function publicBaseUrl(
  config: Pick<Config, 'publicUrl' | 'host' | 'port' | 'tlsCertFile'>,
  listening: () => string | undefined = () => undefined,
): () => string {
  return () => config.publicUrl ?? listening() ?? listeningUrl(config);
}
