// The formats `date` and `date-time` as this service accepts them: RFC 3339 text that is a real
// calendar date with a time the databases and JavaScript both hold. The JSON Schema formats alone
// let through what PostgreSQL or `new Date` then fail on (a 500): year 0000, a leap second
// (23:59:60), an offset without minutes (+01). Years are bounded to 1900–9999; seconds to 0–59.
export const MIN_YEAR = 1900;
export const MAX_YEAR = 9999;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):?(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]);
}

/** A calendar date `YYYY-MM-DD` in years 1900–9999. */
export function isBoundedDate(text: string): boolean {
  const match = DATE.exec(text);
  return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** An RFC 3339 date-time with a time zone, in years 1900–9999, without a leap second. */
export function isBoundedDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match) return false;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.map(Number);
  if (!isCalendarDate(year, month, day)) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (match[7] !== undefined && (offsetHours > 23 || offsetMinutes > 59)) return false;
  return !Number.isNaN(Date.parse(text));
}

/** What a 400 says of a value outside these formats. */
export const BOUNDED_DATE_MESSAGE = `must be a date written YYYY-MM-DD, e.g. 2024-08-15, in the years ${MIN_YEAR}-${MAX_YEAR}`;
export const BOUNDED_DATE_TIME_MESSAGE = `must be a date and time written YYYY-MM-DDThh:mm:ssZ (RFC 3339, time zone Z or ±hh:mm), e.g. 2024-08-15T09:30:00Z, in the years ${MIN_YEAR}-${MAX_YEAR}, seconds 00-59 (no leap second)`;
