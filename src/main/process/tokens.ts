// The one reader of the environment variables that hold tokens (--bearer-env and the scenario's
// bearerEnv, --token-env, --push-token-env): a flag names a variable, never the token itself, so
// the token stays out of argv, shell history and the report. Nothing else in src/ reads
// process.env for a token.
import { UsageError } from "../../core/errors.ts";

/** The variable's value; unset and empty both read as none. */
function held(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === "" ? undefined : v;
}

/**
 * The token held by the variable `name` that `flag` named; undefined when no variable was named.
 * A named variable that is unset or empty is a usage error naming the flag and the variable (of
 * `command` where the error's line needs it).
 */
export function tokenFromEnv(flag: string, name: string | undefined, command?: string): string | undefined {
  if (name === undefined) return undefined;
  const v = held(name);
  if (v === undefined) throw new UsageError(`${flag} ${name}: the variable is empty or unset`, command);
  return v;
}

/** The tokens the named variables hold, those unset or empty left out: what a redaction hides. */
export function tokensHeld(names: Iterable<string>): string[] {
  return [...names].flatMap((n) => held(n) ?? []);
}
