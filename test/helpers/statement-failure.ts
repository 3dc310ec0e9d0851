/** The error a statement failed with, its fields (SQLSTATE, detail, …) readable; throws when it succeeded. */
export async function statementFailure(work: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  const outcome = await work.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error("expected the statement to fail");
  return outcome as Error & Record<string, unknown>;
}
