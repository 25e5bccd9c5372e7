// Free-text filters match literally: LIKE wildcards typed by a user are data.
export function containsInsensitive(text: string) {
  return { contains: text.replace(/[\\%_]/g, (c) => `\\${c}`), mode: "insensitive" as const };
}
