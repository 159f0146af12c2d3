/** The seed's answer shapes. Every application outcome is sent with HTTP 200. */

export function okReply<T extends Record<string, unknown>>(fields: T): { result: 'OK'; message: '' } & T {
  return { result: 'OK', message: '', ...fields };
}

export function failReply(message: string, failUrl: string) {
  return { result: 'FAIL' as const, message, fail_url: failUrl };
}
