/**
 * What the signed-in operator may change, for the pages to hide what it may not: a viewer sees no control
 * that changes anything (the server refuses such a change anyway, 403), except on its own account.
 */
import type { ComponentChildren } from "preact"
import { createContext } from "preact"
import { useContext } from "preact/hooks"
import type { OperatorRole } from "./api.js"

export const RoleContext = createContext<OperatorRole>("viewer")

/** Whether the operator is an admin, who may change anything. */
export const useIsAdmin = () => useContext(RoleContext) === "admin"

/** Its children for an admin; nothing for a viewer. */
export const AdminOnly = (
  props: { readonly children: ComponentChildren }
) => (useIsAdmin() ? <>{props.children}</> : null)
