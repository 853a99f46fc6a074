/** The plans the sandbox emulates (`sandbox serve --plan`, LINKCTL_SANDBOX_PLAN); here, so that help loads no sandbox code. */
export const PLANS = ['pro', 'basic'] as const;
/** `pro` has every feature; `basic` lacks those that real servers drop silently. */
export type Plan = (typeof PLANS)[number];
