// What every event type declares: its name, as endpoints subscribe to it, and what it reports, as the
// dashboard's Events page says beside its checkbox. Its data's type and builder sit beside it, in the
// type's own module; event-types.ts registers them.

export interface EventTypeDefinition<T extends string = string> {
  readonly type: T;
  /** When it is sent, in a few words ("a call ends"). */
  readonly hint: string;
}

export function defineEventType<const T extends string>(type: T, hint: string): EventTypeDefinition<T> {
  return { type, hint };
}

/**
 * The fields of `Data` a statement fills as it runs (a customer it finds, a time it reads), when the event is
 * written by the change's own statement: the rest is built here, before it runs, and travels as one parameter.
 */
export type BuiltBefore<Data, FromStatement extends keyof Data> = Omit<Data, FromStatement>;
