/** Figures the tests print for `npm run reliability` (only when RELIABILITY_REPORT is set). */
export const REPORTING = Boolean(process.env.RELIABILITY_REPORT);

export function figure(name: string, value: unknown): void {
  if (REPORTING) console.log(`FIGURE ${name} = ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}
