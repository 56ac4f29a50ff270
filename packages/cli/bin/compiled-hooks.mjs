/**
 * Module resolution hooks of the compiled `pulsebridge` command: every import resolves with the
 * `pulsebridge-compiled` export condition, so `@pulsebridge/*` packages load each other's
 * `build/src/*.js` instead of their TypeScript sources (the default, which development and tests use).
 */
const condition = "pulsebridge-compiled"

export const resolve = (specifier, context, nextResolve) =>
  nextResolve(
    specifier,
    context.conditions.includes(condition) ? context : { ...context, conditions: [...context.conditions, condition] }
  )
