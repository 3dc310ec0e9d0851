// Helpers the templates call: every date in UTC, spelled the same way everywhere.

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function day(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

function dateTime(date: Date): string {
  return `${day(date)} ${date.toISOString().slice(11, 16)} UTC`;
}

/** "Nov 23, 12:45 UTC": compact, for tables. */
function short(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.toISOString().slice(11, 16)} UTC`;
}

/** "Nov 23, 12:45:07": to the second, for the Requests page (its heading says UTC). */
function seconds(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.toISOString().slice(11, 19)}`;
}

/** "key_rolled" → "Key rolled". */
function eventName(event: string): string {
  const text = event.replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function number(value: number): string {
  return value.toLocaleString("en-US");
}

export const formatters = { fmt: { day, dateTime, short, seconds, eventName, number } };
