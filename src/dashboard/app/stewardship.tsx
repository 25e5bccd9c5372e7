// The institutions the organization stewards in the current environment (what it may write):
// every page that offers a write asks here, and the overview and members pages list them by name.
import type { Api } from "./api.ts";
import { useDashboard } from "./context.ts";
import { InstitutionName } from "./names.tsx";
import { ok, useLoad } from "./ui.tsx";

export interface Stewardship {
  allInstitutions: boolean;
  institutionIds: string[];
}

const PAGE = 100;
const loaded = new WeakMap<Api, Promise<Stewardship>>();

/** Every stewarded institution id (the API pages them), read once per environment. */
export function loadStewardship(api: Api): Promise<Stewardship> {
  let found = loaded.get(api);
  if (!found) {
    found = (async () => {
      const institutionIds: string[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const page = ok(await api.raw.GET("/organizations/me", { params: { query: { limit: PAGE, offset } } }));
        institutionIds.push(...page.data.stewardship.institutionIds);
        if (page.data.stewardship.allInstitutions) return { allInstitutions: true, institutionIds };
        if (offset + PAGE >= page.pagination.total) return { allInstitutions: false, institutionIds };
      }
    })();
    found.catch(() => loaded.delete(api));
    loaded.set(api, found);
  }
  return found;
}

export function useStewardship() {
  const { api } = useDashboard();
  return useLoad(() => loadStewardship(api), [api]);
}

export function stewards(stewardship: Stewardship, institutionId: string): boolean {
  return stewardship.allInstitutions || stewardship.institutionIds.includes(institutionId);
}

export function hasStewardship(stewardship: Stewardship): boolean {
  return stewardship.allInstitutions || stewardship.institutionIds.length > 0;
}

/** The stewarded institutions by name (ids on hover). */
export function StewardedInstitutions({ ids }: { ids: string[] }) {
  return (
    <ul>
      {ids.map((id) => (
        <li key={id}>
          <InstitutionName id={id} />
        </li>
      ))}
    </ul>
  );
}
