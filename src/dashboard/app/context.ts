import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Api } from "./api.ts";
import type { Environment, Session } from "./session.ts";

export interface Dashboard {
  session: Session;
  environment: Environment;
  api: Api;
  isAdmin: boolean;
  canWrite: boolean;
}

export const DashboardContext = createContext<Dashboard | null>(null);

export function useDashboard(): Dashboard {
  const value = useContext(DashboardContext);
  if (!value) throw new Error("useDashboard outside the signed-in dashboard");
  return value;
}
