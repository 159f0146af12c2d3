/**
 * Dates rendered in an account's time zone, fast enough for a list of a million members:
 * the zone's UTC offset is looked up once per quarter hour of time and cached, the rest is
 * arithmetic.
 */

export interface DateFormatter {
  /** YYYY-MM-DD */
  date(instant: number): string;
  /** YYYY-MM-DD hh:mm:ss */
  dateTime(instant: number): string;
}

const SLOT = 15 * 60 * 1000;
const MAX_CACHED_SLOTS = 50_000;

export function createDateFormatter(timeZone: string): DateFormatter {
  const offsetAt = timeZone === 'UTC' ? () => 0 : offsetFinder(timeZone);
  const local = (instant: number) => new Date(instant + offsetAt(instant));
  return {
    date(instant) {
      const d = local(instant);
      return `${year(d)}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
    },
    dateTime(instant) {
      const d = local(instant);
      return `${year(d)}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
    },
  };
}

function offsetFinder(timeZone: string): (instant: number) => number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const cache = new Map<number, number>();
  const compute = (instant: number) => {
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
    return wall - Math.floor(instant / 1000) * 1000;
  };
  return (instant) => {
    // Zones change offset on whole quarter hours, so one lookup serves the whole slot.
    const slot = Math.floor(instant / SLOT);
    let offset = cache.get(slot);
    if (offset === undefined) {
      if (cache.size >= MAX_CACHED_SLOTS) cache.clear();
      offset = compute(slot * SLOT);
      cache.set(slot, offset);
    }
    return offset;
  };
}

function two(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function year(d: Date): string {
  return String(d.getUTCFullYear()).padStart(4, '0');
}
