// How `sandbox serve` flags and the LINKCTL_SANDBOX_* environment values become sandbox
// options. Loaded only with the sandbox (`sandbox` commands, `--sandbox`).
import { UsageError } from '../errors.js';
import { DEFAULT_QR_IMAGES, PLAN_NOTES, PLANS, QR_IMAGES, QR_IMAGES_NOTES, type Plan, type QrImages } from './types.js';
export type RateLimit = { limit: number; windowSeconds: number } | null;

/** `N/SECONDS` or `off`; `name` is the flag or environment variable, for the message. */
export function parseRateLimit(raw: string, name = '--rate-limit'): RateLimit {
  if (raw === 'off' || raw === 'none') return null;
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(raw.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new UsageError(`${name} must be N/SECONDS such as 30/60, or off; got "${raw}"`, `e.g. ${name === '--rate-limit' ? '--rate-limit ' : `${name}=`}30/60 (a real server's default: 30 requests a minute); the sandbox has no limit unless asked`);
  }
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) };
}

export function parsePlan(raw: string, name = '--plan'): Plan {
  const plan = raw.trim().toLowerCase();
  if (!(PLANS as readonly string[]).includes(plan)) {
    throw new UsageError(`${name} must be one of ${PLANS.join(', ')}; got "${raw}"`, `pro has every feature; ${PLAN_NOTES}`);
  }
  return plan as Plan;
}

export function parseQrImages(raw: string, name = '--qr-images'): QrImages {
  const kind = raw.trim().toLowerCase();
  if (!(QR_IMAGES as readonly string[]).includes(kind)) {
    throw new UsageError(`${name} must be one of ${QR_IMAGES.join(', ')}; got "${raw}"`, QR_IMAGES_NOTES);
  }
  return kind as QrImages;
}

/** LINKCTL_SANDBOX_PLAN, LINKCTL_SANDBOX_RATE_LIMIT, LINKCTL_SANDBOX_STRING_IDS and LINKCTL_SANDBOX_QR_IMAGES: the embedded sandbox's, and `sandbox serve`'s defaults. */
export function sandboxEnvironment(env: Record<string, string | undefined>): { plan: Plan; rateLimit: RateLimit; stringIds: boolean; qrImages: QrImages } {
  return { plan: sandboxPlan(env), rateLimit: sandboxRateLimit(env), stringIds: sandboxStringIds(env), qrImages: sandboxQrImages(env) };
}

/** LINKCTL_SANDBOX_STRING_IDS=1: ids and counts as strings, as servers on PHP before 8.1 send them. */
export function sandboxStringIds(env: Record<string, string | undefined>): boolean {
  return /^(1|true|yes|on)$/i.test(env.LINKCTL_SANDBOX_STRING_IDS?.trim() ?? '');
}

/** LINKCTL_SANDBOX_QR_IMAGES, read only where no --qr-images is given. */
export function sandboxQrImages(env: Record<string, string | undefined>): QrImages {
  const kind = env.LINKCTL_SANDBOX_QR_IMAGES;
  return kind ? parseQrImages(kind, 'LINKCTL_SANDBOX_QR_IMAGES') : DEFAULT_QR_IMAGES;
}

/** LINKCTL_SANDBOX_PLAN, read only where no --plan is given (a bad value then does not stand in the flag's way). */
export function sandboxPlan(env: Record<string, string | undefined>): Plan {
  const plan = env.LINKCTL_SANDBOX_PLAN;
  return plan ? parsePlan(plan, 'LINKCTL_SANDBOX_PLAN') : 'pro';
}

/** LINKCTL_SANDBOX_RATE_LIMIT, read only where no --rate-limit is given. */
export function sandboxRateLimit(env: Record<string, string | undefined>): RateLimit {
  const rateLimit = env.LINKCTL_SANDBOX_RATE_LIMIT;
  return rateLimit ? parseRateLimit(rateLimit, 'LINKCTL_SANDBOX_RATE_LIMIT') : null;
}
