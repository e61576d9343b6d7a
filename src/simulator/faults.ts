/**
 * Injected failures: errors, rate limits, slow, broken, huge and deeply nested responses
 * and dropped connections, queued first in, first out, so client tests can script what goes wrong.
 */
import { z } from 'zod';
import { SimulatorInputError } from './errors.js';
import type { FaultSpec } from './types.js';

/** The accepted form of a fault, shared by the in-process and HTTP control APIs. */
export const faultSchema = z.strictObject({
  kind: z.enum([
    '500',
    '503',
    '429',
    'delay',
    'malformed-json',
    'broken-record',
    'reset',
    'large-body',
    'deep-record',
  ]),
  count: z.number().int().positive().optional(),
  path: z.string().startsWith('/').optional(),
  retryAfter: z.number().int().nonnegative().optional(),
  delayMs: z.number().nonnegative().finite().optional(),
  bytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 40)
    .optional(),
  depth: z.number().int().positive().max(10_000_000).optional(),
  field: z.string().min(1).optional(),
});

/** A queued fault with its remaining count. */
export interface ActiveFault extends FaultSpec {
  count: number;
  path: string;
}

/** The fault queue of one simulator. */
export class FaultQueue {
  private queue: ActiveFault[] = [];

  /** Queues a fault after the ones already queued. */
  inject(spec: FaultSpec): void {
    const parsed = faultSchema.safeParse(spec);
    if (!parsed.success) {
      throw new SimulatorInputError(`invalid fault: ${describeIssues(parsed.error)}`);
    }
    if (parsed.data.kind === 'delay' && parsed.data.delayMs === undefined) {
      throw new SimulatorInputError('invalid fault: delay needs delayMs');
    }
    if (parsed.data.kind === 'large-body' && parsed.data.bytes === undefined) {
      throw new SimulatorInputError('invalid fault: large-body needs bytes');
    }
    if (parsed.data.kind === 'deep-record' && parsed.data.depth === undefined) {
      throw new SimulatorInputError('invalid fault: deep-record needs depth');
    }
    this.queue.push({
      ...parsed.data,
      count: parsed.data.count ?? 1,
      path: parsed.data.path ?? '',
    });
  }

  /** Drops every queued fault. */
  clear(): void {
    this.queue = [];
  }

  /** The first queued fault matching a path under /api/v1, consuming one of its count. */
  take(path: string): ActiveFault | undefined {
    const index = this.queue.findIndex((f) => path.startsWith(f.path));
    if (index < 0) return undefined;
    const fault = this.queue[index];
    fault.count -= 1;
    if (fault.count <= 0) this.queue.splice(index, 1);
    return { ...fault };
  }
}

/** A one-line description of zod issues, for 400 messages. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}
