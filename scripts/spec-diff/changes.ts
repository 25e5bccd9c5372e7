// The list of changes a comparison finds. A change inside a shared component
// (a schema, parameter, header or response under `components`) is recorded
// once, at the component, with the operations that use it.
import { classify, type ChangeKind, type Direction, type Severity } from "./classify.ts";

export interface Change {
  kind: ChangeKind;
  severity: Severity;
  direction?: Direction;
  /** Where: an operation ("GET /courses (listCourses)"), or a component and field ("Course.title"). */
  location: string;
  message: string;
  /** Labels of the operations through which the change is reached, when it is inside a component. */
  usedBy: string[];
}

export interface Context {
  /** The operation being compared; empty outside operations (info, servers, components). */
  operation: string;
  location: string;
  direction?: Direction;
}

export class ChangeLog {
  private readonly changes = new Map<string, Change>();
  private readonly componentChanges = new Map<string, Change[]>();
  private readonly inProgress = new Set<string>();
  /** Collectors of the components being compared, innermost last. */
  private readonly collecting: Change[][] = [];

  add(kind: ChangeKind, context: Context, message: string): void {
    const direction = kind === "documentation" || kind === "deprecated" ? undefined : context.direction;
    const key = [kind, direction, context.location, message].join("\u0000");
    let change = this.changes.get(key);
    if (!change) {
      change = {
        kind,
        severity: classify(kind, direction),
        direction,
        location: context.location,
        message,
        usedBy: [],
      };
      this.changes.set(key, change);
    }
    this.noteUse(change, context.operation);
  }

  /**
   * Compares a component once per direction: a later visit from another
   * operation only adds that operation to the changes found the first time.
   */
  withinComponent(key: string, context: Context, compare: () => void): void {
    const cacheKey = `${context.direction ?? ""}|${key}`;
    const known = this.componentChanges.get(cacheKey);
    if (known) {
      for (const change of known) this.noteUse(change, context.operation);
      return;
    }
    if (this.inProgress.has(cacheKey)) return; // a recursive schema: its changes are being collected already
    this.inProgress.add(cacheKey);
    const found: Change[] = [];
    this.collecting.push(found);
    try {
      compare();
    } finally {
      this.collecting.pop();
      this.inProgress.delete(cacheKey);
    }
    this.componentChanges.set(cacheKey, found);
  }

  /** Breaking changes first, each group in the order found. */
  sorted(): Change[] {
    const all = [...this.changes.values()];
    return [...all.filter((c) => c.severity === "breaking"), ...all.filter((c) => c.severity !== "breaking")];
  }

  private noteUse(change: Change, operation: string): void {
    if (operation && !change.usedBy.includes(operation)) change.usedBy.push(operation);
    for (const collector of this.collecting) if (!collector.includes(change)) collector.push(change);
  }
}
