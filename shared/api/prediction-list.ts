import * as z from '../zod-mini.ts';
import { decodeOpaqueCursor, encodeOpaqueCursor, FOREIGN_CURSOR } from './page-links.ts';
import { PrognozError } from '../domain/errors.ts';
import { parsePredictionId } from '../domain/ids.ts';
import { ACTIVE_STATUSES, TERMINAL_STATUSES, type PredictionStatus } from '../domain/prediction.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ListPosition } from '../ports/prediction-store.ts';

/** `GET /predictions`: its query parameters, and the cursors its pages link each other with. */

export const LIST_PAGE_SIZE = 100;

export interface ListFilters {
  /** At or after this time, in the stored form. */
  readonly createdAfter?: string;
  /** Before this time, in the stored form. */
  readonly createdBefore?: string;
  readonly model?: string;
  readonly status?: PredictionStatus;
}

/** Which way to walk from the position: `older` for `next`, `newer` for `previous`. */
export interface ListCursor {
  readonly toward: 'older' | 'newer';
  readonly position: ListPosition;
}

export interface ListRequest {
  readonly filters: ListFilters;
  readonly cursor: ListCursor | null;
}

const STATUSES: readonly PredictionStatus[] = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES];
const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const MODEL = /^[^/\s]+\/[^/\s]+$/;

const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** `2026-02-30` parses (as March 2): only a day the month has is a date. */
const isCalendarDate = (date: string): boolean => {
  const [year = 0, month = 0, day = 0] = date.split('-').map(Number);
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
};

const offsetOf = (zone: string | undefined): string => {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 'Z';
  const digits = zone.slice(1).replace(':', '');
  return `${zone.slice(0, 1)}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
};

/**
 * An ISO 8601 date or date-time in the stored form (UTC, microseconds), or null. A time without a
 * zone is UTC. Precision past the microsecond rounds up: both filters then keep exactly the
 * microsecond timestamps they should (`at or after x`, `before x`).
 */
export const parseInstant = (raw: string): string | null => {
  // An unescaped `+` in a query string arrives as a space.
  const match = ISO_DATE_TIME.exec(raw.trim().replace(/ (\d{2}(?::?\d{2})?)$/, '+$1'));
  if (!match) return null;
  const [, date = '', hours = '00', minutes = '00', seconds = '00', fraction = '', zone] = match;
  if (!isCalendarDate(date) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  const digits = fraction.padEnd(6, '0');
  const epochMs = Date.parse(`${date}T${hours}:${minutes}:${seconds}.${digits.slice(0, 3)}${offsetOf(zone)}`);
  if (Number.isNaN(epochMs)) return null;
  const roundsUp = /[1-9]/.test(digits.slice(6));
  const micros = Number(digits.slice(3, 6)) + (roundsUp ? 1 : 0);
  const iso = new Date(epochMs + Math.floor(micros / 1000)).toISOString();
  // Outside years 0000–9999 the ISO form grows a sign and would not sort with stored times.
  if (iso.length !== 24) return null;
  return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
};

const cursorShape = z.strictObject({
  toward: z.enum(['older', 'newer']),
  at: z.string().check(z.regex(STORED_TIMESTAMP)),
  id: z.string(),
});

/** The cursor as a URL-safe opaque string. */
export const encodeCursor = (cursor: ListCursor): string =>
  encodeOpaqueCursor({ toward: cursor.toward, at: cursor.position.createdAt, id: cursor.position.id });

/** The cursor a page link carried, or null when it is not one this API gave out. */
export const decodeCursor = (raw: string): ListCursor | null => {
  const parsed = decodeOpaqueCursor(raw, cursorShape);
  const id = parsed === null ? null : parsePredictionId(parsed.id);
  if (parsed === null || id === null) return null;
  return { toward: parsed.toward, position: { createdAt: parsed.at, id } };
};

const invalid = (message: string) => err(new PrognozError('invalid_query', message));

/**
 * The query parameters of `GET /predictions`. Unknown parameters are ignored, and an empty
 * value counts as none; a bad value is an `invalid_query` naming its parameter.
 */
export const parseListRequest = (
  params: Readonly<Record<string, string | undefined>> | null,
): Result<ListRequest, PrognozError> => {
  const given = (name: string): string | undefined => {
    const value = params?.[name]?.trim();
    return value === '' ? undefined : value;
  };
  const filters: { -readonly [K in keyof ListFilters]: ListFilters[K] } = {};
  for (const [name, key] of [
    ['created_after', 'createdAfter'],
    ['created_before', 'createdBefore'],
  ] as const) {
    const raw = given(name);
    if (raw === undefined) continue;
    const instant = parseInstant(raw);
    if (instant === null) return invalid(`${name} must be an ISO 8601 date-time, such as 2026-11-21T18:27:49Z`);
    filters[key] = instant;
  }
  const model = given('model');
  if (model !== undefined) {
    if (!MODEL.test(model)) return invalid('model must name a model as company/model');
    filters.model = model;
  }
  const status = given('status');
  if (status !== undefined) {
    const known = STATUSES.find((s) => s === status);
    if (!known) return invalid(`status must be one of ${STATUSES.join(', ')}`);
    filters.status = known;
  }
  const rawCursor = given('cursor');
  const cursor = rawCursor === undefined ? null : decodeCursor(rawCursor);
  if (rawCursor !== undefined && cursor === null) return invalid(FOREIGN_CURSOR);
  return ok({ filters, cursor });
};

/** The absolute address of a page: the same filters, and the cursor where it starts. */
export const listPageUrl = (apiBase: string, filters: ListFilters, cursor: ListCursor): string => {
  const query = new URLSearchParams();
  if (filters.createdAfter !== undefined) query.set('created_after', filters.createdAfter);
  if (filters.createdBefore !== undefined) query.set('created_before', filters.createdBefore);
  if (filters.model !== undefined) query.set('model', filters.model);
  if (filters.status !== undefined) query.set('status', filters.status);
  query.set('cursor', encodeCursor(cursor));
  return `${apiBase}/predictions?${query.toString()}`;
};
