/** How far back `silence list` shows silences that ended: its help says it, its action reads it. */
export const RECENTLY_ENDED_MS = 86_400_000;
