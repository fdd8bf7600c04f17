/** A task's display name from its entities: "photo.jpg" or "photo.jpg и ещё 4". */
export function titleOf(entities: readonly { id: string }[], names: Map<string, string>): string {
  const first = entities[0] ? names.get(entities[0].id) ?? entities[0].id : "—";
  return entities.length > 1 ? `${first} и ещё ${entities.length - 1}` : first;
}
