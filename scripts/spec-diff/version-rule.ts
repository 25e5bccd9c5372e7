// The versioning rule for info.version (Semantic Versioning 2.0.0):
//  - the version never goes backwards;
//  - a non-breaking change needs no new version (additive changes are made
//    within v1, as the document's Versioning section says; `spec:release`
//    asks for a new version when recording a changed document);
//  - a breaking change needs a new major version, except before a stable
//    release: a prerelease (1.0.0-pilot) may break with a new prerelease tag
//    of the same version (1.0.0-pilot.2) or by becoming that release (1.0.0),
//    and a 0.y.z version with a new minor (0.y+1.0).
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseVersion(text: string): SemVer | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4] ? match[4].split(".") : [],
  };
}

/** Semantic Versioning precedence: negative when a < b. */
export function compareVersions(a: SemVer, b: SemVer): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core) return core;
  if (!a.prerelease.length || !b.prerelease.length) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const [x, y] = [a.prerelease[i], b.prerelease[i]];
    if (x === y) continue;
    const [xNumeric, yNumeric] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xNumeric && yNumeric) return Number(x) - Number(y);
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.prerelease.length - b.prerelease.length;
}

export interface VersionVerdict {
  ok: boolean;
  message: string;
}

export function checkVersionRule(baseVersion: string, headVersion: string, breaking: number): VersionVerdict {
  const [base, head] = [parseVersion(baseVersion), parseVersion(headVersion)];
  if (!head)
    return {
      ok: false,
      message: `info.version ${JSON.stringify(headVersion)} is not a semantic version (MAJOR.MINOR.PATCH[-PRERELEASE]).`,
    };
  if (!base)
    return {
      ok: true,
      message: `the released version ${JSON.stringify(baseVersion)} is not a semantic version; nothing to compare.`,
    };
  const order = compareVersions(head, base);
  if (order < 0) return { ok: false, message: `info.version goes backwards: ${baseVersion} → ${headVersion}.` };
  if (breaking === 0)
    return {
      ok: true,
      message:
        order === 0
          ? `no breaking change; info.version stays ${headVersion}.`
          : `no breaking change; info.version ${baseVersion} → ${headVersion}.`,
    };
  if (allowsBreaking(base, head))
    return {
      ok: true,
      message: `${breaking} breaking change(s) allowed by info.version ${baseVersion} → ${headVersion}.`,
    };
  return {
    ok: false,
    message: `${breaking} breaking change(s) need ${acceptedBumps(base, baseVersion)}; info.version is ${headVersion}.`,
  };
}

function allowsBreaking(base: SemVer, head: SemVer): boolean {
  if (head.major > base.major) return true;
  const sameCore = head.major === base.major && head.minor === base.minor && head.patch === base.patch;
  if (base.prerelease.length) return sameCore && compareVersions(head, base) > 0;
  return base.major === 0 && head.major === 0 && head.minor > base.minor;
}

function acceptedBumps(base: SemVer, baseVersion: string): string {
  const nextMajor = `${base.major + 1}.0.0`;
  const core = `${base.major}.${base.minor}.${base.patch}`;
  if (base.prerelease.length)
    return `a later prerelease of ${core} (e.g. ${baseVersion}.1), ${core} itself, or ${nextMajor}`;
  if (base.major === 0) return `a new minor (0.${base.minor + 1}.0) or ${nextMajor}`;
  return `a new major version (${nextMajor})`;
}
