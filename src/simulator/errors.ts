/**
 * Errors the simulator's control operations raise for bad input. The HTTP control API
 * answers them with 400 and their message; in-process callers see them thrown.
 */
export class SimulatorInputError extends Error {
  override readonly name = 'SimulatorInputError';
}
