/**
 * The installation's plans (the admin API: an admin's key only). `GET api/plans` gives each plan's
 * id, name, `free`, prices (monthly, yearly, lifetime) and limits (links, clicks, retention and the
 * plan's permissions); `PUT api/plan/:planid/user/:userid` with `{type, expiration?}` subscribes a
 * user to one.
 */
import type { ApiClient } from '../http/client.js';
import type { Body } from '../http/envelope.js';
import { NetworkError } from '../errors.js';
import { compact, type Rec } from './values.js';

export const plans = {
  noun: 'plan',
  command: 'admin plans',
  list: 'api/plans',
  subscribe: (planId: number, userId: number) => `api/plan/${planId}/user/${userId}`,
  /** How a subscription is paid for: `type` of the subscribe body. */
  types: ['monthly', 'yearly', 'lifetime'] as const,
  listFields: ['id', 'name', 'free', 'monthly', 'yearly', 'lifetime', 'links', 'clicks', 'retention'],
} as const;

export type SubscriptionType = (typeof plans.types)[number];

/**
 * A plan as a record: the API's fields, with its prices and its limits of links, clicks and
 * retention also at the top (the table's columns); the permissions stay under `limits`.
 */
export function planRecord(raw: unknown): Rec {
  const plan = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Rec;
  const prices = (plan.prices && typeof plan.prices === 'object' ? plan.prices : {}) as Rec;
  const limits = (plan.limits && typeof plan.limits === 'object' ? plan.limits : {}) as Rec;
  return {
    ...plan,
    ...compact({ monthly: prices.monthly ?? plan.price_monthly, yearly: prices.yearly ?? plan.price_yearly, lifetime: prices.lifetime ?? plan.price_lifetime }),
    ...compact({ links: limits.links, clicks: limits.clicks, retention: limits.retention }),
  };
}

/** `GET api/plans`: every plan (an array under `data`, or a list envelope's `plans`). */
export async function listPlans(client: ApiClient): Promise<Rec[]> {
  const body = await client.request('GET', plans.list, { expect: ['data'] });
  const data = body.data;
  const list = Array.isArray(data) ? data : data && typeof data === 'object' && Array.isArray((data as Rec).plans) ? ((data as Rec).plans as unknown[]) : undefined;
  if (!list) throw new NetworkError("the server's answer to the plan list lacks the `data` list of plans");
  return list.map(planRecord);
}

/** `PUT api/plan/:planid/user/:userid`. */
export function subscribe(client: ApiClient, planId: number, userId: number, body: { type: SubscriptionType; expiration?: string }): Promise<Body> {
  return client.request('PUT', plans.subscribe(planId, userId), { json: compact({ ...body }), about: `plan ${planId}, user ${userId}` });
}
