import { describe, expect, it } from 'vitest';
import { addPeriods, effectiveState, expiryActionFromCreateMode, isPeriodUnit } from '../../src/members/lifecycle.js';

const at = (iso: string) => Date.parse(iso);

describe('addPeriods', () => {
  it('adds minutes and hours as exact durations', () => {
    expect(addPeriods(at('2026-03-29T00:30:00Z'), 90, 'm', 'Europe/Paris')).toBe(at('2026-03-29T02:00:00Z'));
    expect(addPeriods(at('2026-03-29T00:30:00Z'), 2, 'h', 'Europe/Paris')).toBe(at('2026-03-29T02:30:00Z'));
  });

  it('adds days, months and years on the calendar of the time zone', () => {
    expect(addPeriods(at('2026-01-31T10:00:00Z'), 1, 'M', 'UTC')).toBe(at('2026-02-28T10:00:00Z'));
    expect(addPeriods(at('2028-02-29T10:00:00Z'), 1, 'Y', 'UTC')).toBe(at('2029-02-28T10:00:00Z'));
    expect(addPeriods(at('2026-12-31T23:00:00Z'), 1, 'D', 'UTC')).toBe(at('2027-01-01T23:00:00Z'));
    // Paris falls back to winter time in the night to 2026-10-25: that day is 25 hours long.
    expect(addPeriods(at('2026-10-24T10:00:00Z'), 1, 'D', 'Europe/Paris')).toBe(at('2026-10-25T11:00:00Z'));
    // The 31st of January in Tokyo is still the 30th in UTC: the month is Tokyo's.
    expect(addPeriods(at('2026-01-30T16:00:00Z'), 1, 'M', 'Asia/Tokyo')).toBe(at('2026-02-27T16:00:00Z'));
  });

  it('answers undefined past the year 9999', () => {
    expect(addPeriods(at('2026-01-01T00:00:00Z'), 8000, 'Y', 'UTC')).toBeUndefined();
    expect(addPeriods(at('2026-01-01T00:00:00Z'), 7000, 'Y', 'UTC')).toBe(at('9026-01-01T00:00:00Z'));
  });
});

describe('effectiveState', () => {
  const base = { status: 'A' as const, deletedAt: null, timeExpiry: { action: 'S' as const, at: 1000 } };

  it('keeps an active member active until the instant it expires', () => {
    expect(effectiveState(base, 999)).toEqual({ status: 'A', deletedAt: null });
  });

  it('suspends or deletes from the instant it expires, dating the deletion at that instant', () => {
    expect(effectiveState(base, 1000)).toEqual({ status: 'S', deletedAt: null });
    expect(effectiveState({ ...base, timeExpiry: { action: 'D', at: 1000 } }, 5000)).toEqual({ status: 'D', deletedAt: 1000 });
  });

  it('expires only active members', () => {
    expect(effectiveState({ ...base, status: 'S', timeExpiry: { action: 'D', at: 1000 } }, 5000)).toEqual({ status: 'S', deletedAt: null });
    expect(effectiveState({ ...base, status: 'D', deletedAt: 7 }, 5000)).toEqual({ status: 'D', deletedAt: 7 });
    expect(effectiveState({ ...base, timeExpiry: null }, 5000)).toEqual({ status: 'A', deletedAt: null });
  });
});

describe('create modes and units', () => {
  it('reads 0, 1 and 2, and nothing else', () => {
    expect(expiryActionFromCreateMode('0')).toBeNull();
    expect(expiryActionFromCreateMode('1')).toBe('S');
    expect(expiryActionFromCreateMode('2')).toBe('D');
    for (const bad of ['3', 'S', '', '01', 'constructor', '__proto__']) expect(expiryActionFromCreateMode(bad)).toBeUndefined();
  });

  it('knows the five units, case-sensitively', () => {
    for (const unit of ['m', 'h', 'D', 'M', 'Y']) expect(isPeriodUnit(unit)).toBe(true);
    for (const unit of ['d', 'H', 'y', 'W', 's', '']) expect(isPeriodUnit(unit)).toBe(false);
  });
});
