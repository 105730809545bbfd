// A client of the Hall written to m1nd-ui's types: it says a roster as
// m1nd's presence strip does (one line per collision, then one row per
// presence), reading only the fields those types name.
import type { PresenceEntry, PresenceCollision, PresenceResponse } from './types';

function base(p: string): string {
  const parts = p.split('/').filter((s) => s.length > 0);
  return parts.length > 0 ? parts[parts.length - 1] : p;
}

function collisionLine(c: PresenceCollision): string {
  const ids = c.agent_ids.join(', ');
  const n = c.agent_ids.length;
  if (c.reason === 'declared_overlap') {
    return `${n} agents have overlapping declared work — ${ids} · ${base(c.brain_root)}`;
  }
  const place = c.caller_root?.trim() || c.brain_root;
  return `${n} agents writing in the same worktree — ${ids} · ${base(place)}`;
}

function row(p: PresenceEntry): string {
  let where = base(p.root);
  const cr = p.caller_root?.trim();
  if (cr && cr !== p.root) where += ` · ${base(cr)}`;
  let signal = 'none';
  if (p.mutation.observed_at_ms != null) signal = 'observed';
  else if (p.mutation.declared_intent?.trim()) signal = 'declared';
  let out = `${p.agent_id} ${where} [${signal}]`;
  if (p.task_ref) out += ` · ${p.task_ref}`;
  if (!(p.last_seen_ms > 0) || !(p.first_seen_ms > 0) || p.first_seen_ms > p.last_seen_ms) out += ' (no age)';
  return out;
}

export function render(r: PresenceResponse): string[] {
  return [...(r.collisions ?? []).map(collisionLine), ...r.presences.map(row)];
}

export function servedRoot(r: PresenceResponse): string | null {
  return r.served_brain?.project_root ?? null;
}
