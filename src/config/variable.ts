/**
 * How a variable of the table is declared: its default given once, as data, so that the
 * parser uses it and the default column of docs/configuration.md can be checked against it.
 */
import type { z } from 'zod';
import { optionalText } from './parsers.js';

/** One environment variable. */
export interface Variable<T> {
  name: string;
  /** Parses the raw text; an unset or blank variable gets `default`. */
  schema: z.ZodType<T, string | undefined>;
  /** The text used when the variable is unset or blank; `undefined`: it stays unset. */
  default: string | undefined;
  example: string;
  /** Never echo the value: not in errors, not in logs. */
  secret: boolean;
  /**
   * A secret variable's value as an error may show it, the secret taken out (the user
   * and host of a URL help to find what is wrong with it); without it, nothing is shown.
   */
  shown?: ((raw: string) => string) | undefined;
  description: string;
}

/** A variable as the table declares it. */
interface VariableSpec<T> {
  name: string;
  default?: string;
  /** Parses the trimmed, non-blank text. */
  parse: z.ZodType<T, string>;
  example: string;
  secret: boolean;
  shown?: (raw: string) => string;
  description: string;
}

/** A table entry: unset or blank gives `default`, or `undefined` when it has none. */
export function variable<T>(spec: VariableSpec<T> & { default: string }): Variable<T>;
export function variable<T>(spec: VariableSpec<T>): Variable<T | undefined>;
export function variable<T>({ parse, ...spec }: VariableSpec<T>): Variable<T | undefined> {
  const fallback = spec.default;
  const schema =
    fallback === undefined
      ? optionalText.pipe(parse.optional())
      : optionalText.transform((v) => v ?? fallback).pipe(parse);
  return { ...spec, default: fallback, schema };
}
