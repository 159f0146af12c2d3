/**
 * No SSRF through webhooks: a receiver must be on a public address. A URL whose host resolves
 * to a loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved or
 * unspecified address is refused when the endpoint is added, and again at every connection
 * (the check is the connection's own DNS look-up, so a name that changes to a private
 * address after the check cannot slip through), unless WEBHOOKS_ALLOW_PRIVATE_ADDRESSES.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** Why an address may not receive webhooks; undefined when it is a public unicast one. */
export function refusedAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${address} is a ${range} address`;
}

export class BlockedAddress extends Error {}

/** A DNS look-up for node:http that fails on any address webhooks may not reach. */
export function guardedLookup(allowPrivate: boolean, refusal = 'webhooks go to public addresses only') {
  return (
    hostname: string,
    options: object,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...(options as LookupAllOptions), all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const refused = refusedAddress(address);
          if (refused) return callback(new BlockedAddress(`${hostname}: ${refused}; ${refusal}`), []);
        }
      }
      if ((options as { all?: boolean }).all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Checks a URL's host now (at `webhook add`, or a mail server set in the console): the reason
 * it is refused, or undefined. `refusal` says what must be public.
 */
export async function checkReceiver(url: URL, allowPrivate: boolean, refusal?: string): Promise<string | undefined> {
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    guardedLookup(false, refusal)(host, { all: true }, (error) => resolve(error ? error.message : undefined));
  });
}
