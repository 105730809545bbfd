// m1nd's P1-UI contract as m1nd-ui types it: field names and types restated
// from maxkle1nz/m1nd, m1nd-ui/src/types.ts (PresenceEntry,
// PresenceMutation, PresenceCollisionReason, PresenceCollision,
// PresenceResponse, ServedBrain), nothing else of theirs. The Hall's
// answers must be assignable to PresenceResponse (TestP1UITypeScriptClient).

export interface PresenceMutation {
  observed_at_ms?: number | null;
  declared_intent?: string | null;
}

export interface PresenceEntry {
  agent_id: string;
  root: string;
  caller_root?: string | null;
  first_seen_ms: number;
  last_seen_ms: number;
  query_count: number;
  mutation: PresenceMutation;
  task_ref?: string | null;
}

export type PresenceCollisionReason = 'same_worktree' | 'declared_overlap';

export interface PresenceCollision {
  brain_root: string;
  caller_root?: string | null;
  agent_ids: string[];
  reason: PresenceCollisionReason;
}

export interface ServedBrain {
  project_root: string | null;
  display_name: string | null;
}

export interface PresenceResponse {
  presences: PresenceEntry[];
  collisions?: PresenceCollision[];
  served_brain?: ServedBrain;
}

// Writable drops the readonly that `as const` puts on a literal, keeping
// its literal types, so an answer is checked against the types as a value
// a client received (no excess-property check: the Hall's own fields ride
// beside m1nd's, as TypeScript's structural types allow).
export type Writable<T> = T extends readonly (infer U)[]
  ? Writable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Writable<T[K]> }
    : T;

export function received<T>(x: T): Writable<T> {
  return x as Writable<T>;
}
