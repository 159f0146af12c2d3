/**
 * Client addresses as the lockout and the records see them: one canonical text per address
 * (ipaddr.js), so that `2001:DB8:0::1` and `2001:db8::1`, or `::ffff:192.0.2.1` and
 * `192.0.2.1`, are one address; and IPv6 grouped by /64, the block one subscriber gets, so
 * that walking through a block's addresses is walking through one.
 */
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { NO_ADDRESS } from './lockout.js';

/** The canonical text of a literal address (validated by `isIP`); IPv4-mapped IPv6 becomes IPv4. */
export function canonicalAddress(address: string): string {
  if (isIP(address) === 0) throw new Error(`not an IP address: ${address}`);
  return ipaddr.process(address).toString();
}

/** The scope an attempt from `address` is counted in: the IPv4 address, or the IPv6 /64. */
export function addressScope(address: string | null): string {
  if (address === null) return NO_ADDRESS;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

/** The scope of the client that sent a request (its socket's or trusted proxy's address): budgets and fair shares count by it. */
export function clientScope(requestIp: string): string {
  return isIP(requestIp) === 0 ? NO_ADDRESS : addressScope(canonicalAddress(requestIp));
}
