/**
 * The API this server serves: the contract's `Api` and the portal's groups (which `OpenApi.Exclude`
 * keeps out of `/openapi.json`). Every group added here needs its handler layer in `App.ts`.
 */
import { Api } from "@pulsebridge/domain"
import {
  AccountGroup,
  AppsGroup,
  OperatorsGroup,
  OverviewGroup,
  SandboxGroup,
  SessionGroup,
  UsersGroup,
  WebhooksGroup
} from "@pulsebridge/portal/api"

export const ServedApi = Api.add(SessionGroup)
  .add(OperatorsGroup)
  .add(AppsGroup)
  .add(UsersGroup)
  .add(WebhooksGroup)
  .add(SandboxGroup)
  .add(OverviewGroup)
  .add(AccountGroup)
