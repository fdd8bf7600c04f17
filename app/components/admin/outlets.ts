import { useOutletContext } from "@remix-run/react";
import type { User } from "./admin-api";

/** What the user page layout hands its tabs. */
export interface UserOutlet {
  user: User;
  reload: () => void;
}

/** What the group page layout hands its tabs. */
export interface GroupOutlet {
  group: { group_id: string; group_name: string };
}

export const useAdminUser = () => useOutletContext<UserOutlet>();
export const useAdminGroup = () => useOutletContext<GroupOutlet>();
